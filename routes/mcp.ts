// POST /mcp: Origin/Host check, rate limit, credential (x-api-key, or an OAuth access token as Bearer) → caller,
// then the per-request MCP server over this caller's tools.
import { Hono } from "hono";
import type { Context } from "hono";
import type { Config } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import { clientIp } from "../lib/http/client_ip.ts";
import { isLoopbackHostname, LOOPBACK_HOSTNAMES } from "../lib/net/loopback.ts";
import { completeResponse } from "../lib/http/middleware.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_AFTER } from "../lib/db/errors.ts";
import { errorFields, type Logger } from "../lib/log.ts";
import { type CallerResult, loadCaller } from "../lib/mcp/caller.ts";
import {
  type BearerResult,
  createVerifiedTokenCache,
  loadBearerCaller,
  MCP_SCOPE,
} from "../lib/mcp/bearer.ts";
import type { KeyStore } from "../lib/oauth/keys.ts";
import { mcpResourceUrl, protectedResourceMetadataUrl } from "../lib/oauth/metadata.ts";
import { RPC } from "../lib/mcp/errors.ts";
import { createExportLinks } from "../lib/mcp/exports.ts";
import {
  createMcpRateLimits,
  type Limited,
  type McpRateLimits,
  messageCount,
  rateLimitedBody,
} from "../lib/mcp/rate_limit.ts";
import { narrowRegistry, type Registry, registryFor } from "../lib/mcp/registry.ts";
import { effectiveSelection, parseSelection, type Selection } from "../lib/mcp/toolsets.ts";
import {
  DEFAULT_PROTOCOL_VERSION,
  handleMcpMessage,
  isSupportedVersion,
  rpcErrorBody,
  SUPPORTED_PROTOCOL_VERSIONS,
  UNAVAILABLE_MESSAGE,
} from "../lib/mcp/server.ts";
import { decodeUtf8 } from "../lib/unsafe_input.ts";
import type { AnyTool } from "../lib/mcp/tool.ts";
import type { AuditLog } from "../lib/audit.ts";
import { TOOLS } from "../tools/mod.ts";

export interface McpRouteDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** the signing keys, to verify access tokens in-process (shared with the authorization server's routes) */
  keys: KeyStore;
  /** when given, every tools/call (also refused ones) is recorded there, off the response path */
  audit?: Pick<AuditLog, "record">;
  /** the /mcp rate limits; by default built from config (MCP_RATE_LIMIT, MCP_UNAUTH_RATE_LIMIT), one per app */
  mcpRateLimits?: McpRateLimits;
  /** SECRET_KEY: signs download links for large exports (routes/exports.ts serves them); absent: no links */
  secretKey?: string;
}

export interface McpRouteOptions {
  /** the tools to serve instead of tools/mod.ts (tests use this for tools that do not exist yet) */
  tools?: readonly AnyTool[];
}

/** Origins allowed to call from a browser: the issuer's, and its loopback aliases when it is loopback. */
function allowedOrigins(issuer: string): Set<string> {
  const u = new URL(issuer);
  const out = new Set([u.origin]);
  if (isLoopbackHostname(u.hostname)) {
    for (const h of LOOPBACK_HOSTNAMES) out.add(`${u.protocol}//${h}${u.port ? `:${u.port}` : ""}`);
  }
  return out;
}

function hostName(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
}

const JSON_HEADERS = [["Content-Type", "application/json"], ["Cache-Control", "no-store"]] as const;

/** The registry a connection sees: the whole one, or narrowed to its key's and URL's selection. */
function narrowed(registry: Registry, selection: Selection | null): Registry {
  return selection ? narrowRegistry(registry, selection) : registry;
}

