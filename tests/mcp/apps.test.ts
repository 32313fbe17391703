// MCP Apps on the wire: the ui://portico views and the tools' _meta.ui.resourceUri only for a host that declared
// the extension (2025: ?apps=1 on the URL; 2026-07-28: the request's client capabilities), every answer unchanged
// for any other host, and the views under the caller's rules (docs/mcp.md "MCP Apps").
import assert from "node:assert/strict";
import { APP_HTML } from "../../lib/mcp/apps_bundles.generated.ts";
import { APP_MIME, APPS_EXTENSION } from "../../lib/mcp/apps.ts";
import { SERVER_CAPABILITIES } from "../../lib/mcp/handshake.ts";
import { freshDatabase } from "../helpers/db.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { buildFixture, MCP_URL, mcpApp, postMcp, type RequestTarget, rpc } from "../helpers/mcp.ts";

const db = await freshDatabase();
Deno.test.afterAll(() => db.close());
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const APPS_URL = `${MCP_URL}?apps=1`;

/** The app with every request sent to /mcp?apps=1. */
function withApps(app: RequestTarget): RequestTarget {
  return {
    request: (input, init) =>
      app.request(typeof input === "string" && input === MCP_URL ? APPS_URL : input, init),
  };
}
const appsA = withApps(appA);

const VIEW_OF: Record<string, string> = {
  gantt_plan: "ui://portico/plan",
  get_offer: "ui://portico/offer",
  create_offer: "ui://portico/offer",
  list_time_logs: "ui://portico/week",
  time_log_summary: "ui://portico/week",
};

// deno-lint-ignore no-explicit-any
type Json = any;

const MODERN = "2026-07-28";
function modernParams(caps: Record<string, unknown>, params: Record<string, unknown> = {}) {
  return {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": caps,
    },
  };
}
async function modern(app: RequestTarget, key: string, method: string, caps: Record<string, unknown>) {
  const res = await postMcp(app, key, { jsonrpc: "2.0", id: 1, method, params: modernParams(caps) }, {
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  });
  return { status: res.status, text: await res.text() };
}
const UI_CAPS = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME] } } };

Deno.test("without the extension: no _meta on tools, no ui:// resources, no extension declared, ui:// not found", async () => {
  const tools = (await rpc(appA, f.keys.owner, "tools/list")).body.result.tools as Json[];
  assert.ok(tools.length > 40);
  assert.deepEqual(tools.filter((t) => "_meta" in t), []);
  const res = (await rpc(appA, f.keys.owner, "resources/list")).body.result.resources as Json[];
  assert.deepEqual(res.filter((r) => String(r.uri).startsWith("ui://")), []);
  const init = await rpc(appA, f.keys.owner, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: UI_CAPS, // declared in initialize alone: a stateless 2025 server cannot carry it to later requests
    clientInfo: { name: "t", version: "1" },
  });
  assert.deepEqual(init.body.result.capabilities, SERVER_CAPABILITIES);
  const read = await rpc(appA, f.keys.owner, "resources/read", { uri: "ui://portico/plan" });
  assert.equal(read.body.error.code, -32002);
});

Deno.test("?apps=1: the five tools carry _meta.ui.resourceUri and every listing is otherwise the same bytes' JSON", async () => {
  for (const key of [f.keys.owner, f.keys.member]) {
    const plain = (await rpc(appA, key, "tools/list")).body.result.tools as Json[];
    const apps = (await rpc(appsA, key, "tools/list")).body.result.tools as Json[];
    assert.equal(apps.length, plain.length);
    for (const [i, t] of apps.entries()) {
      const { _meta, ...rest } = t;
      assert.deepEqual(rest, plain[i]);
      if (VIEW_OF[t.name]) assert.deepEqual(_meta, { ui: { resourceUri: VIEW_OF[t.name] } }, t.name);
      else assert.equal(_meta, undefined, t.name);
    }
  }
  const owner = (await rpc(appsA, f.keys.owner, "tools/list")).body.result.tools as Json[];
  assert.deepEqual(owner.filter((t) => t._meta).map((t) => t.name).sort(), Object.keys(VIEW_OF).sort());
});

