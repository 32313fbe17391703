// The audit trail's batch write (one array per column): every value arrives as it was recorded.
import assert from "node:assert/strict";
import { type AuditEntry, createAuditLog } from "../lib/audit.ts";
import { silentLogger } from "../lib/log.ts";
import { freshDatabase } from "./helpers/db.ts";

const ws = "11111111-1111-4111-8111-111111111111";
const key = "22222222-2222-4222-8222-222222222222";
const user = "33333333-3333-4333-8333-333333333333";

Deno.test("audit log: tool names that mean something in an array literal are stored as sent", async () => {
  const db = await freshDatabase();
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 1000 });
  const names = ["NULL", "", "a,b", "{x}", '"q"', "back\\slash", "semi;colon", " spaced ", "ünïcode ✓"];
  try {
    names.forEach((tool, i) =>
      audit.record(
        {
          at: new Date(Date.UTC(2026, 0, 1, 0, 0, i, 123)),
          workspaceId: i % 2 ? null : ws,
          keyId: i % 2 ? null : key,
          clientId: i === 2 ? "pcl_client" : null,
          userId: i % 3 ? null : user,
          tool,
          outcome: i % 2 ? "denied" : "ok",
          durationMs: i + 0.125,
          requestId: `req-${i}`,
        } satisfies AuditEntry,
      )
    );
    await audit.flush();
    // by request id: a batch takes authenticated entries first, then refused ones
    const rows = await db.sql`
      select to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, workspace_id, key_id,
             client_id, user_id, tool, outcome, duration_ms::text as duration_ms, request_id
        from audit_log order by request_id`;
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      names.map((tool, i) => ({
        at: `2026-01-01T00:00:0${i}.123Z`,
        workspace_id: i % 2 ? null : ws,
        key_id: i % 2 ? null : key,
        client_id: i === 2 ? "pcl_client" : null,
        user_id: i % 3 ? null : user,
        tool,
        outcome: i % 2 ? "denied" : "ok",
        // rounded to the column's two decimals, as before
        duration_ms: (Math.round((i + 0.125) * 100) / 100).toFixed(2),
        request_id: `req-${i}`,
      })),
    );
    assert.equal(audit.stats().written, names.length);
  } finally {
    await audit.close();
    await db.close();
  }
});
