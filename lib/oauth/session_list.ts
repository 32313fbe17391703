// The person's own list of browser sessions (/account/sessions) and the ways to end them: one browser, or every
// browser but this one. Only live sessions are listed (within their absolute end and the idle limit), newest use
// first, at most SESSION_LIST_MAX. Ending a session for a person removes *their* account from it; other people
// signed in to a shared browser stay signed in, and a session left with no account is deleted.
//
// Exports: `listSessionsOf(sql, userId, idleSeconds)`, `endSessionOf(sql, userId, sessionId)`,
// `endOtherSessions(sql, userId, keepSessionId)`, `deviceSummary(userAgent, words?)`, `signInMethod(amr, words?)`
// (words: the catalogue's `t.account.sessions`, English by default), `SESSION_LIST_MAX`.
import type { Db } from "../db/client.ts";
import { account, type AccountMessages } from "../i18n/en/account.ts";
import { isUuid } from "../errors.ts";

/** The most sessions the list shows (the newest used). */
export const SESSION_LIST_MAX = 50;

export interface SessionListEntry {
  sessionId: string;
  /** the browser's User-Agent at sign-in (at most 300 characters) */
  userAgent: string;
  /** the address seen at the last bump of last_seen_at ('' when unknown) */
  ip: string;
  /** when this person signed in on that browser */
  authTime: Date;
  lastSeenAt: Date;
  amr: string[];
}

/** The person's live browser sessions, most recently seen first, at most SESSION_LIST_MAX. */
export function listSessionsOf(sql: Db, userId: string, idleSeconds: number): Promise<SessionListEntry[]> {
  return sql<SessionListEntry[]>`
    select s.id as "sessionId", s.user_agent as "userAgent", s.ip, a.auth_time as "authTime",
           s.last_seen_at as "lastSeenAt", a.amr
    from browser_session_accounts a join browser_sessions s on s.id = a.session_id
    where a.user_id = ${userId} and s.expires_at > now()
      and (${idleSeconds} = 0 or s.last_seen_at > now() - make_interval(secs => ${idleSeconds}))
    order by s.last_seen_at desc, s.id
    limit ${SESSION_LIST_MAX}`;
}

/** Deletes the sessions among `ids` that no longer hold any account. */
async function dropEmpty(sql: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    delete from browser_sessions s
    where s.id = any(${ids}::uuid[])
      and not exists (select 1 from browser_session_accounts a where a.session_id = s.id)`;
}

/** Signs this person out of one browser session; false when they were not signed in there. */
export async function endSessionOf(sql: Db, userId: string, sessionId: string): Promise<boolean> {
  if (!isUuid(sessionId) || !isUuid(userId)) return false;
  const rows = await sql<{ sessionId: string }[]>`
    delete from browser_session_accounts where session_id = ${sessionId} and user_id = ${userId}
    returning session_id as "sessionId"`;
  await dropEmpty(sql, rows.map((r) => r.sessionId));
  return rows.length > 0;
}

/**
 * Signs this person out of every browser session but `keepSessionId` (null: all of them); the number of sessions
 * they were signed out of. Also what a password change does (issue 29).
 */
export async function endOtherSessions(
  sql: Db,
  userId: string,
  keepSessionId: string | null,
): Promise<number> {
  if (!isUuid(userId) || (keepSessionId !== null && !isUuid(keepSessionId))) return 0;
  const rows = await sql<{ sessionId: string }[]>`
    delete from browser_session_accounts
    where user_id = ${userId} and (${keepSessionId}::uuid is null or session_id <> ${keepSessionId}::uuid)
    returning session_id as "sessionId"`;
  await dropEmpty(sql, rows.map((r) => r.sessionId));
  return rows.length;
}

// Most specific first: Edge and Opera say "Chrome" too, Chrome says "Safari".
const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\b(OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(Firefox|FxiOS)\//, "Firefox"],
  [/\b(HeadlessChrome|Chrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/\bcurl\//, "curl"],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/\b(iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** The words of deviceSummary and signInMethod: the catalogue's `t.account.sessions` (English by default). */
export type SessionWords = Pick<AccountMessages["sessions"], "device" | "methods">;

/**
 * A short description of a browser from its User-Agent: "Firefox on Windows", "Safari on iOS", or "Unknown
 * browser" (in `words`' language: "Firefox unter Windows"). A few fixed patterns over at most 300 characters: no
 * dependency, nothing unbounded; a browser that lies about itself is described as what it claims.
 */
export function deviceSummary(userAgent: string, words: SessionWords = account.sessions): string {
  const ua = userAgent.slice(0, 300);
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  if (browser && system) return words.device.on(browser, system);
  if (browser) return browser;
  if (system) return words.device.anyOn(system);
  return words.device.unknown;
}

/** How an account signed in, from its amr (lib/security/amr.ts), in the page's words. */
export function signInMethod(amr: readonly string[], words: SessionWords = account.sessions): string {
  const pwd = amr.includes("pwd");
  const m = words.methods;
  if (amr.includes("hwk")) return pwd ? m.passwordAndPasskey : m.passkey;
  if (amr.includes("otp")) return m.passwordAndCode;
  return m.password;
}
