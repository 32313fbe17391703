// POST /mcp: Origin/Host check, rate limit, credential (x-api-key, or an OAuth access token as Bearer) → caller,
// then the per-request MCP server over this caller's tools.
import { Hono } from "hono";
import type { Context } from "hono";
import type { Config } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import { isDatabaseUnavailable } from "../lib/db/errors.ts";
import { clientIp } from "../lib/http/client_ip.ts";
import { isLoopbackHostname, LOOPBACK_HOSTNAMES } from "../lib/net/loopback.ts";
import { completeResponse } from "../lib/http/middleware.ts";
import type { AppEnv } from "../lib/http/types.ts";
import type { Logger } from "../lib/log.ts";
import { auditRefusedCall, toolCallAudit } from "../lib/mcp/audit_hook.ts";
import { authenticationFailed, createAuthenticator, presentedCredential } from "../lib/mcp/authenticate.ts";
import type { KeyStore } from "../lib/oauth/keys.ts";
import { mcpResourceUrl } from "../lib/oauth/metadata.ts";
import { RPC } from "../lib/mcp/errors.ts";
import { createExportLinks } from "../lib/mcp/exports.ts";
import {
  createMcpRateLimits,
  type Limited,
  type McpRateLimits,
  messageCount,
  rateLimitedBody,
} from "../lib/mcp/rate_limit.ts";
import {
  methodNotAllowed,
  NOT_UTF8,
  payloadTooLarge,
  type Refusal,
  refuseContentType,
  refuseSelection,
  refuseVersion,
  withoutNullId,
} from "../lib/mcp/refusals.ts";
import { eraOf, type ServerInfo } from "../lib/mcp/modern.ts";
import { SERVER_NAME, SERVER_VERSION } from "../lib/mcp/handshake.ts";
import { narrowRegistry, type Registry, registryFor } from "../lib/mcp/registry.ts";
import { effectiveSelection, parseSelection, type Selection } from "../lib/mcp/toolsets.ts";
import { withSelection } from "../lib/mcp/caller.ts";
import { DEFAULT_PROTOCOL_VERSION, handleMcpMessage } from "../lib/mcp/server.ts";
import { appsQuery } from "../lib/mcp/apps.ts";
import { rpcErrorBody } from "../lib/mcp/jsonrpc.ts";
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
  /** the /mcp rate limits; by default built from config (MCP_RATE_LIMIT, MCP_UNAUTH_RATE_LIMIT), one per app, in the database */
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

