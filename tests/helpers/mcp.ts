// MCP test fixture: a workspace with companies, a member of every role, keys of every kind, and JSON-RPC helpers.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { type ApiKeyKind, createApiKey } from "../../lib/api_keys.ts";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { requestContext } from "../../lib/http/middleware.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { type Logger, silentLogger } from "../../lib/log.ts";
import type { AnyTool } from "../../lib/mcp/tool.ts";
import { TOOLS } from "../../tools/mod.ts";
import { LATEST_PROTOCOL_VERSION } from "../../lib/mcp/handshake.ts";
import { MODULES, type Role } from "../../lib/workspace/modules.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { createMcpRoutes, type McpRouteDeps } from "../../routes/mcp.ts";
import { createKeyStore } from "../../lib/oauth/keys.ts";
import { LAST_USED_RESOLUTION_SECONDS } from "../../lib/mcp/caller.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { decodeJwt } from "jose";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET, testApp } from "./app.ts";
import { eventually } from "./wait.ts";

export type Variant = "A" | "B";
/** Anything with a fetch-like `request` (a Hono app). */
export interface RequestTarget {
  request(input: string | Request, init?: RequestInit): Response | Promise<Response>;
}

export interface Fixture {
  sql: Sql;
  workspaceId: string;
  /** two companies of the workspace */
  companies: { a: string; b: string };
  /** a second workspace (with its own company, owner and key) for isolation tests */
  other: { workspaceId: string; companyId: string; ownerId: string; key: string };
  /** one member per role (all companies), plus `limited`: a member limited to company a */
  users: Record<Role | "limited", string>;
  /**
   * API keys (raw values). One `user` key per role; `limited` (the limited member's key); `ownerCompanyA` (the
   * owner's key scoped to company a); `workspace` and `workspaceCompanyA` (kind workspace: variant B only);
   * `internal` (the assistant, bound to the owner); `revoked`.
   */
  keys: Record<
    Role | "limited" | "ownerCompanyA" | "workspace" | "workspaceCompanyA" | "internal" | "revoked",
    string
  >;
  /** creates one more key in the workspace */
  key(opts: { kind?: ApiKeyKind; user?: string; companyId?: string; name?: string }): Promise<string>;
}

export interface FixtureOptions {
  /** enabled modules of the workspace; default every module */
  modules?: readonly string[];
}

let counter = 0;

/** Builds the standard MCP test world in `sql` (a fresh database from tests/helpers/db.ts). */
export async function buildFixture(sql: Sql, opts: FixtureOptions = {}): Promise<Fixture> {
  const tag = `${Date.now().toString(36)}${(counter++).toString(36)}`;
  const person = async (name: string) =>
    (await createUser(sql, { email: `${name}.${tag}@test.local`, password: "test password 123", name }, {
      scrypt: TEST_SCRYPT,
    })).id;

  const workspaceId = (await createWorkspace(sql, "Test Workspace", opts.modules ?? [...MODULES])).id;
  const a = (await createCompany(sql, workspaceId, "Company A")).id;
  const b = (await createCompany(sql, workspaceId, "Company B")).id;
  const roles: Role[] = ["owner", "admin", "manager", "accounting", "member", "guest"];
  const users = {} as Record<Role | "limited", string>;
  for (const role of roles) {
    users[role] = await person(role);
    await addMember(sql, workspaceId, users[role], role, null);
  }
  users.limited = await person("limited");
  await addMember(sql, workspaceId, users.limited, "member", [a]);

  const key = async (o: { kind?: ApiKeyKind; user?: string; companyId?: string; name?: string }) =>
    (await createApiKey(sql, {
      workspaceId,
      userId: o.user,
      kind: o.kind ?? (o.user ? "user" : "workspace"),
      companyId: o.companyId,
      name: o.name ?? "test",
    })).key;
  const keys = {} as Fixture["keys"];
  for (const role of roles) keys[role] = await key({ user: users[role] });
  keys.limited = await key({ user: users.limited });
  keys.ownerCompanyA = await key({ user: users.owner, companyId: a });
  keys.workspace = await key({ kind: "workspace" });
  keys.workspaceCompanyA = await key({ kind: "workspace", companyId: a });
  keys.internal = await key({ kind: "internal", user: users.owner });
  const revoked = await createApiKey(sql, { workspaceId, userId: users.owner, name: "revoked" });
  await sql`update api_keys set revoked_at = now() where id = ${revoked.id}`;
  keys.revoked = revoked.key;

  const otherWs = (await createWorkspace(sql, "Other Workspace", [...MODULES])).id;
  const otherCompany = (await createCompany(sql, otherWs, "Other Co")).id;
  const otherOwner = await person("other-owner");
  await addMember(sql, otherWs, otherOwner, "owner", null);
  const otherKey = (await createApiKey(sql, { workspaceId: otherWs, userId: otherOwner, name: "other" })).key;

  return {
    sql,
    workspaceId,
    companies: { a, b },
    other: { workspaceId: otherWs, companyId: otherCompany, ownerId: otherOwner, key: otherKey },
    users,
    keys,
    key,
  };
}

/**
 * An app serving variant `variant`: the full app (routes/mod.ts), or, with `tools`, `log` or `audit`, only /mcp
 * (serving `tools`, default all of tools/mod.ts; logging to `log`; recording tools/call outcomes in `audit`).
 */
