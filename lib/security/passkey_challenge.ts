// The WebAuthn challenge of one passkey ceremony (register, sign in, second factor): kept by the browser in a
// short-lived HttpOnly cookie, sealed with SECRET_KEY, so the server holds no state between the options and the
// answer; and spent on first use in oauth_spent_tickets (one insert, so of two uses exactly one wins), so an
// assertion replayed with its challenge, even with the cookie, is refused.
//
// Exports: `CHALLENGE_TTL_SECONDS`, `ChallengePurpose`, `keepChallenge(c, deps, kept)` (sets the cookie),
// `takeChallenge(c, deps, purpose, userId?)` → the challenge once, or null (missing, forged, expired, spent, for
// another purpose or person); the cookie is cleared either way.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Db } from "../db/client.ts";
import { sha256Hex } from "../crypto.ts";
import { cookieOptions, isHttps } from "../http/cookies.ts";
import { open, seal } from "../secret_box.ts";

/** How long a person has between the options and their authenticator's answer (the ceremony's timeout: 2 min). */
export const CHALLENGE_TTL_SECONDS = 5 * 60;
const SEAL_PURPOSE = "webauthn-challenge";
const COOKIE = "portico_webauthn";
const SECURE_COOKIE = "__Host-portico_webauthn";

export type ChallengePurpose = "register" | "sign-in" | "second-factor";

interface Kept {
  challenge: string;
  purpose: ChallengePurpose;
  /** the person the ceremony is for (register, second factor); none for a discoverable sign-in */
  userId?: string;
  exp?: number;
}

type Deps = { sql: Db; secretKey: string; config: { issuer: string } };

function cookieName(issuer: string): string {
  return isHttps(issuer) ? SECURE_COOKIE : COOKIE;
}

/** Keeps the challenge of options just sent in this browser (a new ceremony replaces an unfinished one). */
export async function keepChallenge(c: Context, deps: Deps, kept: Kept): Promise<void> {
  const sealed = await seal(
    deps.secretKey,
    SEAL_PURPOSE,
    JSON.stringify({ ...kept, exp: Math.floor(Date.now() / 1000) + CHALLENGE_TTL_SECONDS }),
  );
  setCookie(
    c,
    cookieName(deps.config.issuer),
    sealed,
    cookieOptions(deps.config.issuer, CHALLENGE_TTL_SECONDS),
  );
}

/** The challenge this browser was given for `purpose` (and `userId`), spent now: null if none is usable. */
export async function takeChallenge(
  c: Context,
  deps: Deps,
  purpose: ChallengePurpose,
  userId?: string,
): Promise<string | null> {
  const name = cookieName(deps.config.issuer);
  const sealed = getCookie(c, name);
  deleteCookie(c, name, cookieOptions(deps.config.issuer));
  if (!sealed || sealed.length > 2000) return null;
  let kept: Kept;
  try {
    kept = JSON.parse(await open(deps.secretKey, SEAL_PURPOSE, sealed)) as Kept;
  } catch {
    return null;
  }
  if (typeof kept.challenge !== "string" || !kept.exp || kept.exp < Date.now() / 1000) return null;
  if (kept.purpose !== purpose || kept.userId !== userId) return null;
  // Spent before the answer is checked: a failed answer needs new options too (no retries on one challenge).
  const rows = await deps.sql`
    insert into oauth_spent_tickets (jti, expires_at)
    values (${`webauthn:${sha256Hex(kept.challenge)}`}, to_timestamp(${kept.exp}))
    on conflict (jti) do nothing
    returning jti`;
  return rows.length === 1 ? kept.challenge : null;
}
