// Bad input at /mcp and every OAuth endpoint: clear 4xx or named tool errors, no internals, data untouched.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { createAuditLog } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { silentLogger } from "../../lib/log.ts";
import { registryFor } from "../../lib/mcp/registry.ts";
import { createApp } from "../../routes/mod.ts";
import { TOOLS } from "../../tools/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callOk, MCP_URL, mcpHeaders, postMcp } from "../helpers/mcp.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  field,
  PASSWORD,
  pkce,
  REDIRECT,
  registerPublic,
} from "../oauth/helpers.ts";

/** What no answer may contain: stack frames, source paths, database messages. */
const INTERNALS = [
  /\n\s+at /,
  /\bat [\w.<>]+ \(/,
  /\.tsx?:\d/,
  /file:\/\//,
  /syntax error/i,
  /violates/i,
  /\brelation\b/i,
  /\bcolumn\b/i,
  /invalid input syntax/i,
  /invalid byte sequence/i,
  /postgres/i,
  /SQLSTATE|\b[0-9A-Z]{5}\b: /,
  /internal_error|server_error|Internal error/,
];

function assertNoInternals(text: string, what: string) {
  for (const re of INTERNALS) assert.doesNotMatch(text, re, `${what}: ${text.slice(0, 300)}`);
}

/** Status below 500 and a body without internals; returns the body text. */
async function clean(res: Response, what: string): Promise<string> {
  const text = await res.text();
  assert.ok(res.status >= 200 && res.status < 500, `${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
  assertNoInternals(text, what);
  return text;
}

// Tables whose rows a refused request must not change. Left out: rate_limits (every registration attempt
// counts, by design), api_keys (last_used_at), audit_log, browser_sessions (sign-in attempts of this file).
const TABLES = [
  "users",
  "oauth_clients",
  "oauth_codes",
  "oauth_refresh_legacy",
  "oauth_consents",
  "oauth_grants",
  "signing_keys",
  "workspaces",
  "companies",
  "workspace_members",
  "clients",
  "offers",
  "projects",
  "tasks",
  "task_assignees",
  "offer_rows",
  "offer_tranches",
  "invoice_counters",
  "invoices",
  "invoice_rows",
  "ideas",
  "contacts",
  "activities",
  "ai_activities",
  "ai_activity_phases",
  "workspace_documents",
  "recordings",
  "time_logs",
  "appointments",
  "booking_settings",
];

/** Row count and checksum of every table above. */
async function snapshot(sql: Sql): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of TABLES) {
    const [r] = await sql.unsafe( // table names are the constants above
      `select count(*) || ':' || coalesce(md5(string_agg(x::text, '|' order by x::text)), '') as v from ${t} x`,
    );
    out[t] = r.v;
  }
  return out;
}

async function setup() {
  const db = await freshDatabase();
  const f = await buildFixture(db.sql);
  const config = parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    ...TEST_RATE_LIMITS,
  });
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000 });
  const app = createApp({ config, sql: db.sql, log: silentLogger, secretKey: TEST_SECRET, audit });
  const appB = createApp({
    config: parseConfig({
      ISSUER: "http://localhost:8000",
      SECRET_KEY: TEST_SECRET,
      MCP_VARIANT: "B",
      ...TEST_RATE_LIMITS,
    }),
    sql: db.sql,
    log: silentLogger,
    secretKey: TEST_SECRET,
  });
  return { db, f, app, appB, audit };
}

const enc = new TextEncoder();
/** Bytes that are not UTF-8 (a lone continuation byte, an overlong NUL, an invalid lead byte) inside `text`. */
function withInvalidUtf8(before: string, after: string): Uint8Array<ArrayBuffer> {
  const a = enc.encode(before), b = enc.encode(after);
  const bad = [0x80, 0xc0, 0x80, 0xff];
  const out = new Uint8Array(a.length + bad.length + b.length);
  out.set(a);
  out.set(bad, a.length);
  out.set(b, a.length + bad.length);
  return out;
}

const deepObject = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
const deepArray = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
const MB = 1_000_000;
const SQL_META = `x'); drop table projects; -- " \\ % _ ; select pg_sleep(10)`;
const HTML_META = `<script>alert("x")</script><img src=x onerror=alert(1)>&amp;`;

// ---------------------------------------------------------------------------------------------------------
// /mcp: the protocol layer

Deno.test("/mcp: malformed messages, content types, batches, invalid UTF-8, nesting, 1 MB and NUL", async (t) => {
  const { db, f, app, audit } = await setup();
  const key = f.keys.owner;
  try {
    const before = await snapshot(db.sql);
    const expectRpc = async (res: Response, status: number, code: number, what: string) => {
      const text = await clean(res, what);
      assert.equal(res.status, status, `${what}: ${text}`);
      assert.equal(JSON.parse(text).error.code, code, what);
    };

    await t.step("bodies that are not JSON-RPC", async () => {
      for (const body of ["{", "", "nul", '{"jsonrpc":"2.0",', "\u0000", "]"]) {
        await expectRpc(await postMcp(app, key, body), 400, -32700, `body ${JSON.stringify(body)}`);
      }
      for (
        const body of [
          "null",
          "1",
          '"x"',
          "{}",
          '{"jsonrpc":"1.0","id":1,"method":"ping"}',
          deepObject(10_000),
        ]
      ) {
        await expectRpc(await postMcp(app, key, body), 400, -32600, `body ${body.slice(0, 40)}`);
      }
      const badId = { jsonrpc: "2.0", id: { $ne: 1 }, method: "ping" };
      await expectRpc(await postMcp(app, key, badId), 400, -32600, "object id");
      const badParams = { jsonrpc: "2.0", id: 1, method: "tools/call", params: "list_projects" };
      await expectRpc(await postMcp(app, key, badParams), 400, -32600, "string params");
      const r = await postMcp(app, key, { jsonrpc: "2.0", id: 1, method: "drop table projects" });
      await expectRpc(r, 200, -32601, "unknown method");
      for (
        const params of [
          { name: 1 },
          { name: "list_projects", arguments: [] },
          { name: "list_projects", arguments: "x" },
          { name: `list_projects'; --` },
          { name: "x".repeat(MB) },
        ]
      ) {
        const res = await postMcp(app, key, { jsonrpc: "2.0", id: 1, method: "tools/call", params });
        await expectRpc(res, 200, -32602, `tools/call ${JSON.stringify(params).slice(0, 50)}`);
      }
    });

    await t.step("wrong content types answer 415", async () => {
      for (
        const type of [null, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "json"]
      ) {
        const res = await postMcp(app, key, { jsonrpc: "2.0", id: 1, method: "ping" }, {
          "content-type": type,
        });
        await expectRpc(res, 415, -32600, `content-type ${type}`);
      }
    });

    await t.step(
      "batches: refused outside 2025-03-26, bounded, each member answered on its own",
      async () => {
        const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
        await expectRpc(await postMcp(app, key, [ping]), 400, -32600, "batch under 2025-11-25");
        const old = { "mcp-protocol-version": "2025-03-26" };
        await expectRpc(await postMcp(app, key, [], old), 400, -32600, "empty batch");
        await expectRpc(await postMcp(app, key, Array(51).fill(ping), old), 400, -32600, "51 messages");
        const mixed = await postMcp(app, key, [
          1,
          null,
          ping,
          { jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "2025-03-26" } },
          {
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "list_projects", arguments: { limit: "x" } },
          },
          { jsonrpc: "2.0", method: "notifications/initialized" },
        ], old);
        const body = JSON.parse(await clean(mixed, "mixed batch"));
        assert.equal(mixed.status, 200);
        assert.deepEqual(body.map((m: { error?: { code: number } }) => m.error?.code ?? "ok"), [
          -32600,
          -32600,
          "ok",
          -32600,
          "ok",
        ]);
        assert.match(body[4].result.content[0].text, /^invalid_input: limit: must be a number/);
      },
    );

    await t.step(
      "invalid UTF-8 is refused, not stored with replacement characters (regression)",
      async () => {
        const bytes = withInvalidUtf8(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_project","arguments":{"name":"',
          '"}}}',
        );
        const res = await app.request(MCP_URL, { method: "POST", headers: mcpHeaders(key), body: bytes });
        await expectRpc(res, 400, -32700, "invalid UTF-8");
      },
    );

    await t.step(
      "NUL characters are refused naming the field, before they reach Postgres (regression)",
      async () => {
        for (
          const [tool, args, named] of [
            ["create_project", { name: "a\u0000b" }, "name"],
            ["create_project", { name: "ok", notes: "\u0000" }, "notes"],
            [
              "create_workspace_document",
              { title: "t", kind: "notes", metadata: { "k\u0000": 1 } },
              "metadata",
            ],
            [
              "create_workspace_document",
              { title: "t", kind: "notes", metadata: { a: ["x", "\u0000"] } },
              "metadata.a.1",
            ],
          ] as const
        ) {
          const res = await postMcp(app, key, {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: tool, arguments: args },
          });
          const body = JSON.parse(await clean(res, `${tool} NUL`));
          assert.equal(res.status, 200);
          assert.equal(body.result.isError, true);
          assert.ok(
            body.result.content[0].text.startsWith(`invalid_input: ${named}: `),
            `${tool}: ${body.result.content[0].text}`,
          );
          assert.match(body.result.content[0].text, /NUL characters/);
        }
      },
    );

    await t.step(
      "deep nesting: 10 000 and 100 000 levels are refused as invalid_input (regression)",
      async () => {
        for (const levels of [10_000, 100_000]) {
          for (const inner of [deepObject(levels), deepArray(levels)]) {
            const res = await postMcp(
              app,
              key,
              `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_workspace_document",` +
                `"arguments":{"title":"t","kind":"notes","metadata":{"deep":${inner}}}}}`,
            );
            const body = JSON.parse(await clean(res, `nesting ${levels}`));
            assert.equal(res.status, 200);
            assert.match(
              body.result.content[0].text,
              /^invalid_input: metadata\.deep(\.\w+)*: is nested too deeply/,
            );
          }
        }
      },
    );

    await t.step("1 MB strings: refused by the field's limit; over 1 MiB the whole body is 413", async () => {
      const res = await postMcp(app, key, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "create_project", arguments: { name: "x".repeat(MB) } },
      });
      const body = JSON.parse(await clean(res, "1 MB name"));
      assert.equal(body.result.content[0].text, "invalid_input: name: must be at most 200 characters");
      const huge = await postMcp(app, key, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "create_project", arguments: { name: "x".repeat(1024 * 1024) } },
      });
      assert.equal(huge.status, 413);
      // /mcp answers its 413 as JSON-RPC, like every other refusal (issue 24 point 4).
      const hugeBody = await huge.json();
      assert.equal(hugeBody.error.code, -32600);
      assert.match(hugeBody.error.message, /^Payload Too Large: the body exceeds 1048576 bytes/);
    });

    await t.step("API keys made of metacharacters are malformed, not looked up", async () => {
      for (const k of [`pak_' or '1'='1`, "pak_" + "x".repeat(10_000), "<script>", "pak_%00"]) {
        const res = await postMcp(app, k, { jsonrpc: "2.0", id: 1, method: "ping" });
        await expectRpc(res, 403, -32001, `key ${k.slice(0, 20)}`);
      }
    });

    await t.step("a NUL in an unknown tool's name does not jam the audit trail (regression)", async () => {
      const res = await postMcp(app, key, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "no\u0000such" },
      });
      await expectRpc(res, 200, -32602, "unknown tool with NUL");
      await callOk(app, key, "list_projects", {});
      await audit.flush();
      const rows = await db.sql<{ tool: string; outcome: string }[]>`
        select tool, outcome from audit_log order by at desc, id desc limit 2`;
      assert.deepEqual(rows.map((r) => [r.tool, r.outcome]), [["list_projects", "ok"], [
        "nosuch",
        "invalid",
      ]]);
    });

    assert.deepEqual(await snapshot(db.sql), before, "refused requests changed stored data");
    await t.step("the server keeps serving", async () => {
      const p = await callOk(app, key, "create_project", { name: "Still here" });
      assert.equal(p.name, "Still here");
    });
  } finally {
    await audit.close();
    await db.close();
  }
});

