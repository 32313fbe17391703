// Browser sessions: one cookie per browser, several signed-in accounts per session, stored hashed in the DB.
//
// Exports (shared with the /account/* pages):
// - `SESSION_COOKIE` / `SECURE_SESSION_COOKIE`, `sessionCookieName(issuer)`: the cookie names (`__Host-` on https).
// - `readBrowserSession(sql, c, issuer?)` → `{ sessionId, accounts: [{ userId, email, name, authTime, lastUsedAt }] }`
//   or null. Accounts come most recently used first.
// - `currentAccount(session)` → the most recently used account or null.
// - `signInPath(returnTo)` → `/signin?return_to=…`: where to send a person who is not signed in.
// - `requireAccount(sql, c, issuer)` → `{ session, account }` or a 303 Response to the sign-in page (return URL =
//   the current path and query).
// - `addAccount`, `useAccount`, `removeAccount`, `endSession`: sign-in / switch / sign-out primitives.
// - `sessionSettings(settings)`: the middleware routes/mod.ts installs so every read knows the idle limit
//   (SESSION_IDLE_MINUTES) and how to find the client's address; without it, the defaults below apply.
// A session is live until its absolute end (30 days from creation) and while used at least every idle limit; a
// read bumps `last_seen_at` (and the address) at most once a minute, in the same statement as the read.
import { isLocale, type Locale } from "../i18n/locale.ts";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Db, Sql } from "../db/client.ts";
import { randomToken, sha256Hex } from "../crypto.ts";
import { isUuid } from "../errors.ts";
import { cookieOptions, isHttps } from "../http/cookies.ts";
import { clientIp } from "../http/client_ip.ts";

export const SESSION_COOKIE = "portico_session";
export const SECURE_SESSION_COOKIE = "__Host-portico_session";
/** Sessions (and their cookie) last 30 days from creation; each account keeps its own auth_time. */
export const SESSION_TTL_SECONDS = 30 * 24 * 3600;
/** SESSION_IDLE_MINUTES' default: a session unused for 4 hours is over. */
export const DEFAULT_SESSION_IDLE_MINUTES = 240;
/** last_seen_at (and the address) are written at most this often per session: reads stay reads. */
export const LAST_SEEN_BUMP_SECONDS = 60;
/** The longest user agent kept (the column's limit). */
export const USER_AGENT_MAX = 300;

/** What every session read needs from the configuration. */
export interface SessionSettings {
  /** SESSION_IDLE_MINUTES × 60; 0: no idle limit */
  idleSeconds: number;
  /** TRUSTED_PROXIES, to find the client's address (lib/http/client_ip.ts) */
  trustedProxies: readonly string[];
}

const SETTINGS_KEY = "sessionSettings";
const DEFAULT_SETTINGS: SessionSettings = {
  idleSeconds: DEFAULT_SESSION_IDLE_MINUTES * 60,
  trustedProxies: [],
};

/** Middleware: makes `settings` the ones every session read of this app uses. */
export function sessionSettings(settings: SessionSettings): MiddlewareHandler {
  return async (c, next) => {
    (c.set as (key: string, value: unknown) => void)(SETTINGS_KEY, settings);
    await next();
  };
}

function settingsOf(c: Context): SessionSettings {
  const s = (c.get as (key: string) => unknown)(SETTINGS_KEY) as SessionSettings | undefined;
  return s ?? DEFAULT_SETTINGS;
}

/** The client's address as the session list shows it (at most 64 characters). */
export function sessionIp(c: Context): string {
  const ip = clientIp(c as never, settingsOf(c).trustedProxies);
  return ip === "unknown" ? "" : ip.slice(0, 64);
}

/** The browser's User-Agent, cut to USER_AGENT_MAX characters. */
export function sessionUserAgent(c: Context): string {
  return (c.req.header("user-agent") ?? "").slice(0, USER_AGENT_MAX);
}

export interface SessionAccount {
  userId: string;
  email: string;
  name: string;
  /** when this account last entered its password in this browser */
  authTime: Date;
  lastUsedAt: Date;
  /** how it signed in here: RFC 8176 values (lib/security/amr.ts), e.g. ["pwd"] or ["pwd", "otp", "mfa"] */
  amr: string[];
  /** the person must choose a new password before anything else (users.password_change_required) */
  mustChangePassword: boolean;
  /** the person's language setting (users.locale), or null: as the browser asks */
  locale: Locale | null;
}

export interface BrowserSession {
  sessionId: string;
  accounts: SessionAccount[];
}

