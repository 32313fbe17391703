// The projects demo seeder: runs inside seedDemo; its projects answer through the demo key and respect scopes.
import assert from "node:assert/strict";
import { createApiKey } from "../../lib/api_keys.ts";
import { seedDemo } from "../../lib/demo.ts";
import { freshDatabase } from "../helpers/db.ts";
import { callOk, mcpApp } from "../helpers/mcp.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

Deno.test("demo data: projects with clients, one completed, visible through the demo key", async () => {
  const db = await freshDatabase();
  try {
    const demo = await seedDemo(db.sql, { scrypt: TEST_SCRYPT });
    for (const variant of ["A", "B"] as const) {
      const app = mcpApp(db.sql, variant);
      const all = await callOk(app, demo.apiKey, "list_projects");
      const byName = new Map(all.map((p: { name: string }) => [p.name, p]));
      for (const name of ["Website relaunch", "Quarterly reporting", "Brand workshop"]) {
        assert.ok(byName.has(name), `${variant}: ${name}`);
      }
      assert.equal(
        (await callOk(app, demo.apiKey, "list_projects", { status: "completed" }))
          .some((p: { name: string }) => p.name === "Brand workshop"),
        true,
      );
      const web = byName.get("Website relaunch") as { id: string; clientName: string; taskPrefix: string };
      assert.equal(web.clientName, "Acme Corp");
      const full = await callOk(app, demo.apiKey, "get_project", { projectId: web.id });
      assert.equal(full.budget, "24000.00");
    }
    // The demo member is limited to the first company and sees only its projects.
    const { key } = await createApiKey(db.sql, {
      workspaceId: demo.ctx.workspaceId,
      userId: demo.ctx.users.member,
      name: "member",
    });
    const seen = await callOk(mcpApp(db.sql, "A"), key, "list_projects");
    assert.ok(seen.length > 0);
    for (const p of seen) assert.equal(p.companyId, demo.ctx.companyIds[0]);
  } finally {
    await db.close();
  }
});
