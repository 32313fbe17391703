// The refresh token's format (docs/oauth.md "Refresh tokens: storage and format"): `prt_` + base64url of
// family id (16 bytes) ‖ generation (4 bytes, big-endian) ‖ random (32 bytes) ‖ tag (16 bytes), the tag being
// HMAC-SHA256 of the first 52 bytes under a key derived from SECRET_KEY, truncated to 16 bytes.
//
// The family id finds the grant row by its primary key; the generation tells a token of an earlier generation
// from a current one without a row per token. Only the tag makes the generation trustworthy: a token whose tag
// does not verify (forged, or minted under another SECRET_KEY) counts only through its hash, never by the
// generation it claims. The 32 random bytes keep the token a 256-bit secret on their own.
import { Buffer } from "node:buffer";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { purposeKey } from "../../crypto.ts";
import { isUuid } from "../../errors.ts";

export const REFRESH_TOKEN_PREFIX = "prt_";
const FAMILY_BYTES = 16;
const GENERATION_BYTES = 4;
const RANDOM_BYTES = 32;
const TAG_BYTES = 16;
const SIGNED_BYTES = FAMILY_BYTES + GENERATION_BYTES + RANDOM_BYTES;
const TOKEN_BYTES = SIGNED_BYTES + TAG_BYTES;
/** base64url without padding of TOKEN_BYTES bytes */
const ENCODED_CHARS = Math.ceil(TOKEN_BYTES * 4 / 3);
const ENCODED = new RegExp(`^${REFRESH_TOKEN_PREFIX}[A-Za-z0-9_-]{${ENCODED_CHARS}}$`);
/** The largest generation a grant row holds (its column is a Postgres integer). */
const MAX_GENERATION = 2 ** 31 - 1;

/** What a presented token says about itself. */
export interface PresentedRefreshToken {
  readonly familyId: string;
  readonly generation: number;
  /**
   * The tag verifies under this SECRET_KEY: the family id and generation are the ones this server minted.
   * Computed when first read: a current token is judged by its hash alone and never needs it (an HMAC costs
   * some 30 µs in Deno's node:crypto, on every refresh otherwise).
   */
  readonly tagValid: boolean;
}

function tag(secretKey: string, signed: Uint8Array): Buffer {
  return createHmac("sha256", purposeKey(secretKey, "refresh-token")).update(signed).digest()
    .subarray(0, TAG_BYTES);
}

/** A new refresh token of `familyId` (a grant id) and `generation`. */
export function mintRefreshToken(secretKey: string, familyId: string, generation: number): string {
  if (!isUuid(familyId)) throw new Error("a refresh token's family id is a grant id (a UUID)");
  if (!Number.isInteger(generation) || generation < 1 || generation > MAX_GENERATION) {
    throw new Error("a refresh token's generation is a positive 31-bit integer");
  }
  const bytes = Buffer.alloc(TOKEN_BYTES);
  Buffer.from(familyId.replaceAll("-", ""), "hex").copy(bytes, 0);
  bytes.writeUInt32BE(generation, FAMILY_BYTES);
  randomBytes(RANDOM_BYTES).copy(bytes, FAMILY_BYTES + GENERATION_BYTES);
  tag(secretKey, bytes.subarray(0, SIGNED_BYTES)).copy(bytes, SIGNED_BYTES);
  return REFRESH_TOKEN_PREFIX + bytes.toString("base64url");
}

/**
 * Reads a presented token: undefined when it is not of this format (a token issued before migration 00031, or
 * anything else), which the caller then looks up by hash among the legacy rows.
 */
export function readRefreshToken(secretKey: string, token: string): PresentedRefreshToken | undefined {
  if (!ENCODED.test(token)) return undefined;
  const encoded = token.slice(REFRESH_TOKEN_PREFIX.length);
  const bytes = Buffer.from(encoded, "base64url");
  // One spelling per token: the last character's unused bits must be zero (else two strings, two hashes).
  if (bytes.length !== TOKEN_BYTES || bytes.toString("base64url") !== encoded) return undefined;
  const generation = bytes.readUInt32BE(FAMILY_BYTES);
  // A successor is one generation further, and must fit as well.
  if (generation < 1 || generation >= MAX_GENERATION) return undefined;
  const hex = bytes.toString("hex", 0, FAMILY_BYTES);
  const familyId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
  let tagValid: boolean | undefined;
  return {
    familyId,
    generation,
    get tagValid() {
      tagValid ??= timingSafeEqual(
        tag(secretKey, bytes.subarray(0, SIGNED_BYTES)),
        bytes.subarray(SIGNED_BYTES),
      );
      return tagValid;
    },
  };
}
