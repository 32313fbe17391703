// Authorization: Bearer → Caller: an RFC 9068 access token of this server, checked in-process (signature, exp,
// iss, typ, aud = {ISSUER}/mcp, scope workspace), then one SQL query: grant live + the workspace and tool limits
// chosen on consent + member + role + overrides + the person not disabled. Revocation bites on the next request.
import { sha256Hex } from "../crypto.ts";
import type { Db } from "../db/client.ts";
import { isDatabaseUnavailable } from "../db/errors.ts";
import { isUuid } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { KeyStore } from "../oauth/keys.ts";
import { type AccessTokenClaims, verifyAccessToken } from "../oauth/tokens.ts";
import { gcraAnswer, type GcraColumns } from "../rate_limit/mod.ts";
import {
  type Caller,
  callerFrom,
  type Charged,
  LAST_USED_RESOLUTION_SECONDS,
  touchLastUsed,
} from "./caller.ts";
import { chargeSql, type McpCharge } from "./charge.ts";

/** The scope a token needs at /mcp. */
export const MCP_SCOPE = "workspace";

export type BearerResult =
  & (
    | { ok: true; caller: Caller }
    | { ok: false; status: 401; error: "invalid_token"; message: string }
    | { ok: false; status: 403; error: "insufficient_scope"; message: string }
  )
  & Charged;

export interface BearerDeps {
  db: Db;
  keys: KeyStore;
  issuer: string;
  /** the resource URL tokens must be issued for: `{ISSUER}/mcp` */
  resource: string;
  log: Logger;
  /** verified-signature cache; one per app instance */
  verified: VerifiedTokenCache;
}

/**
 * Tokens whose signature was already verified, by SHA-256 of the token, until they expire. Only the signature
 * is cached: whether the grant is still live is asked of the database on every request.
 */
export interface VerifiedTokenCache {
  get(hash: string): AccessTokenClaims | undefined;
  set(hash: string, claims: AccessTokenClaims): void;
}

export function createVerifiedTokenCache(maxEntries = 10_000): VerifiedTokenCache {
  const map = new Map<string, AccessTokenClaims>();
  return {
    get(hash) {
      const claims = map.get(hash);
      if (!claims) return undefined;
      if (claims.exp * 1000 <= Date.now()) {
        map.delete(hash);
        return undefined;
      }
      // Recently used entries move to the end; the oldest are evicted first.
      map.delete(hash);
      map.set(hash, claims);
      return claims;
    },
    set(hash, claims) {
      if (map.size >= maxEntries) map.delete(map.keys().next().value!);
      map.set(hash, claims);
    },
  };
}

const invalid = (message: string): BearerResult => ({
  ok: false,
  status: 401,
  error: "invalid_token",
  message,
});

/** The refusal of a valid token not issued for /mcp, naming what a new authorization request must carry. */
function notForMcp(resource: string, reason: string): BearerResult {
  return {
    ok: false,
    status: 403,
    error: "insufficient_scope",
    message: `${reason}; authorize again (a refresh keeps the audience and scope) with ` +
      `resource=${resource} and scope=${MCP_SCOPE}`,
  };
}

// A JWT is three base64url parts; anything else (or something absurdly long) is not worth parsing.
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 8_000;

interface GrantRow extends GcraColumns {
  userId: string | null;
  clientId: string | null;
  live: boolean;
  workspaceId: string | null;
  companyId: string | null;
  disabled: boolean;
  stale: boolean;
  modules: string[] | null;
  isMember: boolean;
  role: string | null;
  companyIds: string[] | null;
  overrides: Record<string, string[]> | null;
  toolsets: string[] | null;
  readOnly: boolean;
}

