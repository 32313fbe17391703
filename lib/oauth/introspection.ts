// Token introspection (RFC 7662): tells a confidential client or a resource server whether an access token is
// active, so revocation reaches resource servers that would otherwise trust the JWT until it expires.
import type { Db } from "../db/client.ts";
import { isDatabaseUnavailable } from "../db/errors.ts";
import { isUuid } from "../errors.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import type { KeyStore } from "./keys.ts";
import { verifyAccessToken } from "./tokens.ts";

export interface IntrospectionDeps {
  db: Db;
  keys: KeyStore;
  issuer: string;
  /** RESOURCE_SERVERS: client_id → the audiences whose tokens that client may introspect */
  resourceServers: Record<string, string[]>;
}

/** What an active access token is described by; nothing secret (no grant id, no signature). */
export interface ActiveToken {
  active: true;
  scope: string;
  client_id: string;
  sub: string;
  aud: string | string[];
  iss: string;
  exp: number;
  iat: number;
  token_type: "Bearer";
  jti: string;
}

export type IntrospectionResponse = ActiveToken | { active: false };

const INACTIVE = { active: false } as const;

/**
 * RFC 7662 §2.1 requires authorization: a public client proves nothing by its client_id, so only confidential
 * clients (authenticated with their secret) may introspect.
 */
export function requireIntrospector(client: Client, viaBasic: boolean): void {
  if (client.confidential) return;
  const err = new OAuthError(
    "invalid_client",
    "introspection requires a confidential client and its secret",
    401,
  );
  // Carried for the WWW-Authenticate: Basic challenge, as for any invalid_client (see usedBasic).
  (err as OAuthError & { basic: boolean }).basic = viaBasic;
  throw err;
}

/** Whether `client` may learn about a token issued to `tokenClientId` for `audiences`. */
function mayIntrospect(deps: IntrospectionDeps, client: Client, tokenClientId: string, audiences: string[]) {
  if (tokenClientId === client.clientId) return true;
  const resources = deps.resourceServers[client.clientId] ?? [];
  return audiences.some((a) => resources.includes(a));
}

/**
 * The state of `token` for `client`. Only access tokens are described: an expired, malformed, unknown or
 * foreign token, a token of a revoked grant or a disabled person, and any refresh token are `{active:false}`,
 * with nothing more — the answer must not tell a client anything about tokens that are not its own.
 */
export async function introspectToken(
  deps: IntrospectionDeps,
  client: Client,
  token: string,
): Promise<IntrospectionResponse> {
  if (token.split(".").length !== 3) return INACTIVE;
  let claims;
  try {
    claims = await verifyAccessToken(deps.keys, deps.issuer, token);
  } catch (err) {
    // An outage must not pass for "inactive": a resource server would turn a person away for our failure.
    if (isDatabaseUnavailable(err)) throw err;
    return INACTIVE;
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!mayIntrospect(deps, client, claims.client_id, audiences)) return INACTIVE;
  const grantId = claims.grant_id;
  if (!grantId || !isUuid(grantId) || !isUuid(claims.sub)) return INACTIVE;
  const [row] = await deps.db<{ active: boolean }[]>`
    select g.revoked_at is null and u.disabled_at is null as active
      from oauth_grants g join users u on u.id = g.user_id
     where g.id = ${grantId} and g.user_id = ${claims.sub} and g.client_id = ${claims.client_id}`;
  if (row?.active !== true) return INACTIVE;
  const payload = claims as typeof claims & { iat: number };
  return {
    active: true,
    scope: claims.scope,
    client_id: claims.client_id,
    sub: claims.sub,
    aud: claims.aud,
    iss: deps.issuer,
    exp: claims.exp,
    iat: payload.iat,
    token_type: "Bearer",
    jti: claims.jti,
  };
}
