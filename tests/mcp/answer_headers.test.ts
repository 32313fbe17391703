// Every /mcp answer, built with all its headers at once (lib/http/middleware.ts completeResponse), carries the
// security headers exactly once, the request id, and its own headers.
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, MCP_URL, mcpHeaders, postMcp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data: https:; frame-ancestors 'none'; base-uri 'none'";

function assertHeaders(res: Response, id: string, https: boolean, own: Record<string, string | null>) {
  const h = res.headers;
  // Headers.get joins repeated values with ", ": equality also says each is there once.
  assert.equal(h.get("x-content-type-options"), "nosniff");
  assert.equal(h.get("x-frame-options"), "DENY");
  assert.equal(h.get("referrer-policy"), "no-referrer");
  assert.equal(h.get("cross-origin-opener-policy"), "same-origin");
  assert.equal(h.get("content-security-policy"), CSP);
  assert.equal(h.get("strict-transport-security"), https ? "max-age=31536000" : null);
  assert.equal(h.get("x-request-id"), id);
  for (const [name, value] of Object.entries(own)) assert.equal(h.get(name), value, name);
}

for (const https of [false, true]) {
  Deno.test(`/mcp answers carry every header once (${https ? "https" : "http"} issuer)`, async () => {
    const app = testApp(db.sql, https ? { ISSUER: "https://auth.example.com" } : {});
    const json = { "content-type": "application/json", "cache-control": "no-store" };
    const host: Record<string, string> = https ? { host: "auth.example.com" } : {};

    const call = await postMcp(app, f.keys.owner, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_projects", arguments: {} },
    }, { "x-request-id": "call-1", ...host });
    assert.equal(call.status, 200);
    assertHeaders(call, "call-1", https, json);
    assert.equal((await call.json()).result.isError, undefined);

    const note = await postMcp(app, f.keys.owner, { jsonrpc: "2.0", method: "notifications/initialized" }, {
      "x-request-id": "note-1",
      ...host,
    });
    assert.equal(note.status, 202);
    assertHeaders(note, "note-1", https, { "content-type": null });
    assert.equal(await note.text(), "");

    const missing = await postMcp(app, null, { jsonrpc: "2.0", id: 2, method: "ping" }, {
      "x-request-id": "nokey-1",
      ...host,
    });
    assert.equal(missing.status, 401);
    assertHeaders(missing, "nokey-1", https, json);
    assert.match(missing.headers.get("www-authenticate")!, /^Bearer resource_metadata="/);
    await missing.body?.cancel();

    const get = await app.request(MCP_URL, {
      method: "GET",
      headers: mcpHeaders(f.keys.owner, { "x-request-id": "get-1", ...host }),
    });
    assert.equal(get.status, 405);
    assertHeaders(get, "get-1", https, { ...json, allow: "POST" });
    await get.body?.cancel();
  });
}
