// The CRM demo seeder: runs inside seedDemo; its contacts, activities, AI activities and documents answer through
// the demo user's key.
import assert from "node:assert/strict";
import { seedDemo } from "../../lib/demo.ts";
import { freshDatabase } from "../helpers/db.ts";
import { callOk, callTool, mcpApp } from "../helpers/mcp.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

Deno.test("demo data: contacts, activities on every kind of record, AI activities with phases, linked documents", async () => {
  const db = await freshDatabase();
  try {
    const demo = await seedDemo(db.sql, { scrypt: TEST_SCRYPT });
    const app = mcpApp(db.sql, "A");
    const contacts = await callOk(app, demo.apiKey, "list_contacts", {
      sortField: "companyName",
      sortDirection: "asc",
    });
    assert.equal(contacts.total, 7);
    assert.equal(contacts.items[0].companyName, "Bergbau Kollektiv");
    const lena = await callOk(app, demo.apiKey, "list_contacts", { search: "lena", full: true });
    assert.equal(lena.items[0].assignedTo, demo.ctx.users.member);
    const csv = await callTool(app, demo.apiKey, "export_contacts", {});
    assert.equal(csv.structuredContent?.rows, 7);

    const activities = await callOk(app, demo.apiKey, "list_activities", {});
    assert.equal(activities.total, 6);
    assert.deepEqual(
      new Set(activities.items.map((a: { entity: { kind: string } }) => a.entity.kind)),
      new Set(["contact", "client", "collaborator", "supplier"]),
    );

    const ai = await callOk(app, demo.apiKey, "list_ai_activities", {});
    assert.equal(ai.total, 2);
    const research = ai.items.find((a: { kind: string }) => a.kind === "research");
    const full = await callOk(app, demo.apiKey, "get_ai_activity", { activityId: research.id });
    assert.deepEqual(full.phases.map((p: { name: string }) => p.name), [
      "collect sources",
      "compare offers",
      "write summary",
    ]);
    assert.equal(full.status, "completed");
    assert.match(full.resultMarkdown, /^## Competitors[\s\S]*\n\n## Summary/);
    // both links are made in the seeding transaction (one created_at), so their order is by random id
    assert.deepEqual(full.documents.map((d: { relationship: string }) => d.relationship).sort(), [
      "input",
      "output",
    ]);

    const docs = await callOk(app, demo.apiKey, "list_workspace_documents", {});
    assert.equal(docs.total, 3);
    const report = docs.items.find((d: { kind: string }) => d.kind === "report");
    const doc = await callOk(app, demo.apiKey, "get_workspace_document", { documentId: report.id });
    assert.equal(doc.activities[0].activityId, research.id);
    const [counts] = await db.sql`
      select (select count(*)::int from collaborators where workspace_id = ${demo.ctx.workspaceId}) as collaborators,
             (select count(*)::int from suppliers where workspace_id = ${demo.ctx.workspaceId}) as suppliers`;
    assert.deepEqual({ ...counts }, { collaborators: 2, suppliers: 2 });
  } finally {
    await db.close();
  }
});
