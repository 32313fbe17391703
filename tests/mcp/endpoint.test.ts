// /mcp over HTTP: methods, protocol versions, headers, status codes and every authentication failure.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { eventually } from "../helpers/wait.ts";
import { buildFixture, MCP_URL, mcpApp, mcpHeaders, postMcp, rpc } from "../helpers/mcp.ts";
import { LAST_USED_RESOLUTION_SECONDS } from "../../lib/mcp/caller.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const BEARER_CHALLENGE =
  'Bearer resource_metadata="http://localhost:8000/.well-known/oauth-protected-resource/mcp", scope="workspace"';
const init = (v: string) => ({
  protocolVersion: v,
  capabilities: {},
  clientInfo: { name: "test", version: "1" },
});

Deno.test.afterAll(() => db.close());

Deno.test("initialize negotiates each supported protocol version and names the server", async () => {
  for (const v of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
    const r = await rpc(appA, f.keys.owner, "initialize", init(v), { "mcp-protocol-version": null });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json");
    assert.equal(r.body.jsonrpc, "2.0");
    assert.equal(r.body.result.protocolVersion, v);
    // 2025-03-26's Implementation has a name and a version only; later revisions add title and websiteUrl.
    assert.deepEqual(
      r.body.result.serverInfo,
      v === "2025-03-26" ? { name: "portico", version: "0.1.0" } : {
        name: "portico",
        title: "Portico",
        version: "0.1.0",
        websiteUrl: "http://localhost:8000",
      },
    );
    assert.deepEqual(r.body.result.capabilities, { tools: { listChanged: false }, resources: {} });
    assert.equal(r.headers.get("mcp-session-id"), null, "stateless: no session");
  }
  // An unknown or older version is answered with the newest 2025 one (the client then decides); never 2026-07-28,
  // whose clients do not initialize.
  for (const v of ["2024-11-05", "1999-01-01", "2026-07-28"]) {
    const r = await rpc(appA, f.keys.owner, "initialize", init(v), { "mcp-protocol-version": null });
    assert.equal(r.body.result.protocolVersion, "2025-11-25");
  }
  const bad = await rpc(appA, f.keys.owner, "initialize", {}, { "mcp-protocol-version": null });
  assert.equal(bad.status, 200);
  assert.equal(bad.body.error.code, -32602);
});

Deno.test("MCP-Protocol-Version: supported values served, absent assumed 2025-03-26, unsupported → 400 -32022", async () => {
  for (const v of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
    const r = await rpc(appA, f.keys.owner, "ping", undefined, { "mcp-protocol-version": v });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.result, {});
  }
  const none = await rpc(appA, f.keys.owner, "ping", undefined, { "mcp-protocol-version": null });
  assert.equal(none.status, 200);
  for (const v of ["2024-11-05", "banana"]) {
    const r = await rpc(appA, f.keys.owner, "ping", undefined, { "mcp-protocol-version": v });
    assert.equal(r.status, 400);
    assert.equal(r.body.id, null);
    // UnsupportedProtocolVersion with every revision served, so a client of either era can fall back at once.
    assert.equal(r.body.error.code, -32022);
    assert.match(r.body.error.message, /^Unsupported protocol version: MCP-Protocol-Version/);
    assert.deepEqual(r.body.error.data, {
      supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
      requested: v,
    });
  }
});

Deno.test("ping answers an empty result with the request's id", async () => {
  const res = await postMcp(appA, f.keys.owner, { jsonrpc: "2.0", id: "abc", method: "ping" });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { jsonrpc: "2.0", id: "abc", result: {} });
});

Deno.test("notifications and client responses answer 202 without a body", async () => {
  for (
    const body of [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { jsonrpc: "2.0", method: "notifications/whatever" },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]
  ) {
    const res = await postMcp(appA, f.keys.owner, body);
    assert.equal(res.status, 202, JSON.stringify(body));
    assert.equal(await res.text(), "");
  }
});

