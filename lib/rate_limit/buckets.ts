// A GCRA in PostgreSQL (table rate_buckets), so every instance shares it: `take` one attempt from a bucket.
import type { Db } from "../db/client.ts";
import { type Limit, retryAfter, type Taken } from "./taken.ts";

/**
 * Takes one attempt from `bucket` (table rate_buckets) or says how long until one is free. The bucket keeps one
 * time, `tat`: every allowed attempt moves it `windowSeconds / max` further; an attempt is allowed when that
 * leaves `tat` at most `windowSeconds` ahead. A refused attempt changes nothing, so waiting `retryAfter`
 * seconds is always enough (unless others take the slot first).
 */
export async function take(db: Db, bucket: string, limit: Limit): Promise<Taken> {
  const step = limit.windowSeconds / limit.max;
  const [row] = await db<{ ok: boolean }[]>`
    with ins as (
      insert into rate_buckets as b (bucket, tat) values (${bucket}, now() + make_interval(secs => ${step}))
      on conflict (bucket) do update set tat = greatest(b.tat, now()) + make_interval(secs => ${step})
      where greatest(b.tat, now()) + make_interval(secs => ${step})
        <= now() + make_interval(secs => ${limit.windowSeconds})
      returning 1
    )
    select exists (select 1 from ins) as ok`;
  // An empty bucket is the same as no row; sweep them now and then rather than on every attempt.
  if (Math.random() < 0.02) await db`delete from rate_buckets where tat < now()`;
  if (row.ok) return { ok: true };
  // A fresh read: a concurrent attempt may have moved tat after this statement's snapshot.
  const [state] = await db<{ wait: number | null }[]>`
    select extract(epoch from greatest(tat, now()) + make_interval(secs => ${
    step - limit.windowSeconds
  }) - now())::float8
      as wait
    from rate_buckets where bucket = ${bucket}`;
  return { ok: false, retryAfter: retryAfter(state?.wait ?? 1) };
}
