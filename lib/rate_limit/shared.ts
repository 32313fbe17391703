// A GCRA in PostgreSQL shared by every instance, for the abuse limits on hot paths, with what each instance
// learnt from the database's answers: `createSharedLimiter` (take / charge / blocked) and `gcraCtes`, the
// statement part another statement can carry (the /mcp caller statement takes its unit in the same round trip).
//
// The same algorithm as ./buckets.ts and ./memory.ts, in the UNLOGGED table rate_buckets: one time per bucket,
// `tat`; an allowed unit moves it SECONDS / MAX further, units are allowed while that leaves it at most SECONDS
// ahead. The row is locked by the update, so concurrent requests on any instance are serialised: exact.
// Each answer says how far ahead `tat` now is; while that leaves no free unit, this instance refuses the bucket
// without a query (a bucket only fills up faster, never drains faster, so that refusal is always right).
import type postgres from "postgres";
import type { Db } from "../db/client.ts";
import { type Limit, type Refused, retryAfter, type Taken } from "./taken.ts";

/** Buckets whose refusal one limiter remembers at most; past it the oldest is forgotten (then asked again). */
export const SHARED_MAX_BLOCKED = 50_000;

/** The database's answer for one bucket: whether the units were taken and how far ahead `tat` is now (ms). */
export interface GcraAnswer {
  bucket: string;
  ok: boolean;
  aheadMs: number;
}

/** The row columns `gcraCtes` adds to a statement (through the CTE `rl`). */
export interface GcraColumns {
  rl_bucket: string | null;
  rl_ok: boolean | null;
  rl_ahead_ms: number | null;
}

/** The answer in a row carrying `GcraColumns`; null when nothing was charged. */
export function gcraAnswer(row: GcraColumns | undefined): GcraAnswer | null {
  if (!row || row.rl_bucket === null) return null;
  return { bucket: row.rl_bucket, ok: row.rl_ok === true, aheadMs: row.rl_ahead_ms ?? 0 };
}

/**
 * The CTEs of one take, to follow a CTE `rl_pick(bucket text, inc float8, win float8)` (seconds; a null bucket
 * takes nothing): rl_t, rl_p, rl_take and `rl`, whose one row (none when nothing was taken) has the columns of
 * `GcraColumns`. `nowMs`: the time to count at (tests' clocks); null: the database's now().
 */
export function gcraCtes(db: Db, nowMs: number | null): postgres.Fragment {
  return db`
    rl_t as (select coalesce(to_timestamp(${nowMs}::float8 / 1000), now()) as t),
    rl_p as (
      select p.bucket, make_interval(secs => p.inc) as inc, make_interval(secs => p.win) as win, rl_t.t
        from rl_pick p, rl_t where p.bucket is not null
    ),
    rl_take as (
      insert into rate_buckets as b (bucket, tat)
      select bucket, t + inc from rl_p
      on conflict (bucket) do update set tat = greatest(b.tat, (select t from rl_p)) + (select inc from rl_p)
       where greatest(b.tat, (select t from rl_p)) + (select inc from rl_p) <= (select t + win from rl_p)
      returning b.tat
    ),
    rl as (
      select p.bucket as rl_bucket, exists (select 1 from rl_take) as rl_ok,
             extract(epoch from coalesce(
               (select tat from rl_take),
               greatest((select tat from rate_buckets where bucket = p.bucket), p.t)
             ) - p.t)::float8 * 1000 as rl_ahead_ms
        from rl_p p
    )`;
}

export interface SharedLimiter {
  readonly limit: Limit;
  /** Refused without a query while this instance knows the bucket has no free unit; null: ask the database. */
  blocked(bucket: string): Refused | null;
  /** Takes `cost` units from `bucket` in one statement (a refusal takes none). */
  take(bucket: string, cost?: number): Promise<Taken>;
  /** Reads an answer of `gcraCtes` carried by another statement: the refusal, if it was one, and remembers it. */
  learn(answer: GcraAnswer, cost?: number): Taken;
  /** The parameters of `rl_pick` for `cost` units (capped at the burst, which is what a larger batch costs). */
  pick(cost?: number): { inc: number; win: number };
  /** The clock this limiter counts at, for `gcraCtes` (null: the database's). */
  nowMs(): number | null;
  /** Buckets whose refusal is remembered now. */
  size(): number;
}

export interface SharedLimiterOptions {
  /** clock in ms (tests): passed to the database too, so both count at the same time */
  now?: () => number;
  maxBlocked?: number;
}

export function createSharedLimiter(db: Db, limit: Limit, opts: SharedLimiterOptions = {}): SharedLimiter {
  const clock = opts.now ?? Date.now;
  const max = opts.maxBlocked ?? SHARED_MAX_BLOCKED;
  const stepMs = limit.windowSeconds * 1000 / limit.max;
  const winMs = limit.windowSeconds * 1000;
  /** bucket → local time until which it has no free unit, oldest first */
  const blocks = new Map<string, number>();
  const units = (cost: number) => Math.min(Math.max(1, cost), limit.max);

  function sweep(t: number): void {
    for (let i = 0; i < 4; i++) {
      const first = blocks.entries().next();
      if (first.done || first.value[1] > t) return;
      blocks.delete(first.value[0]);
    }
  }

  const self: SharedLimiter = {
    limit,
    blocked(bucket) {
      const t = clock();
      sweep(t);
      const until = blocks.get(bucket);
      if (until === undefined) return null;
      if (until <= t) {
        blocks.delete(bucket);
        return null;
      }
      return { ok: false, retryAfter: retryAfter((until - t) / 1000) };
    },
    async take(bucket, cost = 1) {
      const { inc, win } = self.pick(cost);
      const [row] = await db<GcraColumns[]>`
        with rl_pick as (select ${bucket}::text as bucket, ${inc}::float8 as inc, ${win}::float8 as win),
        ${gcraCtes(db, self.nowMs())}
        select rl_bucket, rl_ok, rl_ahead_ms from rl`;
      return self.learn(gcraAnswer(row)!, cost);
    },
    learn(answer, cost = 1) {
      const t = clock();
      // Until one unit is free again: tat must come back to within SECONDS - one step of now.
      const oneFree = answer.aheadMs + stepMs - winMs;
      if (oneFree > 0) {
        blocks.delete(answer.bucket);
        if (blocks.size >= max) blocks.delete(blocks.keys().next().value!);
        blocks.set(answer.bucket, t + oneFree);
      }
      if (answer.ok) return { ok: true };
      return { ok: false, retryAfter: retryAfter((answer.aheadMs + units(cost) * stepMs - winMs) / 1000) };
    },
    pick: (cost = 1) => ({ inc: units(cost) * stepMs / 1000, win: limit.windowSeconds }),
    nowMs: () => (opts.now ? opts.now() : null),
    size: () => blocks.size,
  };
  return self;
}
