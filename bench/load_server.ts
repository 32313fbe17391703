// Server subprocess for bench/load.ts: serves one of the compared implementations on a loopback port.
//
// `deno run -A --config deno.test.json bench/load_server.ts '<json ServerSpec>'` — modes:
//   portico  the real app (routes/mod.ts), built as main.ts builds it
//   mcp_sdk  baseline (a): the SDK's documented stateless pattern, a new McpServer per request
//   bare     baseline (b): Deno.serve + postgres.js running the same SQL, no framework (the ceiling)
// It runs until its parent kills it; it exits by itself if the parent's stdin closes.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { parseConfig } from "../lib/config.ts";
import { safeEqual, sha256Hex } from "../lib/crypto.ts";
import { createDb, type Sql } from "../lib/db/client.ts";
import { createLogger, type Logger, silentLogger } from "../lib/log.ts";
import { loadCaller } from "../lib/mcp/caller.ts";
import { toolSuccess } from "../lib/mcp/errors.ts";
import { registryFor } from "../lib/mcp/registry.ts";
import { mintRefreshToken, readRefreshToken } from "../lib/oauth/grants/refresh_format.ts";
import { createKeyStore } from "../lib/oauth/keys.ts";
import { createSigner, signerCalibrationFields } from "../lib/oauth/signer.ts";
import { signAccessToken, signIdToken } from "../lib/oauth/tokens.ts";
import { createApp } from "../routes/mod.ts";
import { createAuditLog } from "../lib/audit.ts";
import { serve } from "../lib/http/serve.ts";
import { serveByteGuard } from "./byte_guard.ts";
import { TOOLS } from "../tools/mod.ts";
import { TEST_RATE_LIMITS } from "../tests/helpers/app.ts";

export type ServerMode = "portico" | "mcp_sdk" | "bare";

export interface ServerSpec {
  mode: ServerMode;
  port: number;
  databaseUrl: string;
  /** postgres.js pool size (main.ts uses the default 10; 1 on embedded PGlite) */
  pool: number;
  secretKey: string;
  issuer: string;
  logLevel: "debug" | "info" | "warn" | "error";
  /** a key of the seeded owner: the bare server precomputes that caller's tools/list answer with it */
  ownerKey: string;
  /** SIGNER for the portico mode (default auto, as main.ts: OpenSSL through FFI when permitted) */
  signer?: "auto" | "openssl" | "webcrypto";
  /**
   * the HTTP front end (bench/serve_front.ts): lib/http/serve.ts's `deno` without or with its header deadline
   * (10 s), its `node`, or the byte-guard prototype (bench/byte_guard.ts); unset: Deno.serve itself
   */
  front?: ServerFront;
}

export type ServerFront = "deno, no deadline" | "deno + deadline" | "byte guard" | "node";

const VARIANT = "A";

function jsonResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers },
  });
}

