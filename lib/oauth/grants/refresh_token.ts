// grant_type=refresh_token (docs/oauth.md "Refresh retries and parallel refreshes"): every rule of a
// refresh in one place — the one statement that checks and rotates in the common case, the checks that name a
// refusal, the locked path taken after a concurrent change, and the signing that overlaps the statement.
//
// The rules, and where each is stated (a change to one is a change to every place named):
// - who may refresh: the token's own client, authenticated, holding the refresh_token grant (statement `ok`;
//   `authenticateClient` and `requireRefreshGrant` name the refusal);
// - which tokens: live, unexpired, within the family's cap, of an enabled person; a rotated one only as a retry
//   within the grace window (statement `t`/`ok`; `checkPresented`; `lockedRotation` re-checks under the family's lock);
// - what is issued: access and ID token for the asked scope (a subset of the granted one) and the bound
//   resource; a successor refresh token with the grant's FULL scope, a lifetime of its own, never past the cap
//   (statement `issued`; `lockedRotation`'s `successor`; the hint noted for the successor in `refreshGrant`).
// tests/oauth/grants/refresh_token.test.ts pins each of those three places for the successor's scope.
import { withTx } from "../../db/tx.ts";
import { randomToken, sha256Hex } from "../../crypto.ts";
import {
  authenticateClient,
  type Client,
  clientColumns,
  type ClientCredentials,
  type ClientRow,
} from "../clients.ts";
import { OAuthError } from "../errors.ts";
import { splitScope } from "../scopes.ts";
import { countRefresh, OTEL_ON } from "../../telemetry/otel.ts";
import type { RefreshHint } from "./refresh_hints.ts";
import {
  checkedResource,
  insertRefreshToken,
  type MintInput,
  REFRESH_TTL_CONFIDENTIAL_SECONDS,
  REFRESH_TTL_PUBLIC_SECONDS,
  refreshTtl,
  revokeLater,
  type SignedTokens,
  signFor,
  type TokenDeps,
  type TokenParams,
  type TokenResponse,
  tokenResponse,
  touchClient,
} from "./shared.ts";

/**
 * What the refresh statement answers, always one row: the client named by the request (null when there is no
 * such client), the presented token (`tokenId` null when unknown, and then the other token fields too), and
 * whether the statement already rotated the token or issued a sibling successor (`issued`). Arrays come as JSON:
 * postgres.js parses a new connection's first answer before it has learnt the array types (its type query's
 * answer and the next one arrive in one read), and then leaves that statement's arrays as strings for the
 * connection's life.
 */
interface RefreshRow {
  client: ClientRow | null;
  tokenId: string | null;
  familyId: string;
  /** the client the token was issued to */
  tokenClientId: string;
  userId: string;
  /** the grant's full scope, which every successor keeps */
  scopes: string[];
  resource: string | null;
  authTime: Date;
  amr: string[];
  rotated: boolean;
  revoked: boolean;
  unexpired: boolean;
  grantLive: boolean;
  withinCap: boolean;
  enabled: boolean;
  inGrace: boolean;
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

/**
 * The common refresh in one statement: it authenticates the client, reads the presented token with its grant
 * and person, and — only when every check of `refreshGrant` passes — rotates the token (or, for a retry within
 * the grace window, issues a sibling), supersedes the token's siblings, inserts the successor `fresh` and
 * notes the client's use. A refused request changes nothing.
 *
 * One statement sees one snapshot, so the family's lock cannot order it after a concurrent change the way a
 * transaction's later statements are ordered. Instead the statement writes the family's version: a new row
 * version of the grant, written only while the grant's `xmin` is still the one the statement read. Every
 * change to a family (this statement, `lockedRotation`, `revokeGrant`, disconnecting an app, withdrawing
 * trust) updates the grant row before it touches the family's tokens, so a change committed since the
 * snapshot, or still running, fails that condition (Postgres re-checks it on the row's newest version after
 * waiting for its lock) and the statement does nothing; `refreshGrant` then takes the locked path.
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
      select rt.id, rt.family_id, rt.client_id, rt.user_id, rt.scopes, g.resource, rt.auth_time, rt.amr,
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
      select t.id, t.family_id, t.user_id, t.scopes, t.resource, t.auth_time, t.amr, t.grant_created, t.grant_version,
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
                                        auth_time, amr, expires_at)
      select ${sha256Hex(input.fresh)}, ok.family_id, ok.id, ${input.clientId}, ok.user_id, ok.scopes,
             ok.resource, ok.auth_time, ok.amr,
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
    select (select to_json(c) from c) as client, t.id as "tokenId", t.family_id as "familyId",
           t.client_id as "tokenClientId", t.user_id as "userId", to_json(t.scopes) as scopes, t.resource,
           t.auth_time as "authTime", t.amr, t.rotated, t.revoked, t.unexpired, t.grant_live as "grantLive",
           t.within_cap as "withinCap", t.enabled, t.in_grace as "inGrace", exists (select 1 from issued) as issued
      from (values (1)) as one (x) left join c on true left join t on true`;
  return row;
}

/** Tokens a refresh started signing before its statement returned, and the claims they were signed for. */
interface EarlyTokens {
  claims: string;
  tokens: Promise<SignedTokens>;
}

function claimsKey(input: MintInput): string {
  return JSON.stringify([
    input.clientId,
    input.userId,
    input.scopes,
    input.resource,
    input.grantId,
    input.authTime.getTime(),
    input.amr,
    input.nonce ?? null,
  ]);
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
 * used only by `earlyTokens` for exactly these claims.
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
    amr: hint.amr,
  };
  const tokens = statementWritten().then(() => signFor(deps, input));
  // Unused when the refresh is refused; a signer failure is met again by signing after the statement.
  tokens.catch(() => {});
  return { claims: claimsKey(input), tokens };
}

