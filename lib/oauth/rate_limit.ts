// Rate limits in the database, so every instance shares them: `take` (a GCRA in rate_buckets: registration)
// and `reserve`/`release` (the sign-in brake) and `hit`/`peek` (plain counters) in rate_limits.
// rate_limits stores fixed windows and reads a sliding-window estimate: the current window's count plus the
// previous window's count weighted by how much of it still overlaps the last `windowSeconds` (rounded up), so a
// burst that straddles a window boundary is still counted as one burst.
import type { Db } from "../db/client.ts";

export interface WindowCount {
  /** attempts within roughly the last windowSeconds, this one included */
  count: number;
  /** seconds until the current window ends */
  retryAfter: number;
}

function estimate(current: number, previous: number, elapsed: number, windowSeconds: number): number {
  return current + Math.ceil(previous * Math.max(0, 1 - elapsed / windowSeconds));
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
  // Old windows are useless; sweep them now and then rather than on every hit.
  if (Math.random() < 0.02) await db`delete from rate_limits where window_start < now() - interval '2 days'`;
  const elapsed = row.now - row.start;
  return {
    count: estimate(row.count, prev?.count ?? 0, elapsed, windowSeconds),
    retryAfter: Math.max(1, Math.ceil(windowSeconds - elapsed)),
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

/**
 * A brake on attempts (the sign-in brake): up to `free` attempts within the sliding window pass at once; each
 * further one must wait `firstDelaySeconds` after the previous one, doubling with every attempt, at most
 * `maxDelaySeconds`. Counts decay with the window like `hit`'s.
 */
export interface Brake {
  free: number;
  windowSeconds: number;
  firstDelaySeconds: number;
  maxDelaySeconds: number;
}

export type Reservation =
  | { ok: true; bucket: string; windowStart: number }
  | { ok: false; retryAfter: number };

/**
 * Counts one attempt in `bucket` if the brake lets it through now, in one statement: concurrent attempts are
 * serialised on the bucket's row, so no more than the brake allows ever get through, however many arrive at
 * once. A refused attempt is not counted. `release` gives the slot back (a successful sign-in).
 */
export async function reserve(db: Db, bucket: string, brake: Brake): Promise<Reservation> {
  const { free, windowSeconds: w, firstDelaySeconds: first, maxDelaySeconds: max } = brake;
  // The wait before an attempt when `n` are counted (n >= free); the exponent is capped to stay in range.
  const [row] = await db<{ reserved: number | null; count: number; last: number | null; now: number }[]>`
    with w as (
      select now() as t,
             to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w}) as start,
             extract(epoch from now()) - floor(extract(epoch from now()) / ${w}) * ${w} as elapsed
    ), carry as (
      -- the previous window's count, weighted by how much of it still overlaps the last windowSeconds
      select coalesce(ceil(p.count * greatest(0, 1 - w.elapsed / ${w})), 0)::int as n, p.last_at
      from w left join rate_limits p
        on p.bucket = ${bucket} and p.window_start = w.start - make_interval(secs => ${w})
    ), cur as (
      select c.count, c.last_at from w join rate_limits c on c.bucket = ${bucket} and c.window_start = w.start
    ), ins as (
      insert into rate_limits as r (bucket, window_start, count, last_at)
      select ${bucket}, w.start, 1, w.t from w, carry
      where carry.n < ${free} or carry.last_at is null
         or carry.last_at <= w.t - make_interval(secs => least(${first} * power(2, least(carry.n - ${free}, 30)), ${max}))
      on conflict (bucket, window_start) do update set count = r.count + 1, last_at = excluded.last_at
      where r.count + (select n from carry) < ${free} or r.last_at is null
         or r.last_at <= excluded.last_at - make_interval(
              secs => least(${first} * power(2, least(r.count + (select n from carry) - ${free}, 30)), ${max}))
      returning extract(epoch from r.window_start)::float8 as start
    )
    select (select start from ins) as reserved,
           coalesce((select count from cur), 0) + (select n from carry) as count,
           extract(epoch from coalesce((select last_at from cur), (select last_at from carry)))::float8 as last,
           extract(epoch from (select t from w))::float8 as now`;
  // Old windows are useless (a window of up to a day needs its predecessor); sweep them now and then.
  if (Math.random() < 0.02) await db`delete from rate_limits where window_start < now() - interval '2 days'`;
  if (row.reserved !== null) return { ok: true, bucket, windowStart: row.reserved };
  // Refused: the wait left since the last counted attempt (the count read here may lag a concurrent one).
  const delay = Math.min(first * 2 ** Math.min(Math.max(row.count - free, 0), 30), max);
  const left = row.last === null ? delay : row.last + delay - row.now;
  return { ok: false, retryAfter: Math.max(1, Math.ceil(left)) };
}

/** Gives back a slot taken by `reserve` (the attempt turned out not to be one the brake is about). */
export async function release(db: Db, reservation: { bucket: string; windowStart: number }): Promise<void> {
  await db`
    update rate_limits set count = count - 1
    where bucket = ${reservation.bucket} and window_start = to_timestamp(${reservation.windowStart}) and count > 0`;
}

/** `max` attempts per `windowSeconds`, as a GCRA: a burst of `max`, then one every windowSeconds / max. */
export interface Limit {
  max: number;
  windowSeconds: number;
}

export type Taken = { ok: true } | { ok: false; retryAfter: number };

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
  return { ok: false, retryAfter: Math.max(1, Math.ceil(state?.wait ?? 1)) };
}
