// Random secrets, SHA-256 hashes for stored secrets, scrypt password hashes, and constant-time comparison.
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** A high-entropy secret: prefix + 32 random bytes in base64url (256 bits). */
export function randomToken(prefix = "", bytes = 32): string {
  return prefix + randomBytes(bytes).toString("base64url");
}

/** SHA-256 hex: how every secret (keys, codes, tokens, sessions) is stored. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
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

const N = 16384, R = 8, P = 1, KEYLEN = 32;

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEYLEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

/** scrypt with a per-user random salt, encoded as `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

// A hash of a random password, verified against when the account does not exist so both paths cost the same.
const DUMMY = hashPassword(randomToken());

/** Verifies a password; pass `undefined` for an unknown account to spend the same time and get false. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const encoded = stored ?? await DUMMY;
  const parts = encoded.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, "base64url");
  const key = await scryptAsync(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
  return timingSafeEqual(key, expected) && stored !== undefined;
}
