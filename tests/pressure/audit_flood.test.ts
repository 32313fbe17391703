// Audit amplification: refused requests flooding a real server on loopback leave one row each, at most; the
// buffer stays within its bound, drops are counted and logged, and a real call's row is written at the next flush.
import assert from "node:assert/strict";
import { AUDIT_MAX_BUFFERED, createAuditLog } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import { MAX_BODY_BYTES } from "../../lib/http/middleware.ts";
import { createLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, mcpHeaders } from "../helpers/mcp.ts";

/** A batch of tools/call messages filling a body just under the 1 MiB limit. */
function megabyteBatch(): string {
  const one = (i: number) =>
    JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "list_projects" } });
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size + one(i).length + 1 < MAX_BODY_BYTES; i++) {
    parts.push(one(i));
    size += one(i).length + 1;
  }
  return `[${parts.join(",")}]`;
}

Deno.test("audit flood on loopback: one row per refused request, a bounded buffer, drops logged, real rows first", async () => {
  const db = await freshDatabase();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger("warn", (l) => lines.push(JSON.parse(l)));
  const MAX_REFUSED = 50;
  // Only explicit flushes and full batches write (flushMs is long), so the counts below are exact.
  const audit = createAuditLog(db.sql, log, { flushMs: 60_000, batchSize: 200, maxRefused: MAX_REFUSED });
  // The flood comes from one address: /mcp's rate limit (tests/mcp/rate_limit.test.ts) would answer most of it
  // 429 before the audit is reached; this test is about the audit buffer, so the limits are out of the way.
  const config = parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    ...TEST_RATE_LIMITS,
  });
  const app = createApp({ config, sql: db.sql, log, secretKey: TEST_SECRET, audit });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  const post = async (key: string | null, body: string, requestId: string) => {
    const res = await fetch(url, {
      method: "POST",
      // no MCP-Protocol-Version header: 2025-03-26, the version with batches
      headers: mcpHeaders(key, { "mcp-protocol-version": null, "x-request-id": requestId, host: null }),
      body,
    });
    await res.body?.cancel();
    return res.status;
  };
  try {
    const f = await buildFixture(db.sql);
    const batch = megabyteBatch();
    const callsPerBody = JSON.parse(batch).length;
    assert.ok(callsPerBody > 10_000, `${callsPerBody} tools/call messages in one body`);
    const unknownKey = `pak_${"C".repeat(43)}`;

    // Round 1, the issue's flood: 20 requests of 1 MiB at once (once 873,801 rows from 20 requests).
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(i % 2 ? unknownKey : null, batch, `flood-${i}`)),
    );
    // no key: 401 with the challenge; an unknown key: 403 with its reason
    assert.deepEqual(statuses, Array.from({ length: 20 }, (_, i) => i % 2 ? 403 : 401));
    await audit.flush();
    const [{ n: first }] = await db.sql<{ n: number }[]>`select count(*)::int as n from audit_log`;
    assert.equal(first, 20, "one row per refused request");
    assert.equal(audit.stats().written, 20);
    assert.deepEqual(audit.stats().dropped, { refused: 0, authenticated: 0 });

    // Round 2: 200 refused requests from 8 workers, more than the refused bound; then a real call.
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < 200) {
        const i = next++;
        assert.equal(await post(unknownKey, batch, `flood2-${i}`), 403);
      }
    }));
    const held = audit.stats();
    assert.equal(held.bufferedRefused, MAX_REFUSED);
    assert.equal(held.dropped.refused, 200 - MAX_REFUSED, "every refused request past the bound is dropped");
    assert.ok(held.peakBuffered <= AUDIT_MAX_BUFFERED && held.peakBuffered <= MAX_REFUSED);
    const ok = await fetch(url, {
      method: "POST",
      headers: mcpHeaders(f.keys.owner, { "x-request-id": "real-call", host: null }),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "list_projects" },
      }),
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();

    await audit.flush();
    const rows = await db.sql<{ workspace_id: string | null; request_id: string }[]>`
      select workspace_id, request_id from audit_log where id > (
        select max(id) from audit_log where request_id like 'flood-%') order by id`;
    assert.equal(rows.length, MAX_REFUSED + 1);
    assert.deepEqual(
      { ...rows[0] },
      { workspace_id: f.workspaceId, request_id: "real-call" },
      "real row first",
    );
    assert.ok(rows.slice(1).every((r) => r.workspace_id === null && r.request_id.startsWith("flood2-")));
    const drops = lines.filter((l) => l.msg === "audit entries dropped");
    assert.deepEqual(
      drops.map((l) => [l.level, l.dropped_refused, l.dropped_authenticated, l.max_refused]),
      [["warn", 200 - MAX_REFUSED, 0, MAX_REFUSED]],
    );
    assert.equal(audit.stats().buffered, 0);
  } finally {
    await server.shutdown();
    await audit.close();
    await db.close();
  }
});