Deno.test("unknown methods → -32601; malformed JSON → 400 -32700; not JSON-RPC → 400 -32600", async () => {
  for (const m of ["resources/subscribe", "prompts/list", "tools/unknown", "completion/complete"]) {
    const r = await rpc(appA, f.keys.owner, m);
    assert.equal(r.status, 200);
    assert.equal(r.body.error.code, -32601, m);
  }
  let res = await postMcp(appA, f.keys.owner, "{not json");
  assert.equal(res.status, 400);
  assert.deepEqual((await res.json()).error.code, -32700);
  for (
    const body of [{ id: 1, method: "ping" }, { jsonrpc: "2.0", id: 1 }, 42, {
      jsonrpc: "2.0",
      id: {},
      method: "ping",
    }]
  ) {
    res = await postMcp(appA, f.keys.owner, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal((await res.json()).error.code, -32600);
  }
});

Deno.test("batches: served in 2025-03-26, refused in later versions, initialize never batched", async () => {
  const batch = [
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "nope" },
  ];
  let res = await postMcp(appA, f.keys.owner, batch, { "mcp-protocol-version": "2025-03-26" });
  assert.equal(res.status, 200);
  const out = await res.json();
  assert.deepEqual(out[0], { jsonrpc: "2.0", id: 1, result: {} });
  assert.equal(out[1].error.code, -32601);
  assert.equal(out.length, 2);
  res = await postMcp(appA, f.keys.owner, [{ jsonrpc: "2.0", method: "notifications/initialized" }], {
    "mcp-protocol-version": "2025-03-26",
  });
  assert.equal(res.status, 202);
  res = await postMcp(appA, f.keys.owner, [{
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: init("2025-03-26"),
  }], {
    "mcp-protocol-version": "2025-03-26",
  });
  assert.equal((await res.json())[0].error.code, -32600);
  res = await postMcp(appA, f.keys.owner, batch, { "mcp-protocol-version": "2025-06-18" });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.code, -32600);
  res = await postMcp(appA, f.keys.owner, [], { "mcp-protocol-version": "2025-03-26" });
  assert.equal(res.status, 400);
});

Deno.test("GET and DELETE /mcp → 405 with Allow: POST", async () => {
  for (const method of ["GET", "DELETE"]) {
    const res = await appA.request(MCP_URL, { method, headers: mcpHeaders(f.keys.owner) });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
    assert.equal((await res.json()).error.code, -32600);
  }
});

Deno.test("Accept: application/json alone (or no Accept) is served with JSON", async () => {
  for (const accept of ["application/json", null, "*/*"]) {
    const r = await rpc(appA, f.keys.owner, "tools/list", undefined, { accept });
    assert.equal(r.status, 200, String(accept));
    assert.equal(r.headers.get("content-type"), "application/json");
    assert.ok(Array.isArray(r.body.result.tools));
  }
});

Deno.test("a body that is not application/json → 415", async () => {
  const res = await postMcp(appA, f.keys.owner, { jsonrpc: "2.0", id: 1, method: "ping" }, {
    "content-type": "text/plain",
  });
  assert.equal(res.status, 415);
  assert.equal((await res.json()).id, null);
  const ok = await postMcp(appA, f.keys.owner, { jsonrpc: "2.0", id: 1, method: "ping" }, {
    "content-type": "application/json; charset=utf-8",
  });
  assert.equal(ok.status, 200);
});

Deno.test("a foreign Origin → 403; the issuer's origin and no Origin are served", async () => {
  for (
    const origin of [
      "https://evil.example",
      "null",
      "http://localhost:9999",
      "http://localhost.evil.example:8000",
    ]
  ) {
    const r = await rpc(appA, f.keys.owner, "ping", undefined, { origin });
    assert.equal(r.status, 403, origin);
    assert.equal(r.body.id, null);
    assert.equal(r.body.error.code, -32003);
  }
  // refused before the key is even looked at
  const noKey = await rpc(appA, null, "ping", undefined, { origin: "https://evil.example" });
  assert.equal(noKey.status, 403);
  for (const origin of ["http://localhost:8000", "http://127.0.0.1:8000"]) {
    const r = await rpc(appA, f.keys.owner, "ping", undefined, { origin });
    assert.equal(r.status, 200, origin);
  }
  const get = await appA.request(MCP_URL, { method: "GET", headers: { origin: "https://evil.example" } });
  assert.equal(get.status, 403);
});

Deno.test("a loopback server refuses a foreign Host (DNS rebinding); loopback hosts are served", async () => {
  const r = await rpc(appA, f.keys.owner, "ping", undefined, { host: "attacker.example:8000" });
  assert.equal(r.status, 403);
  for (const host of ["localhost:8000", "127.0.0.1:8000", "[::1]:8000"]) {
    assert.equal((await rpc(appA, f.keys.owner, "ping", undefined, { host })).status, 200, host);
  }
  // A public issuer (behind a proxy) does not pin the Host.
  const pub = mcpApp(db.sql, "A", { env: { ISSUER: "https://portico.example" } });
  assert.equal((await rpc(pub, f.keys.owner, "ping", undefined, { host: "internal-lb:8080" })).status, 200);
  assert.equal(
    (await rpc(pub, f.keys.owner, "ping", undefined, { origin: "https://portico.example" })).status,
    200,
  );
  assert.equal(
    (await rpc(pub, f.keys.owner, "ping", undefined, { origin: "http://localhost:8000" })).status,
    403,
  );
});

/** No credential at all: 401 with the RFC 9728 Bearer challenge, so OAuth-capable clients can sign in. */
async function assertChallenged(app: typeof appA, key: string | null) {
  const r = await rpc(app, key, "tools/list");
  assert.equal(r.status, 401);
  assert.equal(r.headers.get("www-authenticate"), BEARER_CHALLENGE);
  assert.equal(r.body.jsonrpc, "2.0");
  assert.equal(r.body.id, null);
  assert.equal(r.body.error.code, -32001);
  assert.match(
    r.body.error.message,
    /^missing credentials: send an x-api-key header, or an OAuth access token/,
  );
}

