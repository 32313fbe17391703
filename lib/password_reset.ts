// "Forgot password": a reset link by mail (single use, 30 minutes, stored only as a SHA-256 hash, one live link
// per person) and the reset itself. docs/oauth.md "Password reset" gives the reasons for each choice. The mail
// speaks the person's language (users.locale), else the language of the request that asked for it.
import { unlockSignIn } from "./admin/recovery.ts";
import { hashPassword, randomToken, SCRYPT_PARAMS, type ScryptParams, sha256Hex } from "./crypto.ts";
import type { Db } from "./db/client.ts";
import { isLocale, type Locale, type Messages, messagesFor, type Text } from "./i18n/mod.ts";
import { withTx } from "./db/tx.ts";
import type { Logger } from "./log.ts";
import type { Mailer } from "./mail.ts";
import { addressKey, networkKey } from "./net/addresses.ts";
import { type Limit, take } from "./rate_limit/mod.ts";
import { accountKey } from "./oauth/sign_in.ts";
import { recordSecurityEvent } from "./security/events.ts";
import { checkNewPassword } from "./security/password_policy.ts";

/** A reset link lives 30 minutes from the request. */
export const RESET_TTL_SECONDS = 30 * 60;

/**
 * Reset requests (GCRA buckets in rate_buckets, shared by every instance): per address typed (its hash, known or
 * not) 3 an hour, so nobody can fill a person's inbox; per client network (IPv4 /24, IPv6 /64) 20 an hour, so
 * one network cannot spray many addresses. A refused request is answered exactly like any other and sends nothing.
 */
export const RESET_LIMITS: { perAddress: Limit; perNetwork: Limit } = {
  perAddress: { max: 3, windowSeconds: 3600 },
  perNetwork: { max: 20, windowSeconds: 3600 },
};

export const resetBucket = {
  address: (email: string) => `reset:account:${accountKey(email)}`,
  network: (ip: string) => `reset:net:${networkKey(ip)}`,
  /** new passwords tried with one link (keyed by the link's hash) */
  link: (token: string) => `reset:link:${sha256Hex(token).slice(0, 32)}`,
};

/**
 * New passwords tried with one link: 20 per 30 minutes (its whole life). A refused password spends nothing but
 * costs the policy's check (up to ~150 ms for repetitive input), so the link's holder cannot loop on it.
 */
export const RESET_TRIES: Limit = { max: 20, windowSeconds: RESET_TTL_SECONDS };

export interface ResetRequest {
  email: string;
  ip: string;
  issuer: string;
  requestId?: string;
  userAgent?: string;
  /** the language of the request (lib/i18n localeOf): the mail's, unless the person chose one */
  locale: Locale;
}

/**
 * Handles "send me a link" for an address. Returns nothing on purpose: the caller's answer must not depend on
 * whether the address has an account, is disabled, or was throttled. Mail goes out in the background.
 */
export async function requestReset(db: Db, req: ResetRequest, mailer: Mailer, log: Logger): Promise<void> {
  const email = req.email.trim().toLowerCase();
  if (email.length === 0 || email.length > 320 || !email.includes("@")) return;
  const fields = { request_id: req.requestId ?? "", network: networkKey(req.ip) };
  // The network first: a throttled network then uses up nothing of the address's allowance.
  for (
    const [scope, bucket, limit] of [
      ["network", resetBucket.network(req.ip), RESET_LIMITS.perNetwork],
      ["address", resetBucket.address(email), RESET_LIMITS.perAddress],
    ] as const
  ) {
    const r = await take(db, bucket, limit);
    if (!r.ok) {
      log.info("password reset throttled", { ...fields, limit: scope, address: addressKey(req.ip) });
      return;
    }
  }
  const [user] = await db<{ id: string; email: string; disabled: boolean; locale: string | null }[]>`
    select id, email, disabled_at is not null as disabled, locale from users where lower(email) = ${email}`;
  if (!user || user.disabled) return;
  const token = randomToken("prt_", 32);
  // One live link per person: a new request replaces the previous link.
  await db`
    insert into password_resets (user_id, token_hash, expires_at)
    values (${user.id}, ${sha256Hex(token)}, now() + make_interval(secs => ${RESET_TTL_SECONDS}))
    on conflict (user_id) do update
      set token_hash = excluded.token_hash, expires_at = excluded.expires_at, created_at = now()`;
  const t = messagesFor(isLocale(user.locale) ? user.locale : req.locale);
  mailer.post(resetMail(t, user.email, `${req.issuer}/signin/reset?token=${token}`), {
    ...fields,
    user_id: user.id,
    mail: "password_reset",
  });
  await recordSecurityEvent(db, log, {
    kind: "password_reset_requested",
    userId: user.id,
    ip: req.ip,
    userAgent: req.userAgent,
    requestId: req.requestId,
  });
}

