import assert from "node:assert/strict";
import { freshDatabase, unreachableDb } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";

Deno.test("http basics", async (t) => {
  const db = await freshDatabase();
  const app = testApp(db.sql);
  try {
    await t.step("GET /healthz answers 200 ok with the database up", async () => {
      const res = await app.request("/healthz");
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: "ok" });
      assert.equal(res.headers.get("cache-control"), "no-store");
    });

    await t.step("X-Request-Id is echoed when well formed, made up otherwise", async () => {
      const mine = await app.request("/healthz", { headers: { "x-request-id": "abc-123" } });
      assert.equal(mine.headers.get("x-request-id"), "abc-123");
      const bad = await app.request("/healthz", { headers: { "x-request-id": "<script>" } });
      assert.match(bad.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
    });

    await t.step("security headers", async () => {
      const res = await app.request("/healthz");
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("referrer-policy"), "no-referrer");
      assert.match(res.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
      assert.equal(res.headers.get("strict-transport-security"), null);
      const https = testApp(db.sql, { ISSUER: "https://auth.example.com" });
      const res2 = await https.request("/healthz");
      assert.equal(res2.headers.get("strict-transport-security"), "max-age=31536000");
    });

    await t.step("a body over 1 MiB is refused with 413", async () => {
      const big = "x".repeat(1024 * 1024 + 1);
      const res = await app.request("/healthz", { method: "POST", body: big });
      assert.equal(res.status, 413);
      assert.equal((await res.json()).error, "payload_too_large");
      // exactly 1 MiB passes the limit (and reaches routing: no POST route here)
      const atLimit = await app.request("/healthz", { method: "POST", body: "x".repeat(1024 * 1024) });
      assert.equal(atLimit.status, 404);
    });

    await t.step("unknown routes answer a JSON 404", async () => {
      const res = await app.request("/nope");
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error, "not_found");
    });
  } finally {
    await db.close();
  }
});

Deno.test("GET /healthz answers 503 when the database is unreachable", async () => {
  const sql = unreachableDb();
  try {
    const res = await testApp(sql).request("/healthz");
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "5");
    assert.deepEqual(await res.json(), { status: "unavailable", reason: "database_unreachable" });
  } finally {
    await sql.end({ timeout: 1 });
  }
});
