// One-time codes from an authenticator app (TOTP, RFC 6238: HMAC-SHA-1, 6 digits, 30-second steps), the way
// every common app reads a QR code. The secret (160 random bits, RFC 4226 §4) is kept sealed with SECRET_KEY
// (lib/secret_box.ts, purpose "totp-secret") in user_totp.secret_sealed; until a first code confirms it, a new
// secret lives only in the set-up form, sealed (purpose "totp-setup"), never in the database, so nobody who saw
// an unfinished set-up page can plant a secret they know.
//
// Checking a code: the codes of the steps before, at and after now (±30 s of clock drift) are each computed and
// compared in constant time; a match counts only for a step newer than user_totp.last_step, and moving last_step
// forward is one conditional UPDATE (`where last_step < step`), so a code is used once even when two requests
// bring it at the same moment: exactly one of them updates the row.
//
// Exports: `TOTP_PARAMS`, `newTotpSecret()`, `otpauthUri`, `groupKey`, `totpCode(secret, step)`, `matchingStep`,
// `sealSetup`/`openSetup` (a secret in a set-up form), `confirmTotp` (store a confirmed secret),
// `verifyTotp(sql, secretKey, userId, code)`, `removeTotp`, `currentStep`.
import { Secret, TOTP } from "otpauth";
import type { Db } from "../db/client.ts";
import { safeEqual } from "../crypto.ts";
import { open, seal } from "../secret_box.ts";

export const TOTP_PARAMS = { algorithm: "SHA1", digits: 6, period: 30, window: 1 } as const;
const SECRET_BYTES = 20;
const SECRET_PURPOSE = "totp-secret";
const SETUP_PURPOSE = "totp-setup";
/** How long a set-up page's secret may be confirmed. */
export const SETUP_TTL_SECONDS = 30 * 60;

/** A fresh random secret, in base32 (what apps and the manual key use). */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The time step of `nowMs`. */
export function currentStep(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000 / TOTP_PARAMS.period);
}

function totpOf(base32: string, label = "", issuer = ""): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: TOTP_PARAMS.algorithm,
    digits: TOTP_PARAMS.digits,
    period: TOTP_PARAMS.period,
    secret: Secret.fromBase32(base32),
    issuerInLabel: issuer !== "",
  });
}

/** The `otpauth://totp/…` URI the QR code carries. */
export function otpauthUri(base32: string, account: string, issuer: string): string {
  return totpOf(base32, account, issuer).toString();
}

/** The manual key in groups of four, easier to type. */
export function groupKey(base32: string): string {
  return base32.match(/.{1,4}/g)?.join(" ") ?? base32;
}

/** The code of `step` (tests compute codes with it too). */
export function totpCode(base32: string, step: number, digits: number = TOTP_PARAMS.digits): string {
  return TOTP.generate({
    secret: Secret.fromBase32(base32),
    algorithm: TOTP_PARAMS.algorithm,
    digits,
    period: TOTP_PARAMS.period,
    timestamp: step * TOTP_PARAMS.period * 1000,
  });
}

/** What the person typed, as digits only ("123 456" and "123-456" work); null when it cannot be a code. */
export function normalizeCode(typed: string): string | null {
  const digits = typed.replace(/[\s-]/g, "");
  return /^[0-9]{6}$/.test(digits) ? digits : null;
}

/**
 * The newest step within the window around `nowMs` whose code is `code`, or null. Every step of the window is
 * computed and compared (constant time), whichever matches.
 */
export function matchingStep(base32: string, code: string, nowMs = Date.now()): number | null {
  const now = currentStep(nowMs);
  let found: number | null = null;
  for (let step = now - TOTP_PARAMS.window; step <= now + TOTP_PARAMS.window; step++) {
    if (safeEqual(totpCode(base32, step), code)) found = step;
  }
  return found;
}

/** A secret being set up, sealed for the set-up form and bound to the person. */
export async function sealSetup(secretKey: string, userId: string, base32: string): Promise<string> {
  const exp = Math.floor(Date.now() / 1000) + SETUP_TTL_SECONDS;
  return await seal(secretKey, SETUP_PURPOSE, JSON.stringify({ userId, secret: base32, exp }));
}

/** The secret of a set-up form, if it is ours, this person's and fresh; else null. */
export async function openSetup(secretKey: string, userId: string, sealed: string): Promise<string | null> {
  if (sealed.length > 1000) return null;
  try {
    const data = JSON.parse(await open(secretKey, SETUP_PURPOSE, sealed));
    if (data.userId !== userId || typeof data.secret !== "string" || !(data.exp > Date.now() / 1000)) {
      return null;
    }
    return data.secret;
  } catch {
    return null;
  }
}

export type ConfirmResult = { ok: true } | { ok: false; reason: "wrong_code" | "already_set_up" };

/**
 * Confirms a set-up: when `code` is a current code of `base32`, stores the secret (sealed) as the person's
 * confirmed one-time-code app, with that step used. Refused while another confirmed app is set up.
 */
export async function confirmTotp(
  sql: Db,
  secretKey: string,
  userId: string,
  base32: string,
  typed: string,
  nowMs = Date.now(),
): Promise<ConfirmResult> {
  const code = normalizeCode(typed);
  const step = code === null ? null : matchingStep(base32, code, nowMs);
  if (step === null) return { ok: false, reason: "wrong_code" };
  const sealed = await seal(secretKey, SECRET_PURPOSE, base32);
  const rows = await sql`
    insert into user_totp (user_id, secret_sealed, confirmed_at, last_step)
    values (${userId}, ${sealed}, now(), ${step})
    on conflict (user_id) do update
      set secret_sealed = excluded.secret_sealed, confirmed_at = now(), last_step = excluded.last_step,
          created_at = now()
      where user_totp.confirmed_at is null
    returning user_id`;
  return rows.length === 1 ? { ok: true } : { ok: false, reason: "already_set_up" };
}

export type VerifyResult =
  | { ok: true; step: number }
  | { ok: false; reason: "not_set_up" | "wrong_code" | "used" };

/**
 * Checks a code of the person's confirmed app; on success the code's step becomes last_step in one conditional
 * statement, so the same code (or an older one) never passes again. "used": right code, already used.
 */
export async function verifyTotp(
  sql: Db,
  secretKey: string,
  userId: string,
  typed: string,
  nowMs = Date.now(),
): Promise<VerifyResult> {
  const [row] = await sql<{ sealed: string }[]>`
    select secret_sealed as sealed from user_totp where user_id = ${userId} and confirmed_at is not null`;
  if (!row) return { ok: false, reason: "not_set_up" };
  const base32 = await open(secretKey, SECRET_PURPOSE, row.sealed);
  const code = normalizeCode(typed);
  const step = code === null ? null : matchingStep(base32, code, nowMs);
  if (step === null) return { ok: false, reason: "wrong_code" };
  const updated = await sql`
    update user_totp set last_step = ${step}
    where user_id = ${userId} and confirmed_at is not null and last_step < ${step}
    returning user_id`;
  return updated.length === 1 ? { ok: true, step } : { ok: false, reason: "used" };
}

/** Turns the one-time-code app off; true when there was one. */
export async function removeTotp(sql: Db, userId: string): Promise<boolean> {
  const rows = await sql`delete from user_totp where user_id = ${userId} returning user_id`;
  return rows.length === 1;
}