export function createMcpRoutes(deps: McpRouteDeps, opts: McpRouteOptions = {}): Hono<AppEnv> {
  const variant = deps.config.mcpVariant;
  const registry = registryFor(opts.tools ?? TOOLS, variant);
  const origins = allowedOrigins(deps.config.issuer);
  // A loopback issuer means a local server: then only loopback Host names are served (DNS rebinding).
  const loopbackOnly = isLoopbackHostname(new URL(deps.config.issuer).hostname);
  const resource = mcpResourceUrl(deps.config.issuer);
  const bearerDeps = {
    db: deps.sql,
    keys: deps.keys,
    issuer: deps.config.issuer,
    resource,
    log: deps.log,
    verified: createVerifiedTokenCache(),
  };
  // RFC 6750 §3 / RFC 9728 §5.1: every Bearer challenge points at the resource metadata and names the scope.
  const metadataParam = `resource_metadata="${protectedResourceMetadataUrl(deps.config.issuer)}"`;
  const challenge = (extra = "") => `Bearer ${metadataParam}, scope="${MCP_SCOPE}"${extra}`;
  const limits = deps.mcpRateLimits ?? createMcpRateLimits({
    perCredential: deps.config.mcpRateLimit,
    unauthenticated: deps.config.mcpUnauthRateLimit,
    log: deps.log,
  });
  const app = new Hono<AppEnv>();
  const https = deps.config.issuer.startsWith("https:");
  const exportLinks = deps.secretKey === undefined
    ? undefined
    : createExportLinks({ secretKey: deps.secretKey, issuer: deps.config.issuer });

  /** A JSON answer with every header at once (lib/http/middleware.ts `completeResponse`). */
  function json(
    c: Context<AppEnv>,
    status: number,
    body: string | Uint8Array<ArrayBuffer> | null,
    headers: Record<string, string> = {},
  ): Response {
    const extra = Object.entries(headers);
    return completeResponse(
      c,
      https,
      status,
      body,
      extra.length === 0 ? JSON_HEADERS : [...JSON_HEADERS, ...extra],
    );
  }

  /** Which credential the request carries and what it resolved to; a Response when it is refused here. */
  async function authenticate(
    c: Context<AppEnv>,
    { apiKey, authorization, bearer, fingerprint }: Presented & { fingerprint?: string },
  ): Promise<CallerResult | BearerResult | Response> {
    if (apiKey && bearer !== undefined) {
      return json(
        c,
        400,
        rpcErrorBody(
          null,
          RPC.INVALID_REQUEST,
          "Bad Request: send one credential, either x-api-key or Authorization: Bearer, not both",
        ),
      );
    }
    if (apiKey) return await loadCaller(deps.sql, apiKey, variant, deps.log, fingerprint);
    if (bearer !== undefined && bearer !== "") return await loadBearerCaller(bearerDeps, bearer);
    const message = authorization === undefined || bearer !== undefined
      ? "missing credentials: send an x-api-key header, or an OAuth access token as Authorization: Bearer"
      : "unsupported Authorization scheme: use Bearer with an OAuth access token, or an x-api-key header";
    return json(c, 401, rpcErrorBody(null, RPC.UNAUTHORIZED, message), { "WWW-Authenticate": challenge() });
  }

  /** A 429: JSON-RPC error body, Retry-After in whole seconds (the wait is rounded up). */
  function tooMany(c: Context<AppEnv>, limited: Limited): Response {
    return json(c, 429, rateLimitedBody(limited), { "Retry-After": String(limited.retryAfter) });
  }

  /** The refusal of a credential that was presented but not accepted. */
  function refusal(c: Context<AppEnv>, result: Exclude<CallerResult | BearerResult, { ok: true }>): Response {
    if ("error" in result) {
      // RFC 6750 §3.1: invalid_token is 401, insufficient_scope 403; both with the challenge and its error.
      const code = result.status === 401 ? RPC.UNAUTHORIZED : RPC.FORBIDDEN;
      return json(c, result.status, rpcErrorBody(null, code, result.message), {
        "WWW-Authenticate": challenge(`, error="${result.error}", error_description="${result.message}"`),
      });
    }
    // An API key that was sent but is wrong, revoked or malformed answers 403 with its reason and no
    // challenge: every OAuth-capable MCP client starts a browser sign-in on a 401, which would drag a person
    // who configured a key into an OAuth flow instead of telling them the key is bad (RFC 9110 §15.5.4: the
    // credentials were understood and are insufficient).
    const code = result.status === 401 ? RPC.UNAUTHORIZED : RPC.FORBIDDEN;
    return json(c, 403, rpcErrorBody(null, code, result.message));
  }

  /** DNS-rebinding and cross-site protection; null when the request may proceed. */
  function refuseForeign(c: Context<AppEnv>): Response | null {
    const origin = c.req.header("origin");
    if (origin !== undefined && !origins.has(origin)) {
      return json(
        c,
        403,
        rpcErrorBody(null, RPC.FORBIDDEN, `Forbidden: origin ${origin} may not call this server`),
      );
    }
    const host = c.req.header("host");
    if (loopbackOnly && host !== undefined && !isLoopbackHostname(hostName(host.toLowerCase()))) {
      return json(c, 403, rpcErrorBody(null, RPC.FORBIDDEN, `Forbidden: host ${host} is not served`));
    }
    return null;
  }

  app.post("/mcp", async (c) => {
    const refused = refuseForeign(c);
    if (refused) return refused;

    const versionHeader = c.req.header("mcp-protocol-version");
    if (versionHeader !== undefined && !isSupportedVersion(versionHeader)) {
      return json(
        c,
        400,
        rpcErrorBody(
          null,
          RPC.INVALID_REQUEST,
          `Bad Request: unsupported MCP-Protocol-Version ${versionHeader} (supported: ${
            SUPPORTED_PROTOCOL_VERSIONS.join(", ")
          })`,
        ),
      );
    }
    const contentType = c.req.header("content-type") ?? "";
    if (contentType.split(";")[0].trim().toLowerCase() !== "application/json") {
      return json(
        c,
        415,
        rpcErrorBody(
          null,
          RPC.INVALID_REQUEST,
          "Unsupported Media Type: Content-Type must be application/json",
        ),
      );
    }

    // A connection may narrow its tools (docs/mcp.md "Toolsets and read-only"); a bad selection is the URL's
    // fault, so it is refused before any database work, whoever asks.
    const selected = parseSelection(c.req.query("toolsets"), c.req.query("readonly"));
    if (!selected.ok) {
      return json(c, 400, rpcErrorBody(null, RPC.INVALID_PARAMS, `Invalid params: ${selected.message}`));
    }

    // Rate limit, before any database work: a credential accepted recently on this instance is charged to its
    // key or grant; anything else to the client address (lib/mcp/rate_limit.ts).
    const presented = presentedCredential(c);
    const admitted = limits.admit(presented.single, clientIp(c, deps.config.trustedProxies));
    if (!admitted.ok) return tooMany(c, admitted);

    let result;
    try {
      result = await authenticate(c, { ...presented, fingerprint: admitted.fingerprint });
    } catch (err) {
      const requestId = c.get("requestId");
      if (isDatabaseUnavailable(err)) {
        deps.log.warn("mcp: database unavailable", { request_id: requestId, ...errorFields(err) });
        return json(c, 503, rpcErrorBody(null, RPC.INTERNAL_ERROR, UNAVAILABLE_MESSAGE), {
          "Retry-After": String(UNAVAILABLE_RETRY_AFTER),
        });
      }
      deps.log.error("mcp: loading the caller failed", { request_id: requestId, ...errorFields(err) });
      return json(c, 500, rpcErrorBody(null, RPC.INTERNAL_ERROR, `Internal error (request id ${requestId})`));
    }
    if (result instanceof Response || !result.ok) {
      limits.refuse(admitted);
      if (deps.audit) auditRefusedCall(deps.audit, await c.req.text(), c.get("requestId"));
      return result instanceof Response ? result : refusal(c, result);
    }
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    // A batch counts one unit per message (read only when the body is a JSON array).
    const limited = limits.accept(admitted, result.caller, () => messageCount(bytes));
    if (limited) return tooMany(c, limited);

    // Invalid UTF-8 is refused rather than read with U+FFFD replacements and stored as something else.
    const body = decodeUtf8(bytes);
    if (body === null) {
      return json(c, 400, rpcErrorBody(null, RPC.PARSE_ERROR, "Parse error: the body is not valid UTF-8"));
    }
    const caller = result.caller;
    const requestId = c.get("requestId");
    const audit = deps.audit;
    const answer = await handleMcpMessage({
      registry: narrowed(registry, effectiveSelection(selected.selection, caller)),
      caller,
      db: deps.sql,
      log: deps.log,
      requestId,
      protocolVersion: versionHeader ?? DEFAULT_PROTOCOL_VERSION,
      exportLinks,
      onToolCall: audit
        ? (tool, outcome, durationMs) =>
          audit.record({
            at: new Date(),
            workspaceId: caller.workspaceId,
            keyId: caller.keyId,
            clientId: caller.clientId ?? null,
            userId: caller.userId ?? null,
            tool,
            outcome,
            durationMs,
            requestId,
          })
        : undefined,
    }, body);
    if (answer.body === null) return completeResponse(c, https, answer.status, null, []);
    return json(
      c,
      answer.status,
      answer.body,
      answer.retryAfter === undefined ? {} : { "Retry-After": String(answer.retryAfter) },
    );
  });

  // Stateless: no SSE stream to open (GET) and no session to end (DELETE).
  app.on(["GET", "DELETE", "PUT", "PATCH"], "/mcp", (c) => {
    const refused = refuseForeign(c);
    if (refused) return refused;
    return json(
      c,
      405,
      rpcErrorBody(
        null,
        RPC.INVALID_REQUEST,
        `Method Not Allowed: ${c.req.method} (this server is stateless; use POST)`,
      ),
      { Allow: "POST" },
    );
  });

  return app;
}

