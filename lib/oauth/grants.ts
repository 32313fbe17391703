// Authorization codes, the token endpoint's grants (code exchange, refresh rotation) and revocation.
// Single-use things change in one statement (`update … where consumed_at is null … returning`).
import type { Db, Sql } from "../db/client.ts";
import { isDatabaseUnavailable } from "../db/errors.ts";
import { randomToken, sha256Hex } from "../crypto.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import type { KeyStore } from "./keys.ts";
import { isValidVerifier, verifierMatches } from "./pkce.ts";
import { splitScope } from "./scopes.ts";
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken, signIdToken, verifyAccessToken } from "./tokens.ts";
import type { AuthzRequest } from "./authorize.ts";
import type { Place } from "./workspace_choice.ts";

export const CODE_TTL_SECONDS = 60;
export const REFRESH_TTL_CONFIDENTIAL_SECONDS = 30 * 24 * 3600;
export const REFRESH_TTL_PUBLIC_SECONDS = 7 * 24 * 3600;

/**
 * Stores a new single-use code for an approved request; returns the code (only its hash is kept). `place` is
 * the workspace chosen on consent, for requests with `workspace`.
 */
export async function issueCode(
  db: Db,
  req: AuthzRequest,
  userId: string,
  authTime: Date,
  place: Place | null = null,
): Promise<string> {
  const code = randomToken("pco_");
  await db`
    insert into oauth_codes (code_hash, client_id, user_id, redirect_uri, scopes, resource, nonce,
                             code_challenge, auth_time, expires_at, workspace_id, company_id)
    values (${sha256Hex(code)}, ${req.clientId}, ${userId}, ${req.redirectUri}, ${req.scopes},
            ${req.resource ?? null}, ${req.nonce ?? null}, ${req.codeChallenge}, ${authTime},
            now() + make_interval(secs => ${CODE_TTL_SECONDS}), ${place?.workspaceId ?? null},
            ${place?.companyId ?? null})`;
  // Old codes are kept a day past expiry so a late replay still revokes what the code produced; then swept.
  if (Math.random() < 0.01) await db`delete from oauth_codes where expires_at < now() - interval '1 day'`;
  return code;
}

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
}

function refreshTtl(client: Client): number | undefined {
  if (!client.grantTypes.includes("refresh_token")) return undefined;
  return client.confidential ? REFRESH_TTL_CONFIDENTIAL_SECONDS : REFRESH_TTL_PUBLIC_SECONDS;
}

async function insertRefreshToken(
  db: Db,
  input: {
    familyId: string;
    client: Client;
    userId: string;
    scopes: string[];
    resource: string | null;
    authTime: Date;
    codeHash: string | null;
    ttl: number;
  },
): Promise<string> {
  const token = randomToken("prt_");
  await db`
    insert into oauth_refresh_tokens (token_hash, family_id, client_id, user_id, scopes, resource, auth_time,
                                      code_hash, expires_at)
    values (${
    sha256Hex(token)
  }, ${input.familyId}, ${input.client.clientId}, ${input.userId}, ${input.scopes},
            ${input.resource}, ${input.authTime}, ${input.codeHash},
            now() + make_interval(secs => ${input.ttl}))`;
  return token;
}

/** Revokes a grant and every refresh token of its family. */
export async function revokeGrant(db: Db, grantId: string): Promise<void> {
  await db`update oauth_grants set revoked_at = now() where id = ${grantId} and revoked_at is null`;
  await db`update oauth_refresh_tokens set revoked_at = now() where family_id = ${grantId} and revoked_at is null`;
}

/**
 * Revokes grants found by a failed exchange or refresh, in transactions of their own. Inside the failed one
 * they could deadlock: an UPDATE that waited for a concurrent winner keeps the row lock it took to re-check the
 * row, and revoking needs the grant row and then every token row — the opposite order of another loser.
 */
async function revokeLater(sql: Sql, grantIds: string[] | undefined): Promise<void> {
  for (const id of grantIds ?? []) await sql.begin((tx) => revokeGrant(tx, id));
}

/** The resource an access token is for: the one the grant was bound to, else one named now, else the issuer. */
function effectiveResource(bound: string | null, requested: string | undefined): string | null {
  if (requested !== undefined && bound !== null && requested !== bound) {
    throw new OAuthError("invalid_target", "resource differs from the one authorized");
  }
  return bound ?? requested ?? null;
}

async function mintTokens(
  deps: TokenDeps,
  input: {
    client: Client;
    userId: string;
    scopes: string[];
    resource: string | null;
    grantId: string;
    authTime: Date;
    nonce?: string;
    refreshToken?: string;
  },
): Promise<TokenResponse> {
  const accessToken = await signAccessToken(deps.keys, {
    issuer: deps.issuer,
    userId: input.userId,
    audience: input.resource ?? deps.issuer,
    clientId: input.client.clientId,
    scopes: input.scopes,
    grantId: input.grantId,
    authTime: input.authTime,
  });
  const out: TokenResponse = {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: input.scopes.join(" "),
  };
  if (input.refreshToken) out.refresh_token = input.refreshToken;
  if (input.scopes.includes("openid")) {
    out.id_token = await signIdToken(deps.keys, {
      issuer: deps.issuer,
      userId: input.userId,
      clientId: input.client.clientId,
      nonce: input.nonce,
      authTime: input.authTime,
      accessToken,
    });
  }
  return out;
}

