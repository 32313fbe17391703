// grant_type=authorization_code: issuing a single-use code for an approved request and exchanging it (with PKCE)
// for the grant's first tokens. The code changes in one statement (`update … where consumed_at is null …`).
import type { Db } from "../../db/client.ts";
import { withTx } from "../../db/tx.ts";
import { randomToken, sha256Hex } from "../../crypto.ts";
import { authenticateClient, type Client, type ClientCredentials } from "../clients.ts";
import { OAuthError } from "../errors.ts";
import { isValidVerifier, verifierMatches } from "../pkce.ts";
import type { AuthzRequest } from "../authorize.ts";
import { NO_TOOL_LIMITS, type Place, type ToolLimits } from "../workspace_choice.ts";
import { mintRefreshToken } from "./refresh_format.ts";
import {
  checkedResource,
  refreshTtl,
  revokeLater,
  type TokenDeps,
  type TokenParams,
  type TokenResponse,
  tokenResponse,
  touchClient,
} from "./shared.ts";

export const CODE_TTL_SECONDS = 60;

/**
 * Stores a new single-use code for an approved request; returns the code (only its hash is kept). `place` is
 * the workspace chosen on consent, for requests with `workspace`, and `limits` the tools chosen with it.
 */
export async function issueCode(
  db: Db,
  req: AuthzRequest,
  userId: string,
  authTime: Date,
  amr: readonly string[],
  place: Place | null = null,
  limits: ToolLimits = NO_TOOL_LIMITS,
): Promise<string> {
  const code = randomToken("pco_");
  await db`
    insert into oauth_codes (code_hash, client_id, user_id, redirect_uri, scopes, resource, nonce,
                             code_challenge, auth_time, amr, expires_at, workspace_id, company_id,
                             toolsets, read_only)
    values (${sha256Hex(code)}, ${req.clientId}, ${userId}, ${req.redirectUri}, ${req.scopes},
            ${req.resource ?? null}, ${req.nonce ?? null}, ${req.codeChallenge}, ${authTime}, ${[...amr]},
            now() + make_interval(secs => ${CODE_TTL_SECONDS}), ${place?.workspaceId ?? null},
            ${place?.companyId ?? null}, ${limits.toolsets}, ${limits.readOnly})`;
  // Old codes are kept a day past expiry so a late replay still revokes what the code produced; then swept.
  if (Math.random() < 0.01) await db`delete from oauth_codes where expires_at < now() - interval '1 day'`;
  return code;
}

/** The resource an access token is for: the one the grant was bound to, else one named now, else the issuer. */
function effectiveResource(bound: string | null, requested: string | undefined): string | null {
  if (requested !== undefined && bound !== null && requested !== bound) {
    throw new OAuthError("invalid_target", "resource differs from the one authorized");
  }
  return bound ?? requested ?? null;
}

interface CodeRow {
  clientId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  resource: string | null;
  nonce: string | null;
  codeChallenge: string;
  authTime: Date;
  amr: string[];
  live: boolean;
  consumed: boolean;
  workspaceId: string | null;
  companyId: string | null;
}

const CODE_INVALID = "the code is invalid, expired or already used";

