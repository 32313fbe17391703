// Email + password sign-in: one answer for unknown email and wrong password, a brake on guessing that an
// attacker cannot turn against the account's owner, device cookies, and transparent rehashing of old hashes.
//
// The brake (OWASP Authentication Cheat Sheet, "Login Throttling", and OWASP's "Slow Down Online Guessing
// Attacks with Device Cookies"); docs/oauth.md "Sign-in brake" says the same for operators, with the numbers'
// reasons:
// - Every attempt is counted BEFORE its password is checked, in one statement per bucket (`reserve`), so
//   parallel guesses cannot all slip past the count. A successful sign-in gives its slots back: the brake
//   counts failures.
// - Buckets: per client address (every attempt, any account). Then, for a browser without a device cookie for
//   the account: per account and client network (IPv4 /24, IPv6 /64), and per account across all networks
//   with a much higher allowance. For a browser that signed in to the account before (device cookie): per
//   device cookie instead. Guesses from one network therefore brake that network only; the owner elsewhere
//   signs in, and only a guesser spread over many networks reaches the account-wide allowance.
// - Within each bucket the first attempts pass at once; after that each attempt waits for a delay that doubles
//   (progressive delay, OWASP's "exponential lockout"), never longer than maxDelaySeconds.
// - Every refused attempt is a security event (lib/security/events.ts: a log line with ids only, and a row on the
//   person's security page when the email is a known account).
// - A password that signs someone in but falls short of today's policy (lib/security/password_policy.ts: too
//   short, common, guessable) marks the account users.password_change_required; the sign-in's completion then
//   asks for a new password. Checked only while the password predates the policy (password_changed_at null).
import { isLocale, type Locale } from "../i18n/locale.ts";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { createHmac } from "node:crypto";
import type { Db } from "../db/client.ts";
import {
  hashPassword,
  needsRehash,
  randomToken,
  safeEqual,
  SCRYPT_PARAMS,
  type ScryptParams,
  sha256Hex,
  verifyPassword,
} from "../crypto.ts";
import { addressKey, networkKey } from "../http/client_ip.ts";
import { cookieOptions, isHttps } from "../http/cookies.ts";
import { type Logger, silentLogger } from "../log.ts";
import { type Brake, release, reserve } from "../rate_limit/mod.ts";
import { recordSecurityEvent, type SecurityEvent } from "../security/events.ts";
import { fallsShortAtSignIn } from "../security/password_policy.ts";

/**
 * Attempts per bucket that pass before any wait, within a sliding day; then 1 min, 2, 4, 8 and at most 15 min
 * between attempts. Per account and client network (from browsers without the account's device cookie): one
 * network gets at most about 110 checked guesses a day at one account. Per account across all networks: twice
 * that, so no single network, however patient, reaches it; a guesser on many networks gets about 300 a day.
 * Per device cookie, and per client address (any account: spraying many accounts).
 */
export const SIGN_IN_BRAKE = {
  perNetwork: 10,
  perAccount: 200,
  perDevice: 10,
  perIp: 50,
  windowSeconds: 24 * 3600,
  firstDelaySeconds: 60,
  maxDelaySeconds: 15 * 60,
} as const;

function brake(free: number): Brake {
  const { windowSeconds, firstDelaySeconds, maxDelaySeconds } = SIGN_IN_BRAKE;
  return { free, windowSeconds, firstDelaySeconds, maxDelaySeconds };
}

/** The per-address brake every way of signing in shares (`brakeBucket.address`): passwords and passkeys. */
export const ADDRESS_BRAKE: Brake = brake(SIGN_IN_BRAKE.perIp);

/** The key of an account in brake buckets and device cookies: a hash of the email, known or not. */
export function accountKey(email: string): string {
  return sha256Hex(email.trim().toLowerCase());
}

/**
 * The brake's buckets in rate_limits, keyed by the email's hash, known or not, so the brake itself does not
 * reveal which accounts exist. `lib/admin/recovery.ts` clears an account's (`accountBuckets`).
 */
export const brakeBucket = {
  address: (ip: string) => `signin:ip:${addressKey(ip)}`,
  account: (key: string) => `signin:account:${key}`,
  network: (key: string, ip: string) => `${networkPrefix(key)}${networkKey(ip)}`,
  device: (nonce: string) => `signin:device:${nonce}`,
};

function networkPrefix(key: string): string {
  return `signin:net:${key}:`;
}