/**
 * A key that was sent and refused: 403 with the reason and no challenge at all, so an OAuth-capable client does
 * not start a sign-in in place of telling the person their key is bad.
 */
async function assertUnauthorized(app: typeof appA, key: string | null, message: RegExp) {
  const r = await rpc(app, key, "tools/list");
  assert.equal(r.status, 403);
  assert.equal(r.headers.get("www-authenticate"), null);
  assert.equal(r.body.jsonrpc, "2.0");
  assert.equal(r.body.id, null);
  assert.equal(r.body.error.code, -32001);
  assert.match(r.body.error.message, message);
}

Deno.test("no credential → 401 with the Bearer challenge; a refused key → 403 with its reason, both variants", async () => {
  for (const app of [appA, appB]) {
    await assertChallenged(app, null);
    await assertChallenged(app, "");
    await assertUnauthorized(app, "not-a-key", /malformed/);
    await assertUnauthorized(app, "pak_short", /malformed/);
    await assertUnauthorized(app, `pak_${"A".repeat(43)}`, /unknown API key/);
    await assertUnauthorized(app, f.keys.revoked, /revoked/);
  }
});

Deno.test("a revoked key stops working on the next request", async () => {
  const key = await f.key({ user: f.users.admin });
  assert.equal((await rpc(appA, key, "ping")).status, 200);
  await db.sql`update api_keys set revoked_at = now() where key_prefix = ${key.slice(0, 10)}`;
  await assertUnauthorized(appA, key, /revoked/);
});

Deno.test("a key whose user left the workspace → 403 with the reason", async () => {
  const { users, key } = f;
  const k = await key({ user: users.manager });
  await db
    .sql`delete from workspace_members where workspace_id = ${f.workspaceId} and user_id = ${users.manager}`;
  try {
    await assertUnauthorized(appA, k, /no longer a member/);
    await assertUnauthorized(appB, k, /no longer a member/);
  } finally {
    await db
      .sql`insert into workspace_members (workspace_id, user_id, role) values (${f.workspaceId}, ${users.manager}, 'manager')`;
  }
});

Deno.test("a workspace key in variant A → 403 legacy key; served in variant B", async () => {
  const r = await rpc(appA, f.keys.workspace, "tools/list");
  assert.equal(r.status, 403);
  assert.equal(r.body.id, null);
  assert.equal(r.body.error.code, -32003);
  assert.equal(r.body.error.message, "legacy key: create a new key in your profile");
  assert.equal(r.headers.get("www-authenticate"), null);
  assert.equal((await rpc(appB, f.keys.workspace, "tools/list")).status, 200);
});

Deno.test("last_used_at: set on first use, not rewritten within the resolution window, refreshed after", async () => {
  const key = await f.key({ user: f.users.admin, name: "last-used" });
  const prefix = key.slice(0, 10);
  const read = async () =>
    (await db.sql<
      { t: string | null }[]
    >`select last_used_at::text as t from api_keys where key_prefix = ${prefix}`)[0]
      .t;
  assert.equal(await read(), null);
  assert.equal((await rpc(appA, key, "ping")).status, 200);
  let first: string | null = null;
  // the write is fire-and-forget: it lands some time after the answer
  await eventually("last_used_at set", async () => (first = await read()) !== null);
  await rpc(appA, key, "ping");
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(await read(), first, "no write inside the window");
  await db.sql`update api_keys set last_used_at = now() - make_interval(secs => ${
    LAST_USED_RESOLUTION_SECONDS + 5
  })
                where key_prefix = ${prefix}`;
  const old = await read();
  await rpc(appA, key, "ping");
  let now = old;
  await eventually("last_used_at refreshed once stale", async () => (now = await read()) !== old);
  assert.notEqual(now, old, "refreshed once stale");
});

Deno.test("tools/call of an unknown tool → JSON-RPC -32602; missing name → -32602", async () => {
  const r = await rpc(appA, f.keys.owner, "tools/call", { name: "no_such_tool", arguments: {} });
  assert.equal(r.status, 200);
  assert.equal(r.body.error.code, -32602);
  assert.match(r.body.error.message, /Unknown tool: no_such_tool/);
  const r2 = await rpc(appA, f.keys.owner, "tools/call", { arguments: {} });
  assert.equal(r2.body.error.code, -32602);
  const r3 = await rpc(appA, f.keys.owner, "tools/call", { name: "list_projects", arguments: [1] });
  assert.equal(r3.body.error.code, -32602);
});

Deno.test("answers are not cached by intermediaries", async () => {
  const r = await rpc(appA, f.keys.owner, "tools/list");
  assert.equal(r.headers.get("cache-control"), "no-store");
});
