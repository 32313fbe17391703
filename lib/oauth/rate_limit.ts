// Fixed-window counters in the rate_limits table, so every instance shares them (registration, sign-in brake).
import type { Db } from "../db/client.ts";

export interface WindowCount {
  count: number;
  /** seconds until the current window ends */
  retryAfter: number;
}

/** Adds one to `bucket` in the current window and returns the new count. */
export async function hit(db: Db, bucket: string, windowSeconds: number): Promise<WindowCount> {
  const [row] = await db<{ count: number; retry_after: number }[]>`
    with w as (
      select to_timestamp(floor(extract(epoch from now()) / ${windowSeconds}) * ${windowSeconds}) as start
    )
    insert into rate_limits (bucket, window_start, count)
    select ${bucket}, w.start, 1 from w
    on conflict (bucket, window_start) do update set count = rate_limits.count + 1
    returning count,
      greatest(1, ceil(extract(epoch from window_start) + ${windowSeconds} - extract(epoch from now())))::int
        as retry_after`;
  // Old windows are useless; sweep them now and then rather than on every hit.
  if (Math.random() < 0.02) await db`delete from rate_limits where window_start < now() - interval '2 days'`;
  return { count: row.count, retryAfter: row.retry_after };
}

/** The current window's count for each bucket (0 when absent), without adding to it. */
export async function peek(db: Db, buckets: string[], windowSeconds: number): Promise<Map<string, number>> {
  const rows = await db<{ bucket: string; count: number }[]>`
    select bucket, count from rate_limits
    where bucket = any(${buckets})
      and window_start = to_timestamp(floor(extract(epoch from now()) / ${windowSeconds}) * ${windowSeconds})`;
  const out = new Map(buckets.map((b) => [b, 0]));
  for (const r of rows) out.set(r.bucket, r.count);
  return out;
}