/** Every bucket of an account's brake: its own, and one per client network (a prefix). */
export function accountBuckets(email: string): { account: string; networkPrefix: string } {
  const key = accountKey(email);
  return { account: brakeBucket.account(key), networkPrefix: networkPrefix(key) };
}

// ---- device cookies -----------------------------------------------------------------------------------------

export const DEVICE_COOKIE = "portico_device";
export const SECURE_DEVICE_COOKIE = "__Host-portico_device";
/** A device cookie lives half a year from the last sign-in in that browser. */
export const DEVICE_COOKIE_MAX_AGE = 180 * 24 * 3600;
/** Accounts one device cookie vouches for (the most recent sign-ins win). */
const DEVICE_ACCOUNTS_MAX = 10;
/** Account keys in the cookie are shortened to 128 bits to keep it small. */
const KEY_CHARS = 32;

/** A verified device cookie: this browser's random id and the accounts that signed in with it. */
export interface Device {
  nonce: string;
  accounts: string[];
}

function deviceMac(secretKey: string, body: string): string {
  return createHmac("sha256", secretKey).update(`portico:device:${body}`).digest("base64url");
}

function deviceCookieName(issuer: string): string {
  return isHttps(issuer) ? SECURE_DEVICE_COOKIE : DEVICE_COOKIE;
}

/** This browser's device cookie if it carries our signature; null otherwise (missing, forged, malformed). */
export function readDevice(
  c: Context,
  deps: { secretKey: string; config: { issuer: string } },
): Device | null {
  const value = getCookie(c, deviceCookieName(deps.config.issuer));
  if (!value || value.length > 1000) return null;
  const m = value.match(/^([A-Za-z0-9_-]{16,64})\.([0-9a-f~]{0,400})\.([A-Za-z0-9_-]{43})$/);
  if (!m || !safeEqual(deviceMac(deps.secretKey, `${m[1]}.${m[2]}`), m[3])) return null;
  return { nonce: m[1], accounts: m[2] === "" ? [] : m[2].split("~") };
}

/** Sets the device cookie after a successful sign-in: the same browser id, this account first in its list. */
export function writeDevice(
  c: Context,
  deps: { secretKey: string; config: { issuer: string } },
  previous: Device | null,
  email: string,
): void {
  const key = accountKey(email).slice(0, KEY_CHARS);
  const nonce = previous?.nonce ?? randomToken("", 18);
  const accounts = [key, ...(previous?.accounts ?? []).filter((a) => a !== key)].slice(
    0,
    DEVICE_ACCOUNTS_MAX,
  );
  const body = `${nonce}.${accounts.join("~")}`;
  setCookie(
    c,
    deviceCookieName(deps.config.issuer),
    `${body}.${deviceMac(deps.secretKey, body)}`,
    cookieOptions(deps.config.issuer, DEVICE_COOKIE_MAX_AGE),
  );
}

// ---- sign-in ------------------------------------------------------------------------------------------------

/** Which bucket refused a throttled attempt (for the log: "account" means guesses from many networks). */
export type BrakeScope = "address" | "network" | "account" | "device";

export type SignInResult =
  | { ok: true; userId: string; locale: Locale | null }
  | { ok: false; reason: "invalid_credentials" | "disabled" }
  | { ok: false; reason: "throttled"; retryAfter: number; brake: BrakeScope };

export interface SignInInput {
  email: string;
  password: string;
  ip: string;
  /** this browser's verified device cookie, if any (`readDevice`) */
  device?: Device | null;
  /** for the security event of a refused attempt */
  requestId?: string;
  userAgent?: string;
}

export interface SignInOptions {
  /** Test-only: the scrypt cost new hashes get (and old ones are rehashed to). Production leaves it out. */
  scrypt?: ScryptParams;
  /** where a refused attempt's security event is logged (ids only: never the email typed, never the password) */
  log?: Logger;
}

