// PKCE (RFC 7636), S256 only: challenge and verifier formats and the check at the token endpoint.
import { createHash } from "node:crypto";
import { safeEqual } from "../crypto.ts";

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export function isValidChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

export function isValidVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  return isValidVerifier(verifier) && safeEqual(s256(verifier), challenge);
}
