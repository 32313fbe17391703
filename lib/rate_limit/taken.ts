// What every limiter of the kit answers: a limit, an attempt taken, or a refusal with its wait in whole seconds.

/** `max` attempts per `windowSeconds` (a GCRA: a burst of `max`, then one every windowSeconds / max). */
export interface Limit {
  max: number;
  windowSeconds: number;
}

/** A refused attempt and how many whole seconds to wait (the Retry-After header's value). */
export interface Refused {
  ok: false;
  retryAfter: number;
}

export type Taken = { ok: true } | Refused;

/** The Retry-After of a wait of `seconds`: rounded up, at least 1 (0 would invite an immediate retry). */
export function retryAfter(seconds: number): number {
  return Math.max(1, Math.ceil(seconds));
}