// ---------------------------------------------------------------------------------------------------------
// /mcp: every tool, every parameter — derived from the registry's JSON Schemas

type Schema = {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
};

const PATTERN_SAMPLES: Record<string, string> = {
  "^[A-Z]{3}$": "EUR",
  "^([01]\\d|2[0-3]):[0-5]\\d$": "10:00",
  "^[0-9a-f]{64}$": "a".repeat(64),
  "^[A-Z][A-Z0-9]{1,9}$": "AB",
  "^[A-Za-z][A-Za-z0-9]{1,9}$": "AB",
};

/** A value the schema accepts (good enough to get past validation of the other fields). */
function sample(s: Schema): unknown {
  if (s.anyOf) return sample(s.anyOf.find((x) => x.type !== "null") ?? s.anyOf[0]);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "string":
      if (s.format === "uuid") return crypto.randomUUID();
      if (s.format === "date") return "2026-03-02";
      if (s.format === "date-time") return "2026-03-02T10:00:00Z";
      if (s.format === "email") return "someone@example.com";
      if (s.format === "uri") return "https://example.com/x";
      if (s.pattern && PATTERN_SAMPLES[s.pattern]) return PATTERN_SAMPLES[s.pattern];
      if (s.pattern?.includes("\\/")) return "text/plain";
      return "x".repeat(Math.max(1, s.minLength ?? 1));
    case "number":
    case "integer":
      return Math.min(
        Math.max(s.minimum !== undefined && s.minimum > 0 ? s.minimum : 1, s.minimum ?? 1),
        s.maximum ?? 1,
      );
    case "boolean":
      return true;
    case "array":
      return s.minItems ? Array.from({ length: s.minItems }, () => sample(s.items ?? {})) : [];
    case "object": {
      const o: Record<string, unknown> = {};
      for (const k of s.required ?? []) o[k] = sample(s.properties![k]);
      return o;
    }
  }
  return "x";
}