/** Loads the caller for a raw Bearer token value. */
export async function loadBearerCaller(
  deps: BearerDeps,
  token: string,
  /** the rate limits' units, taken by the grant's statement (lib/mcp/charge.ts) */
  charge?: McpCharge,
): Promise<BearerResult> {
  if (token.length > MAX_TOKEN_LENGTH || !JWT_SHAPE.test(token)) {
    return invalid("the access token is malformed");
  }
  const hash = sha256Hex(token);
  let claims = deps.verified.get(hash);
  if (!claims) {
    try {
      claims = await verifyAccessToken(deps.keys, deps.issuer, token);
    } catch (err) {
      // Loading keys may need the database: an outage is a 503 upstream, not a bad token.
      if (isDatabaseUnavailable(err)) throw err;
      return invalid("the access token is invalid or expired");
    }
    deps.verified.set(hash, claims);
  }
  // A genuine token of this server that was not issued for /mcp (a 2025-03-26-era client names neither resource
  // nor scope and gets one for the issuer with `openid profile`): refreshing cannot fix it (a refresh keeps the
  // grant's audience and scope), so it is insufficient_scope (403), which SDK 1.12.1 surfaces as an error and
  // current SDKs answer with one new authorization; invalid_token (401) sends SDK 1.12.1 into refresh-and-retry
  // without end (docs/mcp.md "Tokens not issued for /mcp").
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(deps.resource)) {
    return notForMcp(
      deps.resource,
      `the access token is not for this resource (its audience must be ${deps.resource})`,
    );
  }
  if (!claims.scope.split(" ").includes(MCP_SCOPE)) {
    return notForMcp(deps.resource, `the access token lacks the ${MCP_SCOPE} scope`);
  }
  const grantId = claims.grant_id;
  if (!grantId || !isUuid(grantId)) {
    return invalid("the access token names no grant");
  }
  return await loadGrantCaller(deps, grantId, claims, charge);
}

/**
 * The caller of an OAuth grant by its id, for the person and client named: whether the grant is live, the
 * person a member, and with which role, asked of the database now. Used per request after the token's checks,
 * and by signed download links (lib/mcp/exports.ts), which name the grant that made them.
 */
export async function loadGrantCaller(
  deps: Pick<BearerDeps, "db" | "log">,
  grantId: string,
  claims: Pick<AccessTokenClaims, "sub" | "client_id">,
  charge?: McpCharge,
): Promise<BearerResult> {
  // One round trip: the grant (with the workspace and tool limits chosen on consent), the person, the member row
  // and overrides, and the request's rate-limit units (the grant's when it is live, else the address's).
  const db = deps.db;
  const [row] = await db<GrantRow[]>`
    with c as (
    select g.id, g.user_id as "userId", g.client_id as "clientId", g.revoked_at is null as live,
           g.workspace_id as "workspaceId", g.company_id as "companyId", g.toolsets, g.read_only as "readOnly",
           u.disabled_at is not null as disabled,
           (g.last_used_at is null
             or g.last_used_at < now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS})) as stale,
           w.modules,
           m.user_id is not null as "isMember", m.role, m.company_ids as "companyIds",
           (select json_object_agg(rp.area, rp.roles) from role_permissions rp
             where rp.workspace_id = g.workspace_id) as overrides
      from oauth_grants g
      join users u on u.id = g.user_id
      left join workspaces w on w.id = g.workspace_id
      left join workspace_members m on m.workspace_id = g.workspace_id and m.user_id = g.user_id
     where g.id = ${grantId}
    ),
    rl_found as (
      select c.id::text as cid, c.live from c where c."userId" = ${claims.sub} and c."clientId" = ${claims.client_id}
    ),
    ${chargeSql(db, charge, "grant:")}
    select c.*, rl.rl_bucket, rl.rl_ok, rl.rl_ahead_ms
      from (values (1)) as one (x) left join c on true left join rl on true`;
  const charged = gcraAnswer(row);
  if (!row || row.userId === null || row.userId !== claims.sub || row.clientId !== claims.client_id) {
    return { ...invalid("the access token's grant does not exist"), charged };
  }
  if (!row.live) return { ...invalid("the access token was revoked"), charged };
  if (row.disabled) return { ...invalid("the account is disabled"), charged };
  if (!row.workspaceId || !row.modules) {
    return { ...invalid("the grant is not bound to a workspace"), charged };
  }
  if (!row.isMember) {
    return { ...invalid("the person is no longer a member of the workspace chosen on consent"), charged };
  }
  if (row.stale) touchLastUsed(deps.db, "oauth_grants", grantId, deps.log);
  return {
    charged,
    ok: true,
    caller: callerFrom({
      workspaceId: row.workspaceId,
      keyId: null,
      keyKind: "user",
      userId: row.userId,
      role: row.role,
      modules: row.modules,
      companyIds: row.companyIds,
      companyScope: row.companyId,
      overrides: row.overrides,
      clientId: row.clientId,
      grantId,
      toolsets: row.toolsets,
      readOnly: row.readOnly,
    }),
  };
}
