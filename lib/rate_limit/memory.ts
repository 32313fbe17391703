// A GCRA in memory, per instance (a Map of bucket → time): for limits on hot paths that must not cost a query.
import { type Limit, retryAfter, type Taken } from "./taken.ts";

/** Buckets one limiter keeps at most by default; past it the least recently used goes first. */
export const RATE_LIMIT_MAX_TRACKED = 50_000;

/** One GCRA per bucket name, in memory. */
export interface MemoryLimiter {
  readonly limit: Limit;
  /** Takes `cost` units from `bucket`, or says in how many whole seconds they will be there; a refusal takes none. */
  take(bucket: string, cost?: number): Taken;
  /** Gives back units taken earlier (an attempt that turned out not to be one this limit is about). */
  give(bucket: string, cost?: number): void;
  /** Buckets held now (idle ones are dropped as they are met). */
  size(): number;
}

/**
 * A bucket holds one time, `tat` (ms): every allowed unit moves it SECONDS / MAX further; units are allowed while
 * that leaves `tat` at most SECONDS ahead of now. A bucket whose `tat` has passed is full, the same as no bucket,
 * so it is dropped. The Map is kept in last-use order: idle buckets are swept from its front as requests come,
 * and when it is full the least recently used bucket goes (it starts full again: the bound wins over precision).
 * The same algorithm as `take` in ./buckets.ts, kept in a Map instead of rate_buckets.
 */
export function createMemoryLimiter(
  limit: Limit,
  opts: { now?: () => number; maxTracked?: number } = {},
): MemoryLimiter {
  const now = opts.now ?? Date.now;
  const max = opts.maxTracked ?? RATE_LIMIT_MAX_TRACKED;
  const windowMs = limit.windowSeconds * 1000;
  const step = windowMs / limit.max;
  const tats = new Map<string, number>();

  function sweep(t: number): void {
    // A few per call keep the cost per request constant; the front is the least recently used.
    for (let i = 0; i < 4; i++) {
      const first = tats.entries().next();
      if (first.done || first.value[1] > t) return;
      tats.delete(first.value[0]);
    }
  }

  return {
    limit,
    take(bucket, cost = 1) {
      const t = now();
      sweep(t);
      const tat = Math.max(tats.get(bucket) ?? t, t) + cost * step;
      if (tat - t > windowMs) {
        // Waiting this long brings tat back to within the window (a refused attempt changed nothing).
        return { ok: false, retryAfter: retryAfter((tat - windowMs - t) / 1000) };
      }
      tats.delete(bucket);
      if (tats.size >= max) tats.delete(tats.keys().next().value!);
      tats.set(bucket, tat);
      return { ok: true };
    },
    give(bucket, cost = 1) {
      const tat = tats.get(bucket);
      if (tat === undefined) return;
      const back = tat - cost * step;
      if (back <= now()) tats.delete(bucket);
      else tats.set(bucket, back);
    },
    size: () => tats.size,
  };
}
