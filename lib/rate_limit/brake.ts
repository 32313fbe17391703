// A brake on attempts in PostgreSQL (table rate_limits, windows as ./window.ts keeps them), so every instance
// shares it: `reserve` counts an attempt only if the brake lets it through, `release` gives it back.
import type { Db } from "../db/client.ts";
import { type Refused, retryAfter } from "./taken.ts";
import { sweepOldWindows } from "./window.ts";

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
  | Refused;

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
  await sweepOldWindows(db);
  if (row.reserved !== null) return { ok: true, bucket, windowStart: row.reserved };
  // Refused: the wait left since the last counted attempt (the count read here may lag a concurrent one).
  const delay = Math.min(first * 2 ** Math.min(Math.max(row.count - free, 0), 30), max);
  const left = row.last === null ? delay : row.last + delay - row.now;
  return { ok: false, retryAfter: retryAfter(left) };
}

/** Gives back a slot taken by `reserve` (the attempt turned out not to be one the brake is about). */
export async function release(db: Db, reservation: { bucket: string; windowStart: number }): Promise<void> {
  await db`
    update rate_limits set count = count - 1
    where bucket = ${reservation.bucket} and window_start = to_timestamp(${reservation.windowStart}) and count > 0`;
}