interface CodeRow {
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string[];
  resource: string | null;
  nonce: string | null;
  code_challenge: string;
  auth_time: Date | string;
  live: boolean;
  workspace_id: string | null;
  company_id: string | null;
}

/** grant_type=authorization_code. A code is consumed by its first presentation, valid or not. */
export async function exchangeCode(
  deps: TokenDeps,
  client: Client,
  input: { code?: string; redirectUri?: string; codeVerifier?: string; resource?: string },
): Promise<TokenResponse> {
  if (!input.code) throw new OAuthError("invalid_request", "code is required");
  if (!input.redirectUri) throw new OAuthError("invalid_request", "redirect_uri is required");
  if (!input.codeVerifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE)");
  if (!isValidVerifier(input.codeVerifier)) {
    throw new OAuthError("invalid_request", "code_verifier must be 43-128 unreserved characters");
  }
  const codeHash = sha256Hex(input.code);
  const ttl = refreshTtl(client);
  type Outcome =
    | { ok: true; grantId: string; row: CodeRow; resource: string | null; refreshToken?: string }
    | { ok: false; error: OAuthError; revoke?: string[] };
  const outcome: Outcome = await deps.sql.begin(async (tx): Promise<Outcome> => {
    const [row] = await tx<CodeRow[]>`
      update oauth_codes set consumed_at = now()
      where code_hash = ${codeHash} and consumed_at is null
      returning client_id, user_id, redirect_uri, scopes, resource, nonce, code_challenge, auth_time,
                expires_at > now() as live, workspace_id, company_id`;
    if (!row) {
      // Unknown, or presented before: a replay means the code leaked, so what it produced is revoked too —
      // after this transaction, which may hold the code's row lock (see revokeLater).
      const grants = await tx<{ id: string }[]>`select id from oauth_grants where code_hash = ${codeHash}`;
      return {
        ok: false,
        error: new OAuthError("invalid_grant", "the code is invalid, expired or already used"),
        revoke: grants.map((g) => g.id),
      };
    }
    const fail = (d: string): Outcome => ({ ok: false, error: new OAuthError("invalid_grant", d) });
    if (row.client_id !== client.clientId) return fail("the code was issued to another client");
    if (!row.live) return fail("the code is invalid, expired or already used");
    if (row.redirect_uri !== input.redirectUri) {
      return fail("redirect_uri differs from the authorization request");
    }
    if (!verifierMatches(input.codeVerifier!, row.code_challenge)) {
      return fail("code_verifier does not match the code_challenge");
    }
    let resource: string | null;
    try {
      resource = effectiveResource(row.resource, input.resource);
    } catch (err) {
      return { ok: false, error: err as OAuthError };
    }
    const [grant] = await tx<{ id: string }[]>`
      insert into oauth_grants (client_id, user_id, code_hash, scopes, resource, workspace_id, company_id)
      values (${client.clientId}, ${row.user_id}, ${codeHash}, ${row.scopes}, ${resource}, ${row.workspace_id},
              ${row.company_id})
      returning id`;
    const refreshToken = ttl === undefined ? undefined : await insertRefreshToken(tx, {
      familyId: grant.id,
      client,
      userId: row.user_id,
      scopes: row.scopes,
      resource,
      authTime: new Date(row.auth_time),
      codeHash,
      ttl,
    });
    return { ok: true, grantId: grant.id, row, resource, refreshToken };
  });
  if (!outcome.ok) {
    await revokeLater(deps.sql, outcome.revoke);
    throw outcome.error;
  }
  return await mintTokens(deps, {
    client,
    userId: outcome.row.user_id,
    scopes: outcome.row.scopes,
    resource: outcome.resource,
    grantId: outcome.grantId,
    authTime: new Date(outcome.row.auth_time),
    nonce: outcome.row.nonce ?? undefined,
    refreshToken: outcome.refreshToken,
  });
}

interface RefreshRow {
  family_id: string;
  user_id: string;
  scopes: string[];
  resource: string | null;
  auth_time: Date | string;
}

