// grant_type=refresh_token (docs/oauth.md "Refresh retries and parallel refreshes", "Refresh tokens: storage and
// format"): every rule of a refresh in one place — the one statement that checks and rotates in the common case,
// the signing that overlaps it, and where the checks that name a refusal, the locked path taken after a
// concurrent change (./refresh_family.ts) and the tokens of the old format (./refresh_legacy.ts) live.
//
// A family's refresh state is its grant row (migration 00031): the current tokens' generation and hashes, the
// token rotated last and when. A rotation is one HOT update of that row; the token names its family and
// generation (./refresh_format.ts), so no token has a row of its own.
//
// The rules, and where each is stated (a change to one is a change to every place named):
// - who may refresh: the token's own client, authenticated, holding the refresh_token grant (statement `ok`;
//   `authenticateClient` and `requireRefreshGrant` name the refusal);
// - which tokens: a current one of a live, unexpired family within its cap, of an enabled person; the token
//   rotated last only as a retry within the grace window (statement `f`/`ok`; `standing` and `checkPresented`;
//   `lockedRotation` re-judges under the row's lock; `legacyRefresh` for the old format);
// - what is issued: access and ID token for the asked scope (a subset of the granted one) and the bound
//   resource; a successor refresh token with the grant's FULL scope (it has no scope of its own: the grant's
//   is the family's), a lifetime of its own, never past the cap (`successorState`, used by all three paths).
// tests/oauth/grants/refresh_token.test.ts pins each path for the successor's scope.
import { sha256Hex } from "../../crypto.ts";
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
import { mintRefreshToken, type PresentedRefreshToken, readRefreshToken } from "./refresh_format.ts";
import {
  checkPresented,
  FAMILY_CURRENT_MAX,
  familyColumns,
  type FamilyRow,
  lockedRotation,
  successorState,
} from "./refresh_family.ts";
import { legacyRefresh } from "./refresh_legacy.ts";
import {
  checkedResource,
  type MintInput,
  REFRESH_TTL_CONFIDENTIAL_SECONDS,
  REFRESH_TTL_PUBLIC_SECONDS,
  refreshTtl,
  type SignedTokens,
  signFor,
  type TokenDeps,
  type TokenParams,
  type TokenResponse,
  tokenResponse,
} from "./shared.ts";

/**
 * What the refresh statement answers, always one row: the client named by the request (null when there is no
 * such client), the family the token names (`familyId` null when there is no such grant, and then the other
 * family fields too), and whether the statement already issued the successor (`issued`).
 */