/** The JSON types a schema admits. */
function admits(s: Schema): Set<string> {
  if (s.anyOf) return new Set(s.anyOf.flatMap((x) => [...admits(x)]));
  if (s.const !== undefined) return new Set([typeof s.const]);
  const types = Array.isArray(s.type)
    ? s.type
    : s.type
    ? [s.type]
    : ["string", "number", "boolean", "object"];
  return new Set(types.map((t) => t === "integer" ? "number" : t));
}

const WRONG: Record<string, unknown[]> = {
  string: ["text", "x"],
  number: [12345, 1.5],
  boolean: [true],
  array: [["x"], [{}]],
  object: [{ a: 1 }],
  null: [null],
};

/** Values of every JSON type the schema does not admit. */
function wrongValues(s: Schema): unknown[] {
  const ok = admits(s);
  const out: unknown[] = [];
  for (const [type, values] of Object.entries(WRONG)) {
    if (ok.has(type)) continue;
    if (type === "null" && ok.has("object")) continue;
    out.push(values[0]);
  }
  return out;
}

function stringProps(schema: Schema): string[] {
  return Object.entries(schema.properties ?? {}).filter(([, p]) => admits(p).has("string")).map(([k]) => k);
}

Deno.test("/mcp: every tool of both variants, every parameter replaced by each wrong JSON type", async () => {
  const { db, f, app, appB, audit } = await setup();
  try {
    const before = await snapshot(db.sql);
    let calls = 0;
    for (const [variant, target, key] of [["A", app, f.keys.owner], ["B", appB, f.keys.internal]] as const) {
      for (const tool of registryFor(TOOLS, variant).all.values()) {
        const schema = tool.listing.inputSchema as Schema;
        const base = sample(schema) as Record<string, unknown>;
        for (const [prop, propSchema] of Object.entries(schema.properties ?? {})) {
          for (const wrong of wrongValues(propSchema)) {
            const what = `${variant} ${tool.name}.${prop} = ${JSON.stringify(wrong)}`;
            const res = await postMcp(target, key, {
              jsonrpc: "2.0",
              id: ++calls,
              method: "tools/call",
              params: { name: tool.name, arguments: { ...base, [prop]: wrong } },
            });
            const body = JSON.parse(await clean(res, what));
            assert.equal(res.status, 200, what);
            const text: string = body.result?.content?.[0]?.text ?? "";
            assert.equal(body.result?.isError, true, `${what}: ${text}`);
            assert.ok(text.startsWith("invalid_input: "), `${what}: ${text}`);
            assert.ok(text.includes(prop), `${what}: the message should name ${prop}: ${text}`);
          }
        }
      }
    }
    assert.ok(calls > 500, `only ${calls} calls`);
    assert.deepEqual(await snapshot(db.sql), before, "refused requests changed stored data");
  } finally {
    await audit.close();
    await db.close();
  }
});

