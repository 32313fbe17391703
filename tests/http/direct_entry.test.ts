// The direct entry for POST /mcp (lib/http/middleware.ts `directEntry`): a request with a declared body length
// skips Hono's router and middleware chain, and must be answered exactly as the chain answers it — status,
// every header, body, access line. A request without a declared length still goes through the chain.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { parseConfig } from "../../lib/config.ts";
import { createLogger } from "../../lib/log.ts";
import { directEntry, onError } from "../../lib/http/middleware.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, MCP_URL, mcpHeaders } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

Deno.test("directEntry serves only POST of its path with a declared length; the rest goes through the app", async () => {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("x-chain", "1");
  });
  app.post("/x", (c) => c.text("chain"));
  app.get("/x", (c) => c.text("chain get"));
  const lines: string[] = [];
  directEntry(app, "/x", (c) => Promise.resolve(c.text("direct")), {
    log: createLogger("info", (l) => lines.push(l)),
    https: false,
    onError: onError(createLogger("error", () => {})),
    maxBodyBytes: 10,
  });
  const post = (headers: Record<string, string>, body = "{}", path = "/x") =>
    app.request(`http://localhost${path}`, { method: "POST", headers, body });

  const direct = await post({ "content-length": "2", "x-request-id": "d-1" });
  assert.equal(await direct.text(), "direct");
  assert.equal(direct.headers.get("x-chain"), null);
  assert.equal(direct.headers.get("x-request-id"), "d-1");
  assert.equal(direct.headers.get("x-frame-options"), "DENY");
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0]);
  assert.deepEqual([line.request_id, line.method, line.path, line.status], ["d-1", "POST", "/x", 200]);

  const withQuery = await post({ "content-length": "2" }, "{}", "/x?a=1");
  assert.equal(await withQuery.text(), "direct");
  const chunked = await post({});
  assert.equal(await chunked.text(), "chain");
  assert.equal(chunked.headers.get("x-chain"), "1");
  const other = await post({ "content-length": "2" }, "{}", "/xy");
  assert.equal(other.status, 404);
  const get = await app.request("http://localhost/x");
  assert.equal(await get.text(), "chain get");

  const tooLarge = await post({ "content-length": "11" }, "01234567890");
  assert.equal(tooLarge.status, 413);
  assert.deepEqual(await tooLarge.json(), {
    error: "payload_too_large",
    error_description: "request body exceeds 10 bytes",
  });
  assert.equal(tooLarge.headers.get("x-request-id")?.length, 36);

  // An error thrown by the handler is mapped by onError, with the headers the chain adds.
  const failing = new Hono<AppEnv>();
  directEntry(failing, "/x", () => Promise.reject(new Error("boom")), {
    log: createLogger("error", () => {}),
    https: true,
    onError: onError(createLogger("error", () => {})),
  });
  const failed = await failing.request("http://localhost/x", {
    method: "POST",
    headers: { "content-length": "2", "x-request-id": "e-1" },
    body: "{}",
  });
  assert.equal(failed.status, 500);
  assert.deepEqual(await failed.json(), {
    error: "server_error",
    error_description: "internal error (request id e-1)",
  });
  assert.equal(failed.headers.get("strict-transport-security"), "max-age=31536000");
  assert.equal(failed.headers.get("x-request-id"), "e-1");
});

for (const https of [false, true]) {
  Deno.test(`POST /mcp: the direct entry answers as the middleware chain does (${https ? "https" : "http"})`, async () => {
    const lines: string[] = [];
    const config = parseConfig({
      ISSUER: https ? "https://auth.example.com" : "http://localhost:8000",
      SECRET_KEY: TEST_SECRET,
      ...TEST_RATE_LIMITS,
    });
    const app = createApp({
      config,
      sql: db.sql,
      log: createLogger("info", (l) => lines.push(l)),
      secretKey: TEST_SECRET,
      scrypt: TEST_SCRYPT,
    });
    const host: Record<string, string> = https ? { host: "auth.example.com" } : {};
    const call = (name: string, args: unknown = {}) =>
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
    const cases: [string, string | null, string, Record<string, string | null>][] = [
      ["tools/call", f.keys.owner, call("list_projects"), {}],
      ["tools/list", f.keys.member, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), {}],
      [
        "notification",
        f.keys.owner,
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        {},
      ],
      ["tool error", f.keys.owner, call("get_project", { projectId: "nope" }), {}],
      ["no credential", null, call("list_projects"), {}],
      ["revoked key", f.keys.revoked, call("list_projects"), {}],
      ["malformed JSON", f.keys.owner, "{", {}],
      ["wrong content type", f.keys.owner, "{}", { "content-type": "text/plain" }],
      ["foreign origin", f.keys.owner, "{}", { origin: "https://evil.example" }],
      ["bad toolsets", f.keys.owner, "{}", {}],
      ["too large", f.keys.owner, " ".repeat(1024 * 1024 + 1), {}],
    ];
    for (const [what, key, body, extra] of cases) {
      const answers = [];
      for (const declared of [true, false]) {
        const headers = mcpHeaders(key, {
          ...host,
          ...extra,
          "x-request-id": what.replace(/[^A-Za-z0-9]/g, "-"),
        });
        if (declared) headers.set("content-length", String(new TextEncoder().encode(body).length));
        const url = what === "bad toolsets" ? `${MCP_URL}?toolsets=nope` : MCP_URL;
        lines.length = 0;
        const res = await app.request(url, { method: "POST", headers, body });
        const line = JSON.parse(lines.find((l) => l.includes('"msg":"request"'))!);
        answers.push({
          status: res.status,
          headers: [...res.headers].filter(([name]) => name !== "content-length"),
          body: await res.text(),
          log: [line.request_id, line.method, line.path, line.status],
        });
      }
      assert.deepEqual(answers[0], answers[1], what);
    }
  });
}
