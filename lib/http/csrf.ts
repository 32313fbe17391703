// CSRF protection for every HTML form: a per-browser random cookie, and form tokens that are HMACs of it.
//
// Exports:
// - `csrfToken(c, deps)` → the token to put in a hidden `csrf` field (sets the CSRF cookie when missing).
// - `verifyCsrf(c, deps, submitted)` → true when `submitted` matches this browser's cookie.
// - `CSRF_FIELD` ("csrf"), `CSRF_COOKIE` / `SECURE_CSRF_COOKIE`.
// `deps` is anything with `secretKey` and `config.issuer` (AppDeps fits).
//
// Why a cookie of its own rather than the session id: the sign-in form needs a token before any session exists
// (login CSRF), and the token must survive signing in and out. The cookie is HttpOnly + SameSite=Lax, so a
// cross-site page can neither read it nor forge the HMAC without SECRET_KEY.
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { createHmac } from "node:crypto";
import { randomToken, safeEqual } from "../crypto.ts";
import { cookieOptions, isHttps } from "./cookies.ts";

export const CSRF_FIELD = "csrf";
export const CSRF_COOKIE = "portico_csrf";
export const SECURE_CSRF_COOKIE = "__Host-portico_csrf";
const CSRF_COOKIE_MAX_AGE = 30 * 24 * 3600;

export interface CsrfDeps {
  secretKey: string;
  config: { issuer: string };
}

function cookieName(issuer: string): string {
  return isHttps(issuer) ? SECURE_CSRF_COOKIE : CSRF_COOKIE;
}

function mac(secretKey: string, value: string): string {
  return createHmac("sha256", secretKey).update(`portico:csrf:${value}`).digest("base64url");
}

/** The CSRF token for this browser's forms; sets the CSRF cookie on the response if the browser has none. */
export function csrfToken(c: Context, deps: CsrfDeps): string {
  const name = cookieName(deps.config.issuer);
  let value = getCookie(c, name);
  if (!value || value.length > 100) {
    value = randomToken();
    setCookie(c, name, value, cookieOptions(deps.config.issuer, CSRF_COOKIE_MAX_AGE));
  }
  return mac(deps.secretKey, value);
}

/** Checks a submitted form token against this browser's CSRF cookie (constant time). */
export function verifyCsrf(c: Context, deps: CsrfDeps, submitted: unknown): boolean {
  if (typeof submitted !== "string" || submitted.length === 0 || submitted.length > 100) return false;
  const value = getCookie(c, cookieName(deps.config.issuer));
  if (!value || value.length > 100) return false;
  return safeEqual(mac(deps.secretKey, value), submitted);
}
