// Sliding-window counters in PostgreSQL (table rate_limits), so every instance shares them: `hit` and `peek`.
// rate_limits stores fixed windows and reads a sliding-window estimate: the current window's count plus the
// previous window's count weighted by how much of it still overlaps the last `windowSeconds` (rounded up), so a
// burst that straddles a window boundary is still counted as one burst.
import type { Db } from "../db/client.ts";
import { retryAfter } from "./taken.ts";

export interface WindowCount {
  /** attempts within roughly the last windowSeconds, this one included */
  count: number;
  /** seconds until the current window ends */
  retryAfter: number;
}

function estimate(current: number, previous: number, elapsed: number, windowSeconds: number): number {
  return current + Math.ceil(previous * Math.max(0, 1 - elapsed / windowSeconds));
}

/**
 * Now and then (one call in 50), deletes windows too old to matter: a window of up to a day needs only its
 * predecessor. Cheaper than sweeping on every attempt.
 */
export async function sweepOldWindows(db: Db): Promise<void> {
  if (Math.random() < 0.02) await db`delete from rate_limits where window_start < now() - interval '2 days'`;
}

/** Adds one to `bucket` and returns the sliding count. */
export async function hit(db: Db, bucket: string, windowSeconds: number): Promise<WindowCount> {
  const [row] = await db<{ count: number; start: number; now: number }[]>`
    with w as (
      select to_timestamp(floor(extract(epoch from now()) / ${windowSeconds}) * ${windowSeconds}) as start
    )
    insert into rate_limits (bucket, window_start, count)
    select ${bucket}, w.start, 1 from w
    on conflict (bucket, window_start) do update set count = rate_limits.count + 1
    returning count, extract(epoch from window_start)::float8 as start, extract(epoch from now())::float8 as now`;
  const [prev] = await db<{ count: number }[]>`
    select count from rate_limits
    where bucket = ${bucket} and window_start = to_timestamp(${row.start - windowSeconds})`;
  await sweepOldWindows(db);
  const elapsed = row.now - row.start;
  return {
    count: estimate(row.count, prev?.count ?? 0, elapsed, windowSeconds),
    retryAfter: retryAfter(windowSeconds - elapsed),
  };
}

/** The sliding count of each bucket (0 when absent), without adding to it. */
export async function peek(db: Db, buckets: string[], windowSeconds: number): Promise<Map<string, number>> {
  const rows = await db<{ bucket: string; start: number; count: number; now: number }[]>`
    select bucket, extract(epoch from window_start)::float8 as start, count, extract(epoch from now())::float8 as now
    from rate_limits
    where bucket = any(${buckets})
      and window_start >= to_timestamp((floor(extract(epoch from now()) / ${windowSeconds}) - 1) * ${windowSeconds})`;
  const out = new Map(buckets.map((b) => [b, 0]));
  for (const bucket of buckets) {
    const mine = rows.filter((r) => r.bucket === bucket);
    if (mine.length === 0) continue;
    const now = mine[0].now;
    const start = Math.floor(now / windowSeconds) * windowSeconds;
    const current = mine.find((r) => r.start === start)?.count ?? 0;
    const previous = mine.find((r) => r.start === start - windowSeconds)?.count ?? 0;
    out.set(bucket, estimate(current, previous, now - start, windowSeconds));
  }
  return out;
}