export function mcpApp(
  sql: Sql,
  variant: Variant,
  opts: {
    tools?: readonly AnyTool[];
    log?: Logger;
    env?: Record<string, string>;
    audit?: McpRouteDeps["audit"];
  } = {},
): RequestTarget {
  if (!opts.tools && !opts.log && !opts.audit) return testApp(sql, { MCP_VARIANT: variant, ...opts.env });
  const config = parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    MCP_VARIANT: variant,
    ...TEST_RATE_LIMITS,
    ...opts.env,
  });
  const log = opts.log ?? silentLogger;
  const app = new Hono<AppEnv>();
  app.use("*", requestContext(log));
  const keys = createKeyStore(sql, TEST_SECRET);
  app.route(
    "/",
    createMcpRoutes({ config, sql, log, keys, audit: opts.audit, secretKey: TEST_SECRET }, {
      tools: opts.tools ?? TOOLS,
    }),
  );
  return app;
}

export const MCP_URL = "http://localhost:8000/mcp";

/**
 * The headers a well-behaved client sends, plus `extra` (a value of null removes a header). `key` is an API key,
 * or "Bearer <access token>".
 */
export function mcpHeaders(key: string | null, extra: Record<string, string | null> = {}): Headers {
  const h = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
  });
  // A "key" of the form "Bearer <token>" is sent as an OAuth access token (tests/helpers/bearer.ts).
  if (key !== null && key.startsWith("Bearer ")) h.set("authorization", key);
  else if (key !== null) h.set("x-api-key", key);
  for (const [k, v] of Object.entries(extra)) v === null ? h.delete(k) : h.set(k, v);
  return h;
}

/** POSTs a raw body (string) or a JSON value to /mcp. */
export async function postMcp(
  app: RequestTarget,
  key: string | null,
  body: unknown,
  headers: Record<string, string | null> = {},
): Promise<Response> {
  return await app.request(MCP_URL, {
    method: "POST",
    headers: mcpHeaders(key, headers),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

let nextId = 1;

export interface RpcAnswer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** One JSON-RPC request; returns the HTTP status, headers and parsed body. */
export async function rpc(
  app: RequestTarget,
  key: string | null,
  method: string,
  params?: unknown,
  headers: Record<string, string | null> = {},
): Promise<RpcAnswer> {
  const res = await postMcp(app, key, { jsonrpc: "2.0", id: nextId++, method, params }, headers);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export interface ToolCall {
  isError: boolean;
  /** the first text content */
  text: string;
  /** the text parsed as JSON, when it is JSON */
  // deno-lint-ignore no-explicit-any
  data: any;
  structuredContent?: Record<string, unknown>;
}

/** tools/call through HTTP; asserts the JSON-RPC layer succeeded and returns the tool result. */
export async function callTool(
  app: RequestTarget,
  key: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCall> {
  const r = await rpc(app, key, "tools/call", { name, arguments: args });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.result, `expected a result, got ${JSON.stringify(r.body)}`);
  const result = r.body.result;
  const text: string = result.content?.[0]?.text ?? "";
  let data: unknown = undefined;
  try {
    data = JSON.parse(text);
  } catch {
    // not JSON: an error message or plain text
  }
  return { isError: result.isError === true, text, data, structuredContent: result.structuredContent };
}

/** Asserts a successful tool result and returns its parsed JSON. */
// deno-lint-ignore no-explicit-any
export async function callOk(app: RequestTarget, key: string, name: string, args = {}): Promise<any> {
  const r = await callTool(app, key, name, args);
  assert.equal(r.isError, false, `${name} failed: ${r.text}`);
  return r.data;
}

/** Asserts an error tool result starting with `code:` and returns its text. */
export async function callFails(
  app: RequestTarget,
  key: string,
  name: string,
  args: Record<string, unknown>,
  code: "invalid_input" | "not_found" | "access_denied" | "unavailable" | "conflict" | "internal_error",
): Promise<string> {
  const r = await callTool(app, key, name, args);
  assert.equal(r.isError, true, `${name} should fail with ${code}, got ${r.text}`);
  assert.ok(r.text.startsWith(`${code}: `), `expected "${code}: …", got "${r.text}"`);
  return r.text;
}

/** Names in this caller's tools/list. */
export async function listedTools(app: RequestTarget, key: string): Promise<string[]> {
  const r = await rpc(app, key, "tools/list");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result.tools.map((t: { name: string }) => t.name);
}

/**
 * Resolves once `credential`'s last_used_at is fresh in the database (an API key, or "Bearer <jwt>" for its
 * grant): the fire-and-forget write its use may have started (touchLastUsed, lib/mcp/caller.ts) is done, and
 * cannot land in a later request's count of queries. A write is no sooner "done" after any fixed wait.
 */
export async function lastUsedFresh(sql: Sql, credential: string): Promise<void> {
  const fresh = sql`last_used_at >= now() - make_interval(secs => ${LAST_USED_RESOLUTION_SECONDS})`;
  await eventually(`last_used_at written for ${credential.slice(0, 16)}…`, async () => {
    const rows = credential.startsWith("Bearer ")
      ? await sql`select 1 from oauth_grants where id = ${decodeJwt(credential.slice(7)).grant_id as string}
                    and ${fresh}`
      : await sql`select 1 from api_keys where key_hash = ${sha256Hex(credential)} and ${fresh}`;
    return rows.length === 1;
  });
}
