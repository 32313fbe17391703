// The one limiter kit every limit uses: in memory per instance (memory.ts) or shared through PostgreSQL (a GCRA
// in buckets.ts, the same with each instance's learnt refusals and a part for other statements in shared.ts,
// sliding-window counters in window.ts, the progressive brake in brake.ts); one answer type.
export { type Limit, type Refused, retryAfter, type Taken } from "./taken.ts";
export { createMemoryLimiter, type MemoryLimiter, RATE_LIMIT_MAX_TRACKED } from "./memory.ts";
export { take } from "./buckets.ts";
export { hit, peek, type WindowCount } from "./window.ts";
export { type Brake, release, type Reservation, reserve } from "./brake.ts";
export {
  createSharedLimiter,
  type GcraAnswer,
  gcraAnswer,
  type GcraColumns,
  gcraCtes,
  SHARED_MAX_BLOCKED,
  type SharedLimiter,
} from "./shared.ts";
