// The audit hook: every tools/call reports its outcome once — ok, error, denied, unavailable, invalid, crash.
import assert from "node:assert/strict";
import { z } from "zod";
import type { AuditEntry } from "../../lib/audit.ts";
import { defineTool } from "../../lib/mcp/tool.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, mcpApp, postMcp, rpc } from "../helpers/mcp.ts";

Deno.test("tools/call outcomes reach the audit log with the caller, tool, duration and request id", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const entries: AuditEntry[] = [];
    const boom = defineTool({
      name: "boom",
      area: "projects",
      module: null,
      needsUser: false,
      variants: { A: z.strictObject({}) },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      description: "Test tool. Returns nothing.",
      run: () => {
        throw new Error("boom");
      },
    });
    const app = mcpApp(db.sql, "A", { tools: [...TOOLS, boom], audit: { record: (e) => entries.push(e) } });
    const call = (key: string, name: string, args: Record<string, unknown> = {}) =>
      rpc(app, key, "tools/call", { name, arguments: args });

    await call(f.keys.owner, "list_projects");
    await call(f.keys.owner, "get_project", { projectId: "00000000-0000-4000-8000-000000000000" });
    await call(f.keys.guest, "list_projects");
    await call(f.keys.owner, "get_project", { projectId: "nope" });
    await call(f.keys.owner, "no_such_tool");
    await call(f.keys.owner, "boom");
    await db
      .sql`update workspaces set modules = array_remove(modules, 'projects') where id = ${f.workspaceId}`;
    await call(f.keys.owner, "list_projects");
    await rpc(app, f.keys.owner, "tools/list"); // not a tool call: not recorded
    const res = await postMcp(app, f.keys.owner, {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "list_projects" },
    }, {
      "x-request-id": "req-audit",
    });
    assert.equal(res.status, 200);

    assert.deepEqual(entries.map((e) => [e.tool, e.outcome]), [
      ["list_projects", "ok"],
      ["get_project", "error"],
      ["list_projects", "denied"],
      ["get_project", "invalid"],
      ["no_such_tool", "invalid"],
      ["boom", "crash"],
      ["list_projects", "unavailable"],
      ["list_projects", "unavailable"],
    ]);
    const last = entries.at(-1)!;
    assert.equal(last.requestId, "req-audit");
    assert.equal(last.workspaceId, f.workspaceId);
    assert.equal(last.userId, f.users.owner);
    assert.match(last.keyId!, /^[0-9a-f-]{36}$/);
    assert.ok(last.durationMs >= 0 && last.at instanceof Date);
  } finally {
    await db.close();
  }
});
