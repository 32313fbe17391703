// Access tokens (RFC 9068 JWTs) and ID tokens, signed with the current key, and access token verification.
import { createHash } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { acrOf } from "../security/amr.ts";
import { signJwt } from "./jwt_sign.ts";
import type { KeyStore } from "./keys.ts";

import { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS } from "./lifetimes.ts";
export { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS };

export interface AccessTokenInput {
  issuer: string;
  userId: string;
  audience: string;
  clientId: string;
  scopes: string[];
  grantId: string;
  authTime: Date;
}

export async function signAccessToken(keys: KeyStore, input: AccessTokenInput): Promise<string> {
  const { kid, signer } = await keys.signing();
  const now = Math.floor(Date.now() / 1000);
  return await signJwt(signer, { kid, typ: "at+jwt" }, {
    iss: input.issuer,
    sub: input.userId,
    aud: input.audience,
    jti: crypto.randomUUID(),
    iat: now,
    exp: now + ACCESS_TOKEN_TTL_SECONDS,
    client_id: input.clientId,
    scope: input.scopes.join(" "),
    auth_time: Math.floor(input.authTime.getTime() / 1000),
    // Which grant the token came from, so revoking the grant (code replay, refresh reuse, disconnect) ends it
    // at the endpoints that check (userinfo).
    grant_id: input.grantId,
  });
}

/** OIDC at_hash: base64url of the left half of SHA-256 over the access token. */
export function atHash(accessToken: string): string {
  const digest = createHash("sha256").update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

export interface IdTokenInput {
  issuer: string;
  userId: string;
  clientId: string;
  nonce?: string;
  authTime: Date;
  amr: string[];
  accessToken: string;
}

export async function signIdToken(keys: KeyStore, input: IdTokenInput): Promise<string> {
  const { kid, signer } = await keys.signing();
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    auth_time: Math.floor(input.authTime.getTime() / 1000),
    acr: acrOf(input.amr),
    amr: input.amr,
    at_hash: atHash(input.accessToken),
    azp: input.clientId,
  };
  if (input.nonce !== undefined) claims.nonce = input.nonce;
  return await signJwt(signer, { kid, typ: "JWT" }, {
    iss: input.issuer,
    sub: input.userId,
    aud: input.clientId,
    iat: now,
    exp: now + ID_TOKEN_TTL_SECONDS,
    ...claims,
  });
}

export interface TokenPairInput extends AccessTokenInput {
  /** whether to sign an ID token as well (the `openid` scope) */
  idToken: boolean;
  /** how the person signed in (RFC 8176); the ID token carries it with the acr it implies */
  amr: string[];
  nonce?: string;
}

/** A token response's JWTs: the access token, then the ID token, whose `at_hash` is over the access token. */
export async function signTokenPair(
  keys: KeyStore,
  input: TokenPairInput,
): Promise<{ accessToken: string; idToken?: string }> {
  const accessToken = await signAccessToken(keys, input);
  if (!input.idToken) return { accessToken };
  const idToken = await signIdToken(keys, {
    issuer: input.issuer,
    userId: input.userId,
    clientId: input.clientId,
    nonce: input.nonce,
    authTime: input.authTime,
    amr: input.amr,
    accessToken,
  });
  return { accessToken, idToken };
}

export interface AccessTokenClaims {
  sub: string;
  client_id: string;
  scope: string;
  grant_id?: string;
  aud: string | string[];
  exp: number;
  jti: string;
}

/** Verifies signature, issuer, type and expiry; throws on any problem. */
export async function verifyAccessToken(
  keys: KeyStore,
  issuer: string,
  token: string,
): Promise<AccessTokenClaims> {
  const header = decodeProtectedHeader(token);
  if (typeof header.kid !== "string") throw new Error("token has no kid");
  const key = await keys.verificationKey(header.kid);
  if (!key) throw new Error("unknown signing key");
  const { payload } = await jwtVerify(token, key, { issuer, typ: "at+jwt", algorithms: ["RS256"] });
  if (typeof payload.sub !== "string" || typeof payload.client_id !== "string") {
    throw new Error("token lacks sub or client_id");
  }
  return payload as unknown as AccessTokenClaims;
}
