// Signing keys: RS256 key pairs in the database, private halves sealed with SECRET_KEY, rotatable, and a
// per-instance cache that imports each key once and picks up rotations made by other instances.
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { Db, Sql } from "../db/client.ts";
import { randomToken } from "../crypto.ts";
import { open, seal } from "../secret_box.ts";

export const KEY_PURPOSE = "signing-keys";
import { SIGNED_TOKEN_TTL_SECONDS } from "./lifetimes.ts";
export { SIGNED_TOKEN_TTL_SECONDS };
/** How often an instance re-reads the key table, so a rotation elsewhere is used within this delay. */
export const KEY_REFRESH_SECONDS = 60;
/**
 * A new key is published in JWKS this long before anyone signs with it, so every instance's cache (and a
 * verifier that refetches on an unknown kid) already knows it when the first token carrying it arrives.
 */
export const KEY_PUBLISH_DELAY_SECONDS = KEY_REFRESH_SECONDS;
/**
 * A retired key stays published this long: the token lifetime, plus the publish delay during which instances
 * still sign with it, plus one refresh interval for instances that have not reloaded yet, plus clock slack.
 */
export const RETIRED_KEY_GRACE_SECONDS = SIGNED_TOKEN_TTL_SECONDS + KEY_PUBLISH_DELAY_SECONDS +
  KEY_REFRESH_SECONDS + 300;

async function insertNewKey(tx: Db, secretKey: string): Promise<{ kid: string }> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", {
    extractable: true,
    modulusLength: 2048,
  });
  const kid = randomToken("", 16);
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: "RS256" };
  const sealed = await seal(secretKey, KEY_PURPOSE, JSON.stringify(privateJwk));
  await tx`update signing_keys set retired_at = now() where retired_at is null`;
  await tx`
    insert into signing_keys (kid, alg, public_jwk, private_jwk_encrypted)
    values (${kid}, 'RS256', ${tx.json(publicJwk as Record<string, string>)}, ${sealed})`;
  return { kid };
}

// Serialises key creation across instances (the value is arbitrary but fixed).
const KEY_LOCK_ID = 727_002;

/** Generates a new key and makes it current; the previous one is retired but stays published for a while. */
export async function rotateSigningKey(sql: Sql, secretKey: string): Promise<{ kid: string }> {
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${KEY_LOCK_ID})`;
    return await insertNewKey(tx, secretKey);
  });
}

/** Makes sure a current signing key exists (start-up); two instances starting together create only one. */
export async function ensureSigningKey(
  sql: Sql,
  secretKey: string,
): Promise<{ kid: string; created: boolean }> {
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${KEY_LOCK_ID})`;
    const [row] = await tx<{ kid: string }[]>`
      select kid from signing_keys where retired_at is null order by created_at desc limit 1`;
    if (row) return { kid: row.kid, created: false };
    return { ...(await insertNewKey(tx, secretKey)), created: true };
  });
}

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: CryptoKey;
}

interface KeySet {
  loadedAt: number;
  signing: { kid: string; key: CryptoKey };
  byKid: Map<string, LoadedKey>;
  jwks: { keys: JWK[] };
}

export interface KeyStore {
  /** the current private key and its kid */
  signing(): Promise<{ kid: string; key: CryptoKey }>;
  /** the public key for a kid, reloading once from the database when the kid is unknown (rotated elsewhere) */
  verificationKey(kid: string): Promise<CryptoKey | undefined>;
  /** the published key set: the current key and retired keys still within their grace period */
  jwks(): Promise<{ keys: JWK[] }>;
  /** forget the cache (after a rotation in this process) */
  invalidate(): void;
}

/** Minimum time between reloads triggered by unknown kids, so junk tokens cannot hammer the database. */
const UNKNOWN_KID_RELOAD_MS = 5_000;

export interface KeyStoreOptions {
  refreshSeconds?: number;
  unknownKidReloadMs?: number;
}

export function createKeyStore(sql: Sql, secretKey: string, opts: KeyStoreOptions = {}): KeyStore {
  const refreshSeconds = opts.refreshSeconds ?? KEY_REFRESH_SECONDS;
  const unknownKidReloadMs = opts.unknownKidReloadMs ?? UNKNOWN_KID_RELOAD_MS;
  let current: KeySet | undefined;
  let loading: Promise<KeySet> | undefined;
  // Imported CryptoKeys survive reloads: each key is parsed once per process.
  const imported = new Map<string, LoadedKey>();
  const importedPrivate = new Map<string, CryptoKey>();

  async function load(): Promise<KeySet> {
    const rows = await sql<
      { kid: string; public_jwk: JWK; private_jwk_encrypted: string; retired: boolean; published: boolean }[]
    >`
      select kid, public_jwk, private_jwk_encrypted, retired_at is not null as retired,
             created_at <= now() - make_interval(secs => ${KEY_PUBLISH_DELAY_SECONDS}) as published
      from signing_keys
      where retired_at is null or retired_at > now() - make_interval(secs => ${RETIRED_KEY_GRACE_SECONDS})
      order by created_at desc`;
    if (!rows.some((r) => !r.retired)) {
      await ensureSigningKey(sql, secretKey);
      return await load();
    }
    const byKid = new Map<string, LoadedKey>();
    for (const r of rows) {
      let k = imported.get(r.kid);
      if (!k) {
        const jwk = typeof r.public_jwk === "string" ? JSON.parse(r.public_jwk) as JWK : r.public_jwk;
        k = { kid: r.kid, publicJwk: jwk, publicKey: await importJWK(jwk, "RS256") as CryptoKey };
        imported.set(r.kid, k);
      }
      byKid.set(r.kid, k);
    }
    // Sign with the newest key every instance has had time to publish; when every key is that young (first
    // start, or two rotations within a minute), with the oldest, which has been known longest.
    const cur = rows.find((r) => r.published) ?? rows[rows.length - 1];
    let priv = importedPrivate.get(cur.kid);
    if (!priv) {
      const jwk = JSON.parse(await open(secretKey, KEY_PURPOSE, cur.private_jwk_encrypted)) as JWK;
      priv = await importJWK(jwk, "RS256") as CryptoKey;
      importedPrivate.set(cur.kid, priv);
    }
    return {
      loadedAt: Date.now(),
      signing: { kid: cur.kid, key: priv },
      byKid,
      jwks: {
        keys: [...byKid.values()].map((k) => ({
          kty: k.publicJwk.kty,
          n: k.publicJwk.n,
          e: k.publicJwk.e,
          kid: k.kid,
          use: "sig",
          alg: "RS256",
        })),
      },
    };
  }

  function reload(): Promise<KeySet> {
    loading ??= load().then((set) => {
      current = set;
      return set;
    }).finally(() => loading = undefined);
    return loading;
  }

  async function get(): Promise<KeySet> {
    if (current && Date.now() - current.loadedAt < refreshSeconds * 1000) return current;
    return await reload();
  }

  return {
    async signing() {
      return (await get()).signing;
    },
    async verificationKey(kid) {
      const set = await get();
      const k = set.byKid.get(kid);
      if (k) return k.publicKey;
      if (Date.now() - set.loadedAt < unknownKidReloadMs) return undefined;
      return (await reload()).byKid.get(kid)?.publicKey;
    },
    async jwks() {
      return (await get()).jwks;
    },
    invalidate() {
      current = undefined;
    },
  };
}
