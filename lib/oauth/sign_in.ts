// Email + password sign-in with one answer for unknown email and wrong password, and a brake on failures.
import type { Db } from "../db/client.ts";
import { sha256Hex, verifyPassword } from "../crypto.ts";
import { hit, peek } from "./rate_limit.ts";

/** Failed attempts allowed per window, per account (by email) and per client IP. */
export const SIGN_IN_BRAKE = { perAccount: 10, perIp: 50, windowSeconds: 15 * 60 };

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: "invalid_credentials" | "throttled" };

export async function signIn(
  db: Db,
  input: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  // Keyed by the email's hash, known or not, so the brake itself does not reveal which accounts exist.
  const accountBucket = `signin:account:${sha256Hex(email)}`;
  const ipBucket = `signin:ip:${input.ip}`;
  const counts = await peek(db, [accountBucket, ipBucket], SIGN_IN_BRAKE.windowSeconds);
  if (
    (counts.get(accountBucket) ?? 0) >= SIGN_IN_BRAKE.perAccount ||
    (counts.get(ipBucket) ?? 0) >= SIGN_IN_BRAKE.perIp
  ) {
    return { ok: false, reason: "throttled" };
  }
  const [user] = email.length > 320 ? [] : await db<{ id: string; password_hash: string }[]>`
    select id, password_hash from users where lower(email) = ${email}`;
  const valid = await verifyPassword(input.password.slice(0, 1024), user?.password_hash);
  if (!valid || !user) {
    await hit(db, accountBucket, SIGN_IN_BRAKE.windowSeconds);
    await hit(db, ipBucket, SIGN_IN_BRAKE.windowSeconds);
    return { ok: false, reason: "invalid_credentials" };
  }
  return { ok: true, userId: user.id };
}
