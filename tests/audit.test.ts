import assert from "node:assert/strict";
import { type AuditEntry, createAuditLog, recentAudit } from "../lib/audit.ts";
import { runAdmin } from "../lib/admin/cli.ts";
import { createDb } from "../lib/db/client.ts";
import { createLogger, silentLogger } from "../lib/log.ts";
import { freshDatabase } from "./helpers/db.ts";
import { TEST_SECRET } from "./helpers/app.ts";
import { buildFixture, callFails, callOk, postMcp, rpc } from "./helpers/mcp.ts";
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

/** A refused batch body of `n` tools/call messages naming tools t0, t1, … */
function refusedBatch(n: number): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params: { name: `t${i}`, arguments: { secret: "arg-secret-987" } },
    })),
  );
}

Deno.test("audit log: a refused request leaves at most one row, whatever its body holds", async () => {
  const db = await freshDatabase();
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 1000 });
  const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET });
  const app = createApp({ config, sql: db.sql, log: silentLogger, secretKey: TEST_SECRET, audit });
  try {
    const f = await buildFixture(db.sql);
    const unknownKey = `pak_${"B".repeat(43)}`;
    const cases: [string | null, string, number][] = [
      // a key that was sent and refused answers 403; no credential at all, 401 with the challenge
      [unknownKey, refusedBatch(50), 403],
      [null, refusedBatch(3), 401],
      [f.keys.revoked, refusedBatch(2), 403],
      // a batch whose first message is not a tools/call: the row names the first tools/call
      [
        unknownKey,
        JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }, ...JSON.parse(refusedBatch(2))]),
        403,
      ],
      // no tools/call at all: no row
      [unknownKey, JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]), 403],
      [unknownKey, "not json", 403],
    ];
    for (const [i, [key, body, status]] of cases.entries()) {
      const res = await postMcp(app, key, body, {
        "mcp-protocol-version": null,
        "x-request-id": `refused-${i}`,
      });
      assert.equal(res.status, status);
      await res.body?.cancel();
    }
    await audit.flush();
    const rows = await db.sql`
      select workspace_id, key_id, user_id, tool, outcome, request_id from audit_log order by id`;
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      {
        workspace_id: null,
        key_id: null,
        user_id: null,
        tool: "t0",
        outcome: "denied",
        request_id: "refused-0",
      },
      {
        workspace_id: null,
        key_id: null,
        user_id: null,
        tool: "t0",
        outcome: "denied",
        request_id: "refused-1",
      },
      {
        workspace_id: null,
        key_id: null,
        user_id: null,
        tool: "t0",
        outcome: "denied",
        request_id: "refused-2",
      },
      {
        workspace_id: null,
        key_id: null,
        user_id: null,
        tool: "t0",
        outcome: "denied",
        request_id: "refused-3",
      },
    ]);
    assert.ok(!JSON.stringify(rows).includes("arg-secret-987"));
    assert.deepEqual(audit.stats().dropped, { refused: 0, authenticated: 0 });
  } finally {
    await audit.close();
    await db.close();
  }
});

/** A logger that keeps every line (parsed) for assertions. */
function capturingLogger(): { log: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { log: createLogger("debug", (l) => lines.push(JSON.parse(l))), lines };
}