/** The early tokens when they were signed for exactly `input`'s claims; undefined: sign now. */
async function earlyTokens(
  deps: TokenDeps,
  input: MintInput,
  early: EarlyTokens | undefined,
): Promise<SignedTokens | undefined> {
  if (!early || early.claims !== claimsKey(input)) return undefined;
  return await early.tokens.catch(() => signFor(deps, input));
}

/**
 * The checks of a refresh whose statement changed nothing or whose outcome must be named, in the order that
 * picks the refusal: another client's or a dead family's token, a stale copy (which revokes the family), an
 * expired one, a wider scope, another resource. Returns what the tokens carry.
 */
async function checkPresented(
  deps: TokenDeps,
  row: RefreshRow,
  client: Client,
  asked: string[],
  requestedResource: string | undefined,
): Promise<{ scopes: string[]; resource: string | null; again: boolean }> {
  const grace = deps.refreshGraceSeconds;
  // Another client's token is not this client's to end; a revoked family has nothing left to end.
  if (row.tokenId === null || row.tokenClientId !== client.clientId || !row.grantLive) throw invalidRefresh();
  const again = row.rotated || row.revoked;
  if (again && !(grace > 0 && row.rotated && !row.revoked && row.inGrace)) {
    // Presented after its successor was used, after the window, or after a sibling won: the client or a thief
    // holds a stale copy; end the whole family. These conditions never revert, so a read is enough to decide.
    await revokeLater(deps.sql, [row.familyId]);
    throw invalidRefresh();
  }
  if (!row.unexpired || !row.withinCap || !row.enabled) throw invalidRefresh();
  const extra = asked.find((s) => !row.scopes.includes(s));
  if (extra) throw new OAuthError("invalid_scope", `scope ${extra} was not granted`);
  return {
    scopes: asked.length > 0 ? asked : row.scopes,
    resource: refreshResource(row.resource, requestedResource, deps.issuer),
    again,
  };
}

function invalidRefresh(): OAuthError {
  return new OAuthError("invalid_grant", "the refresh token is invalid");
}

/**
 * The locked path, for a refresh whose checks pass but whose statement did nothing (a concurrent change to the
 * family came in between). Under the family's lock (a write to the grant row) the token is rotated in one
 * statement that re-checks it — or, when it was rotated moments ago and none of its successors has been used
 * yet, a sibling successor is issued (a retry or a parallel refresh). Anything else revokes the family.
 * Returns the successor refresh token.
 */
