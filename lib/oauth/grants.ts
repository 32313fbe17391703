// Authorization codes, the token endpoint's grants (code exchange, refresh rotation) and revocation.
// Single-use things change in one statement (`update … where consumed_at is null … returning`).
import type { Db, Sql } from "../db/client.ts";
import { isDatabaseUnavailable } from "../db/errors.ts";
import { randomToken, sha256Hex } from "../crypto.ts";
import {
  authenticateClient,
  type Client,
  clientColumns,
  type ClientCredentials,
  type ClientFinder,
  type ClientRow,
} from "./clients.ts";
import { OAuthError } from "./errors.ts";
import type { KeyStore } from "./keys.ts";
import { isValidVerifier, verifierMatches } from "./pkce.ts";
import { splitScope } from "./scopes.ts";
import type { RefreshHint, RefreshHints } from "./refresh_hints.ts";
import { ACCESS_TOKEN_TTL_SECONDS, signTokenPair, verifyAccessToken } from "./tokens.ts";
import type { AuthzRequest } from "./authorize.ts";
import { NO_TOOL_LIMITS, type Place, type ToolLimits } from "./workspace_choice.ts";

export const CODE_TTL_SECONDS = 60;
export const REFRESH_TTL_CONFIDENTIAL_SECONDS = 30 * 24 * 3600;
export const REFRESH_TTL_PUBLIC_SECONDS = 7 * 24 * 3600;

/**
 * Stores a new single-use code for an approved request; returns the code (only its hash is kept). `place` is
 * the workspace chosen on consent, for requests with `workspace`, and `limits` the tools chosen with it.
 */
export async function issueCode(
  db: Db,
  req: AuthzRequest,
  userId: string,
  authTime: Date,
  place: Place | null = null,
  limits: ToolLimits = NO_TOOL_LIMITS,
): Promise<string> {
  const code = randomToken("pco_");
  await db`
    insert into oauth_codes (code_hash, client_id, user_id, redirect_uri, scopes, resource, nonce,
                             code_challenge, auth_time, expires_at, workspace_id, company_id, toolsets,
                             read_only)
    values (${sha256Hex(code)}, ${req.clientId}, ${userId}, ${req.redirectUri}, ${req.scopes},
            ${req.resource ?? null}, ${req.nonce ?? null}, ${req.codeChallenge}, ${authTime},
            now() + make_interval(secs => ${CODE_TTL_SECONDS}), ${place?.workspaceId ?? null},
            ${place?.companyId ?? null}, ${limits.toolsets}, ${limits.readOnly})`;
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
  /** REFRESH_REUSE_GRACE_SECONDS: how long a just-rotated refresh token may be presented again (0: never) */
  refreshGraceSeconds: number;
  /** REFRESH_FAMILY_MAX_DAYS: the absolute life of a refresh token family, counted from the code exchange */
  familyMaxDays: number;
  /** finds clients for authentication (the client directory: registered ones and metadata documents) */
  findClient: ClientFinder;
  /** this instance's notes on the refresh tokens it issued, to sign a refresh's tokens during its statement */
  refreshHints?: RefreshHints;
}

function refreshTtl(client: Client): number | undefined {
  if (!client.grantTypes.includes("refresh_token")) return undefined;
  return client.confidential ? REFRESH_TTL_CONFIDENTIAL_SECONDS : REFRESH_TTL_PUBLIC_SECONDS;
}

/**
 * Adds a refresh token to a family: a full lifetime of its own, but never past the family's absolute end.
 * With `onlyIfGraceFor` it is a sibling for a retry of that (rotated) parent, inserted only while the parent is
 * within the grace window and none of its successors has been used — the check and the insert are one statement.
 * Returns the token, or undefined when that condition did not hold.
 */