Deno.test("?apps=1: initialize declares the extension; resources/list lists the views first with MIME, size and an empty CSP", async () => {
  const init = await rpc(appsA, f.keys.owner, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  });
  assert.deepEqual(init.body.result.capabilities, {
    ...SERVER_CAPABILITIES,
    extensions: { [APPS_EXTENSION]: {} },
  });
  const res = (await rpc(appsA, f.keys.owner, "resources/list")).body.result.resources as Json[];
  const views = res.slice(0, 3);
  assert.deepEqual(views.map((r) => r.uri), ["ui://portico/plan", "ui://portico/offer", "ui://portico/week"]);
  for (const v of views) {
    const name = v.uri.slice("ui://portico/".length) as keyof typeof APP_HTML;
    assert.equal(v.mimeType, "text/html;profile=mcp-app");
    assert.equal(v.size, new TextEncoder().encode(APP_HTML[name]).length);
    assert.deepEqual(v._meta.ui.csp, { connectDomains: [], resourceDomains: [] });
    const read = await rpc(appsA, f.keys.owner, "resources/read", { uri: v.uri });
    assert.deepEqual(read.body.result.contents, [{
      uri: v.uri,
      mimeType: "text/html;profile=mcp-app",
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      text: APP_HTML[name],
    }]);
  }
  // The rest of the list is the list without views.
  const plain = (await rpc(appA, f.keys.owner, "resources/list")).body.result.resources as Json[];
  assert.deepEqual(res.slice(3), plain);
});

Deno.test("the views follow the caller's tools: a member without offers sees no offer view and cannot read it", async () => {
  const tools = (await rpc(appsA, f.keys.member, "tools/list")).body.result.tools as Json[];
  assert.ok(!tools.some((t) => t.name === "get_offer"));
  const res = (await rpc(appsA, f.keys.member, "resources/list")).body.result.resources as Json[];
  const uris = res.map((r) => r.uri).filter((u: string) => u.startsWith("ui://"));
  assert.ok(!uris.includes("ui://portico/offer"));
  assert.ok(uris.includes("ui://portico/week"));
  const read = await rpc(appsA, f.keys.member, "resources/read", { uri: "ui://portico/offer" });
  assert.equal(read.body.error.code, -32002);
  assert.deepEqual(read.body.error.data, { uri: "ui://portico/offer" });
  const unknown = await rpc(appsA, f.keys.owner, "resources/read", { uri: "ui://portico/nothing" });
  assert.equal(unknown.body.error.code, -32002);
});

Deno.test("a view's HTML is the same for every caller and way in: no data, no credential in it", async () => {
  const bearer = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  const a = await rpc(appsA, f.keys.owner, "resources/read", { uri: "ui://portico/week" });
  const b = await rpc(appsA, bearer.auth, "resources/read", { uri: "ui://portico/week" });
  const c = await rpc(appsA, f.keys.accounting, "resources/read", { uri: "ui://portico/week" });
  const html = a.body.result.contents[0].text as string;
  assert.equal(b.body.result.contents[0].text, html);
  assert.equal(c.body.result.contents[0].text, html);
  assert.ok(!html.includes(f.workspaceId) && !html.includes(f.keys.owner) && !html.includes(bearer.token));
});

Deno.test("2026-07-28: the request's client capabilities decide, per request; server/discover declares it only then", async () => {
  const withUi = await modern(appA, f.keys.owner, "tools/list", UI_CAPS);
  const without = await modern(appA, f.keys.owner, "tools/list", {});
  assert.equal(withUi.status, 200);
  const w = JSON.parse(withUi.text).result.tools as Json[];
  assert.equal(w.find((t) => t.name === "gantt_plan")._meta.ui.resourceUri, "ui://portico/plan");
  assert.ok(!without.text.includes("ui://"));
  // Any other MIME type only: the host cannot render these views.
  const other = await modern(appA, f.keys.owner, "tools/list", {
    extensions: { [APPS_EXTENSION]: { mimeTypes: ["text/html;profile=other"] } },
  });
  assert.equal(other.text, without.text);
  const d1 = JSON.parse((await modern(appA, f.keys.owner, "server/discover", UI_CAPS)).text).result;
  const d0 = JSON.parse((await modern(appA, f.keys.owner, "server/discover", {})).text).result;
  assert.deepEqual(d1.capabilities.extensions, { [APPS_EXTENSION]: {} });
  assert.deepEqual(d0.capabilities, SERVER_CAPABILITIES);
});
