// MCP 2026-07-28 beside the 2025 revisions (issue 24 point 1): the official v2 client pinned and in auto mode
// (no fallback round trip) with a key and with a Bearer token; the revision's envelope rules on the wire.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { freshDatabase } from "../helpers/db.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { buildFixture, MCP_URL, mcpApp, postMcp, type RequestTarget } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const app = mcpApp(db.sql, "A");

const MODERN = "2026-07-28";
const META = (caps: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": caps,
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1" },
});

/** Every request the client sends (method, MCP headers, JSON-RPC method), answered by the app in-process. */
function recorder(target: RequestTarget) {
  const seen: string[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const body = req.method === "POST" ? await req.clone().text() : "";
    const method = body ? (JSON.parse(body).method ?? "response") : "";
    seen.push(`${req.method} ${method} ${req.headers.get("mcp-protocol-version") ?? "-"}`.trim());
    return await target.request(req);
  };
  return { seen, fetch };
}

async function connect(
  mode: "pin" | "auto",
  headers: Record<string, string>,
): Promise<{ client: Client; seen: string[] }> {
  const { seen, fetch } = recorder(app);
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { requestInit: { headers }, fetch });
  const client = new Client({ name: "portico-test", version: "1.0.0" }, {
    versionNegotiation: { mode: mode === "pin" ? { pin: MODERN } : "auto" },
  });
  await client.connect(transport);
  return { client, seen };
}

for (const mode of ["pin", "auto"] as const) {
  Deno.test(`v2 client (${mode}): one server/discover, no initialize; lists and calls tools with a key`, async () => {
    const { client, seen } = await connect(mode, { "x-api-key": f.keys.owner });
    try {
      assert.deepEqual(seen, [`POST server/discover ${MODERN}`], "no fallback round trip");
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.deepEqual(client.getServerVersion(), {
        name: "portico",
        title: "Portico",
        version: "0.1.0",
        websiteUrl: "http://localhost:8000",
      });
      assert.match(client.getInstructions() ?? "", /YYYY-MM-DD/);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "list_projects"));
      const result = await client.callTool({ name: "list_projects", arguments: {} });
      assert.notEqual(result.isError, true);
      assert.deepEqual(seen.slice(1), [`POST tools/list ${MODERN}`, `POST tools/call ${MODERN}`]);
    } finally {
      await client.close();
    }
  });
}

Deno.test("v2 client pinned to 2026-07-28 with a Bearer token: the person's tools", async () => {
  const grant = await bearerFor(db.sql, { userId: f.users.member, workspaceId: f.workspaceId });
  const { client } = await connect("pin", { authorization: grant.auth });
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0);
    const projects = await client.callTool({ name: "list_projects", arguments: {} });
    assert.notEqual(projects.isError, true);
  } finally {
    await client.close();
  }
});

