// What every grant of the token endpoint shares: its dependencies and parameters, the token response and its
// signing, refresh-token lifetimes, client checks, and revoking a grant's family.
import { z } from "zod";
import type { Db, Sql } from "../../db/client.ts";
import type { Client, ClientCredentials, ClientFinder } from "../clients.ts";
import type { KeyStore } from "../keys.ts";
import { parseResource } from "../resource.ts";
import type { RefreshHints } from "./refresh_hints.ts";
import { ACCESS_TOKEN_TTL_SECONDS, signTokenPair } from "../tokens.ts";

export const REFRESH_TTL_CONFIDENTIAL_SECONDS = 30 * 24 * 3600;
export const REFRESH_TTL_PUBLIC_SECONDS = 7 * 24 * 3600;

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

export interface TokenDeps {
  sql: Sql;
  keys: KeyStore;
  issuer: string;
  /** REFRESH_REUSE_GRACE_SECONDS: how long a just-rotated refresh token may be presented again (0: never) */
  refreshGraceSeconds: number;
  /** REFRESH_FAMILY_MAX_DAYS: the absolute life of a refresh token family, counted from the code exchange */
  familyMaxDays: number;
  /** SECRET_KEY: refresh tokens carry a tag under a key derived from it (./refresh_format.ts) */
  secretKey: string;
  /** finds clients for authentication (the client directory: registered ones and metadata documents) */
  findClient: ClientFinder;
  /** this instance's notes on the refresh tokens it issued, to sign a refresh's tokens during its statement */
  refreshHints?: RefreshHints;
}

const param = z.string().max(4000).optional();

/**
 * The token endpoint's form (wire names), every grant's parameters in one schema: a grant that reads a new
 * parameter adds it here. Client credentials come along for `readClientCredentials`.
 */
export const TokenParams = z.object({
  grant_type: param,
  code: param,
  redirect_uri: param,
  code_verifier: param,
  refresh_token: param,
  scope: param,
  resource: param,
  client_id: param,
  client_secret: param,
});
export type TokenParams = z.infer<typeof TokenParams>;

/**
 * One grant of the token endpoint: authenticates the client (its own way), checks the request, changes what the
 * grant changes and answers with tokens, or throws an OAuthError that names the refusal.
 */
export type TokenGrant = (
  deps: TokenDeps,
  creds: ClientCredentials,
  params: TokenParams,
) => Promise<TokenResponse>;

/** A `resource` parameter as RFC 8707 allows it here (one absolute URI); invalid_target otherwise. */
export function checkedResource(value: string | undefined, issuer: string): string | undefined {
  return value === undefined ? undefined : parseResource([value], issuer);
}

/** The refresh-token lifetime a client gets, or undefined when it did not register the refresh_token grant. */
export function refreshTtl(client: Client): number | undefined {
  if (!client.grantTypes.includes("refresh_token")) return undefined;
  return client.confidential ? REFRESH_TTL_CONFIDENTIAL_SECONDS : REFRESH_TTL_PUBLIC_SECONDS;
}

/**
 * Revokes a grant: its refresh tokens (their state is the grant row's, migration 00031; a legacy row counts
 * only while its grant is live) and its access tokens (UserInfo, introspection and /mcp read the grant) end.
 */
export async function revokeGrant(db: Db, grantId: string): Promise<void> {
  await db`update oauth_grants set revoked_at = now() where id = ${grantId} and revoked_at is null`;
}

/**
 * Revokes grants found by a failed exchange or refresh, each in a statement of its own after the failed
 * request's transaction: inside it, the revocation would wait on row locks that transaction's statements took.
 */
export async function revokeLater(sql: Sql, grantIds: string[] | undefined): Promise<void> {
  for (const id of grantIds ?? []) await revokeGrant(sql, id);
}

/** Notes that the client obtained tokens, at most once an hour (the sweeper keeps clients in use). */
export async function touchClient(db: Db, clientId: string): Promise<void> {
  await db`
    update oauth_clients set last_used_at = now()
     where client_id = ${clientId} and (last_used_at is null or last_used_at < now() - interval '1 hour')`;
}

/** The claims of one token response. */
export interface MintInput {
  clientId: string;
  userId: string;
  scopes: string[];
  resource: string | null;
  grantId: string;
  authTime: Date;
  /** how the person signed in (RFC 8176): the ID token's amr, and acr from it */
  amr: string[];
  nonce?: string;
}

/** The JWTs of a token response: an access token, and an ID token when `openid` was granted. */
export type SignedTokens = { accessToken: string; idToken?: string };

export function signFor(deps: TokenDeps, input: MintInput): Promise<SignedTokens> {
  return signTokenPair(deps.keys, {
    issuer: deps.issuer,
    userId: input.userId,
    audience: input.resource ?? deps.issuer,
    clientId: input.clientId,
    scopes: input.scopes,
    grantId: input.grantId,
    authTime: input.authTime,
    amr: input.amr,
    nonce: input.nonce,
    idToken: input.scopes.includes("openid"),
  });
}

/** The token response for `input`, signed now unless `signed` (for exactly these claims) is passed. */
export async function tokenResponse(
  deps: TokenDeps,
  input: MintInput & { refreshToken?: string },
  signed?: SignedTokens,
): Promise<TokenResponse> {
  const jwts = signed ?? await signFor(deps, input);
  const out: TokenResponse = {
    access_token: jwts.accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: input.scopes.join(" "),
  };
  if (input.refreshToken) out.refresh_token = input.refreshToken;
  if (jwts.idToken) out.id_token = jwts.idToken;
  return out;
}