interface RefreshRow extends FamilyRow {
  client: ClientRow | null;
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
 * The common refresh in one statement: it authenticates the client, reads the family the token names (by the
 * grant's primary key) with its person, and — only when every check of `refreshGrant` passes — writes the
 * successor into the grant row: a rotation (the successor becomes the only current token, its siblings are
 * superseded) or, for a retry within the grace window, a sibling; and notes the client's use. A refused request
 * changes nothing.
 *
 * One statement sees one snapshot, so it writes only while the grant row is still the version it read (`xmin`):
 * a change committed since the snapshot, or still running, fails that condition (Postgres re-checks it on the
 * row's newest version after waiting for its lock) and the statement does nothing; `refreshGrant` then takes the
 * locked path. The columns it writes are in no index, so the write is a HOT update (migration 00031).
 */
async function refreshStatement(
  deps: TokenDeps,
  input: {
    clientId: string;
    secretHash: string | null;
    viaBody: boolean;
    presented: PresentedRefreshToken;
    tokenHash: string;
    freshHash: string;
    asked: string[] | null;
    resource: string | null;
  },
): Promise<RefreshRow> {
  const sql = deps.sql;
  const grace = deps.refreshGraceSeconds;
  // The presented token's generation; a successor's (after a rotation or as a sibling) is the next one.
  const generation = input.presented.generation;
  const next = generation + 1;
  const family = familyColumns(sql, {
    tokenHash: input.tokenHash,
    graceSeconds: grace,
    familyMaxDays: deps.familyMaxDays,
  });
  const successor = successorState(sql, {
    rotate: sql`ok.current`,
    tokenHash: input.tokenHash,
    freshHash: input.freshHash,
    generation: next,
    ttlSeconds: sql`case when ok.public then ${REFRESH_TTL_PUBLIC_SECONDS}::int
                         else ${REFRESH_TTL_CONFIDENTIAL_SECONDS}::int end`,
    familyMaxDays: deps.familyMaxDays,
  });
  const [row] = await sql<RefreshRow[]>`
    with c as (
      select ${clientColumns(sql)} from oauth_clients where client_id = ${input.clientId}
    ),
    f as materialized (
      select ${family}
        from oauth_grants g join users u on u.id = g.user_id
       where g.id = ${input.presented.familyId}
    ),
    ok as (
      select f."familyId", f.version, f.current, c.secret_hash is null as public
        from f join c on c.client_id = f."clientId"
       where 'refresh_token' = any(c.grant_types)
         and case when c.secret_hash is null then ${input.secretHash}::text is null
                  else c.secret_hash = ${input.secretHash}::text
                       and (c.token_endpoint_auth_method = 'client_secret_post') = ${input.viaBody}::boolean end
         and f."grantLive" and f.unexpired and f."withinCap" and f.enabled
         -- standing (./refresh_family.ts): a current token, or a retry of the one rotated last
         and ((f.current and f.generation = ${generation}::int)
              or (${grace > 0}::boolean and not f.current and f."lastRotated" and f."inGrace"
                  and f.generation = ${next}::int and f."currentCount" < ${FAMILY_CURRENT_MAX}::int))
         -- every scope asked for was granted (f.scopes is a JSON array)
         and (${input.asked}::text[] is null or f.scopes::jsonb ?& ${input.asked}::text[])
         and (${input.resource}::text is null or ${input.resource}::text = coalesce(f.resource, ${deps.issuer}))
    ),
    issued as (
      -- Only the version read: else another change came in between (see above).
      update oauth_grants g set ${successor}
        from ok
       where g.id = ok."familyId" and g.xmin::text = ok.version
      returning g.id
    ),
    touched as (
      update oauth_clients set last_used_at = now()
       where client_id = ${input.clientId} and exists (select 1 from issued)
         and (last_used_at is null or last_used_at < now() - interval '1 hour')
    )
    select (select to_json(c) from c) as client, f.*, exists (select 1 from issued) as issued
      from (values (1)) as one (x) left join c on true left join f on true`;
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
 * The token response of a refresh, and the hint for its successor (the grant's full scope: a narrowing applies
 * to one refresh).
 */
async function answer(
  deps: TokenDeps,
  claims: MintInput,
  grantScopes: string[],
  refreshToken: string,
  early?: EarlyTokens,
): Promise<TokenResponse> {
  const tokens = await tokenResponse(
    deps,
    { ...claims, refreshToken },
    await earlyTokens(deps, claims, early),
  );
  deps.refreshHints?.remember(sha256Hex(refreshToken), {
    clientId: claims.clientId,
    userId: claims.userId,
    grantId: claims.grantId,
    scopes: grantScopes,
    resource: claims.resource,
    authTime: claims.authTime,
    amr: claims.amr,
  });
  return tokens;
}

/**
 * grant_type=refresh_token, client authentication included. The common case is one statement
 * (`refreshStatement`): it changes something only when every check passes, so a refused request
 * (`invalid_client`, `invalid_scope`, `invalid_target` …) leaves the family as it was, and the checks are then
 * repeated here (`checkPresented`) to name the refusal. When the statement did nothing although the checks pass,
 * `lockedRotation` judges again under the grant row's lock. Presenting a token of the family that is no longer
 * current, other than a retry within the window, revokes the whole family. A token of the old format goes to
 * `legacyRefresh`.
 */
export async function refreshGrant(
  deps: TokenDeps,
  creds: ClientCredentials,
  input: { refreshToken?: string; scope?: string; resource?: string; resourceProblem?: OAuthError },
): Promise<TokenResponse> {
  let client: Client | undefined;
  const presented = input.refreshToken === undefined
    ? undefined
    : readRefreshToken(deps.secretKey, input.refreshToken);
  if (!creds.clientId?.startsWith("pcl_") || !presented || input.resourceProblem) {
    // Through the client directory (metadata-document clients are fetched and mirrored there), and so that a
    // refusal that needs no token (a malformed `resource`, no token) comes after the client's own, as before.
    // A token of the old format (or not a token at all) is looked up after the client too.
    client = await authenticateClient(deps.findClient, creds);
    if (input.resourceProblem) throw input.resourceProblem;
    requireRefreshGrant(client);
    if (!input.refreshToken) throw new OAuthError("invalid_request", "refresh_token is required");
  }
  const asked = input.scope === undefined
    ? []
    : splitScope(input.scope).filter((s) => s !== "offline_access");
  const tokenHash = sha256Hex(input.refreshToken!);
  if (!presented) {
    const ttlSeconds = requireRefreshGrant(client!);
    const legacy = await legacyRefresh(deps, {
      client: client!,
      ttlSeconds,
      tokenHash,
      asked,
      resource: input.resource,
    });
    const claims: MintInput = {
      clientId: client!.clientId,
      userId: legacy.userId,
      scopes: legacy.scopes,
      resource: legacy.resource,
      grantId: legacy.familyId,
      authTime: legacy.authTime,
      amr: legacy.amr,
    };
    return await answer(deps, claims, legacy.grantScopes, legacy.refreshToken);
  }
  // The successor is the same for a rotation and for a sibling: one generation past the presented token.
  const fresh = mintRefreshToken(deps.secretKey, presented.familyId, presented.generation + 1);
  const freshHash = sha256Hex(fresh);
  const statement = refreshStatement(deps, {
    clientId: client?.clientId ?? creds.clientId!,
    secretHash: creds.clientSecret === undefined ? null : sha256Hex(creds.clientSecret),
    viaBody: creds.via === "body",
    presented,
    tokenHash,
    freshHash,
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
  const ttlSeconds = requireRefreshGrant(client);
  const { scopes, resource } = await checkPresented(deps, row, presented, client, asked, input.resource);
  if (!row.issued) await lockedRotation(deps, { client, ttlSeconds, presented, tokenHash, freshHash });
  const claims: MintInput = {
    clientId: client.clientId,
    userId: row.userId,
    scopes,
    resource,
    grantId: row.familyId!,
    authTime: new Date(row.authTime),
    amr: row.amr,
  };
  return await answer(deps, claims, row.scopes, fresh, early);
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
