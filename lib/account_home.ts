// /account, the person's home: their profile (name, picture) and a count of what the other account pages hold.
//
// Exports: `accountSummary(sql, userId, idleSeconds)`, `profileProblem(input)` (what is wrong with a submitted profile, or
// null), `updateProfile(sql, userId, profile)`.
import type { Db } from "./db/client.ts";
import { isLocale, type Locale, type Text } from "./i18n/mod.ts";
import { type Factors, factorsOf } from "./security/factors.ts";

export const NAME_MAX = 200;
export const PICTURE_MAX = 2000;

export interface AccountSummary {
  email: string;
  name: string;
  picture: string | null;
  /** the language setting (users.locale), or null: as the browser asks */
  locale: Locale | null;
  plan: string;
  /** applications the person approved (what /account/apps lists) */
  apps: number;
  /** the person's own API keys that are not revoked */
  keys: number;
  factors: Factors;
  /** browsers signed in to this account (live sessions) */
  sessions: number;
  /** workspaces the person belongs to */
  workspaces: number;
}

/** The person's profile and counts; `idleSeconds` is SESSION_IDLE_MINUTES × 60 (0: no idle limit). */
export async function accountSummary(sql: Db, userId: string, idleSeconds: number): Promise<AccountSummary> {
  const [row] = await sql<Omit<AccountSummary, "factors">[]>`
    select u.email, u.name, u.picture, u.locale, u.plan,
           (select count(*)::int from oauth_consents k where k.user_id = u.id) as apps,
           (select count(*)::int from api_keys k where k.user_id = u.id and k.revoked_at is null) as keys,
           (select count(*)::int from browser_session_accounts a join browser_sessions s on s.id = a.session_id
             where a.user_id = u.id and s.expires_at > now()
               and (${idleSeconds} = 0 or s.last_seen_at > now() - make_interval(secs => ${idleSeconds}))) as sessions,
           (select count(*)::int from workspace_members m where m.user_id = u.id) as workspaces
      from users u where u.id = ${userId}`;
  return { ...row, locale: isLocale(row.locale) ? row.locale : null, factors: await factorsOf(sql, userId) };
}

export interface Profile {
  name: string;
  /** an https URL of a picture, or "" for none */
  picture: string;
  /** a language of lib/i18n (LOCALES), or "" for "as the browser asks" */
  locale: string;
}

/** What is wrong with a submitted profile, in words for the person (a catalogue text); null when it can be saved. */
export function profileProblem(p: Profile): Text | null {
  const name = p.name.trim();
  if (name.length === 0) return (t) => t.home.nameMissing;
  if ([...name].length > NAME_MAX) return (t) => t.home.nameTooLong(NAME_MAX);
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return (t) => t.home.nameControl;
  if (p.locale !== "" && !isLocale(p.locale)) return (t) => t.home.languageUnknown;
  const picture = p.picture.trim();
  if (picture === "") return null;
  if (picture.length > PICTURE_MAX) return (t) => t.home.pictureTooLong(PICTURE_MAX);
  let url: URL;
  try {
    url = new URL(picture);
  } catch {
    return (t) => t.home.pictureNotHttps;
  }
  if (url.protocol !== "https:" || !url.hostname || url.username || url.password) {
    return (t) => t.home.pictureNotHttps;
  }
  return null;
}

/** Saves a profile that `profileProblem` accepted. Apps with the `profile` scope see it at UserInfo. */
export async function updateProfile(sql: Db, userId: string, p: Profile): Promise<void> {
  const picture = p.picture.trim();
  await sql`update users set name = ${p.name.trim()}, picture = ${picture === "" ? null : picture},
                          locale = ${isLocale(p.locale) ? p.locale : null}
             where id = ${userId}`;
}
