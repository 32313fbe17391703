import assert from "node:assert/strict";
import { type AuditEntry, createAuditLog, recentAudit } from "../lib/audit.ts";
import { runAdmin } from "../lib/admin/cli.ts";
import { createDb } from "../lib/db/client.ts";
import { silentLogger } from "../lib/log.ts";
import { freshDatabase } from "./helpers/db.ts";
import { TEST_SECRET } from "./helpers/app.ts";
import { buildFixture, callFails, callOk, rpc } from "./helpers/mcp.ts";
import { parseConfig } from "../lib/config.ts";
import { createApp } from "../routes/mod.ts";

const ws = "11111111-1111-4111-8111-111111111111";

function entry(i: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    workspaceId: ws,
    keyId: "22222222-2222-4222-8222-222222222222",
    userId: null,
    tool: "list_projects",
    outcome: "ok",
    durationMs: 1.234,
    requestId: `req-${i}`,
    ...overrides,
  };
}

Deno.test("audit log: batches entries, writes on flush, lists newest first", async () => {
  const db = await freshDatabase();
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 1000 });
  try {
    for (let i = 0; i < 5; i++) audit.record(entry(i));
    audit.record(entry(5, { workspaceId: null, tool: "bogus", outcome: "denied" }));
    // nothing is written before the flush: recording costs no round trip
    const [before] = await db.sql<{ n: number }[]>`select count(*)::int as n from audit_log`;
    assert.equal(before.n, 0);
    await audit.flush();
    const rows = await recentAudit(db.sql, { limit: 10 });
    assert.equal(rows.length, 6);
    assert.deepEqual(rows[0], {
      at: "2026-01-01T00:00:05.000Z",
      workspace_id: null,
      key_id: "22222222-2222-4222-8222-222222222222",
      user_id: null,
      tool: "bogus",
      outcome: "denied",
      duration_ms: 1.23,
      request_id: "req-5",
    });
    assert.equal((await recentAudit(db.sql, { workspaceId: ws, limit: 2 })).length, 2);

    const out: string[] = [];
    const code = await runAdmin(["audit", "list", "--workspace", ws, "--limit", "3", "--json"], {
      sql: db.sql,
      secretKey: TEST_SECRET,
      out: (l) => out.push(l),
      err: () => {},
    });
    assert.equal(code, 0);
    const listed = JSON.parse(out[0]);
    assert.deepEqual(listed.entries.map((e: { request_id: string }) => e.request_id), [
      "req-4",
      "req-3",
      "req-2",
    ]);
    const err: string[] = [];
    const bad = await runAdmin(["audit", "list", "--limit", "0"], {
      sql: db.sql,
      secretKey: TEST_SECRET,
      out: () => {},
      err: (l) => err.push(l),
    });
    assert.equal(bad, 2);
    assert.equal(err[0], "admin: --limit must be between 1 and 1000");
  } finally {
    await audit.close();
    await db.close();
  }
});

Deno.test("audit log: a batch size triggers a write; close writes the rest", async () => {
  const db = await freshDatabase();
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 3 });
  try {
    for (let i = 0; i < 4; i++) audit.record(entry(i));
    await audit.close();
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from audit_log`;
    assert.equal(n.n, 4);
  } finally {
    await db.close();
  }
});

Deno.test("audit log: entries survive a database outage and are written when it returns", async () => {
  const db = await freshDatabase();
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = l.addr.port;
  l.close();
  const dead = createDb(`postgres://x@127.0.0.1:${deadPort}/x`, { max: 1, connectTimeout: 1 });
  let target = dead;
  // a proxy Sql whose target can be switched: the outage ends without a restart
  const sql = new Proxy(function () {}, {
    apply: (_t, _this, args) => (target as unknown as (...a: unknown[]) => unknown)(...args),
    get: (_t, p) => (target as unknown as Record<string | symbol, unknown>)[p],
  }) as unknown as typeof db.sql;
  const audit = createAuditLog(sql, silentLogger, { flushMs: 60_000, batchSize: 100 });
  try {
    audit.record(entry(1));
    audit.record(entry(2));
    await audit.flush(); // fails quietly, keeps both
    target = db.sql;
    await audit.flush();
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from audit_log`;
    assert.equal(n.n, 2);
  } finally {
    await audit.close();
    await dead.end({ timeout: 1 });
    await db.close();
  }
});

Deno.test("audit log: the full app records one row per tools/call and per refused call, never arguments", async () => {
  const db = await freshDatabase();
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 1000 });
  const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET });
  const app = createApp({ config, sql: db.sql, log: silentLogger, secretKey: TEST_SECRET, audit });
  try {
    const f = await buildFixture(db.sql);
    await callOk(app, f.keys.owner, "list_projects", { status: "in_progress" });
    await callFails(app, f.keys.guest, "create_project", { name: "secret-name-123" }, "access_denied");
    await callFails(app, f.keys.owner, "get_project", { projectId: "not-a-uuid" }, "invalid_input");
    const unknownKey = `pak_${"A".repeat(43)}`;
    const refused = await rpc(app, unknownKey, "tools/call", { name: "list_projects", arguments: {} });
    assert.equal(refused.status, 403);
    await rpc(app, f.keys.owner, "tools/list"); // not a tools/call: no row
    await audit.flush();
    const rows = await db.sql`
      select workspace_id, key_id, user_id, tool, outcome, request_id from audit_log order by id`;
    assert.deepEqual(rows.map((r) => [r.tool, r.outcome]), [
      ["list_projects", "ok"],
      ["create_project", "denied"],
      ["get_project", "invalid"],
      ["list_projects", "denied"],
    ]);
    assert.equal(rows[0].workspace_id, f.workspaceId);
    assert.equal(rows[0].user_id, f.users.owner);
    assert.match(rows[0].key_id, /^[0-9a-f-]{36}$/);
    assert.equal(rows[3].workspace_id, null);
    assert.equal(rows[3].key_id, null);
    assert.ok(rows.every((r) => r.request_id.length > 0));
    const dump = JSON.stringify(await db.sql`select * from audit_log`);
    assert.ok(!dump.includes("secret-name-123") && !dump.includes("in_progress"), "no arguments stored");
  } finally {
    await audit.close();
    await db.close();
  }
});
