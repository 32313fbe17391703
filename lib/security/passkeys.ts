// Passkeys (WebAuthn credentials): the options a browser's `navigator.credentials` call gets, the checks of what
// the authenticator answered, and the person's list (user_passkeys). The parsing of attestations and assertions,
// COSE keys, signatures and the counter rule are @simplewebauthn/server's (docs/security.md "Passkeys" says why); this
// module decides what is asked for and what is stored.
//
// - Registration asks for a discoverable credential (residentKey "required") with user verification "required",
//   so every passkey registered here can also sign in alone; attestation "none" (no vendor allow-list).
// - Sign-in with a passkey alone: empty allowCredentials (the browser offers the person's passkeys for this
//   site), user verification required: a verified passkey is two factors (amr hwk user mfa).
// - Second factor: only the pending person's credentials, user verification preferred (possession after the
//   password is the second factor).
//
// Exports: `relyingParty(config)`, `registrationOptions`, `verifyRegistration`, `authenticationOptions`,
// `verifyAuthentication`, `listPasskeys`, `findPasskey`, `renamePasskey`, `removePasskey`, `MAX_PASSKEYS`,
// `NAME_MAX`, `defaultPasskeyName(userAgent)`.
import { Buffer } from "node:buffer";
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type { Db } from "../db/client.ts";
import { isUuid } from "../errors.ts";

/** At most this many passkeys per person (the list and the options stay bounded). */
export const MAX_PASSKEYS = 20;
/** A passkey's name (user_passkeys.name check). */
export const NAME_MAX = 100;
/** The browser's wait for the authenticator, in ms (the challenge cookie lives longer). */
const CEREMONY_TIMEOUT_MS = 120_000;
const TRANSPORTS = new Set(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);

export interface RelyingParty {
  /** the issuer's host name (WebAuthn refuses IP addresses: use a name, `localhost` in development) */
  id: string;
  /** the issuer's origin: the only origin an answer may come from */
  origin: string;
  /** shown by the authenticator: BRAND_NAME */
  name: string;
}

export function relyingParty(config: { issuer: string; brandName: string }): RelyingParty {
  const url = new URL(config.issuer);
  return { id: url.hostname, origin: url.origin, name: config.brandName };
}

export interface PasskeyRow {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** "multiDevice": synced by a passkey provider; "singleDevice": bound to one authenticator */
  deviceType: string;
  backedUp: boolean;
}

/** The person's passkeys, newest first. */
export function listPasskeys(sql: Db, userId: string): Promise<PasskeyRow[]> {
  return sql<PasskeyRow[]>`
    select id, name, created_at as "createdAt", last_used_at as "lastUsedAt", device_type as "deviceType",
           backed_up as "backedUp"
    from user_passkeys where user_id = ${userId} order by created_at desc, id limit ${MAX_PASSKEYS}`;
}

/** One passkey of the person, or null (another person's id is as unknown as no id). */
export async function findPasskey(sql: Db, userId: string, id: unknown): Promise<PasskeyRow | null> {
  if (typeof id !== "string" || !isUuid(id)) return null;
  const [row] = await sql<PasskeyRow[]>`
    select id, name, created_at as "createdAt", last_used_at as "lastUsedAt", device_type as "deviceType",
           backed_up as "backedUp"
    from user_passkeys where user_id = ${userId} and id = ${id}`;
  return row ?? null;
}

/** A name as stored: trimmed, control characters out, 1..NAME_MAX characters; null when nothing is left. */
export function cleanName(name: unknown): string | null {
  if (typeof name !== "string") return null;
  // deno-lint-ignore no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  return clean.length >= 1 && clean.length <= NAME_MAX ? clean : null;
}

export async function renamePasskey(sql: Db, userId: string, id: string, name: string): Promise<boolean> {
  const rows = await sql`update user_passkeys set name = ${name} where user_id = ${userId} and id = ${id}
    returning id`;
  return rows.length === 1;
}

