// A sign-in half done: the password (or, on step-up, the earlier sign-in) is proven and a second factor is
// still to come. It travels in the URL of the second-factor pages (`p`, sealed with SECRET_KEY) and is bound to
// the browser that proved the first factor by a random cookie whose hash it carries, so a leaked URL is useless
// elsewhere. It lasts PENDING_TTL_SECONDS; `completeSignIn` (lib/security/completion.ts) clears the cookie, so a
// completed one cannot be replayed.
//
// The pages of a pending sign-in speak the language of its authorization request (ui_locales, carried in the
// ticket), else the person's setting when the way in knew it, else the browser's: readPending sets both on the
// context, so /signin/verify, the set-up walk and the passkey step keep the language the sign-in began in.
//
// Exports: `PendingSignIn`, `startPending(c, deps, pending)` → the `/signin/verify?p=…` path (sets the cookie),
// `readPending(c, deps, sealed)` → the pending sign-in or null, `clearPending(c, deps)`.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { randomToken, safeEqual, sha256Hex } from "../crypto.ts";
import { cookieOptions, isHttps } from "../http/cookies.ts";
import { isLocale, type Locale } from "../i18n/locale.ts";
import type { Ticket } from "../oauth/authorize.ts";
import { open, seal } from "../secret_box.ts";

export const PENDING_TTL_SECONDS = 10 * 60;
const PURPOSE = "pending-sign-in";
const COOKIE = "portico_pending";
const SECURE_COOKIE = "__Host-portico_pending";

export interface PendingSignIn {
  userId: string;
  /** the account's email (for the device cookie and the page's "Signed in as") */
  email: string;
  /** methods proven so far: ["pwd"] after a password; the session account's amr on step-up */
  amr: string[];
  /** why a second factor is asked: the person set one up, or a policy (workspace, operator) requires one */
  reason: "enrolled" | "policy";
  /** the workspace whose policy asks (for the page's words), when reason is "policy" */
  workspace?: string;
  /** an account already signed in to this browser proves a second factor (no new sign-in) */
  stepUp?: boolean;
  /** the authorization request to resume afterwards, if the sign-in belongs to one */
  ticket?: Ticket;
  /** where to go afterwards otherwise (a same-origin path) */
  returnTo?: string;
  /** the person's language setting (users.locale), when the way in read it */
  locale?: Locale;
  /** set by startPending: seconds since the epoch, and the hash of the browser's cookie */
  exp?: number;
  bind?: string;
}

type Deps = { secretKey: string; config: { issuer: string } };

function cookieName(issuer: string): string {
  return isHttps(issuer) ? SECURE_COOKIE : COOKIE;
}

/** Seals the pending sign-in, binds it to this browser, and answers the path of the second-factor page. */
export async function startPending(c: Context, deps: Deps, pending: PendingSignIn): Promise<string> {
  const nonce = randomToken("", 24);
  setCookie(c, cookieName(deps.config.issuer), nonce, cookieOptions(deps.config.issuer, PENDING_TTL_SECONDS));
  const sealed = await seal(
    deps.secretKey,
    PURPOSE,
    JSON.stringify({
      ...pending,
      exp: Math.floor(Date.now() / 1000) + PENDING_TTL_SECONDS,
      bind: sha256Hex(nonce),
    }),
  );
  return `/signin/verify?p=${encodeURIComponent(sealed)}`;
}

/** The pending sign-in sealed in `sealed`, if it is ours, unexpired and bound to this browser's cookie. */
export async function readPending(c: Context, deps: Deps, sealed: unknown): Promise<PendingSignIn | null> {
  if (typeof sealed !== "string" || sealed.length > 12000) return null;
  const nonce = getCookie(c, cookieName(deps.config.issuer));
  if (!nonce || nonce.length > 100) return null;
  let pending: PendingSignIn;
  try {
    pending = JSON.parse(await open(deps.secretKey, PURPOSE, sealed)) as PendingSignIn;
  } catch {
    return null;
  }
  if (!pending.exp || pending.exp < Date.now() / 1000) return null;
  if (!pending.bind || !safeEqual(pending.bind, sha256Hex(nonce))) return null;
  if (isLocale(pending.ticket?.req.uiLocale)) c.set("uiLocale", pending.ticket.req.uiLocale);
  if (isLocale(pending.locale)) c.set("personLocale", pending.locale);
  return pending;
}

export function clearPending(c: Context, deps: Deps): void {
  deleteCookie(c, cookieName(deps.config.issuer), cookieOptions(deps.config.issuer));
}
