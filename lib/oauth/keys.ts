// Signing keys: RS256 key pairs in the database, private halves sealed with SECRET_KEY, rotated by publishing
// the next key before it signs, and a per-instance cache that imports each key once and picks the signing key
// by time from the database's state, so every instance switches at the same moment.
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { Db, Sql } from "../db/client.ts";
import { withTx } from "../db/tx.ts";
import { randomToken } from "../crypto.ts";
import { open, seal } from "../secret_box.ts";
import { createSigner, type RsaSigner, type SigningKey } from "./signer.ts";

export const KEY_PURPOSE = "signing-keys";
import { SIGNED_TOKEN_TTL_SECONDS } from "./lifetimes.ts";
export { SIGNED_TOKEN_TTL_SECONDS };
/**
 * The longest an instance keeps its key cache before re-reading the table (a store may be asked for a shorter
 * interval, never a longer one): a key inserted by another instance is published here within this delay.
 */
export const KEY_REFRESH_SECONDS = 60;
/** `Cache-Control: max-age` of /oauth/jwks: how long a verifier may keep a key set without asking again. */
export const JWKS_MAX_AGE_SECONDS = 300;
/** Allowance for clocks that disagree between instances and verifiers. */
export const KEY_CLOCK_SLACK_SECONDS = 60;
/**
 * A new key is published at once and signs only this much later: every instance has re-read the table
 * (KEY_REFRESH_SECONDS) and every JWKS copy cached before that has expired (JWKS_MAX_AGE_SECONDS), plus slack.
 * A verifier that honours max-age therefore knows the key before it meets a token carrying it.
 */
export const KEY_PUBLISH_DELAY_SECONDS = KEY_REFRESH_SECONDS + JWKS_MAX_AGE_SECONDS + KEY_CLOCK_SLACK_SECONDS;
/**
 * A key stops signing at `retired_at` (its successor's activation) and stays published this much longer: the
 * lifetime of the last token it signed, plus a refresh interval and slack.
 */
export const RETIRED_KEY_GRACE_SECONDS = SIGNED_TOKEN_TTL_SECONDS + KEY_REFRESH_SECONDS +
  KEY_CLOCK_SLACK_SECONDS;

/** Milliseconds since the epoch; injectable so tests can move time instead of waiting. */
export type Clock = () => number;

async function insertKey(tx: Db, secretKey: string, createdAt: Date, activatesAt: Date): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", {
    extractable: true,
    modulusLength: 2048,
  });
  const kid = randomToken("", 16);
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: "RS256" };
  const sealed = await seal(secretKey, KEY_PURPOSE, JSON.stringify(privateJwk));
  await tx`
    insert into signing_keys (kid, alg, public_jwk, private_jwk_encrypted, created_at, activates_at)
    values (${kid}, 'RS256', ${tx.json(publicJwk as Record<string, string>)}, ${sealed}, ${createdAt},
            ${activatesAt})`;
  return kid;
}

// Serialises key creation across instances (the value is arbitrary but fixed).
const KEY_LOCK_ID = 727_002;

/**
 * Inserts the next key: published from now, signing from `activates_at` (KEY_PUBLISH_DELAY_SECONDS later); the
 * key signing now stops at that moment (`retired_at`).
 */
export async function rotateSigningKey(
  sql: Sql,
  secretKey: string,
  now: Clock = Date.now,
): Promise<{ kid: string; activates_at: string }> {
  return await withTx(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${KEY_LOCK_ID})`;
    return await insertNextKey(tx, secretKey, now());
  });
}

async function insertNextKey(
  tx: Db,
  secretKey: string,
  t: number,
): Promise<{ kid: string; activates_at: string }> {
  const activatesAt = new Date(t + KEY_PUBLISH_DELAY_SECONDS * 1000);
  const at = new Date(t);
  // The key signing now keeps signing until the new one activates; a key still waiting for its activation is
  // overtaken and never signs (it retires at its own activation).
  await tx`
    update signing_keys
       set retired_at = case when activates_at > ${at} then activates_at else ${activatesAt} end
     where retired_at is null or (retired_at > ${at} and activates_at <= ${at})`;
  const kid = await insertKey(tx, secretKey, new Date(t), activatesAt);
  return { kid, activates_at: activatesAt.toISOString() };
}

/**
 * Makes sure a signing key exists (start-up); two instances starting together create only one. The first key
 * signs at once: no verifier can hold a key set that lacks it, as there was none before.
 */
export async function ensureSigningKey(
  sql: Sql,
  secretKey: string,
): Promise<{ kid: string; created: boolean }> {
  return await withTx(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${KEY_LOCK_ID})`;
    const [row] = await tx<{ kid: string }[]>`
      select kid from signing_keys where retired_at is null order by activates_at desc limit 1`;
    if (row) return { kid: row.kid, created: false };
    const t = new Date();
    return { kid: await insertKey(tx, secretKey, t, t), created: true };
  });
}