/** Baseline (a): per request, a new McpServer with every tool of the variant registered (zod → JSON Schema). */
function mcpSdkHandler(sql: Sql, log: Logger): (req: Request) => Promise<Response> {
  const tools = TOOLS.filter((t) => t.variants[VARIANT]);
  return async (req) => {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/mcp") return new Response(null, { status: 404 });
    const auth = await loadCaller(sql, req.headers.get("x-api-key") ?? undefined, VARIANT, log);
    if (!auth.ok) return jsonResponse(auth.status, JSON.stringify({ error: auth.message }));
    const caller = auth.caller;
    const server = new McpServer({ name: "portico", version: "0.1.0" });
    for (const tool of tools) {
      server.registerTool(tool.name, {
        description: typeof tool.description === "string" ? tool.description : tool.description[VARIANT],
        inputSchema: tool.variants[VARIANT],
        annotations: tool.annotations,
      }, async (input: unknown) => {
        const value = await tool.run(
          { db: sql, caller, variant: VARIANT, requestId: "bench", log },
          // deno-lint-ignore no-explicit-any
          input as any,
        );
        // deno-lint-ignore no-explicit-any
        return toolSuccess(value) as any;
      });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    const res = await transport.handleRequest(req);
    await server.close();
    return res;
  };
}

interface BareKeyRow {
  id: string;
  workspace_id: string;
  kind: string;
  user_id: string | null;
  revoked: boolean;
  is_member: boolean;
  company_ids: string[] | null;
  company_id: string | null;
}

/**
 * Baseline (b): the same SQL as lib/mcp/caller.ts (key lookup) and lib/workspace/projects.ts (list_projects),
 * the same SQL as the refresh grant, written straight against postgres.js with no framework, no validation
 * library and no dispatcher. tools/list answers the same bytes, computed once at start-up.
 */
async function bareHandler(spec: ServerSpec, sql: Sql): Promise<(req: Request) => Promise<Response>> {
  const keys = createKeyStore(sql, spec.secretKey);
  const jwks = JSON.stringify(await keys.jwks());
  const owner = await loadCaller(sql, spec.ownerKey, VARIANT, silentLogger);
  if (!owner.ok) throw new Error("bare server: the owner key was refused");
  const listJson = registryFor(TOOLS, VARIANT).view(owner.caller).listJson;

  async function mcp(req: Request): Promise<Response> {
    const msg = JSON.parse(await req.text()) as { id: number; method: string; params?: { name?: string } };
    const key = req.headers.get("x-api-key") ?? "";
    const [row] = await sql<BareKeyRow[]>`
      select k.id, k.workspace_id, k.kind, k.user_id, k.company_id,
             k.revoked_at is not null as revoked,
             (k.last_used_at is null
               or k.last_used_at < now() - make_interval(secs => ${60})) as stale,
             w.modules,
             m.user_id is not null as is_member, m.role, m.company_ids,
             (select json_object_agg(rp.area, rp.roles) from role_permissions rp
               where rp.workspace_id = k.workspace_id) as overrides
        from api_keys k
        join workspaces w on w.id = k.workspace_id
        left join workspace_members m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
       where k.key_hash = ${sha256Hex(key)}`;
    if (!row || row.revoked || (row.user_id && !row.is_member)) {
      return jsonResponse(
        401,
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized"}}',
      );
    }
    let result: string;
    if (msg.method === "tools/list") result = listJson;
    else if (msg.method === "tools/call" && msg.params?.name === "list_projects") {
      // An owner key: no company limit, so companyFilter() is `true`; default limit 100, offset 0.
      const rows = await sql`
        select p.id, p.name, p.status, p.budget::float8 as budget, p.currency,
               p.client_id, c.name as client_name, p.company_id,
               p.start_date::text as start_date, p.end_date::text as end_date,
               p.estimated_hours::float8 as estimated_hours, p.task_prefix,
               p.description, p.notes, p.offer_id, p.created_by,
               to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as created_at,
               to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as updated_at
          from projects p
          left join clients c on c.workspace_id = p.workspace_id and c.id = p.client_id
         where p.workspace_id = ${row.workspace_id}
           and true
           and (${null}::text is null or p.status = ${null})
         order by p.created_at desc, p.id
         limit ${100} offset ${0}`;
      const summaries = rows.map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        budget: r.budget,
        currency: r.currency,
        clientId: r.client_id,
        clientName: r.client_name,
        companyId: r.company_id,
        startDate: r.start_date,
        endDate: r.end_date,
        estimatedHours: r.estimated_hours,
        taskPrefix: r.task_prefix,
      }));
      result = JSON.stringify({ content: [{ type: "text", text: JSON.stringify(summaries) }] });
    } else return jsonResponse(400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}');
    return jsonResponse(200, `{"jsonrpc":"2.0","id":${msg.id},"result":${result}}`);
  }

  async function token(req: Request): Promise<Response> {
    const form = new URLSearchParams(await req.text());
    const basic = atob((req.headers.get("authorization") ?? "").slice(6));
    const clientId = basic.slice(0, basic.indexOf(":"));
    const secret = basic.slice(basic.indexOf(":") + 1);
    const [client] = await sql<{ client_id: string; secret_hash: string }[]>`
      select client_id, secret_hash, name, redirect_uris, grant_types, scopes, token_endpoint_auth_method,
             client_uri, logo_uri, contacts, self_registered, created_at
      from oauth_clients where client_id = ${clientId}`;
    if (!client || !safeEqual(sha256Hex(secret), client.secret_hash)) {
      return jsonResponse(401, '{"error":"invalid_client"}');
    }
    // The rotation Portico does in its common case (lib/oauth/grants/refresh_token.ts): one update of the grant
    // row, where the family's state lives (migration 00031), written only for a current token.
    const presented = readRefreshToken(spec.secretKey, form.get("refresh_token") ?? "");
    if (!presented) return jsonResponse(400, '{"error":"invalid_grant"}');
    const tokenHash = sha256Hex(form.get("refresh_token")!);
    const fresh = mintRefreshToken(spec.secretKey, presented.familyId, presented.generation + 1);
    const [row] = await sql<{ family_id: string; user_id: string; scopes: string[]; auth_time: string }[]>`
      update oauth_grants g
         set refresh_generation = ${presented.generation + 1}, refresh_hashes = array[${
      sha256Hex(fresh)
    }::text],
             refresh_rotated_hash = ${tokenHash}, refresh_rotated_at = now(), refresh_issued_at = now(),
             refresh_expires_at = least(now() + make_interval(secs => ${30 * 24 * 3600}),
                                        g.created_at + interval '90 days')
       where g.id = ${presented.familyId} and g.client_id = ${clientId} and ${tokenHash}::text = any(g.refresh_hashes)
         and g.refresh_generation = ${presented.generation} and g.revoked_at is null
         and g.refresh_expires_at > now()
      returning g.id as family_id, g.user_id, g.scopes, g.auth_time`;
    if (!row) return jsonResponse(400, '{"error":"invalid_grant"}');
    const authTime = new Date(row.auth_time);
    const accessToken = await signAccessToken(keys, {
      issuer: spec.issuer,
      userId: row.user_id,
      audience: spec.issuer,
      clientId,
      scopes: row.scopes,
      grantId: row.family_id,
      authTime,
    });
    const idToken = await signIdToken(keys, {
      issuer: spec.issuer,
      userId: row.user_id,
      clientId,
      authTime,
      amr: ["pwd"],
      accessToken,
    });
    return jsonResponse(
      200,
      JSON.stringify({
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: 3600,
        scope: row.scopes.join(" "),
        refresh_token: fresh,
        id_token: idToken,
      }),
    );
  }

  return async (req) => {
    const path = new URL(req.url).pathname;
    if (req.method === "POST" && path === "/mcp") return await mcp(req);
    if (req.method === "POST" && path === "/oauth/token") return await token(req);
    if (req.method === "GET" && path === "/oauth/jwks") {
      return new Response(jwks, {
        headers: { "Content-Type": "application/json", "Cache-Control": "public, max-age=300" },
      });
    }
    return new Response(null, { status: 404 });
  };
}