Deno.test("/mcp: NUL, SQL and HTML metacharacters and 1 MB strings in every string parameter of every tool", async () => {
  const { db, f, app, appB, audit } = await setup();
  try {
    const targets = [["A", app, f.keys.owner], ["B", appB, f.keys.internal]] as const;
    const call = async (
      target: typeof app,
      key: string,
      name: string,
      args: Record<string, unknown>,
      what: string,
    ) => {
      const res = await postMcp(target, key, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      });
      const body = JSON.parse(await clean(res, what));
      assert.equal(res.status, 200, what);
      return { isError: body.result?.isError === true, text: String(body.result?.content?.[0]?.text ?? "") };
    };

    // NUL: refused for every string parameter, naming it; nothing stored.
    const before = await snapshot(db.sql);
    let nulCalls = 0;
    for (const [variant, target, key] of targets) {
      for (const tool of registryFor(TOOLS, variant).all.values()) {
        const schema = tool.listing.inputSchema as Schema;
        const base = sample(schema) as Record<string, unknown>;
        for (const prop of stringProps(schema)) {
          const what = `${variant} ${tool.name}.${prop} with NUL`;
          const r = await call(target, key, tool.name, { ...base, [prop]: `a\u0000${SQL_META}` }, what);
          nulCalls++;
          assert.equal(r.isError, true, what);
          assert.equal(r.text, `invalid_input: ${prop}: must not contain NUL characters (U+0000)`, what);
        }
      }
    }
    assert.ok(nulCalls > 200, `only ${nulCalls} calls`);
    assert.deepEqual(await snapshot(db.sql), before, "NUL requests changed stored data");

    // SQL and HTML metacharacters and 1 MB strings: answered (stored as given, or refused with a named rule).
    for (const [variant, target, key] of targets) {
      for (const tool of registryFor(TOOLS, variant).all.values()) {
        const schema = tool.listing.inputSchema as Schema;
        const base = sample(schema) as Record<string, unknown>;
        for (const prop of stringProps(schema)) {
          for (const [label, value] of [["sql", SQL_META], ["html", HTML_META], ["1 MB", "y".repeat(MB)]]) {
            const what = `${variant} ${tool.name}.${prop} ${label}`;
            const r = await call(target, key, tool.name, { ...base, [prop]: value }, what);
            if (r.isError) {
              assert.match(r.text, /^(invalid_input|not_found|conflict|access_denied|unavailable): /, what);
            }
          }
        }
      }
    }

    // Metacharacters are data: stored and returned exactly, the tables intact.
    const name = `${SQL_META} ${HTML_META}`.slice(0, 200);
    const created = await callOk(app, f.keys.owner, "create_project", { name });
    const read = await callOk(app, f.keys.owner, "get_project", { projectId: created.id });
    assert.equal(read.name, name);
    const [{ n }] = await db.sql`select count(*)::int as n from projects where name = ${name}`;
    assert.equal(n, 1);
  } finally {
    await audit.close();
    await db.close();
  }
});