function resetMail(t: Messages, to: string, link: string) {
  const words = t.security.reset.mail;
  return {
    to,
    subject: words.subject,
    text: [words.asked, "", words.openLink, link, "", words.ignore].join("\n"),
  };
}

/** Whether `token` is a live reset link (not spent, not expired, its person not disabled). Reads only. */
export async function resetLinkLive(db: Db, token: string): Promise<boolean> {
  if (token.length === 0 || token.length > 200) return false;
  const [row] = await db`
    select 1 from password_resets r join users u on u.id = r.user_id
     where r.token_hash = ${sha256Hex(token)} and r.expires_at > now() and u.disabled_at is null`;
  return row !== undefined;
}

export type ResetResult =
  | { ok: true; userId: string; sessionsEnded: number }
  | { ok: false; reason: "invalid_link" }
  | { ok: false; reason: "bad_password"; problem: Text };

/**
 * Sets a new password with a reset link. The password is checked against the policy (lib/security/
 * password_policy.ts, which needs the link's person: their address and name) and hashed first (a bad one spends
 * nothing);
 * then, in one transaction, the link is spent by deleting its row (of two parallel posts exactly one gets the
 * row), the password replaced, every browser session of the person ended and the sign-in brake lifted.
 * OAuth grants and API keys are left alone, as for the operator's `user set-password` (docs/oauth.md).
 *
 * Second factors (issue 29): a reset changes only the password and signs nobody in — the page sends the person
 * to /signin, so whatever sign-in requires after the password (a second factor) is still required. A reset of
 * the second factor itself must never be added here.
 */
export async function resetPassword(
  db: Db,
  token: string,
  password: string,
  params: ScryptParams = SCRYPT_PARAMS,
): Promise<ResetResult> {
  if (token.length === 0 || token.length > 200) return { ok: false, reason: "invalid_link" };
  const [owner] = await db<{ email: string; name: string }[]>`
    select u.email, u.name from password_resets r join users u on u.id = r.user_id
     where r.token_hash = ${sha256Hex(token)} and r.expires_at > now() and u.disabled_at is null`;
  if (!owner) return { ok: false, reason: "invalid_link" };
  if (!(await take(db, resetBucket.link(token), RESET_TRIES)).ok) {
    return {
      ok: false,
      reason: "bad_password",
      problem: (t) => t.security.reset.tooManyTries,
    };
  }
  const verdict = await checkNewPassword(password, owner);
  if (!verdict.ok) return { ok: false, reason: "bad_password", problem: verdict.text };
  const hash = await hashPassword(password, params);
  return await withTx(db, async (tx) => {
    // Expired rows are deleted too (nothing else will use them); only a live one counts.
    const [spent] = await tx<{ userId: string; live: boolean }[]>`
      delete from password_resets where token_hash = ${sha256Hex(token)}
      returning user_id as "userId", expires_at > now() as live`;
    if (!spent?.live) return { ok: false, reason: "invalid_link" } as const;
    const [user] = await tx<{ email: string }[]>`
      update users set password_hash = ${hash}, password_changed_at = now(), password_change_required = false
       where id = ${spent.userId} and disabled_at is null
      returning email`;
    if (!user) return { ok: false, reason: "invalid_link" } as const;
    const ended = await tx`delete from browser_session_accounts where user_id = ${spent.userId} returning 1`;
    await unlockSignIn(tx, user.email);
    return { ok: true, userId: spent.userId, sessionsEnded: ended.length } as const;
  });
}
