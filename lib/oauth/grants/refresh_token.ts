// grant_type=refresh_token (docs/oauth.md "Refresh retries and parallel refreshes", "Refresh tokens: storage and
// format"): every rule of a refresh in one place — the statements that check and rotate (sent with the
// instance's other refreshes under load, ./refresh_batch.ts), the signing that overlaps them, and where the
// checks that name a refusal, the locked path taken after a concurrent change (./refresh_family.ts) and the
// tokens of the old format (./refresh_legacy.ts) live.
//
// A family's refresh state is its grant row (migration 00031): the current tokens' generation and hashes, the
// token rotated last and when. A rotation is one HOT update of that row; the token names its family and
// generation (./refresh_format.ts), so no token has a row of its own.
//
// The rules, and where each is stated (a change to one is a change to every place named):
// - who may refresh: the token's own client, authenticated, holding the refresh_token grant (both statements'
//   `ok`, in ./refresh_statements.ts; `authenticateClient` and `requireRefreshGrant` name the refusal);
// - which tokens: a current one of a live, unexpired family within its cap, of an enabled person; the token
//   rotated last only as a retry within the grace window (both statements' `ok`, the checking statement's `f`;
//   `standing` and `checkPresented`;
//   `lockedRotation` re-judges under the row's lock; `legacyRefresh` for the old format);
// - what is issued: access and ID token for the asked scope (a subset of the granted one) and the bound
//   resource; a successor refresh token with the grant's FULL scope (it has no scope of its own: the grant's
//   is the family's), a lifetime of its own, never past the cap (`successorState`, used by all three paths).
// tests/oauth/grants/refresh_token.test.ts pins each path for the successor's scope.
import { sha256Hex } from "../../crypto.ts";
import { authenticateClient, type Client, type ClientCredentials, isRegisteredClientId } from "../clients.ts";
import { OAuthError } from "../errors.ts";
import { SCOPE_TOKEN, splitScope } from "../scopes.ts";
import { countRefresh, OTEL_ON } from "../../telemetry/otel.ts";
import type { RefreshHint } from "./refresh_hints.ts";
import { mintRefreshToken, readRefreshToken } from "./refresh_format.ts";
import { checkPresented, lockedRotation } from "./refresh_family.ts";
import { refreshOne } from "./refresh_batch.ts";
import { legacyRefresh } from "./refresh_legacy.ts";
import {
  checkedResource,
  type MintInput,
  refreshTtl,
  type SignedTokens,
  signFor,
  type TokenDeps,
  type TokenParams,
  type TokenResponse,
  tokenResponse,
} from "./shared.ts";

function requireRefreshGrant(client: Client): number {
  const ttl = refreshTtl(client);
  if (ttl === undefined) {
    throw new OAuthError("unauthorized_client", "this client did not register the refresh_token grant");
  }
  return ttl;
}

/** Tokens a refresh started signing before its statement returned, and the claims they were signed for. */
interface EarlyTokens {
  claims: MintInput;
  tokens: Promise<SignedTokens>;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether two token responses would carry the same claims (compared field by field, in order). */
function sameClaims(a: MintInput, b: MintInput): boolean {
  return a.clientId === b.clientId && a.userId === b.userId && sameList(a.scopes, b.scopes) &&
    a.resource === b.resource && a.grantId === b.grantId && a.authTime.getTime() === b.authTime.getTime() &&
    sameList(a.amr, b.amr) && (a.nonce ?? null) === (b.nonce ?? null);
}

/**
 * Resolves once postgres.js has written a statement issued before this call: it queues its socket writes with
 * `setImmediate`, so the second of two nested immediates runs after that write. The OpenSSL signer signs on the
 * event loop when the process is quiet (lib/oauth/signer.ts); started any earlier, the signatures would run
 * before the statement leaves instead of while Postgres executes it. A refresh waiting in the batcher's queue
 * (./refresh_batch.ts) has no statement out yet: it signs while the statement ahead of it runs. Only the overlap
 * depends on this order, never the outcome.
 */
function statementWritten(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * Signs the access and ID token a refresh of a hinted token will carry, while its statement runs (the
 * signatures on this thread once the statement has been written, or on the thread pool when the process is
 * busy; the statement on Postgres: the two overlap). Nothing is signed when the request already differs from the
 * hint; the result is used only by `earlyTokens` for exactly these claims.
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
  return { claims: input, tokens };
}

/** The early tokens when they were signed for exactly `input`'s claims; undefined: sign now. */
async function earlyTokens(
  deps: TokenDeps,
  input: MintInput,
  early: EarlyTokens | undefined,
): Promise<SignedTokens | undefined> {
  if (!early || !sameClaims(early.claims, input)) return undefined;
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
 * grant_type=refresh_token, client authentication included. The common case is one statement (the rotation
 * statement in ./refresh_statements.ts, sent with other refreshes under load by ./refresh_batch.ts); a refresh it
 * does not write goes on to the checking statement (`refreshStatement`), which reads the family whatever the
 * outcome. Both change something
 * only when every check passes, so a refused request (`invalid_client`, `invalid_scope`, `invalid_target` …)
 * leaves the family as it was, and the checks are then repeated here (`checkPresented`) to name the refusal. When
 * the statements did nothing although the checks pass (the row changed, or another transaction held it),
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
  const asked = input.scope === undefined
    ? []
    : splitScope(input.scope).filter((s) => s !== "offline_access");
  // A scope token outside RFC 6749's syntax is refused before any statement (it could not match a granted one).
  const scopeProblem = asked.every((s) => SCOPE_TOKEN.test(s))
    ? undefined
    : new OAuthError("invalid_scope", "a scope token is printable ASCII other than space, '\"' and '\\'");
  if (
    !creds.clientId || !isRegisteredClientId(creds.clientId) || !presented || input.resourceProblem ||
    scopeProblem
  ) {
    // Through the client directory (metadata-document clients are fetched and mirrored there), and so that a
    // refusal that needs no token (a malformed `resource` or scope, no token) comes after the client's own, as before.
    // A token of the old format (or not a token at all) is looked up after the client too.
    client = await authenticateClient(deps.findClient, creds);
    if (input.resourceProblem) throw input.resourceProblem;
    requireRefreshGrant(client);
    if (!input.refreshToken) throw new OAuthError("invalid_request", "refresh_token is required");
    if (scopeProblem) throw scopeProblem;
  }
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
  const statement = refreshOne(deps, {
    clientId: client?.clientId ?? creds.clientId!,
    secretHash: creds.clientSecret === undefined ? null : sha256Hex(creds.clientSecret),
    viaBody: creds.via === "body",
    familyId: presented.familyId,
    generation: presented.generation,
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