export async function removePasskey(sql: Db, userId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from user_passkeys where user_id = ${userId} and id = ${id} returning id`;
  return rows.length === 1;
}

/** "Passkey on Chrome" and the like, from the browser's User-Agent: the name field's default. */
export function defaultPasskeyName(userAgent: string | undefined): string {
  const ua = userAgent ?? "";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
    ? "Firefox"
    : /Chrome\/|Chromium\//.test(ua)
    ? "Chrome"
    : /Safari\//.test(ua)
    ? "Safari"
    : null;
  const system = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
    ? "iOS"
    : /Mac OS X/.test(ua)
    ? "macOS"
    : /Windows/.test(ua)
    ? "Windows"
    : /Linux/.test(ua)
    ? "Linux"
    : null;
  if (browser && system) return `Passkey on ${browser} (${system})`;
  return browser || system ? `Passkey on ${browser ?? system}` : "Passkey";
}

interface Credential {
  rowId: string;
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
}

async function credentialsOf(sql: Db, userId: string): Promise<Credential[]> {
  const rows = await sql<{ credentialId: string; transports: string[] }[]>`
    select credential_id as "credentialId", transports from user_passkeys where user_id = ${userId}
    order by created_at limit ${MAX_PASSKEYS}`;
  return rows.map((r) => ({ ...r, rowId: "", userId, publicKey: new Uint8Array(), signCount: 0 }));
}

const descriptor = (c: { credentialId: string; transports: string[] }) => ({
  id: c.credentialId,
  transports: c.transports.filter((t) => TRANSPORTS.has(t)) as AuthenticatorTransport[],
});

/** The user handle: the person's id as 16 bytes (no email or name in it). */
function userHandle(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replaceAll("-", ""), "hex"));
}

/** Options to create a passkey for the person; their existing ones are excluded (no second copy). */
export async function registrationOptions(
  sql: Db,
  rp: RelyingParty,
  user: { id: string; email: string; name: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: userHandle(user.id),
    userName: user.email,
    userDisplayName: user.name || user.email,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: (await credentialsOf(sql, user.id)).map(descriptor),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    // ES256, EdDSA, RS256: what authenticators in use offer.
    supportedAlgorithmIDs: [-7, -8, -257],
  });
}

export type RegistrationResult =
  | { ok: true; id: string }
  | { ok: false; reason: "refused" | "duplicate" | "too_many" };

/** Checks a new credential against the challenge and stores it under `name`. */
export async function verifyRegistration(
  sql: Db,
  rp: RelyingParty,
  input: { userId: string; challenge: string; response: RegistrationResponseJSON; name: string },
): Promise<RegistrationResult> {
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch {
    return { ok: false, reason: "refused" };
  }
  if (!verified.verified) return { ok: false, reason: "refused" };
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
  if (credential.id.length > 1400) return { ok: false, reason: "refused" };
  const transports = (input.response.response.transports ?? []).filter((t) => TRANSPORTS.has(t)).slice(0, 8);
  const [count] = await sql<{ n: number }[]>`
    select count(*)::int as n from user_passkeys where user_id = ${input.userId}`;
  if (count.n >= MAX_PASSKEYS) return { ok: false, reason: "too_many" };
  const rows = await sql<{ id: string }[]>`
    insert into user_passkeys (user_id, credential_id, public_key, sign_count, transports, name, device_type,
                               backed_up)
    values (${input.userId}, ${credential.id}, ${Buffer.from(credential.publicKey)}, ${credential.counter},
            ${transports}, ${input.name}, ${credentialDeviceType}, ${credentialBackedUp})
    on conflict (credential_id) do nothing
    returning id`;
  return rows.length === 1 ? { ok: true, id: rows[0].id } : { ok: false, reason: "duplicate" };
}

/**
 * Options to ask for a passkey: any discoverable passkey of this site (sign-in alone, no `userId`), or one of
 * the person's (second factor).
 */
export async function authenticationOptions(
  sql: Db,
  rp: RelyingParty,
  forUser?: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return await generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CEREMONY_TIMEOUT_MS,
    allowCredentials: forUser ? (await credentialsOf(sql, forUser)).map(descriptor) : [],
    userVerification: forUser ? "preferred" : "required",
  });
}

export type AuthenticationResult =
  | { ok: true; userId: string; userVerified: boolean; passkeyId: string }
  /** `userId`: whose credential it was, when the credential is known (for the security log) */
  | { ok: false; reason: "unknown_credential" | "other_person" | "refused"; userId?: string };

/**
 * Checks an assertion: the credential must be known (and the person's, when `forUser` is given), its signature,
 * challenge, origin and RP ID right, and its counter must not go backwards (a cloned authenticator); then the
 * counter and last use are stored. `userVerification` "required" for a sign-in with the passkey alone.
 */
export async function verifyAuthentication(
  sql: Db,
  rp: RelyingParty,
  input: {
    challenge: string;
    response: AuthenticationResponseJSON;
    forUser?: string;
    requireUserVerification: boolean;
  },
): Promise<AuthenticationResult> {
  if (typeof input.response?.id !== "string" || input.response.id.length > 1400) {
    return { ok: false, reason: "unknown_credential" };
  }
  const [row] = await sql<Credential[]>`
    select p.id as "rowId", p.user_id as "userId", p.credential_id as "credentialId", p.public_key as "publicKey",
           p.sign_count::float8 as "signCount", p.transports
    from user_passkeys p join users u on u.id = p.user_id
    where p.credential_id = ${input.response.id} and u.disabled_at is null`;
  if (!row) return { ok: false, reason: "unknown_credential" };
  if (input.forUser !== undefined && row.userId !== input.forUser) {
    return { ok: false, reason: "other_person", userId: row.userId };
  }
  // The user handle, when the authenticator returns one, must name the credential's owner.
  const handle = input.response.response?.userHandle;
  if (handle && handle !== Buffer.from(userHandle(row.userId)).toString("base64url")) {
    return { ok: false, reason: "refused", userId: row.userId };
  }
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: row.credentialId,
        publicKey: new Uint8Array(row.publicKey),
        counter: row.signCount,
        transports: row.transports as AuthenticatorTransport[],
      },
      requireUserVerification: input.requireUserVerification,
    });
  } catch {
    return { ok: false, reason: "refused", userId: row.userId };
  }
  if (!verified.verified) return { ok: false, reason: "refused", userId: row.userId };
  const info = verified.authenticationInfo;
  // Only if the counter is still the one checked: of two uses of one counter value, one wins.
  const updated = await sql`
    update user_passkeys set sign_count = ${info.newCounter}, last_used_at = now(),
      backed_up = ${info.credentialBackedUp}, device_type = ${info.credentialDeviceType}
    where id = ${row.rowId} and sign_count = ${row.signCount}
    returning id`;
  if (updated.length !== 1) return { ok: false, reason: "refused", userId: row.userId };
  return { ok: true, userId: row.userId, userVerified: info.userVerified, passkeyId: row.rowId };
}