/** The credential headers of a request; `single` is the one credential presented, when exactly one is. */
interface Presented {
  apiKey: string | undefined;
  authorization: string | undefined;
  bearer: string | undefined;
  single: string | undefined;
}

function presentedCredential(c: Context<AppEnv>): Presented {
  const apiKey = c.req.header("x-api-key");
  const authorization = c.req.header("authorization");
  const bearer = authorization !== undefined && /^bearer\s/i.test(authorization)
    ? authorization.slice(7).trim()
    : undefined;
  const single = apiKey && bearer === undefined ? apiKey : !apiKey && bearer ? bearer : undefined;
  return { apiKey, authorization, bearer, single };
}

/**
 * A request refused before any caller existed (missing, unknown or revoked key) that asked for tools/call is
 * still a denied call for the audit trail: one row per request, however many calls its body (a batch) holds,
 * with the tool the first of them named and no workspace, key or user. Never the arguments.
 */
function auditRefusedCall(audit: Pick<AuditLog, "record">, body: string, requestId: string): void {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return;
  }
  const first = (Array.isArray(message) ? message : [message]).find((m) =>
    typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call"
  );
  if (first === undefined) return;
  const params = (first as { params?: { name?: unknown } }).params;
  audit.record({
    at: new Date(),
    workspaceId: null,
    keyId: null,
    clientId: null,
    userId: null,
    tool: typeof params?.name === "string" ? params.name : "",
    outcome: "denied",
    durationMs: 0,
    requestId,
  });
}