Deno.test("audit log: refused entries are bounded and dropped first, counted and logged; real rows go first", async () => {
  const db = await freshDatabase();
  const { log, lines } = capturingLogger();
  // batchSize above both bounds: nothing is written before the explicit flush, so every count is exact
  const audit = createAuditLog(db.sql, log, {
    flushMs: 60_000,
    batchSize: 100,
    maxBuffered: 8,
    maxRefused: 5,
  });
  try {
    for (let i = 0; i < 12; i++) audit.record(entry(i, { workspaceId: null, keyId: null, tool: `r${i}` }));
    assert.deepEqual(audit.stats(), {
      buffered: 5,
      bufferedRefused: 5,
      peakBuffered: 5,
      written: 0,
      dropped: { refused: 7, authenticated: 0 },
    });
    // authenticated entries fill the rest, then evict the newest refused ones, then the oldest authenticated
    for (let i = 0; i < 10; i++) audit.record(entry(100 + i, { tool: `a${i}` }));
    assert.deepEqual(audit.stats(), {
      buffered: 8,
      bufferedRefused: 0,
      peakBuffered: 8,
      written: 0,
      dropped: { refused: 12, authenticated: 2 },
    });
    // a 1 MiB tool name is kept as 200 characters, and NUL characters are removed
    audit.record(entry(200, { tool: "\u0000x".repeat(512 * 1024) }));
    assert.equal(lines.length, 0, "drops are logged at the flush, not once per entry");
    await audit.flush();
    const rows = await db.sql<{ tool: string }[]>`select tool from audit_log order by id`;
    assert.deepEqual(rows.map((r) => r.tool), ["a3", "a4", "a5", "a6", "a7", "a8", "a9", "x".repeat(200)]);
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg, l.dropped_refused, l.dropped_authenticated]),
      [["error", "audit entries dropped", 12, 3]],
    );
    assert.deepEqual(audit.stats().dropped, { refused: 12, authenticated: 3 });
    assert.equal(audit.stats().written, 8);
    assert.equal(audit.stats().peakBuffered, 8);
  } finally {
    await audit.close();
    await db.close();
  }
});

Deno.test("audit log: after an outage under a refused flood, a real call's row is in the first batch written", async () => {
  const db = await freshDatabase();
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = l.addr.port;
  l.close();
  const dead = createDb(`postgres://x@127.0.0.1:${deadPort}/x`, { max: 1, connectTimeout: 1 });
  let target = dead;
  const sql = new Proxy(function () {}, {
    apply: (_t, _this, args) => (target as unknown as (...a: unknown[]) => unknown)(...args),
    get: (_t, p) => (target as unknown as Record<string | symbol, unknown>)[p],
  }) as unknown as typeof db.sql;
  const { log, lines } = capturingLogger();
  const audit = createAuditLog(sql, log, {
    flushMs: 60_000,
    batchSize: 50,
    maxBuffered: 1000,
    maxRefused: 100,
  });
  try {
    // 300 refused entries while the database is away: writes are tried (and fail) every 50 entries
    for (let i = 0; i < 300; i++) audit.record(entry(i, { workspaceId: null, keyId: null, tool: `r${i}` }));
    audit.record(entry(999, { tool: "real_call", requestId: "req-real" }));
    await audit.flush(); // fails too: the database is still away
    const during = audit.stats();
    assert.equal(during.written, 0);
    assert.equal(during.bufferedRefused, 100, "refused entries never exceed their bound");
    assert.equal(during.buffered, 101);
    assert.ok(during.peakBuffered <= 101, `peak ${during.peakBuffered}`);
    assert.equal(during.dropped.refused, 200);
    assert.equal(during.dropped.authenticated, 0);

    target = db.sql;
    await audit.flush();
    const rows = await db.sql<{ tool: string; request_id: string }[]>`
      select tool, request_id from audit_log order by id`;
    assert.equal(rows.length, 101);
    assert.deepEqual(
      { ...rows[0] },
      { tool: "real_call", request_id: "req-real" },
      "the real row goes first",
    );
    assert.deepEqual(rows.slice(1).map((r) => r.tool), Array.from({ length: 100 }, (_, i) => `r${i}`));
    assert.deepEqual(audit.stats().dropped, { refused: 200, authenticated: 0 });
    const drops = lines.filter((x) => x.msg === "audit entries dropped");
    assert.ok(drops.length >= 1 && drops.every((x) => x.level === "warn"));
    assert.equal(drops.reduce((n, x) => n + (x.dropped_refused as number), 0), 200, "every drop is logged");
    assert.equal(drops.at(-1)!.dropped_refused_total, 200);
  } finally {
    await audit.close();
    await dead.end({ timeout: 1 });
    await db.close();
  }
});