/** Serves `handler` at the spec's port through the spec's front end; resolves once it listens. */
async function listen(
  spec: ServerSpec,
  handler: (req: Request) => Response | Promise<Response>,
): Promise<void> {
  const at = { hostname: "127.0.0.1", port: spec.port };
  const opts = { ...at, requestTimeoutMs: 30_000, onListen() {} };
  switch (spec.front) {
    case undefined: {
      const { promise, resolve } = Promise.withResolvers<void>();
      Deno.serve({ ...at, onListen: () => resolve() }, handler);
      return await promise;
    }
    case "deno, no deadline":
      return void await serve(handler, { ...opts, frontEnd: "deno", headersTimeoutMs: 0 });
    case "deno + deadline":
      return void await serve(handler, { ...opts, frontEnd: "deno", headersTimeoutMs: 10_000 });
    case "node":
      return void await serve(handler, {
        ...opts,
        frontEnd: "node",
        headersTimeoutMs: 10_000,
        idleTimeoutMs: 60_000,
      });
    case "byte guard":
      return void await serveByteGuard(handler, 10_000, at.hostname, at.port);
  }
}

/** Starts the server described by `spec`; resolves once it listens. */
export async function serveBench(spec: ServerSpec): Promise<void> {
  const sql = createDb(spec.databaseUrl, { max: spec.pool });
  const log = createLogger(spec.logLevel);
  let handler: (req: Request) => Response | Promise<Response>;
  if (spec.mode === "portico") {
    const config = parseConfig({
      ISSUER: spec.issuer,
      SECRET_KEY: spec.secretKey,
      DATABASE_URL: spec.databaseUrl,
      MCP_VARIANT: VARIANT,
      LOG_LEVEL: spec.logLevel,
      // /mcp rate limits on (their per-request cost is in the numbers) but never reached by the load
      ...TEST_RATE_LIMITS,
    });
    // as main.ts builds it, audit trail included, so the numbers include its (batched) cost
    const audit = createAuditLog(sql, log);
    // The signer as main.ts chooses it; SIGNER=openssl fails here rather than measure the fallback unawares.
    const signer = createSigner({
      choice: spec.signer ?? "auto",
      libcryptoPath: config.libcryptoPath,
      onFallback: (reason) => log.warn("signer: a key falls back to webcrypto", { reason }),
      onCalibrated: (c) => {
        log.info("signer calibrated", signerCalibrationFields(c));
        console.error(`  [portico server] signer calibrated: ${JSON.stringify(signerCalibrationFields(c))}`);
      },
    });
    log.info("signer", { signer: signer.kind, reason: signer.reason });
    // stdout (the log) is discarded by bench/load.ts; the bench's reader sees this line.
    console.error(`  [portico server] signer: ${signer.kind} (${signer.reason}), LOG_LEVEL ${spec.logLevel}`);
    // As main.ts: the signing key imported (and the signer calibrated) before the first request.
    const keys = createKeyStore(sql, spec.secretKey, { rotateAfterDays: config.keyRotationDays, signer });
    await keys.signing();
    handler = createApp({ config, sql, log, secretKey: spec.secretKey, audit, signer, keys }).fetch;
  } else if (spec.mode === "mcp_sdk") handler = mcpSdkHandler(sql, log);
  else handler = await bareHandler(spec, sql);
  await listen(spec, handler);
}

if (import.meta.main) {
  const spec = JSON.parse(Deno.args[0]) as ServerSpec;
  await serveBench(spec);
  // Exit with the parent: it holds our stdin open and it closes when the parent ends, however it ends.
  const buf = new Uint8Array(64);
  while ((await Deno.stdin.read(buf)) !== null) { /* the parent sends nothing */ }
  Deno.exit(0);
}