/** A raw 2026 POST: the headers the revision asks for, unless `headers` says otherwise (null removes one). */
async function modern(
  body: Record<string, unknown> | unknown[],
  headers: Record<string, string | null> = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const method = Array.isArray(body) ? undefined : body.method as string | undefined;
  const name = Array.isArray(body) ? undefined : (body.params as Record<string, unknown> | undefined)?.name;
  const res = await postMcp(app, f.keys.owner, body, {
    "mcp-protocol-version": MODERN,
    "mcp-method": method ?? null,
    "mcp-name": typeof name === "string" ? name : null,
    ...headers,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

Deno.test("2026 results: resultType, serverInfo in _meta; caching hints on lists and discover", async () => {
  const discover = await modern({
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: { _meta: META() },
  });
  assert.equal(discover.status, 200);
  assert.deepEqual(Object.keys(discover.body.result).sort(), [
    "_meta",
    "cacheScope",
    "capabilities",
    "instructions",
    "resultType",
    "supportedVersions",
    "ttlMs",
  ]);
  assert.deepEqual(discover.body.result.supportedVersions, [MODERN]);
  assert.equal(discover.body.result.resultType, "complete");
  assert.equal(discover.body.result.cacheScope, "private");
  assert.equal(discover.body.result.ttlMs, 3_600_000);
  assert.equal(discover.body.result._meta["io.modelcontextprotocol/serverInfo"].name, "portico");

  const list = await modern({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: META() } });
  assert.equal(list.status, 200);
  assert.equal(list.body.result.resultType, "complete");
  assert.equal(list.body.result.ttlMs, 0);
  assert.equal(list.body.result.cacheScope, "private");
  assert.ok(Array.isArray(list.body.result.tools));
  const names = list.body.result.tools.map((t: { name: string }) => t.name);
  const again = await modern({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: META() } });
  assert.deepEqual(
    again.body.result.tools.map((t: { name: string }) => t.name),
    names,
    "deterministic order",
  );

  const call = await modern({
    jsonrpc: "2.0",
    id: 4,
    method: "tools/call",
    params: { name: "list_projects", arguments: {}, _meta: META() },
  });
  assert.equal(call.status, 200);
  assert.equal(call.body.result.resultType, "complete");
  assert.equal(call.body.result.ttlMs, undefined, "tools/call is not cacheable");
  assert.equal(call.body.result._meta["io.modelcontextprotocol/serverInfo"].version, "0.1.0");
  assert.ok(Array.isArray(call.body.result.content));
});

Deno.test("2026 envelope refusals: headers against the body (-32020), missing _meta (-32602), 404 for 2025-only methods", async () => {
  const call = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "list_projects", _meta: META() },
  };
  const cases: Array<[string, Record<string, unknown>, Record<string, string | null>, number, number]> = [
    ["no Mcp-Method", call, { "mcp-method": null }, 400, -32020],
    ["Mcp-Method differs", call, { "mcp-method": "tools/list" }, 400, -32020],
    ["no Mcp-Name", call, { "mcp-name": null }, 400, -32020],
    ["Mcp-Name differs", call, { "mcp-name": "list_tasks" }, 400, -32020],
    [
      "no _meta",
      { jsonrpc: "2.0", id: 8, method: "tools/list" },
      {},
      400,
      -32602,
    ],
    [
      "no clientCapabilities",
      {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } },
      },
      {},
      400,
      -32602,
    ],
    [
      "_meta names another version",
      {
        jsonrpc: "2.0",
        id: 10,
        method: "tools/list",
        params: { _meta: { ...META(), "io.modelcontextprotocol/protocolVersion": "2025-11-25" } },
      },
      {},
      400,
      -32020,
    ],
    [
      "initialize",
      { jsonrpc: "2.0", id: 11, method: "initialize", params: { _meta: META() } },
      {},
      404,
      -32601,
    ],
    ["ping", { jsonrpc: "2.0", id: 12, method: "ping", params: { _meta: META() } }, {}, 404, -32601],
    [
      "logging/setLevel",
      { jsonrpc: "2.0", id: 13, method: "logging/setLevel", params: { level: "info", _meta: META() } },
      {},
      404,
      -32601,
    ],
  ];
  for (const [label, body, headers, status, code] of cases) {
    const r = await modern(body, headers);
    assert.equal(r.status, status, label);
    assert.equal(r.body.error.code, code, label);
    assert.equal(r.body.id, body.id, `${label}: the request's id`);
  }
  // Mcp-Name in the base64 form a client uses for values that are not header-safe.
  const encoded = await modern(call, { "mcp-name": `=?base64?${btoa("list_projects")}?=` });
  assert.equal(encoded.status, 200);
});

Deno.test("2026: batches refused, notifications 202, params by position refused, refusals carry no null id", async () => {
  const batch = await modern([{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META() } }]);
  assert.equal(batch.status, 400);
  assert.equal(batch.body.error.code, -32600);
  assert.equal("id" in batch.body, false);

  const note = await modern({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
  assert.equal(note.status, 202);

  const noKey = await postMcp(app, null, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: META() },
  }, {
    "mcp-protocol-version": MODERN,
    "mcp-method": "tools/list",
  });
  assert.equal(noKey.status, 401);
  const unauthorized = await noKey.json();
  assert.equal("id" in unauthorized, false, "a 2026 client refuses a null id");
  assert.equal(unauthorized.error.code, -32001);
});

Deno.test("2025: params by position is -32602; a body claiming 2026 without the header is -32020; OPTIONS and 413 answer JSON-RPC", async () => {
  const positional = await postMcp(app, f.keys.owner, {
    jsonrpc: "2.0",
    id: 5,
    method: "tools/list",
    params: [],
  }, {
    "mcp-protocol-version": "2025-11-25",
  });
  assert.equal(positional.status, 200);
  assert.deepEqual((await positional.json()).error.code, -32602);

  const claim = await postMcp(app, f.keys.owner, {
    jsonrpc: "2.0",
    id: 6,
    method: "tools/list",
    params: { _meta: META() },
  }, { "mcp-protocol-version": "2025-11-25" });
  assert.equal(claim.status, 400);
  assert.equal((await claim.json()).error.code, -32020);

  const large = await postMcp(app, f.keys.owner, JSON.stringify({ pad: "x".repeat(1024 * 1024 + 10) }));
  assert.equal(large.status, 413);
  assert.equal(large.headers.get("content-type"), "application/json");
  const largeBody = await large.json();
  assert.equal(largeBody.error.code, -32600);
  assert.match(largeBody.error.message, /^Payload Too Large/);

  const options = await app.request(MCP_URL, { method: "OPTIONS" });
  assert.equal(options.status, 405);
  assert.equal(options.headers.get("allow"), "POST");
  assert.equal((await options.json()).error.code, -32600);
});