/**
 * Rotates when the newest key is older than `days` (automatic rotation, KEY_ROTATION_DAYS). Safe from every
 * instance at once: the check runs under the creation lock, so one rotation happens.
 */
export async function rotateIfDue(
  sql: Sql,
  secretKey: string,
  days: number,
  now: Clock = Date.now,
): Promise<{ kid: string; activates_at: string } | undefined> {
  return await withTx(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${KEY_LOCK_ID})`;
    const t = now();
    const [fresh] = await tx`
      select 1 from signing_keys where created_at > ${new Date(t - days * 86_400_000)} limit 1`;
    return fresh ? undefined : await insertNextKey(tx, secretKey, t);
  });
}

interface KeyRow {
  kid: string;
  publicJwk: JWK | string;
  privateJwkEncrypted: string;
  createdAt: Date;
  activatesAt: Date;
  retiredAt: Date | null;
}

export type KeyState = "next" | "signing" | "retiring";

/** A key as `admin keys list` prints it (its JSON keys are the table's column names). */
export interface KeyInfo {
  kid: string;
  state: KeyState;
  created_at: string;
  activates_at: string;
  retired_at: string | null;
  /** when it leaves JWKS (null while no successor has been made) */
  unpublished_at: string | null;
}

function publishedUntil(r: { retiredAt: Date | null }): number {
  return r.retiredAt === null ? Infinity : r.retiredAt.getTime() + RETIRED_KEY_GRACE_SECONDS * 1000;
}

/**
 * The key that signs at time `t`: the latest activated one not yet retired at `t`; if there is none (no key has
 * activated yet), the first to come.
 */
function signingRow<R extends { activatesAt: Date; retiredAt: Date | null }>(rows: R[], t: number): R {
  let best: R | undefined;
  for (const r of rows) {
    const live = r.activatesAt.getTime() <= t && (r.retiredAt === null || r.retiredAt.getTime() > t);
    if (live && (!best || r.activatesAt > best.activatesAt)) best = r;
  }
  return best ?? rows.reduce((a, b) => (b.activatesAt < a.activatesAt ? b : a));
}

async function publishedRows(sql: Sql, t: number): Promise<KeyRow[]> {
  return await sql<KeyRow[]>`
    select kid, public_jwk as "publicJwk", private_jwk_encrypted as "privateJwkEncrypted",
           created_at as "createdAt", activates_at as "activatesAt", retired_at as "retiredAt"
      from signing_keys
     where retired_at is null or retired_at > ${new Date(t - RETIRED_KEY_GRACE_SECONDS * 1000)}
     order by activates_at desc`;
}

/** The published keys and their state (`deno task admin keys list`). */
export async function listSigningKeys(sql: Sql, now: Clock = Date.now): Promise<KeyInfo[]> {
  const t = now();
  const rows = await publishedRows(sql, t);
  if (rows.length === 0) return [];
  const signing = signingRow(rows, t);
  return rows.map((r) => ({
    kid: r.kid,
    state: r === signing
      ? "signing"
      : r.activatesAt.getTime() > t && (r.retiredAt === null || r.retiredAt > r.activatesAt)
      ? "next"
      : "retiring",
    created_at: r.createdAt.toISOString(),
    activates_at: r.activatesAt.toISOString(),
    retired_at: r.retiredAt?.toISOString() ?? null,
    unpublished_at: r.retiredAt ? new Date(publishedUntil(r)).toISOString() : null,
  }));
}

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: CryptoKey;
  privateSealed: string;
  activatesAt: Date;
  retiredAt: Date | null;
}

interface KeySet {
  loadedAt: number;
  keys: LoadedKey[];
}

export interface KeyStore {
  /**
   * The key that signs now: its kid, `signer` (the RS256 signer seam — OpenSSL or WebCrypto, imported once) that
   * tokens are signed with, and `key`, the same private key as a WebCrypto CryptoKey for code that needs one.
   */
  signing(): Promise<{ kid: string; key: CryptoKey; signer: SigningKey }>;
  /** the public key for a published kid, reloading once from the database when the kid is unknown */
  verificationKey(kid: string): Promise<CryptoKey | undefined>;
  /** the published key set: the next key (if any), the signing key, and retired keys within their grace */
  jwks(): Promise<{ keys: JWK[] }>;
  /** forget the cache (after a rotation in this process) */
  invalidate(): void;
}

/** Minimum time between reloads triggered by unknown kids, so junk tokens cannot hammer the database. */
const UNKNOWN_KID_RELOAD_MS = 5_000;

export interface KeyStoreOptions {
  /** how often to re-read the table; capped at KEY_REFRESH_SECONDS, which the publish delay relies on */
  refreshSeconds?: number;
  unknownKidReloadMs?: number;
  /** the clock keys are chosen by (tests move it) */
  now?: Clock;
  /** rotate automatically when the newest key is older than this many days (0 or unset: never) */
  rotateAfterDays?: number;
  /** how private keys sign (lib/oauth/signer.ts); by default `createSigner()` (OpenSSL when FFI is granted) */
  signer?: RsaSigner;
}

let defaultSigner: RsaSigner | undefined;

export function createKeyStore(sql: Sql, secretKey: string, opts: KeyStoreOptions = {}): KeyStore {
  const refreshMs = Math.min(opts.refreshSeconds ?? KEY_REFRESH_SECONDS, KEY_REFRESH_SECONDS) * 1000;
  const unknownKidReloadMs = opts.unknownKidReloadMs ?? UNKNOWN_KID_RELOAD_MS;
  const now = opts.now ?? Date.now;
  let current: KeySet | undefined;
  let loading: Promise<KeySet> | undefined;
  // Imported CryptoKeys survive reloads: each key is parsed once per process.
  const imported = new Map<string, LoadedKey>();
  // One import per private key, however many requests sign at once before it is done (a failed one is retried
  // by the next request).
  const importedPrivate = new Map<string, Promise<{ key: CryptoKey; signer: SigningKey }>>();
  const signer = opts.signer ?? (defaultSigner ??= createSigner());

  async function load(): Promise<KeySet> {
    const t = now();
    if (opts.rotateAfterDays) await rotateIfDue(sql, secretKey, opts.rotateAfterDays, now);
    const rows = await publishedRows(sql, t);
    if (!rows.some((r) => r.retiredAt === null)) {
      await ensureSigningKey(sql, secretKey);
      return await load();
    }
    const keys: LoadedKey[] = [];
    for (const r of rows) {
      let k = imported.get(r.kid);
      if (!k) {
        const jwk = typeof r.publicJwk === "string" ? JSON.parse(r.publicJwk) as JWK : r.publicJwk;
        k = {
          kid: r.kid,
          publicJwk: jwk,
          publicKey: await importJWK(jwk, "RS256") as CryptoKey,
          privateSealed: r.privateJwkEncrypted,
          activatesAt: r.activatesAt,
          retiredAt: r.retiredAt,
        };
        imported.set(r.kid, k);
      }
      // Times come from the row each time: a later rotation sets retirement (and an operator may move them).
      keys.push({ ...k, activatesAt: r.activatesAt, retiredAt: r.retiredAt });
    }
    return { loadedAt: t, keys };
  }

  function reload(): Promise<KeySet> {
    loading ??= load().then((set) => {
      current = set;
      return set;
    }).finally(() => loading = undefined);
    return loading;
  }

  async function get(): Promise<KeySet> {
    if (current && now() - current.loadedAt < refreshMs) return current;
    return await reload();
  }

  /** The keys published at time t (retired keys leave exactly at the end of their grace, between reloads). */
  function published(set: KeySet, t: number): LoadedKey[] {
    return set.keys.filter((k) => publishedUntil(k) > t);
  }

  return {
    async signing() {
      const t = now();
      const k = signingRow(published(await get(), t), t);
      let importing = importedPrivate.get(k.kid);
      if (!importing) {
        importing = (async () => {
          const jwk = JSON.parse(await open(secretKey, KEY_PURPOSE, k.privateSealed)) as JWK;
          return { key: await importJWK(jwk, "RS256") as CryptoKey, signer: await signer.importKey(jwk) };
        })();
        importedPrivate.set(k.kid, importing);
        const mine = importing;
        mine.catch(() => importedPrivate.get(k.kid) === mine && importedPrivate.delete(k.kid));
      }
      return { kid: k.kid, ...await importing };
    },
    async verificationKey(kid) {
      const set = await get();
      const k = published(set, now()).find((k) => k.kid === kid);
      if (k) return k.publicKey;
      if (now() - set.loadedAt < unknownKidReloadMs) return undefined;
      return published(await reload(), now()).find((k) => k.kid === kid)?.publicKey;
    },
    async jwks() {
      return {
        keys: published(await get(), now()).map((k) => ({
          kty: k.publicJwk.kty,
          n: k.publicJwk.n,
          e: k.publicJwk.e,
          kid: k.kid,
          use: "sig",
          alg: "RS256",
        })),
      };
    },
    invalidate() {
      current = undefined;
    },
  };
}