export async function signIn(db: Db, input: SignInInput, options: SignInOptions = {}): Promise<SignInResult> {
  const params = options.scrypt ?? SCRYPT_PARAMS;
  const email = input.email.trim().toLowerCase();
  const key = accountKey(email);
  const trusted = input.device?.accounts.includes(key.slice(0, KEY_CHARS)) ?? false;

  // The source first, then the narrower account bucket before the wider one: a braked source or network then
  // uses up nothing of the account's allowance.
  type Bucket = [BrakeScope, string, number];
  const buckets: Bucket[] = [["address", brakeBucket.address(input.ip), SIGN_IN_BRAKE.perIp]];
  if (trusted) buckets.push(["device", brakeBucket.device(input.device!.nonce), SIGN_IN_BRAKE.perDevice]);
  else {
    buckets.push(
      ["network", brakeBucket.network(key, input.ip), SIGN_IN_BRAKE.perNetwork],
      ["account", brakeBucket.account(key), SIGN_IN_BRAKE.perAccount],
    );
  }
  const taken: Array<{ bucket: string; windowStart: number }> = [];
  for (const [scope, bucket, free] of buckets) {
    const r = await reserve(db, bucket, brake(free));
    if (!r.ok) {
      for (const t of taken) await release(db, t);
      const [user] = await findUser(db, email);
      await recordThrottled(db, options.log ?? silentLogger, {
        kind: "sign_in_throttled",
        ...refusalFacts(input, user?.id),
        detail: { device: trusted, brake: scope, retry_after: r.retryAfter },
      });
      return { ok: false, reason: "throttled", retryAfter: r.retryAfter, brake: scope };
    }
    taken.push(r);
  }

  const [user] = await findUser(db, email);
  const password = input.password.slice(0, 1024);
  const valid = await verifyPassword(password, user?.passwordHash, params);
  const failed = async (reason: "invalid_credentials" | "disabled"): Promise<SignInResult> => {
    await recordSecurityEvent(db, options.log ?? silentLogger, {
      kind: "sign_in_failed",
      ...refusalFacts(input, user?.id),
      detail: { device: trusted, reason },
    });
    return { ok: false, reason };
  };
  if (!valid || !user) return await failed("invalid_credentials");
  // Said only to someone who proved the password: the account exists and an operator disabled it.
  if (user.disabled) return await failed("disabled");

  for (const t of taken) await release(db, t);
  if (needsRehash(user.passwordHash, params)) {
    // Verified with its own (older) parameters above; now replaced, unless the password changed meanwhile.
    const fresh = await hashPassword(password, params);
    await db`update users set password_hash = ${fresh}
             where id = ${user.id} and password_hash = ${user.passwordHash}`;
  }
  // A password set before today's policy: if it falls short, the person must choose a new one now (issue 29).
  if (!user.changeRequired && user.changedAt === null) {
    if (await fallsShortAtSignIn(password, { email: user.email, name: user.name })) {
      await db`update users set password_change_required = true where id = ${user.id}`;
    }
  }
  return { ok: true, userId: user.id, locale: isLocale(user.locale) ? user.locale : null };
}

function findUser(db: Db, email: string) {
  if (email.length > 320) return Promise.resolve([]);
  return db<
    {
      id: string;
      email: string;
      name: string;
      passwordHash: string;
      disabled: boolean;
      changedAt: Date | null;
      changeRequired: boolean;
      locale: string | null;
    }[]
  >`
    select id, email, name, password_hash as "passwordHash", disabled_at is not null as disabled,
           password_changed_at as "changedAt", password_change_required as "changeRequired", locale
      from users where lower(email) = ${email}`;
}

/**
 * Records a throttled attempt. A refusal costs the guesser nothing (it is not counted), so its row on the person's
 * security page is written at most once per SIGN_IN_BRAKE.maxDelaySeconds; the log line always is (with
 * `repeated: true` and the person's id when no row was written). Also used by the change-password form.
 */
export async function recordThrottled(
  db: Db,
  log: Logger,
  event: SecurityEvent & { kind: "sign_in_throttled" },
): Promise<void> {
  if (event.userId) {
    const [recent] = await db`
      select 1 from security_events
       where user_id = ${event.userId} and kind = 'sign_in_throttled'
         and at > now() - make_interval(secs => ${SIGN_IN_BRAKE.maxDelaySeconds})
       limit 1`;
    if (recent) {
      const detail = { ...event.detail, user_id: event.userId, repeated: true };
      return await recordSecurityEvent(db, log, { ...event, userId: undefined, detail });
    }
  }
  await recordSecurityEvent(db, log, event);
}

/** What a refused attempt's event says: ids only — the person if the email is theirs, never what was typed. */
function refusalFacts(input: SignInInput, userId: string | undefined) {
  return { userId, ip: input.ip, userAgent: input.userAgent, requestId: input.requestId };
}
