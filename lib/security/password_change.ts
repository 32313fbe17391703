// Changing one's password while signed in (/account/security/password): the current password first, through the
// sign-in brake, then the policy, then the new hash; every other browser session of the person ends.
//
// - The current password is checked through the same brake buckets as a sign-in from a browser without the
//   account's device cookie (per account and client network, and per account): a stolen session cannot use this
//   form to guess the password faster than the sign-in page allows, and its guesses count against the same
//   allowance. A correct password gives its slots back, as at sign-in.
// - On success, in one transaction: the hash is replaced (only if it is still the one verified: two parallel
//   changes cannot both win), password_changed_at set, password_change_required cleared, and the person's
//   accounts in every OTHER browser session deleted (this browser stays signed in). OAuth grants and API keys
//   stay: they are applications the person approved, listed and revoked on /account/apps and /account/keys, as
//   after a reset or the operator's set-password (docs/security.md "Passwords").
//
// Export: `changePassword(sql, input, options)` → `{ ok: true, sessionsEnded }` or `{ ok: false, reason, problem,
// … }` (`problem`: a catalogue text, shown in the page's language).
import type { Sql } from "../db/client.ts";
import { hashPassword, SCRYPT_PARAMS, type ScryptParams, verifyPassword } from "../crypto.ts";
import { withTx } from "../db/tx.ts";
import type { Text } from "../i18n/mod.ts";
import { type Logger, silentLogger } from "../log.ts";
import { accountKey, brakeBucket, recordThrottled, SIGN_IN_BRAKE } from "../oauth/sign_in.ts";
import { type Brake, release, reserve } from "../rate_limit/mod.ts";
import { recordSecurityEvent } from "./events.ts";
import { checkNewPassword } from "./password_policy.ts";

export interface PasswordChangeInput {
  userId: string;
  /** this browser's session: it stays signed in */
  sessionId: string;
  current: string;
  password: string;
  confirm: string;
  ip: string;
  userAgent?: string;
  requestId?: string;
}

export type PasswordChangeResult =
  | { ok: true; sessionsEnded: number }
  | { ok: false; reason: "wrong_current" | "mismatch" | "same" | "policy" | "gone"; problem: Text }
  | { ok: false; reason: "throttled"; problem: Text; retryAfter: number };

export interface PasswordChangeOptions {
  log?: Logger;
  /** Test-only: the scrypt cost of the new hash. */
  scrypt?: ScryptParams;
}

const WRONG_CURRENT: Text = (t) => t.security.password.wrongCurrent;

function brake(free: number): Brake {
  const { windowSeconds, firstDelaySeconds, maxDelaySeconds } = SIGN_IN_BRAKE;
  return { free, windowSeconds, firstDelaySeconds, maxDelaySeconds };
}

export async function changePassword(
  sql: Sql,
  input: PasswordChangeInput,
  options: PasswordChangeOptions = {},
): Promise<PasswordChangeResult> {
  const log = options.log ?? silentLogger;
  const facts = {
    userId: input.userId,
    ip: input.ip,
    userAgent: input.userAgent,
    requestId: input.requestId,
  };
  const [user] = await sql<{ email: string; name: string; hash: string }[]>`
    select email, name, password_hash as hash from users where id = ${input.userId} and disabled_at is null`;
  if (!user) return { ok: false, reason: "gone", problem: (t) => t.security.password.gone };

  const key = accountKey(user.email);
  const taken: Array<{ bucket: string; windowStart: number }> = [];
  for (
    const [scope, bucket, free] of [
      ["network", brakeBucket.network(key, input.ip), SIGN_IN_BRAKE.perNetwork],
      ["account", brakeBucket.account(key), SIGN_IN_BRAKE.perAccount],
    ] as const
  ) {
    const r = await reserve(sql, bucket, brake(free));
    if (!r.ok) {
      for (const t of taken) await release(sql, t);
      await recordThrottled(sql, log, {
        kind: "sign_in_throttled",
        ...facts,
        detail: { during: "password_change", brake: scope, retry_after: r.retryAfter },
      });
      const minutes = Math.ceil(r.retryAfter / 60);
      return {
        ok: false,
        reason: "throttled",
        retryAfter: r.retryAfter,
        problem: (t) => t.security.password.throttled(minutes),
      };
    }
    taken.push(r);
  }
  if (!await verifyPassword(input.current.slice(0, 1024), user.hash, options.scrypt ?? SCRYPT_PARAMS)) {
    await recordSecurityEvent(sql, log, {
      kind: "sign_in_failed",
      ...facts,
      detail: { during: "password_change", reason: "invalid_credentials" },
    });
    return { ok: false, reason: "wrong_current", problem: WRONG_CURRENT };
  }
  for (const t of taken) await release(sql, t);

  if (input.password !== input.confirm) {
    return { ok: false, reason: "mismatch", problem: (t) => t.security.password.mismatch };
  }
  if (input.password === input.current) {
    return { ok: false, reason: "same", problem: (t) => t.security.password.same };
  }
  const verdict = await checkNewPassword(input.password, user);
  if (!verdict.ok) return { ok: false, reason: "policy", problem: verdict.text };

  const hash = await hashPassword(input.password, options.scrypt ?? SCRYPT_PARAMS);
  const ended = await withTx(sql, async (tx) => {
    const changed = await tx`
      update users set password_hash = ${hash}, password_changed_at = now(), password_change_required = false
       where id = ${input.userId} and password_hash = ${user.hash}
      returning id`;
    if (changed.length === 0) return null;
    const rows = await tx`
      delete from browser_session_accounts where user_id = ${input.userId} and session_id <> ${input.sessionId}
      returning 1`;
    return rows.length;
  });
  if (ended === null) {
    return { ok: false, reason: "wrong_current", problem: WRONG_CURRENT };
  }
  await recordSecurityEvent(sql, log, {
    kind: "password_changed",
    ...facts,
    detail: { sessions_ended: ended },
  });
  return { ok: true, sessionsEnded: ended };
}