/** grant_type=refresh_token: rotates the token; presenting a rotated one revokes its whole family. */
export async function refreshGrant(
  deps: TokenDeps,
  client: Client,
  input: { refreshToken?: string; scope?: string; resource?: string },
): Promise<TokenResponse> {
  const ttl = refreshTtl(client);
  if (ttl === undefined) {
    throw new OAuthError("unauthorized_client", "this client did not register the refresh_token grant");
  }
  if (!input.refreshToken) throw new OAuthError("invalid_request", "refresh_token is required");
  const tokenHash = sha256Hex(input.refreshToken);
  type Outcome =
    | { ok: true; row: RefreshRow; scopes: string[]; resource: string | null; refreshToken: string }
    | { ok: false; error: OAuthError; revoke?: string[] };
  const outcome = await deps.sql.begin(async (tx): Promise<Outcome> => {
    const [row] = await tx<RefreshRow[]>`
      update oauth_refresh_tokens rt set rotated_at = now()
      from oauth_grants g, users u
      where rt.token_hash = ${tokenHash} and rt.client_id = ${client.clientId} and g.id = rt.family_id
        and rt.rotated_at is null and rt.revoked_at is null and g.revoked_at is null and rt.expires_at > now()
        and u.id = rt.user_id and u.disabled_at is null
      returning rt.family_id, rt.user_id, rt.scopes, rt.resource, rt.auth_time`;
    const invalid = {
      ok: false as const,
      error: new OAuthError("invalid_grant", "the refresh token is invalid"),
    };
    if (!row) {
      const [old] = await tx<{ family_id: string; client_id: string; rotated: boolean }[]>`
        select family_id, client_id, rotated_at is not null as rotated
        from oauth_refresh_tokens where token_hash = ${tokenHash}`;
      // A rotated token presented again: either the client or a thief holds a copy; end the whole family
      // (after this transaction, see revokeLater).
      const reused = old && old.client_id === client.clientId && old.rotated;
      return reused ? { ...invalid, revoke: [old.family_id] } : invalid;
    }
    let scopes = row.scopes;
    if (input.scope !== undefined) {
      const asked = splitScope(input.scope).filter((s) => s !== "offline_access");
      const extra = asked.find((s) => !row.scopes.includes(s));
      if (extra) {
        return { ok: false, error: new OAuthError("invalid_scope", `scope ${extra} was not granted`) };
      }
      if (asked.length > 0) scopes = asked;
    }
    let resource: string | null;
    try {
      resource = effectiveResource(row.resource, input.resource);
    } catch (err) {
      return { ok: false, error: err as OAuthError };
    }
    // The new refresh token keeps the grant's full scope (RFC 6749 §6) and gets a full lifetime of its own.
    const refreshToken = await insertRefreshToken(tx, {
      familyId: row.family_id,
      client,
      userId: row.user_id,
      scopes: row.scopes,
      resource: row.resource,
      authTime: new Date(row.auth_time),
      codeHash: null,
      ttl,
    });
    return { ok: true, row, scopes, resource, refreshToken };
  });
  if (!outcome.ok) {
    await revokeLater(deps.sql, outcome.revoke);
    throw outcome.error;
  }
  return await mintTokens(deps, {
    client,
    userId: outcome.row.user_id,
    scopes: outcome.scopes,
    resource: outcome.resource,
    grantId: outcome.row.family_id,
    authTime: new Date(outcome.row.auth_time),
    refreshToken: outcome.refreshToken,
  });
}

/**
 * RFC 7009. A refresh token revokes its family; an access token revokes its grant (which RFC 7009 §2.1 allows),
 * so userinfo refuses it and its refresh tokens end. Tokens of other clients and unknown tokens are ignored.
 */
export async function revokeToken(
  deps: TokenDeps,
  client: Client,
  token: string,
  hint?: string,
): Promise<void> {
  const tryRefresh = async () => {
    const [row] = await deps.sql<{ family_id: string; client_id: string }[]>`
      select family_id, client_id from oauth_refresh_tokens where token_hash = ${sha256Hex(token)}`;
    if (!row) return false;
    if (row.client_id === client.clientId) await deps.sql.begin((tx) => revokeGrant(tx, row.family_id));
    return true;
  };
  const tryAccess = async () => {
    if (token.split(".").length !== 3) return false;
    try {
      const claims = await verifyAccessToken(deps.keys, deps.issuer, token);
      if (claims.client_id === client.clientId && claims.grant_id) {
        await deps.sql.begin((tx) => revokeGrant(tx, claims.grant_id!));
      }
      return true;
    } catch (err) {
      // An outage must not pass for "not an access token": the client would believe the token revoked.
      if (isDatabaseUnavailable(err)) throw err;
      return false;
    }
  };
  if (hint === "access_token") {
    if (!(await tryAccess())) await tryRefresh();
  } else if (!(await tryRefresh())) {
    await tryAccess();
  }
}

/** Whether the grant behind an access token is still in force. */
export async function grantActive(db: Db, grantId: string | undefined): Promise<boolean> {
  if (!grantId || !/^[0-9a-f-]{36}$/i.test(grantId)) return false;
  const [row] = await db<{ active: boolean }[]>`
    select revoked_at is null as active from oauth_grants where id = ${grantId}`;
  return row?.active === true;
}