async function insertRefreshToken(
  db: Db,
  input: {
    familyId: string;
    parentId: string | null;
    client: Client;
    userId: string;
    scopes: string[];
    resource: string | null;
    authTime: Date;
    codeHash: string | null;
    ttl: number;
    familyMaxDays: number;
    onlyIfGraceFor?: { graceSeconds: number };
  },
): Promise<string | undefined> {
  const token = randomToken("prt_");
  const grace = input.onlyIfGraceFor
    ? db`and exists (
        select 1 from oauth_refresh_tokens p
         where p.id = ${input.parentId} and p.revoked_at is null
           and p.rotated_at > clock_timestamp() - make_interval(secs => ${input.onlyIfGraceFor.graceSeconds})
           and not exists (select 1 from oauth_refresh_tokens c where c.parent_id = p.id and c.rotated_at is not null))`
    : db``;
  const rows = await db`
    insert into oauth_refresh_tokens (token_hash, family_id, parent_id, client_id, user_id, scopes, resource,
                                      auth_time, code_hash, expires_at)
    select ${sha256Hex(token)}, g.id, ${input.parentId}, ${input.client.clientId}, ${input.userId},
           ${input.scopes}, ${input.resource}, ${input.authTime}, ${input.codeHash},
           least(now() + make_interval(secs => ${input.ttl}),
                 g.created_at + make_interval(days => ${input.familyMaxDays}))
      from oauth_grants g
     where g.id = ${input.familyId} ${grace}
    returning id`;
  return rows.length === 1 ? token : undefined;
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

/** Notes that the client obtained tokens, at most once an hour (the sweeper keeps clients in use). */
async function touchClient(db: Db, clientId: string): Promise<void> {
  await db`
    update oauth_clients set last_used_at = now()
     where client_id = ${clientId} and (last_used_at is null or last_used_at < now() - interval '1 hour')`;
}

/** The resource an access token is for: the one the grant was bound to, else one named now, else the issuer. */
function effectiveResource(bound: string | null, requested: string | undefined): string | null {
  if (requested !== undefined && bound !== null && requested !== bound) {
    throw new OAuthError("invalid_target", "resource differs from the one authorized");
  }
  return bound ?? requested ?? null;
}

/**
 * A refresh keeps the audience bound at the code exchange (the grant's resource, or the issuer when none was
 * named): `resource` may repeat it, never change it — else every refresh could pick a new audience.
 */
function refreshResource(bound: string | null, requested: string | undefined, issuer: string): string | null {
  if (requested !== undefined && requested !== (bound ?? issuer)) {
    throw new OAuthError(
      "invalid_target",
      `this grant's tokens are for ${bound ?? issuer}; a refresh cannot change it`,
    );
  }
  return bound;
}

interface MintInput {
  clientId: string;
  userId: string;
  scopes: string[];
  resource: string | null;
  grantId: string;
  authTime: Date;
  nonce?: string;
}

/** Tokens a refresh started signing before its statement returned, and the claims they were signed for. */
interface EarlyTokens {
  claims: string;
  tokens: Promise<{ accessToken: string; idToken?: string }>;
}

function claimsKey(input: MintInput): string {
  return JSON.stringify([
    input.clientId,
    input.userId,
    input.scopes,
    input.resource,
    input.grantId,
    input.authTime.getTime(),
    input.nonce ?? null,
  ]);
}

function signFor(deps: TokenDeps, input: MintInput) {
  return signTokenPair(deps.keys, {
    issuer: deps.issuer,
    userId: input.userId,
    audience: input.resource ?? deps.issuer,
    clientId: input.clientId,
    scopes: input.scopes,
    grantId: input.grantId,
    authTime: input.authTime,
    nonce: input.nonce,
    idToken: input.scopes.includes("openid"),
  });
}

/**
 * Resolves once postgres.js has written a statement issued before this call: it queues its socket writes with
 * `setImmediate`, so the second of two nested immediates runs after that write. The OpenSSL signer signs on the
 * event loop (lib/oauth/signer.ts); started any earlier, the signatures would run before the statement leaves
 * instead of while Postgres executes it. Only the overlap depends on this order, never the outcome.
 */
function statementWritten(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * Signs the access and ID token a refresh of a hinted token will carry, while its statement runs (the
 * signatures on this thread once the statement has been written, or WebCrypto's on its own; the statement on
 * Postgres: the two overlap). Nothing is signed when the request already differs from the hint; the result is
 * used only by `mintTokens` for exactly these claims.
 */
function signEarly(
  deps: TokenDeps,
  hint: RefreshHint | undefined,
  clientId: string | undefined,
  asked: string[],
  resource: string | undefined,
): EarlyTokens | undefined {
  if (!hint || hint.clientId !== clientId) return undefined;
  if (asked.some((s) => !hint.scopes.includes(s))) return undefined;
  if (resource !== undefined && resource !== (hint.resource ?? deps.issuer)) return undefined;
  const input: MintInput = {
    clientId,
    userId: hint.userId,
    scopes: asked.length > 0 ? asked : hint.scopes,
    resource: hint.resource,
    grantId: hint.grantId,
    authTime: hint.authTime,
  };
  const tokens = statementWritten().then(() => signFor(deps, input));
  // Unused when the refresh is refused; a signer failure is met again by signing after the statement.
  tokens.catch(() => {});
  return { claims: claimsKey(input), tokens };
}

async function mintTokens(
  deps: TokenDeps,
  input: MintInput & { refreshToken?: string },
  early?: EarlyTokens,
): Promise<TokenResponse> {
  const signed = early && early.claims === claimsKey(input)
    ? await early.tokens.catch(() => signFor(deps, input))
    : await signFor(deps, input);
  const out: TokenResponse = {
    access_token: signed.accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: input.scopes.join(" "),
  };
  if (input.refreshToken) out.refresh_token = input.refreshToken;
  if (signed.idToken) out.id_token = signed.idToken;
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
  consumed: boolean;
  workspace_id: string | null;
  company_id: string | null;
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
    select client_id, user_id, redirect_uri, scopes, resource, nonce, code_challenge, auth_time,
           expires_at > now() as live, consumed_at is not null as consumed, workspace_id, company_id
      from oauth_codes where code_hash = ${codeHash}`;
  const invalid = (d: string) => new OAuthError("invalid_grant", d);
  if (!row) throw invalid(CODE_INVALID);
  if (row.client_id !== client.clientId) throw invalid("the code was issued to another client");
  if (!row.live) throw invalid(CODE_INVALID);
  if (row.redirect_uri !== input.redirectUri) {
    throw invalid("redirect_uri differs from the authorization request");
  }
  if (!verifierMatches(input.codeVerifier, row.code_challenge)) {
    throw invalid("code_verifier does not match the code_challenge");
  }
  const resource = effectiveResource(row.resource, input.resource);
  type Outcome = { ok: true; grantId: string; refreshToken?: string } | { ok: false };
  const outcome: Outcome = row.consumed
    ? { ok: false }
    : await deps.sql.begin(async (tx): Promise<Outcome> => {
      // The tool limits are taken from the consuming statement, under the row lock: a re-consent that narrows
      // them meanwhile (lib/oauth/consent.ts saveConsent) is either seen here or sees the grant made here.
      const consumed = await tx<{ toolsets: string[] | null; read_only: boolean }[]>`
      update oauth_codes set consumed_at = now()
       where code_hash = ${codeHash} and consumed_at is null and expires_at > now()
      returning toolsets, read_only`;
      if (consumed.length === 0) return { ok: false };
      const limits = consumed[0];
      const [grant] = await tx<{ id: string }[]>`
      insert into oauth_grants (client_id, user_id, code_hash, scopes, resource, workspace_id, company_id,
                                toolsets, read_only)
      values (${client.clientId}, ${row.user_id}, ${codeHash}, ${row.scopes}, ${resource}, ${row.workspace_id},
              ${row.company_id}, ${limits.toolsets}, ${limits.read_only})
      returning id`;
      const refreshToken = ttl === undefined ? undefined : await insertRefreshToken(tx, {
        familyId: grant.id,
        parentId: null,
        client,
        userId: row.user_id,
        scopes: row.scopes,
        resource,
        authTime: new Date(row.auth_time),
        codeHash,
        ttl,
        familyMaxDays: deps.familyMaxDays,
      });
      await touchClient(tx, client.clientId);
      return { ok: true, grantId: grant.id, refreshToken };
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
  return await mintTokens(deps, {
    clientId: client.clientId,
    userId: row.user_id,
    scopes: row.scopes,
    resource,
    grantId: outcome.grantId,
    authTime: new Date(row.auth_time),
    nonce: row.nonce ?? undefined,
    refreshToken: outcome.refreshToken,
  });
}

/**
 * What the refresh statement answers, always one row: the client named by the request (null when there is no
 * such client), the presented token (`t_…`, null when unknown), and whether the statement already rotated the
 * token or issued a sibling successor (`issued`). Arrays come as JSON: postgres.js parses a new connection's
 * first answer before it has learnt the array types (its type query's answer and the next one arrive in one
 * read), and then leaves that statement's arrays as strings for the connection's life.
 */
interface RefreshRow {
  client: ClientRow | null;
  t_id: string | null;
  t_family_id: string;
  t_client_id: string;
  t_user_id: string;
  t_scopes: string[];
  t_resource: string | null;
  t_auth_time: Date | string;
  t_rotated: boolean;
  t_revoked: boolean;
  t_unexpired: boolean;
  t_grant_live: boolean;
  t_within_cap: boolean;
  t_enabled: boolean;
  t_in_grace: boolean;
  issued: boolean;
}

function requireRefreshGrant(client: Client): number {
  const ttl = refreshTtl(client);
  if (ttl === undefined) {
    throw new OAuthError("unauthorized_client", "this client did not register the refresh_token grant");
  }
  return ttl;
}

/**
 * The common refresh in one statement: it authenticates the client, reads the presented token with its grant
 * and person, and — only when every check of `refreshGrant` passes — rotates the token (or, for a retry within
 * the grace window, issues a sibling), supersedes the token's siblings, inserts the successor `fresh` and
 * notes the client's use. A refused request changes nothing.
 *
 * One statement sees one snapshot, so the family's lock cannot order it after a concurrent change the way a
 * transaction's later statements are ordered. Instead the statement writes the family's version: a new row
 * version of the grant, written only while the grant's `xmin` is still the one the statement read. Every
 * change to a family (this statement, the transaction of `refreshGrant`, `revokeGrant`, disconnecting an app,
 * withdrawing trust) updates the grant row before it touches the family's tokens, so a change committed since
 * the snapshot, or still running, fails that condition (Postgres re-checks it on the row's newest version
 * after waiting for its lock) and the statement does nothing; `refreshGrant` then takes the transaction path.
 */
async function refreshStatement(
  deps: TokenDeps,
  input: {
    clientId: string;
    secretHash: string | null;
    viaBody: boolean;
    tokenHash: string;
    fresh: string;
    asked: string[] | null;
    resource: string | null;
  },
): Promise<RefreshRow> {
  const sql = deps.sql;
  const cap = deps.familyMaxDays;
  const grace = deps.refreshGraceSeconds;
  const [row] = await sql<RefreshRow[]>`
    with c as (
      select ${clientColumns(sql)} from oauth_clients where client_id = ${input.clientId}
    ),
    t as materialized (
      select rt.id, rt.family_id, rt.client_id, rt.user_id, rt.scopes, g.resource, rt.auth_time,
             rt.rotated_at is not null as rotated, rt.revoked_at is not null as revoked,
             rt.expires_at > now() as unexpired, g.revoked_at is null as grant_live,
             g.created_at + make_interval(days => ${cap}) > now() as within_cap,
             u.disabled_at is null as enabled, g.created_at as grant_created, g.xmin as grant_version,
             coalesce(rt.rotated_at > clock_timestamp() - make_interval(secs => ${grace})
               and not exists (select 1 from oauth_refresh_tokens s
                                where s.parent_id = rt.id and s.rotated_at is not null),
               false) as in_grace
        from oauth_refresh_tokens rt
        join oauth_grants g on g.id = rt.family_id
        join users u on u.id = rt.user_id
       where rt.token_hash = ${input.tokenHash}
    ),
    ok as (
      select t.id, t.family_id, t.user_id, t.scopes, t.resource, t.auth_time, t.grant_created, t.grant_version,
             t.rotated, c.secret_hash is null as public
        from t join c on c.client_id = t.client_id
       where 'refresh_token' = any(c.grant_types)
         and case when c.secret_hash is null then ${input.secretHash}::text is null
                  else c.secret_hash = ${input.secretHash}::text
                       and (c.token_endpoint_auth_method = 'client_secret_post') = ${input.viaBody}::boolean end
         and t.grant_live and not t.revoked and (not t.rotated or (${grace > 0}::boolean and t.in_grace))
         and t.unexpired and t.within_cap and t.enabled
         and (${input.asked}::text[] is null or ${input.asked}::text[] <@ t.scopes)
         and (${input.resource}::text is null or ${input.resource}::text = coalesce(t.resource, ${deps.issuer}))
    ),
    family as (
      -- A new version of the grant row (the value is unchanged): only if no other change came in between.
      update oauth_grants g set revoked_at = null
        from ok
       where g.id = ok.family_id and g.xmin = ok.grant_version and g.revoked_at is null
      returning g.id
    ),
    rotated as (
      update oauth_refresh_tokens rt set rotated_at = now()
        from ok
       where rt.id = ok.id and not ok.rotated and rt.rotated_at is null and rt.revoked_at is null
         and rt.expires_at > now() and exists (select 1 from family)
      returning rt.id
    ),
    superseded as (
      -- This branch won: siblings issued for retries of the same parent are no longer needed.
      update oauth_refresh_tokens rt set revoked_at = now()
        from ok
       where rt.family_id = ok.family_id and rt.id <> ok.id and rt.rotated_at is null and rt.revoked_at is null
         and exists (select 1 from rotated)
    ),
    issued as (
      -- The successor keeps the grant's full scope (RFC 6749 §6) and gets a full lifetime of its own, never past
      -- the family's cap.
      insert into oauth_refresh_tokens (token_hash, family_id, parent_id, client_id, user_id, scopes, resource,
                                        auth_time, expires_at)
      select ${sha256Hex(input.fresh)}, ok.family_id, ok.id, ${input.clientId}, ok.user_id, ok.scopes,
             ok.resource, ok.auth_time,
             least(now() + make_interval(secs => case when ok.public then ${REFRESH_TTL_PUBLIC_SECONDS}::int
                                                      else ${REFRESH_TTL_CONFIDENTIAL_SECONDS}::int end),
                   ok.grant_created + make_interval(days => ${cap}))
        from ok
       where exists (select 1 from rotated) or (ok.rotated and exists (select 1 from family))
      returning id
    ),
    touched as (
      update oauth_clients set last_used_at = now()
       where client_id = ${input.clientId} and exists (select 1 from issued)
         and (last_used_at is null or last_used_at < now() - interval '1 hour')
    )
    select (select to_json(c) from c) as client, t.id as t_id, t.family_id as t_family_id,
           t.client_id as t_client_id, t.user_id as t_user_id, to_json(t.scopes) as t_scopes, t.resource as t_resource, t.auth_time as t_auth_time, t.rotated as t_rotated,
           t.revoked as t_revoked, t.unexpired as t_unexpired, t.grant_live as t_grant_live,
           t.within_cap as t_within_cap, t.enabled as t_enabled, t.in_grace as t_in_grace,
           exists (select 1 from issued) as issued
      from (values (1)) as one (x) left join c on true left join t on true`;
  return row;
}

/**
 * grant_type=refresh_token (docs/oauth.md "Refresh rotation, retries and theft detection"), client
 * authentication included. The common case is one statement (`refreshStatement`): it changes something only
 * when every check passes, so a refused request (`invalid_client`, `invalid_scope`, `invalid_target` …) leaves
 * the token as it was, and the checks are then repeated here in order to name the refusal. When the statement
 * did nothing although the checks pass, a concurrent change to the family came in between: then, under the
 * family's lock (a write to the grant row), the token is rotated in one statement that re-checks it — or, when
 * it was rotated moments ago and none of its successors has been used yet, a sibling successor is issued (a
 * retry or a parallel refresh). Any other presentation of a rotated or superseded token revokes the whole
 * family.
 */
export async function refreshGrant(
  deps: TokenDeps,
  creds: ClientCredentials,
  input: { refreshToken?: string; scope?: string; resource?: string; resourceProblem?: OAuthError },
): Promise<TokenResponse> {
  let client: Client | undefined;
  if (!creds.clientId?.startsWith("pcl_") || !input.refreshToken || input.resourceProblem) {
    // Through the client directory (metadata-document clients are fetched and mirrored there), and so that a
    // refusal that needs no token (a malformed `resource`, no token) comes after the client's own, as before.
    client = await authenticateClient(deps.findClient, creds);
    if (input.resourceProblem) throw input.resourceProblem;
    requireRefreshGrant(client);
    if (!input.refreshToken) throw new OAuthError("invalid_request", "refresh_token is required");
  }
  const grace = deps.refreshGraceSeconds;
  const asked = input.scope === undefined
    ? []
    : splitScope(input.scope).filter((s) => s !== "offline_access");
  const fresh = randomToken("prt_");
  const tokenHash = sha256Hex(input.refreshToken);
  const statement = refreshStatement(deps, {
    clientId: client?.clientId ?? creds.clientId!,
    secretHash: creds.clientSecret === undefined ? null : sha256Hex(creds.clientSecret),
    viaBody: creds.via === "body",
    tokenHash,
    fresh,
    asked: asked.length > 0 ? asked : null,
    resource: input.resource ?? null,
  });
  // The statement is on its way to Postgres; sign meanwhile when this instance issued the token.
  const early = signEarly(deps, deps.refreshHints?.take(tokenHash), creds.clientId, asked, input.resource);
  const row = await statement;
  if (!client) {
    // The statement's own client check is the same as authenticateClient's; this one names the refusal.
    client = await authenticateClient(
      () => Promise.resolve(row.client ?? undefined),
      creds,
    );
  }
  const ttl = requireRefreshGrant(client);
  const invalid = () => new OAuthError("invalid_grant", "the refresh token is invalid");
  // Another client's token is not this client's to end; a revoked family has nothing left to end.
  if (row.t_id === null || row.t_client_id !== client.clientId || !row.t_grant_live) throw invalid();
  const again = row.t_rotated || row.t_revoked;
  if (again && !(grace > 0 && row.t_rotated && !row.t_revoked && row.t_in_grace)) {
    // Presented after its successor was used, after the window, or after a sibling won: the client or a thief
    // holds a stale copy; end the whole family. These conditions never revert, so a read is enough to decide.
    await revokeLater(deps.sql, [row.t_family_id]);
    throw invalid();
  }
  if (!row.t_unexpired || !row.t_within_cap || !row.t_enabled) throw invalid();
  const extra = asked.find((s) => !row.t_scopes.includes(s));
  if (extra) throw new OAuthError("invalid_scope", `scope ${extra} was not granted`);
  const scopes = asked.length > 0 ? asked : row.t_scopes;
  const resource = refreshResource(row.t_resource, input.resource, deps.issuer);
  const authTime = new Date(row.t_auth_time);

  let refreshToken: string | undefined = row.issued ? fresh : undefined;
  if (!refreshToken) {
    type Outcome = { ok: true; refreshToken: string } | { ok: false; revoke: boolean };
    const outcome = await deps.sql.begin(async (tx): Promise<Outcome> => {
      // The family's lock: every change to a family writes its grant row first (see refreshStatement).
      const [locked] = await tx`
        update oauth_grants g set revoked_at = null
          from users u
         where g.id = ${row.t_family_id} and g.revoked_at is null and u.id = g.user_id and u.disabled_at is null
           and g.created_at + make_interval(days => ${deps.familyMaxDays}) > now()
        returning g.id`;
      if (!locked) return { ok: false, revoke: false };
      const successor = {
        familyId: row.t_family_id,
        parentId: row.t_id,
        client: client!,
        userId: row.t_user_id,
        // The new refresh token keeps the grant's full scope (RFC 6749 §6) and gets a full lifetime of its own.
        scopes: row.t_scopes,
        resource: row.t_resource,
        authTime,
        codeHash: null,
        ttl,
        familyMaxDays: deps.familyMaxDays,
      };
      if (!again) {
        const rotated = await tx`
          update oauth_refresh_tokens set rotated_at = now()
           where id = ${row.t_id} and rotated_at is null and revoked_at is null and expires_at > now()
          returning id`;
        if (rotated.length === 1) {
          // This branch won: siblings issued for retries of the same parent are no longer needed.
          await tx`
            update oauth_refresh_tokens set revoked_at = now()
             where family_id = ${row.t_family_id} and id <> ${row.t_id} and rotated_at is null
               and revoked_at is null`;
          const refreshToken = (await insertRefreshToken(tx, successor))!;
          await touchClient(tx, client!.clientId);
          return { ok: true, refreshToken };
        }
      }
      // Rotated meanwhile (a parallel request won) or before: a retry within the window gets a sibling successor.
      const sibling = grace > 0
        ? await insertRefreshToken(tx, { ...successor, onlyIfGraceFor: { graceSeconds: grace } })
        : undefined;
      return sibling ? { ok: true, refreshToken: sibling } : { ok: false, revoke: true };
    });
    if (!outcome.ok) {
      if (outcome.revoke) await revokeLater(deps.sql, [row.t_family_id]);
      throw invalid();
    }
    refreshToken = outcome.refreshToken;
  }
  const tokens = await mintTokens(deps, {
    clientId: client.clientId,
    userId: row.t_user_id,
    scopes,
    resource,
    grantId: row.t_family_id,
    authTime,
    refreshToken,
  }, early);
  // The successor's claims, for its own refresh (the grant's full scope: a narrowing applies to one refresh).
  deps.refreshHints?.remember(sha256Hex(refreshToken), {
    clientId: client.clientId,
    userId: row.t_user_id,
    grantId: row.t_family_id,
    scopes: row.t_scopes,
    resource: row.t_resource,
    authTime,
  });
  return tokens;
}

/**
 * RFC 7009. A refresh token revokes its family; an access token revokes its grant (which RFC 7009 §2.1 allows),
 * so userinfo refuses it and its refresh tokens end. A live token of another client is refused (§2.1: "the
 * request is refused and the client is informed of the error") and left alone; unknown, malformed, expired and
 * already-revoked tokens are not errors (§2.2) and change nothing.
 */
export async function revokeToken(
  deps: TokenDeps,
  client: Client,
  token: string,
  hint?: string,
): Promise<void> {
  const tryRefresh = async () => {
    const [row] = await deps.sql<{ family_id: string; client_id: string; live: boolean }[]>`
      select t.family_id, t.client_id,
             t.rotated_at is null and t.revoked_at is null and t.expires_at > now() and g.revoked_at is null
               as live
        from oauth_refresh_tokens t join oauth_grants g on g.id = t.family_id
       where t.token_hash = ${sha256Hex(token)}`;
    if (!row) return false;
    if (row.client_id === client.clientId) await deps.sql.begin((tx) => revokeGrant(tx, row.family_id));
    else if (row.live) throw notYours();
    return true;
  };
  const tryAccess = async () => {
    if (token.split(".").length !== 3) return false;
    let claims;
    try {
      claims = await verifyAccessToken(deps.keys, deps.issuer, token);
    } catch (err) {
      // An outage must not pass for "not an access token": the client would believe the token revoked.
      if (isDatabaseUnavailable(err)) throw err;
      return false;
    }
    if (claims.client_id === client.clientId) {
      if (claims.grant_id) await deps.sql.begin((tx) => revokeGrant(tx, claims.grant_id!));
    } else if (await grantActive(deps.sql, claims.grant_id)) throw notYours();
    return true;
  };
  if (hint === "access_token") {
    if (!(await tryAccess())) await tryRefresh();
  } else if (!(await tryRefresh())) {
    await tryAccess();
  }
}

/** docs/oauth.md "Revocation of another client's token": why invalid_request; nothing about whose token it is. */
function notYours(): OAuthError {
  return new OAuthError("invalid_request", "the token was not issued to this client");
}

/** Whether the grant behind an access token is still in force. */
export async function grantActive(db: Db, grantId: string | undefined): Promise<boolean> {
  if (!grantId || !/^[0-9a-f-]{36}$/i.test(grantId)) return false;
  const [row] = await db<{ active: boolean }[]>`
    select revoked_at is null as active from oauth_grants where id = ${grantId}`;
  return row?.active === true;
}
