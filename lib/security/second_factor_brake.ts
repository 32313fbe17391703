// The brake on second-factor attempts (one-time codes, recovery codes, passkeys as a second factor, and the
// password checks of the two-step settings page): one bucket per person in rate_limits, `2fa:user:<userId>`,
// shared by every instance. Every attempt is counted before it is checked (lib/rate_limit/brake.ts `reserve`,
// one statement, so parallel guesses cannot all slip past the count); a correct one gives its slot back, so only
// failures count.
//
// Numbers (SECOND_FACTOR_BRAKE): 5 attempts pass at once within a sliding day; then 1 min, 2, 4, 8 and at most
// 15 min between attempts. Only someone who already proved the password reaches this brake, so it is keyed by
// the person alone: at most about 100 tries a day once braked, each with a chance of 3 in 10^6 (the codes of
// three steps are accepted), about 3 in 10,000 a day; every wrong try is in the person's security log.
//
// Exports: `SECOND_FACTOR_BRAKE`, `secondFactorBucket(userId)`, `secondFactorBrake(sql, userId)` → a slot with
// `release()` or `{ ok: false, retryAfter }`.
import type { Db } from "../db/client.ts";
import { type Brake, release, reserve } from "../rate_limit/mod.ts";

export const SECOND_FACTOR_BRAKE: Brake = {
  free: 5,
  windowSeconds: 24 * 3600,
  firstDelaySeconds: 60,
  maxDelaySeconds: 15 * 60,
};

export function secondFactorBucket(userId: string): string {
  return `2fa:user:${userId}`;
}

export type SecondFactorSlot =
  | { ok: true; release(): Promise<void> }
  | { ok: false; retryAfter: number };

/** Counts one second-factor attempt of the person, or refuses it with the seconds to wait. */
export async function secondFactorBrake(sql: Db, userId: string): Promise<SecondFactorSlot> {
  const r = await reserve(sql, secondFactorBucket(userId), SECOND_FACTOR_BRAKE);
  if (!r.ok) return { ok: false, retryAfter: r.retryAfter };
  return { ok: true, release: () => release(sql, r) };
}
