// Random secrets, SHA-256 hashes for stored secrets, keys derived from SECRET_KEY, scrypt password hashes, and
// constant-time comparison.
import { createHash, hkdfSync, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** A high-entropy secret: prefix + 32 random bytes in base64url (256 bits). */
export function randomToken(prefix = "", bytes = 32): string {
  return prefix + randomBytes(bytes).toString("base64url");
}

/** SHA-256 hex: how every secret (keys, codes, tokens, sessions) is stored. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

const purposeKeys = new Map<string, Buffer>();

/**
 * A 256-bit key for one use of SECRET_KEY: HKDF-SHA256(SECRET_KEY, empty salt, info `portico:<purpose>`), the
 * derivation `lib/secret_box.ts` uses for its AES keys. Never the raw secret, never another purpose's key; derived
 * once per secret and purpose.
 */
export function purposeKey(secret: string, purpose: string): Buffer {
  const id = `${purpose}\0${secret}`;
  let key = purposeKeys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, new Uint8Array(0), `portico:${purpose}`, 32));
    purposeKeys.set(id, key);
  }
  return key;
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP Password Storage Cheat Sheet: scrypt N=2^17, r=8, p=1. Each hash needs 128 MiB (128·N·r bytes) and
 * took 0.6–1 s on the 2-core test machine. Production always uses these; only tests pass a cheaper value.
 */
export const SCRYPT_PARAMS: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });
const KEYLEN = 32;
/** The largest cost a stored hash may name: a corrupted row must not make us allocate gigabytes. */
const MAX_N = 2 ** 20, MAX_R = 32, MAX_P = 16;

/**
 * At most this many scrypt computations run at once in this process (each holds 128 MiB with OWASP's
 * parameters): 40 parallel sign-ins then need 256 MiB, not 5 GiB, and queue instead. Two matches the cores
 * the runtime's blocking pool gets on a small machine.
 */
export const HASHING_CONCURRENCY = 2;

/** A counting semaphore: `run` waits for a free slot. Exported (as `hashingSlots`) so tests can hold it. */
export class Semaphore {
  #free: number;
  #waiting: Array<() => void> = [];
  constructor(slots: number) {
    this.#free = slots;
  }
  /** callers waiting for a slot right now */
  get waiting(): number {
    return this.#waiting.length;
  }
  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

export const hashingSlots = new Semaphore(HASHING_CONCURRENCY);

function scryptAsync(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const { N, r, p } = params;
  // node:crypto refuses anything above maxmem (default 32 MiB); OpenSSL needs 128·r·(N+p+2) bytes plus a little.
  const maxmem = 128 * r * (N + p + 2) + 1024 * 1024;
  return hashingSlots.run(() =>
    new Promise((resolve, reject) => {
      scrypt(password, salt, KEYLEN, { N, r, p, maxmem }, (err, key) => {
        if (err) reject(err);
        else resolve(key);
      });
    })
  );
}

function encode(params: ScryptParams, salt: Buffer, key: Buffer): string {
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64url")}$${
    key.toString("base64url")
  }`;
}

/** scrypt with a per-user random salt, encoded as `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  return encode(params, salt, await scryptAsync(password, salt, params));
}

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

function parse(encoded: string): Parsed | null {
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const ok = (v: number, max: number) => Number.isInteger(v) && v >= 1 && v <= max;
  if (!ok(N, MAX_N) || !ok(r, MAX_R) || !ok(p, MAX_P) || (N & (N - 1)) !== 0) return null;
  return {
    params: { N, r, p },
    salt: Buffer.from(parts[4], "base64url"),
    hash: Buffer.from(parts[5], "base64url"),
  };
}

/** The parameters a stored hash was made with (null when it is not one of ours). */
export function hashParams(stored: string): ScryptParams | null {
  return parse(stored)?.params ?? null;
}

/** True when a stored hash was made with other parameters than `params` and should be replaced at sign-in. */
export function needsRehash(stored: string, params: ScryptParams = SCRYPT_PARAMS): boolean {
  const own = hashParams(stored);
  return own === null || own.N !== params.N || own.r !== params.r || own.p !== params.p;
}

// Hashes of a random password per parameter set, verified against when the account does not exist so both
// paths cost the same. Made on first use: computing one at import would cost every process 128 MiB and ~1 s.
const dummies = new Map<string, Promise<string>>();
function dummyHash(params: ScryptParams): Promise<string> {
  const key = `${params.N}$${params.r}$${params.p}`;
  let hash = dummies.get(key);
  if (!hash) {
    hash = hashPassword(randomToken(), params);
    dummies.set(key, hash);
  }
  return hash;
}

/**
 * Verifies a password against a stored hash, with the parameters the hash names (older hashes keep working).
 * Pass `undefined` for an unknown account to spend the time of a hash with `params` and get false.
 */
export async function verifyPassword(
  password: string,
  stored: string | undefined,
  params: ScryptParams = SCRYPT_PARAMS,
): Promise<boolean> {
  const parsed = parse(stored ?? await dummyHash(params));
  if (!parsed) return false;
  const key = await scryptAsync(password, parsed.salt, parsed.params);
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash) && stored !== undefined;
}