async function lockedRotation(
  deps: TokenDeps,
  row: RefreshRow,
  client: Client,
  ttl: number,
  again: boolean,
): Promise<string> {
  const grace = deps.refreshGraceSeconds;
  type Outcome = { ok: true; refreshToken: string } | { ok: false; revoke: boolean };
  const outcome = await withTx(deps.sql, async (tx): Promise<Outcome> => {
    // The family's lock: every change to a family writes its grant row first (see refreshStatement).
    const [locked] = await tx`
      update oauth_grants g set revoked_at = null
        from users u
       where g.id = ${row.familyId} and g.revoked_at is null and u.id = g.user_id and u.disabled_at is null
         and g.created_at + make_interval(days => ${deps.familyMaxDays}) > now()
      returning g.id`;
    if (!locked) return { ok: false, revoke: false };
    const successor = {
      familyId: row.familyId,
      parentId: row.tokenId,
      client,
      userId: row.userId,
      // The new refresh token keeps the grant's full scope (RFC 6749 §6) and gets a full lifetime of its own.
      scopes: row.scopes,
      resource: row.resource,
      authTime: new Date(row.authTime),
      amr: row.amr,
      codeHash: null,
      ttl,
      familyMaxDays: deps.familyMaxDays,
    };
    if (!again) {
      const rotated = await tx`
        update oauth_refresh_tokens set rotated_at = now()
         where id = ${row.tokenId} and rotated_at is null and revoked_at is null and expires_at > now()
        returning id`;
      if (rotated.length === 1) {
        // This branch won: siblings issued for retries of the same parent are no longer needed.
        await tx`
          update oauth_refresh_tokens set revoked_at = now()
           where family_id = ${row.familyId} and id <> ${row.tokenId} and rotated_at is null
             and revoked_at is null`;
        const refreshToken = (await insertRefreshToken(tx, successor))!;
        await touchClient(tx, client.clientId);
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
    if (outcome.revoke) await revokeLater(deps.sql, [row.familyId]);
    throw invalidRefresh();
  }
  return outcome.refreshToken;
}

/**
 * grant_type=refresh_token, client authentication included. The common case is one statement
 * (`refreshStatement`): it changes something only when every check passes, so a refused request
 * (`invalid_client`, `invalid_scope`, `invalid_target` …) leaves the token as it was, and the checks are then
 * repeated here (`checkPresented`) to name the refusal. When the statement did nothing although the checks pass,
 * `lockedRotation` rotates under the family's lock. Any other presentation of a rotated or superseded token
 * revokes the whole family.
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
  const { scopes, resource, again } = await checkPresented(deps, row, client, asked, input.resource);
  const authTime = new Date(row.authTime);
  const refreshToken = row.issued ? fresh : await lockedRotation(deps, row, client, ttl, again);
  const claims: MintInput = {
    clientId: client.clientId,
    userId: row.userId,
    scopes,
    resource,
    grantId: row.familyId,
    authTime,
    amr: row.amr,
  };
  const tokens = await tokenResponse(
    deps,
    { ...claims, refreshToken },
    await earlyTokens(deps, claims, early),
  );
  // The successor's claims, for its own refresh (the grant's full scope: a narrowing applies to one refresh).
  deps.refreshHints?.remember(sha256Hex(refreshToken), {
    clientId: client.clientId,
    userId: row.userId,
    grantId: row.familyId,
    scopes: row.scopes,
    resource: row.resource,
    authTime,
    amr: row.amr,
  });
  return tokens;
}

/**
 * The token endpoint's refresh_token grant. The client is authenticated inside `refreshGrant` (in the common
 * case by the statement that rotates the token), so a malformed `resource` is handed over to be named after the
 * client's own refusal, as for a code.
 */
export async function refreshTokenGrant(
  deps: TokenDeps,
  creds: ClientCredentials,
  params: TokenParams,
): Promise<TokenResponse> {
  let resource: string | undefined;
  let resourceProblem: OAuthError | undefined;
  try {
    resource = checkedResource(params.resource, deps.issuer);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    resourceProblem = err;
  }
  const input = { refreshToken: params.refresh_token, scope: params.scope, resource, resourceProblem };
  if (!OTEL_ON) return await refreshGrant(deps, creds, input);
  // OpenTelemetry on: `portico.oauth.refreshes` by outcome, "ok" or the OAuth error code.
  try {
    const tokens = await refreshGrant(deps, creds, input);
    countRefresh("ok");
    return tokens;
  } catch (err) {
    countRefresh(err instanceof OAuthError ? err.error : "error");
    throw err;
  }
}