/**
 * grant_type=authorization_code. Everything is checked on a read that changes nothing; a refused request leaves
 * the code usable. Only a request that would succeed consumes it, in one statement that re-checks; a correct
 * request for a code already consumed is a replay and revokes what the code produced.
 */
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
  const [row] = await deps.sql<CodeRow[]>`
    select client_id as "clientId", user_id as "userId", redirect_uri as "redirectUri", scopes, resource, nonce,
           code_challenge as "codeChallenge", auth_time as "authTime", amr, expires_at > now() as live,
           consumed_at is not null as consumed, workspace_id as "workspaceId", company_id as "companyId"
      from oauth_codes where code_hash = ${codeHash}`;
  const invalid = (d: string) => new OAuthError("invalid_grant", d);
  if (!row) throw invalid(CODE_INVALID);
  if (row.clientId !== client.clientId) throw invalid("the code was issued to another client");
  if (!row.live) throw invalid(CODE_INVALID);
  if (row.redirectUri !== input.redirectUri) {
    throw invalid("redirect_uri differs from the authorization request");
  }
  if (!verifierMatches(input.codeVerifier, row.codeChallenge)) {
    throw invalid("code_verifier does not match the code_challenge");
  }
  const resource = effectiveResource(row.resource, input.resource);
  const authTime = new Date(row.authTime);
  type Outcome = { ok: true; grantId: string; refreshToken?: string } | { ok: false };
  const outcome: Outcome = row.consumed
    ? { ok: false }
    : await withTx(deps.sql, async (tx): Promise<Outcome> => {
      // The tool limits are taken from the consuming statement, under the row lock: a re-consent that narrows
      // them meanwhile (lib/oauth/consent.ts saveConsent) is either seen here or sees the grant made here.
      const consumed = await tx<{ toolsets: string[] | null; readOnly: boolean }[]>`
      update oauth_codes set consumed_at = now()
       where code_hash = ${codeHash} and consumed_at is null and expires_at > now()
      returning toolsets, read_only as "readOnly"`;
      if (consumed.length === 0) return { ok: false };
      const limits = consumed[0];
      // The family's first refresh token is written into its grant row (migration 00031): generation 1, its
      // hash the one current one, a lifetime of its own never past the family's cap. The token names the grant,
      // so the grant's id is chosen here.
      const grantId = crypto.randomUUID();
      const refreshToken = ttl === undefined ? undefined : mintRefreshToken(deps.secretKey, grantId, 1);
      const refreshing = refreshToken !== undefined;
      await tx`
      insert into oauth_grants (id, client_id, user_id, code_hash, scopes, resource, workspace_id, company_id,
                                toolsets, read_only, auth_time, amr, refresh_generation, refresh_hashes,
                                refresh_issued_at, refresh_expires_at)
      values (${grantId}, ${client.clientId}, ${row.userId}, ${codeHash}, ${row.scopes}, ${resource},
              ${row.workspaceId}, ${row.companyId}, ${limits.toolsets}, ${limits.readOnly}, ${authTime},
              ${row.amr}, ${refreshing ? 1 : 0}, ${refreshing ? [sha256Hex(refreshToken)] : []}::text[],
              case when ${refreshing}::boolean then now() end,
              case when ${refreshing}::boolean
                   then least(now() + make_interval(secs => ${ttl ?? 0}),
                              now() + make_interval(days => ${deps.familyMaxDays})) end)`;
      await touchClient(tx, client.clientId);
      return { ok: true, grantId, refreshToken };
    });
  if (!outcome.ok) {
    // Consumed before (or by a concurrent request that won): a replay means the code leaked, so what it produced
    // is revoked too — after the consuming transaction, which may hold the code's row lock (see revokeLater).
    const grants = await deps.sql<
      { id: string }[]
    >`select id from oauth_grants where code_hash = ${codeHash}`;
    await revokeLater(deps.sql, grants.map((g) => g.id));
    throw invalid(CODE_INVALID);
  }
  return await tokenResponse(deps, {
    clientId: client.clientId,
    userId: row.userId,
    scopes: row.scopes,
    resource,
    grantId: outcome.grantId,
    authTime,
    amr: row.amr,
    nonce: row.nonce ?? undefined,
    refreshToken: outcome.refreshToken,
  });
}

/** The token endpoint's authorization_code grant: the client authenticates first, then the code is checked. */
export async function authorizationCodeGrant(
  deps: TokenDeps,
  creds: ClientCredentials,
  params: TokenParams,
): Promise<TokenResponse> {
  const client = await authenticateClient(deps.findClient, creds);
  return await exchangeCode(deps, client, {
    code: params.code,
    redirectUri: params.redirect_uri,
    codeVerifier: params.code_verifier,
    resource: checkedResource(params.resource, deps.issuer),
  });
}