/** /mcp's 413 (lib/http/middleware.ts limitBody, before the route): a JSON-RPC error like its other answers. */
export function mcpPayloadTooLarge(c: Context<AppEnv>, maxBytes: number): Response {
  const r = payloadTooLarge(maxBytes);
  return c.body(r.body, 413, { "Content-Type": "application/json", "Cache-Control": "no-store" });
}

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
  const authenticator = createAuthenticator({
    sql: deps.sql,
    keys: deps.keys,
    log: deps.log,
    issuer: deps.config.issuer,
    resource,
    variant,
  });
  const limits = deps.mcpRateLimits ?? createMcpRateLimits({
    db: deps.sql,
    perCredential: deps.config.mcpRateLimit,
    unauthenticated: deps.config.mcpUnauthRateLimit,
    log: deps.log,
  });
  const app = new Hono<AppEnv>();
  const https = deps.config.issuer.startsWith("https:");
  // Who answers: in initialize (2025) and every 2026-07-28 result's _meta.
  const serverInfo: ServerInfo = Object.freeze({
    name: SERVER_NAME,
    title: deps.config.brandName,
    version: SERVER_VERSION,
    websiteUrl: deps.config.issuer,
  });
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

  /** A 429: JSON-RPC error body, Retry-After in whole seconds (the wait is rounded up). */
  function tooMany(c: Context<AppEnv>, limited: Limited): Response {
    const body = rateLimitedBody(limited);
    return json(c, 429, modernRequest(c) ? withoutNullId(body) : body, {
      "Retry-After": String(limited.retryAfter),
    });
  }

  /** A refusal; for a 2026-07-28 request without `"id":null`, which that revision's clients refuse. */
  const refuse = (c: Context<AppEnv>, r: Refusal) =>
    json(c, r.status, modernRequest(c) ? withoutNullId(r.body) : r.body, r.headers);
  const modernRequest = (c: Context<AppEnv>) => c.req.header("mcp-protocol-version") === "2026-07-28";

  /** DNS-rebinding and cross-site protection; null when the request may proceed. */
  function refuseForeign(c: Context<AppEnv>): Response | null {
    const origin = c.req.header("origin");
    if (origin !== undefined && !origins.has(origin)) {
      return refuse(c, {
        status: 403,
        body: rpcErrorBody(null, RPC.FORBIDDEN, `Forbidden: origin ${origin} may not call this server`),
      });
    }
    const host = c.req.header("host");
    if (loopbackOnly && host !== undefined && !isLoopbackHostname(hostName(host.toLowerCase()))) {
      return refuse(c, {
        status: 403,
        body: rpcErrorBody(null, RPC.FORBIDDEN, `Forbidden: host ${host} is not served`),
      });
    }
    return null;
  }

  app.post("/mcp", async (c) => {
    const refused = refuseForeign(c);
    if (refused) return refused;

    const versionHeader = c.req.header("mcp-protocol-version");
    const refusal = refuseVersion(versionHeader) ?? refuseContentType(c.req.header("content-type"));
    if (refusal) return refuse(c, refusal);
    // A connection may narrow its tools (docs/mcp.md "Toolsets and read-only"); a bad selection is the URL's
    // fault, so it is refused before any database work, whoever asks.
    const selected = parseSelection(c.req.query("toolsets"), c.req.query("readonly"));
    if (!selected.ok) return refuse(c, refuseSelection(selected.message));

    // Rate limits, shared by every instance (lib/mcp/rate_limit.ts): a bucket this instance knows to be empty is
    // refused before any database work; else the caller statement takes the request's units itself, from its
    // key or grant when the credential is live, else from the client address (one round trip either way).
    const presented = presentedCredential(c.req.header("x-api-key"), c.req.header("authorization"));
    const admitted = limits.admit(presented.single, clientIp(c, deps.config.trustedProxies));
    if (!admitted.ok) return tooMany(c, admitted);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    // A batch counts one unit per message (read only when the body is a JSON array).
    const charge = limits.charge(admitted, messageCount(bytes));

    let result;
    try {
      result = await authenticator.authenticate(presented, admitted.fingerprint, charge);
    } catch (err) {
      return refuse(c, authenticationFailed(deps.log, c.get("requestId"), err));
    }
    let limited;
    try {
      limited = await limits.settle(admitted, charge, result.charged, result.ok ? result.caller : null);
    } catch (err) {
      // A request refused anyway (no credential, a malformed one) is answered as such while the database,
      // where its address's unit is counted, is away.
      if (!result.ok && isDatabaseUnavailable(err)) return refuse(c, result.refusal);
      return refuse(c, authenticationFailed(deps.log, c.get("requestId"), err));
    }
    if (limited) return tooMany(c, limited);
    if (!result.ok) {
      if (deps.audit) auditRefusedCall(deps.audit, new TextDecoder().decode(bytes), c.get("requestId"));
      return refuse(c, result.refusal);
    }

    const body = decodeUtf8(bytes);
    if (body === null) return refuse(c, NOT_UTF8);
    const selection = effectiveSelection(selected.selection, result.caller);
    const caller = withSelection(result.caller, selection);
    const requestId = c.get("requestId");
    const protocolVersion = versionHeader ?? DEFAULT_PROTOCOL_VERSION;
    const answer = await handleMcpMessage({
      registry: narrowed(registry, selection),
      caller,
      db: deps.sql,
      log: deps.log,
      requestId,
      protocolVersion,
      era: eraOf(protocolVersion),
      headers: { method: c.req.header("mcp-method"), name: c.req.header("mcp-name") },
      serverInfo,
      apps: appsQuery(c.req.query("apps")),
      secretKey: deps.secretKey,
      confirmWrites: deps.config.confirmWrites,
      exportLinks,
      onToolCall: toolCallAudit(deps.audit, caller, requestId),
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
  app.on(["GET", "DELETE", "PUT", "PATCH", "OPTIONS"], "/mcp", (c) => {
    const refused = refuseForeign(c);
    if (refused) return refused;
    return refuse(c, methodNotAllowed(c.req.method));
  });

  return app;
}
