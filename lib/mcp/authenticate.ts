// Who a /mcp request is: the credential it presents (x-api-key, or an OAuth access token as Bearer), what that
// resolves to, and the answers when it is refused (RFC 6750 / RFC 9728 challenges) or cannot be checked.
import type { McpVariant } from "../config.ts";
import type { Db } from "../db/client.ts";
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_AFTER } from "../db/errors.ts";
import { errorFields, type Logger } from "../log.ts";
import type { KeyStore } from "../oauth/keys.ts";
import { protectedResourceMetadataUrl } from "../oauth/metadata.ts";
import { type BearerResult, createVerifiedTokenCache, loadBearerCaller, MCP_SCOPE } from "./bearer.ts";
import { type Caller, type CallerResult, type Charged, loadCaller } from "./caller.ts";
import type { McpCharge } from "./charge.ts";
import { RPC } from "./errors.ts";
import type { Refusal } from "./refusals.ts";
import { rpcErrorBody } from "./jsonrpc.ts";
import { UNAVAILABLE_MESSAGE } from "./server.ts";

/** The credential headers of a request; `single` is the one credential presented, when exactly one is. */
export interface Presented {
  apiKey: string | undefined;
  authorization: string | undefined;
  bearer: string | undefined;
  single: string | undefined;
}

export function presentedCredential(
  apiKey: string | undefined,
  authorization: string | undefined,
): Presented {
  const bearer = authorization !== undefined && /^bearer\s/i.test(authorization)
    ? authorization.slice(7).trim()
    : undefined;
  const single = apiKey && bearer === undefined ? apiKey : !apiKey && bearer ? bearer : undefined;
  return { apiKey, authorization, bearer, single };
}

/**
 * The caller, or the refusal of the credential presented (none, two, an unknown scheme, or not accepted), and
 * what the caller statement took from the rate limits (`charged` absent: no statement ran).
 */
export type Authenticated = ({ ok: true; caller: Caller } | { ok: false; refusal: Refusal }) & Charged;

export interface AuthenticatorDeps {
  sql: Db;
  keys: KeyStore;
  log: Logger;
  issuer: string;
  /** the tool server's resource URL, the audience its access tokens must carry (mcpResourceUrl) */
  resource: string;
  variant: McpVariant;
}

export interface Authenticator {
  /**
   * Resolves the presented credential; `fingerprint` is its hash when the rate limit computed it, `charge` the
   * units its statement takes (lib/mcp/charge.ts). May throw.
   */
  authenticate(presented: Presented, fingerprint?: string, charge?: McpCharge): Promise<Authenticated>;
}

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const bearerDeps = {
    db: deps.sql,
    keys: deps.keys,
    issuer: deps.issuer,
    resource: deps.resource,
    log: deps.log,
    verified: createVerifiedTokenCache(),
  };
  // RFC 6750 §3 / RFC 9728 §5.1: every Bearer challenge points at the resource metadata and names the scope.
  const metadataParam = `resource_metadata="${protectedResourceMetadataUrl(deps.issuer)}"`;
  const challenge = (extra = "") => `Bearer ${metadataParam}, scope="${MCP_SCOPE}"${extra}`;

  /** The refusal of a credential that was presented but not accepted. */
  function refusal(result: Exclude<CallerResult | BearerResult, { ok: true }>): Refusal {
    if ("error" in result) {
      // RFC 6750 §3.1: invalid_token is 401, insufficient_scope 403; both with the challenge and its error.
      // The message (the same in the body, which SDK 1.12.1 shows as its error) names what to send instead.
      const code = result.status === 401 ? RPC.UNAUTHORIZED : RPC.FORBIDDEN;
      return {
        status: result.status,
        body: rpcErrorBody(null, code, result.message),
        headers: {
          "WWW-Authenticate": challenge(
            `, error="${result.error}", error_description=${quotedString(result.message)}`,
          ),
        },
      };
    }
    // An API key that was sent but is wrong, revoked or malformed answers 403 with its reason and no
    // challenge: every OAuth-capable MCP client starts a browser sign-in on a 401, which would drag a person
    // who configured a key into an OAuth flow instead of telling them the key is bad (RFC 9110 §15.5.4: the
    // credentials were understood and are insufficient).
    const code = result.status === 401 ? RPC.UNAUTHORIZED : RPC.FORBIDDEN;
    return { status: 403, body: rpcErrorBody(null, code, result.message) };
  }

  const outcome = (result: CallerResult | BearerResult): Authenticated =>
    result.ok ? result : { ok: false, refusal: refusal(result), charged: result.charged };

  return {
    async authenticate({ apiKey, authorization, bearer }, fingerprint, charge) {
      if (apiKey && bearer !== undefined) {
        return {
          ok: false,
          refusal: {
            status: 400,
            body: rpcErrorBody(
              null,
              RPC.INVALID_REQUEST,
              "Bad Request: send one credential, either x-api-key or Authorization: Bearer, not both",
            ),
          },
        };
      }
      if (apiKey) {
        return outcome(await loadCaller(deps.sql, apiKey, deps.variant, deps.log, fingerprint, charge));
      }
      if (bearer !== undefined && bearer !== "") {
        return outcome(await loadBearerCaller(bearerDeps, bearer, charge));
      }
      const message = authorization === undefined || bearer !== undefined
        ? "missing credentials: send an x-api-key header, or an OAuth access token as Authorization: Bearer"
        : "unsupported Authorization scheme: use Bearer with an OAuth access token, or an x-api-key header";
      return {
        ok: false,
        refusal: {
          status: 401,
          body: rpcErrorBody(null, RPC.UNAUTHORIZED, message),
          headers: { "WWW-Authenticate": challenge() },
        },
      };
    },
  };
}

/**
 * The answer when loading the caller threw: 503 with Retry-After while the database is away, else a 500 naming
 * the request id (the cause goes to the log, never to the client).
 */
export function authenticationFailed(log: Logger, requestId: string, err: unknown): Refusal {
  if (isDatabaseUnavailable(err)) {
    log.warn("mcp: database unavailable", { request_id: requestId, ...errorFields(err) });
    return {
      status: 503,
      body: rpcErrorBody(null, RPC.INTERNAL_ERROR, UNAVAILABLE_MESSAGE),
      headers: { "Retry-After": String(UNAVAILABLE_RETRY_AFTER) },
    };
  }
  log.error("mcp: loading the caller failed", { request_id: requestId, ...errorFields(err) });
  return {
    status: 500,
    body: rpcErrorBody(null, RPC.INTERNAL_ERROR, `Internal error (request id ${requestId})`),
  };
}

/** An RFC 9110 §5.6.4 quoted-string: a message naming a URL must not end the header's parameter early. */
function quotedString(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}
