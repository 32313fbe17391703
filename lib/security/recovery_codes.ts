// Recovery codes: the way in when the phone with the authenticator app is lost. Ten codes, each 10 characters
// from a 32-letter alphabet without look-alikes (50 random bits), shown as `xxxxx-xxxxx`, shown once and stored
// only as SHA-256 hashes salted with the person's id (a random UUID, so one hash table cannot serve every
// account). Each works once: using one marks it used in one conditional UPDATE (`used_at is null`), so two
// requests with the same code cannot both pass. Creating new codes replaces the whole old set.
//
// Exports: `RECOVERY_CODE_COUNT`, `createRecoveryCodes(sql, userId)` → the codes (to show once),
// `useRecoveryCode(sql, userId, typed)` → codes left or null, `normalizeRecoveryCode`, `recoveryCodesLeft`.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import { sha256Hex } from "../crypto.ts";
import { withTx } from "../db/tx.ts";

export const RECOVERY_CODE_COUNT = 10;
/** Few enough left that the person is told to create new ones. */
export const RECOVERY_CODES_LOW = 2;
/** Crockford's base32 alphabet in lower case: no i, l, o, u. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const CODE_CHARS = 10;

function newCode(): string {
  const bytes = randomBytes(CODE_CHARS);
  // 256 is a multiple of 32: taking each byte modulo 32 is unbiased.
  const chars = [...bytes].map((b) => ALPHABET[b % 32]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * What the person typed, in the stored form: lower case, without spaces or dashes, look-alikes read as the
 * alphabet means them (o → 0, i/l → 1); null when it cannot be a code.
 */
export function normalizeRecoveryCode(typed: string): string | null {
  if (typed.length > 40) return null;
  const s = typed.toLowerCase().replace(/[\s-]/g, "").replace(/o/g, "0").replace(/[il]/g, "1");
  if (s.length !== CODE_CHARS || ![...s].every((ch) => ALPHABET.includes(ch))) return null;
  return s;
}

function codeHash(userId: string, normalized: string): string {
  return sha256Hex(`portico:recovery-code:${userId}:${normalized}`);
}

/** A new set of codes for the person, replacing any earlier set; answers them (shown once, never stored). */
export async function createRecoveryCodes(sql: Db, userId: string): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode());
  const list = [...codes];
  const hashes = list.map((code) => codeHash(userId, normalizeRecoveryCode(code)!));
  await withTx(sql, async (tx) => {
    await tx`delete from user_recovery_codes where user_id = ${userId}`;
    await tx`
      insert into user_recovery_codes (user_id, code_hash)
      select ${userId}, h from unnest(${hashes}::text[]) as h`;
  });
  return list;
}

/**
 * Uses one code: when `typed` is an unused code of the person, marks it used (once, race-safe) and answers how
 * many are left; null otherwise (wrong, used, or not a code). The lookup is by the hash, so no comparison of
 * the secret itself depends on what was typed.
 */
export async function useRecoveryCode(sql: Db, userId: string, typed: string): Promise<number | null> {
  const normalized = normalizeRecoveryCode(typed);
  if (normalized === null) return null;
  const used = await sql`
    update user_recovery_codes set used_at = now()
    where user_id = ${userId} and code_hash = ${codeHash(userId, normalized)} and used_at is null
    returning id`;
  if (used.length !== 1) return null;
  return await recoveryCodesLeft(sql, userId);
}

/** Codes not used yet. */
export async function recoveryCodesLeft(sql: Db, userId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from user_recovery_codes where user_id = ${userId} and used_at is null`;
  return row.n;
}