export function sessionCookieName(issuer: string): string {
  return isHttps(issuer) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

function readSessionToken(c: Context, issuer?: string): string | undefined {
  // Without an issuer, the __Host- cookie wins; the plain one is only honoured on http issuers, where a sibling
  // subdomain cannot plant a __Host- cookie anyway.
  if (issuer === undefined) return getCookie(c, SECURE_SESSION_COOKIE) ?? getCookie(c, SESSION_COOKIE);
  return getCookie(c, sessionCookieName(issuer));
}

interface AccountRow {
  sessionId: string;
  userId: string | null;
  email: string | null;
  name: string | null;
  authTime: Date | null;
  lastUsedAt: Date | null;
  amr: string[] | null;
  mustChangePassword: boolean | null;
  locale: string | null;
}

/**
 * The browser's session and its accounts (most recently used first), or null without a live session: one past
 * its absolute end, or unused for longer than the idle limit. One statement: it reads the session, bumps its
 * last_seen_at and address when the last bump is over LAST_SEEN_BUMP_SECONDS old, and deletes it when it went
 * idle or past its end (the next sign-in in this browser then starts a new one).
 */
export async function readBrowserSession(
  sql: Db,
  c: Context,
  issuer?: string,
): Promise<BrowserSession | null> {
  const token = readSessionToken(c, issuer);
  if (!token || token.length > 200) return null;
  const hash = sha256Hex(token);
  const idle = settingsOf(c).idleSeconds;
  const ip = sessionIp(c);
  // The CTEs and the select see the same snapshot (before the bump or the delete): the select judges the
  // session by the last_seen_at it had when this request came.
  const rows = await sql<AccountRow[]>`
    with bumped as (
      update browser_sessions set last_seen_at = now(), ip = ${ip}
      where token_hash = ${hash} and expires_at > now()
        and (${idle} = 0 or last_seen_at > now() - make_interval(secs => ${idle}))
        and last_seen_at < now() - make_interval(secs => ${LAST_SEEN_BUMP_SECONDS})
      returning id
    ), idled as (
      delete from browser_sessions
      where token_hash = ${hash}
        and (expires_at <= now() or (${idle} > 0 and last_seen_at <= now() - make_interval(secs => ${idle})))
      returning id
    )
    select s.id as "sessionId", u.id as "userId", u.email, u.name, a.auth_time as "authTime",
           a.last_used_at as "lastUsedAt", a.amr, u.password_change_required as "mustChangePassword",
           u.locale
    from browser_sessions s
    left join browser_session_accounts a on a.session_id = s.id
    left join users u on u.id = a.user_id
    where s.token_hash = ${hash} and s.expires_at > now()
      and (${idle} = 0 or s.last_seen_at > now() - make_interval(secs => ${idle}))
    order by a.last_used_at desc nulls last`;
  if (rows.length === 0) return null;
  const accounts: SessionAccount[] = [];
  for (const r of rows) {
    // An account row always has both times (not null columns); the left join makes them nullable here.
    if (r.userId === null || r.email === null) continue;
    accounts.push({
      userId: r.userId,
      email: r.email,
      name: r.name ?? "",
      authTime: r.authTime!,
      lastUsedAt: r.lastUsedAt!,
      amr: r.amr ?? ["pwd"],
      mustChangePassword: r.mustChangePassword === true,
      locale: isLocale(r.locale) ? r.locale : null,
    });
  }
  // The current account's language setting picks the page's language (lib/i18n/locale.ts, localeOf).
  if (accounts[0]?.locale) c.set("personLocale", accounts[0].locale);
  return { sessionId: rows[0].sessionId, accounts };
}

/** The account /account/* pages act for: the one used most recently in this browser. */
export function currentAccount(session: BrowserSession | null): SessionAccount | null {
  return session?.accounts[0] ?? null;
}

/** A same-origin path (not `//host`, not a URL), or null. */
export function safeReturnPath(value: string | undefined | null): string | null {
  if (!value || value.length > 2000) return null;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return null;
  for (const ch of value) if (ch < " " || ch === "\\") return null;
  return value;
}

export function signInPath(returnTo?: string): string {
  const safe = safeReturnPath(returnTo);
  return safe ? `/signin?return_to=${encodeURIComponent(safe)}` : "/signin";
}

/** The current account, or a 303 to the sign-in page that comes back to this URL afterwards. */
export async function requireAccount(
  sql: Db,
  c: Context,
  issuer: string,
): Promise<{ session: BrowserSession; account: SessionAccount } | Response> {
  const session = await readBrowserSession(sql, c, issuer);
  const account = currentAccount(session);
  const url = new URL(c.req.url);
  if (session && account) {
    // A password that must change (users.password_change_required) is changed before any other account page.
    if (account.mustChangePassword && url.pathname !== PASSWORD_CHANGE_PATH) {
      return c.redirect(passwordChangePath(url.pathname + url.search), 303);
    }
    return { session, account };
  }
  return c.redirect(signInPath(url.pathname + url.search), 303);
}

/** The change-password page (routes/account_security.ts). */
export const PASSWORD_CHANGE_PATH = "/account/security/password";

/** The change-password page in its required mode, which continues to `next` afterwards. */
export function passwordChangePath(next: string): string {
  return `${PASSWORD_CHANGE_PATH}?required=1&next=${encodeURIComponent(next)}`;
}

/**
 * Adds (or refreshes) a signed-in account on this browser's session, creating the session and its cookie when
 * there is none. The account becomes the current one, with auth_time = now and the sign-in's methods (`amr`,
 * lib/security/amr.ts; a password alone when left out). The session records the browser's User-Agent and the
 * client's address (`options.ip` when the caller knows it better) for the person's session list.
 */
export async function addAccount(
  sql: Sql,
  c: Context,
  issuer: string,
  userId: string,
  amr: readonly string[] = ["pwd"],
  options: { ip?: string } = {},
): Promise<string> {
  const existing = await readBrowserSession(sql, c, issuer);
  // A new cookie value on every sign-in, so a session id planted before sign-in is worthless afterwards.
  const token = randomToken("pbs_");
  const ip = (options.ip ?? sessionIp(c)).slice(0, 64);
  const userAgent = sessionUserAgent(c);
  let sessionId = existing?.sessionId;
  if (sessionId) {
    await sql`
      update browser_sessions
      set token_hash = ${sha256Hex(token)}, last_seen_at = now(), ip = ${ip}, user_agent = ${userAgent}
      where id = ${sessionId}`;
  } else {
    const [row] = await sql<{ id: string }[]>`
      insert into browser_sessions (token_hash, expires_at, ip, user_agent)
      values (${sha256Hex(token)}, now() + make_interval(secs => ${SESSION_TTL_SECONDS}), ${ip}, ${userAgent})
      returning id`;
    sessionId = row.id;
  }
  setCookie(c, sessionCookieName(issuer), token, cookieOptions(issuer, SESSION_TTL_SECONDS));
  // Expired and idle sessions are useless; sweep them now and then rather than on every sign-in.
  if (Math.random() < 0.02) {
    const idle = settingsOf(c).idleSeconds;
    await sql`
      delete from browser_sessions
      where expires_at < now()
         or (${idle} > 0 and last_seen_at < now() - make_interval(secs => ${idle}))`;
  }
  await sql`
    insert into browser_session_accounts (session_id, user_id, auth_time, last_used_at, amr)
    values (${sessionId}, ${userId}, now(), now(), ${[...amr]})
    on conflict (session_id, user_id) do update set auth_time = now(), last_used_at = now(), amr = excluded.amr`;
  return sessionId;
}

/**
 * Step-up: an account already signed in to this session proved a second factor; its methods become `amr`
 * (auth_time stays: the sign-in itself is as old as it was). False when the account is not in the session.
 */
export async function upgradeAccount(
  sql: Db,
  sessionId: string,
  userId: string,
  amr: readonly string[],
): Promise<boolean> {
  if (!isUuid(userId)) return false;
  const rows = await sql`
    update browser_session_accounts set amr = ${[...amr]}, last_used_at = now()
    where session_id = ${sessionId} and user_id = ${userId}
    returning user_id`;
  return rows.length > 0;
}

/** Makes an account already in the session the current one; false when it is not in the session. */
export async function useAccount(sql: Db, sessionId: string, userId: string): Promise<boolean> {
  if (!isUuid(userId)) return false;
  const rows = await sql`
    update browser_session_accounts set last_used_at = now()
    where session_id = ${sessionId} and user_id = ${userId}
    returning user_id`;
  return rows.length > 0;
}

/** Signs one account out of this browser. */
export async function removeAccount(sql: Db, sessionId: string, userId: string): Promise<void> {
  if (!isUuid(userId)) return;
  await sql`delete from browser_session_accounts where session_id = ${sessionId} and user_id = ${userId}`;
}

/** Signs every account out: deletes the session and clears the cookie. */
export async function endSession(sql: Db, c: Context, issuer: string, sessionId: string): Promise<void> {
  await sql`delete from browser_sessions where id = ${sessionId}`;
  deleteCookie(c, sessionCookieName(issuer), cookieOptions(issuer));
}