// ---------------------------------------------------------------------------------------------------------
// OAuth endpoints and pages

Deno.test("OAuth endpoints and pages: malformed, wrongly typed, NUL, invalid UTF-8, nested, 1 MB, metacharacters", async (t) => {
  const { db, app, audit } = await setup();
  try {
    const email = "bad.input@example.com";
    await createUser(db.sql, { email, password: PASSWORD, name: "Bea" }, { scrypt: TEST_SCRYPT });
    const client = await registerPublic(app);
    const browser = new Browser(app);
    const { verifier, challenge } = pkce();
    const authorize = (extra: Record<string, string> = {}) =>
      authorizeUrl({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s",
        ...extra,
      });
    // Signed in, consent stored, one grant completed: errors go back to a self-registered client only once it
    // has one (docs/oauth.md, "Not an open redirector").
    const first = await authorizeThrough(browser, authorize(), email);
    const exchanged = await app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: first.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: client.client_id,
      }),
    });
    assert.equal(exchanged.status, 200);
    await exchanged.body?.cancel();
    const csrf = field(await (await browser.get("/account/keys")).text(), "csrf")!;
    const before = await snapshot(db.sql);

    const post = (path: string, body: BodyInit, type: string | null, b: Browser | null = null) => {
      const headers: Record<string, string> = type ? { "content-type": type } : {};
      const init: RequestInit = { method: "POST", headers, body };
      return b ? b.request(path, init) : app.request(path, init);
    };
    const oauthError = async (res: Response, status: number, error: string, what: string) => {
      const text = await clean(res, what);
      assert.equal(res.status, status, `${what}: ${text}`);
      assert.equal(JSON.parse(text).error, error, `${what}: ${text}`);
    };
    const FORM = "application/x-www-form-urlencoded";
    const JSON_TYPE = "application/json";
    const nulBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

    await t.step("/oauth/register", async () => {
      await oauthError(
        await post("/oauth/register", "{", JSON_TYPE),
        400,
        "invalid_client_metadata",
        "malformed",
      );
      await oauthError(
        await post("/oauth/register", "a=b", FORM),
        400,
        "invalid_client_metadata",
        "form body",
      );
      await oauthError(
        await post("/oauth/register", "[]", JSON_TYPE),
        400,
        "invalid_client_metadata",
        "array",
      );
      for (
        const [k, v] of [
          ["client_name", 123],
          ["client_name", { a: 1 }],
          ["redirect_uris", REDIRECT],
          ["redirect_uris", [1]],
          ["redirect_uris", [[REDIRECT]]],
          ["token_endpoint_auth_method", 1],
          ["grant_types", "authorization_code"],
          ["grant_types", [true]],
          ["response_types", "code"],
          ["scope", ["openid"]],
          ["client_uri", 1],
          ["logo_uri", []],
          ["contacts", "a@b.c"],
          ["client_name", "x".repeat(MB)],
          ["redirect_uris", [`https://e.example/${"x".repeat(MB)}`]],
        ] as const
      ) {
        const res = await post(
          "/oauth/register",
          JSON.stringify({ client_name: "T", redirect_uris: [REDIRECT], [k]: v }),
          JSON_TYPE,
        );
        const text = await clean(res, `register ${k}=${JSON.stringify(v).slice(0, 30)}`);
        assert.equal(res.status, 400, `register ${k}: ${text}`);
        assert.match(JSON.parse(text).error, /^invalid_(client_metadata|redirect_uri)$/);
      }
      // regressions: NUL and invalid UTF-8 are refused before anything reaches Postgres
      await oauthError(
        await post(
          "/oauth/register",
          JSON.stringify({ client_name: "a\u0000", redirect_uris: [REDIRECT] }),
          JSON_TYPE,
        ),
        400,
        "invalid_request",
        "register NUL",
      );
      await oauthError(
        await post(
          "/oauth/register",
          withInvalidUtf8('{"client_name":"', `","redirect_uris":["${REDIRECT}"]}`),
          JSON_TYPE,
        ),
        400,
        "invalid_request",
        "register invalid UTF-8",
      );
      await oauthError(
        await post(
          "/oauth/register",
          `{"client_name":"d","redirect_uris":["${REDIRECT}"],"x":${deepObject(10_000)}}`,
          JSON_TYPE,
        ),
        400,
        "invalid_request",
        "register deep nesting",
      );
      const big = await post(
        "/oauth/register",
        JSON.stringify({ client_name: "x".repeat(1024 * 1024) }),
        JSON_TYPE,
      );
      assert.equal(big.status, 413);
    });

    await t.step("/oauth/token and /oauth/revoke", async () => {
      for (const path of ["/oauth/token", "/oauth/revoke"]) {
        await oauthError(
          await post(path, JSON.stringify({ grant_type: "refresh_token" }), JSON_TYPE),
          400,
          "invalid_request",
          `${path} JSON`,
        );
        await oauthError(await post(path, "grant_type=x", null), 400, "invalid_request", `${path} no type`);
        await oauthError(
          await post(path, "token=a&token=b&grant_type=a&grant_type=b", FORM),
          400,
          "invalid_request",
          `${path} repeated`,
        );
        await oauthError(
          await post(path, nulBody({ client_id: "\u0000", token: "t", grant_type: "refresh_token" }), FORM),
          400,
          "invalid_request",
          `${path} NUL (regression)`,
        );
        await oauthError(
          await post(path, "client_id=%00&token=x&grant_type=refresh_token", FORM),
          400,
          "invalid_request",
          `${path} %00 (regression)`,
        );
        await oauthError(
          await post(path, withInvalidUtf8("client_id=", "&token=x&grant_type=refresh_token"), FORM),
          400,
          "invalid_request",
          `${path} invalid UTF-8`,
        );
        await oauthError(
          await post(
            path,
            nulBody({ client_id: "x".repeat(MB), token: "t", grant_type: "refresh_token" }),
            FORM,
          ),
          400,
          "invalid_request",
          `${path} 1 MB`,
        );
        await oauthError(
          await post(
            path,
            nulBody({
              client_id: SQL_META,
              token: SQL_META,
              grant_type: "refresh_token",
              refresh_token: SQL_META,
            }),
            FORM,
          ),
          401,
          "invalid_client",
          `${path} SQL`,
        );
        await oauthError(
          await post(path, nulBody({ client_id: HTML_META, token: "t", grant_type: "refresh_token" }), FORM),
          401,
          "invalid_client",
          `${path} HTML`,
        );
      }
      const base = { client_id: client.client_id, redirect_uri: REDIRECT, code_verifier: verifier };
      for (
        const fields of <Record<string, string>[]> [
          { ...base, grant_type: "authorization_code", code: SQL_META },
          { ...base, grant_type: "authorization_code", code: "x".repeat(4000) },
          {
            client_id: client.client_id,
            grant_type: "refresh_token",
            refresh_token: `${SQL_META}${HTML_META}`,
          },
        ]
      ) {
        await oauthError(
          await post("/oauth/token", nulBody(fields), FORM),
          400,
          "invalid_grant",
          `token ${fields.grant_type}`,
        );
      }
      await oauthError(
        await post("/oauth/token", nulBody({ ...base, grant_type: "password" }), FORM),
        400,
        "unsupported_grant_type",
        "grant_type password",
      );
      const revoked = await post(
        "/oauth/revoke",
        nulBody({ client_id: client.client_id, token: SQL_META }),
        FORM,
      );
      assert.equal(revoked.status, 200, "an unknown token is not an error (RFC 7009)");
    });

    await t.step("/oauth/userinfo", async () => {
      for (
        const auth of [
          "Bearer " + SQL_META,
          "Bearer a.b.c",
          "Bearer " + "x".repeat(100_000),
          `Bearer ${btoa(deepArray(5000))}.e30.x`,
        ]
      ) {
        const res = await app.request("/oauth/userinfo", { headers: { authorization: auth } });
        await oauthError(res, 401, "invalid_token", `userinfo ${auth.slice(0, 20)}`);
      }
      await oauthError(
        await app.request("/oauth/userinfo", { headers: { authorization: "Basic " + HTML_META } }),
        400,
        "invalid_request",
        "userinfo Basic",
      );
      await oauthError(
        await post("/oauth/userinfo", "access_token=%00", FORM),
        400,
        "invalid_request",
        "userinfo NUL",
      );
    });

    await t.step("/oauth/authorize", async () => {
      for (
        const [extra, status] of [[{ client_id: "\u0000" }, 400], [{ client_id: SQL_META }, 400], [{
          client_id: "x".repeat(100_000),
        }, 400]] as const
      ) {
        const res = await browser.get(authorize(extra));
        const text = await clean(res, `authorize ${JSON.stringify(extra).slice(0, 30)}`);
        assert.equal(res.status, status, text.slice(0, 200));
        assert.equal(res.headers.get("location"), null);
      }
      // with a verified client, bad parameters go back to it, encoded
      for (
        const extra of <Record<string, string>[]> [
          { scope: SQL_META },
          { code_challenge: HTML_META },
          { prompt: "\u0001" },
          { max_age: "1e309" },
        ]
      ) {
        const res = await browser.get(authorize(extra));
        await clean(res, `authorize ${JSON.stringify(extra)}`);
        assert.equal(res.status, 302, JSON.stringify(extra));
        const to = new URL(res.headers.get("location")!);
        assert.equal(to.origin + to.pathname, REDIRECT);
        assert.match(to.searchParams.get("error")!, /^invalid_(request|scope)$/);
      }
      const html = await (await browser.get(authorize({ state: HTML_META, prompt: "consent" }))).text();
      assert.doesNotMatch(html, /<script>alert/, "the state is never echoed raw into a page");
    });

    await t.step("sign-in, consent and account forms", async () => {
      const pages = new Browser(app);
      const token = field(await (await pages.get("/signin")).text(), "csrf")!;
      const attempts: Array<[string, BodyInit, string | null, number]> = [
        ["/signin", nulBody({ csrf: token, email: `${email}\u0000`, password: PASSWORD }), FORM, 400],
        ["/signin", withInvalidUtf8(`csrf=${token}&email=`, `&password=x`), FORM, 400],
        ["/signin", nulBody({ csrf: token, email: SQL_META, password: "x".repeat(MB) }), FORM, 403],
        ["/signin", nulBody({ csrf: "forged", email, password: PASSWORD }), FORM, 403],
        ["/signin", JSON.stringify({ csrf: token, email, password: PASSWORD }), JSON_TYPE, 403],
        ["/signin", "x", "text/plain", 403],
        [
          "/oauth/authorize/consent",
          nulBody({ csrf: token, ticket: SQL_META, decision: "allow" }),
          FORM,
          400,
        ],
        ["/oauth/authorize/consent", nulBody({ csrf: token, ticket: "x".repeat(MB) }), FORM, 403],
        [
          "/oauth/authorize/select",
          nulBody({ csrf: token, ticket: HTML_META, user_id: SQL_META }),
          FORM,
          400,
        ],
        ["/signout", nulBody({ csrf: token, user_id: SQL_META, return_to: "//evil.example" }), FORM, 303],
        ["/account/switch", nulBody({ csrf: token, user_id: "\u0000" }), FORM, 400],
      ];
      for (const [path, body, type, status] of attempts) {
        const res = await post(path, body, type, pages);
        const text = await clean(res, `${path} ${String(body).slice(0, 40)}`);
        assert.equal(res.status, status, `${path}: ${text.slice(0, 200)}`);
        if (status === 303) assert.ok(res.headers.get("location")!.startsWith("/"), "stays on this site");
      }
      // a multipart form carries NUL just the same
      const multipart = new FormData();
      multipart.set("csrf", token);
      multipart.set("email", "a\u0000b");
      multipart.set("password", "x");
      const mp = await pages.request("/signin", { method: "POST", body: multipart });
      await oauthError(mp, 400, "invalid_request", "multipart NUL");
    });

    await t.step("/account/keys", async () => {
      const [ws] = await db.sql<{ id: string }[]>`select id from workspaces limit 1`;
      for (
        const [fields, status] of [
          [{ csrf, workspace_id: SQL_META, name: "k" }, 303],
          [{ csrf, workspace_id: crypto.randomUUID(), name: HTML_META }, 303],
          [{ csrf, workspace_id: ws.id, name: "k\u0000" }, 400],
          [{ csrf, workspace_id: ws.id, name: "x".repeat(MB) }, 403],
          [{ csrf, workspace_id: ws.id, name: "k", acts_for: "root" }, 403],
          [{ csrf, workspace_id: ws.id, name: "k", company_id: SQL_META }, 303],
        ] as const
      ) {
        const res = await post("/account/keys", nulBody(fields), FORM, browser);
        await clean(res, `keys ${JSON.stringify(fields).slice(0, 60)}`);
        assert.equal(res.status, status, JSON.stringify(fields).slice(0, 80));
        if (status === 303) assert.match(res.headers.get("location")!, /^\/account\/keys\?error=/);
      }
      for (const key_id of [SQL_META, "\u0000", crypto.randomUUID()]) {
        const res = await post("/account/keys/revoke", nulBody({ csrf, key_id }), FORM, browser);
        await clean(res, `revoke ${key_id}`);
        assert.equal(res.status, key_id === "\u0000" ? 400 : 303);
      }
      const page = await browser.get(`/account/keys?error=${encodeURIComponent(HTML_META)}`);
      const html = await clean(page, "keys page");
      assert.doesNotMatch(html, /<script>alert/);
    });

    assert.deepEqual(await snapshot(db.sql), before, "refused requests changed stored data");

    await t.step("the server keeps serving: a full authorization and code exchange", async () => {
      const fresh = pkce();
      const back = await authorizeThrough(
        browser,
        authorizeUrl({
          response_type: "code",
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: fresh.challenge,
          code_challenge_method: "S256",
          state: "after",
        }),
        email,
      );
      const res = await post(
        "/oauth/token",
        nulBody({
          grant_type: "authorization_code",
          code: back.searchParams.get("code")!,
          redirect_uri: REDIRECT,
          code_verifier: fresh.verifier,
          client_id: client.client_id,
        }),
        FORM,
      );
      assert.equal(res.status, 200);
      assert.ok((await res.json()).access_token);
    });
  } finally {
    await audit.close();
    await db.close();
  }
});
