// The six permission rules, each positively and negatively, in both variants.
import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../lib/mcp/tool.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  buildFixture,
  callFails,
  callOk,
  callTool,
  listedTools,
  mcpApp,
  type Variant,
} from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

// Stand-ins replacing two real tools (same names, so USER_CONTEXT_TOOLS and the areas apply) that answer who
// they acted as, so the rules are tested apart from any domain's own logic.
const Empty = z.strictObject({});
const whoAmI = (ctx: { caller: { userId?: string; keyKind: string } }) => ({
  userId: ctx.caller.userId ?? null,
  keyKind: ctx.caller.keyKind,
});
const createTask = defineTool({
  name: "create_task",
  area: "tasks",
  module: "tasks",
  needsUser: true,
  variants: { A: Empty, B: Empty },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: "Test stand-in for a user-context tool. Returns who it acted as.",
  run: whoAmI,
});
const listInvoices = defineTool({
  name: "list_invoices",
  area: "invoices",
  module: "finance_collections",
  needsUser: false,
  variants: { A: Empty, B: Empty },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Test stand-in for an invoice tool. Returns who it acted as.",
  run: whoAmI,
});
const tools = [
  ...TOOLS.filter((t) => t.name !== "create_task" && t.name !== "list_invoices"),
  createTask,
  listInvoices,
];
const apps = { A: mcpApp(db.sql, "A", { tools }), B: mcpApp(db.sql, "B", { tools }) };
const both: Variant[] = ["A", "B"];

async function project(name: string, companyId: string | null, key = f.keys.owner) {
  return await callOk(apps.A, key, "create_project", companyId ? { name, companyId } : { name });
}
const inA = await project("In A", f.companies.a);
const inB = await project("In B", f.companies.b);
const noCompany = await project("No company", null);

Deno.test("rule 1 (A): a user key acts as its creator and follows the creator's current role", async () => {
  const p = await callOk(apps.A, f.keys.admin, "create_project", { name: "by admin" });
  assert.equal(p.createdBy, f.users.admin);
  const me = await callOk(apps.A, f.keys.member, "create_task");
  assert.deepEqual(me, { userId: f.users.member, keyKind: "user" });
  // Demoting the creator demotes the key at once: it never reaches more than its creator.
  await db
    .sql`update workspace_members set role = 'guest' where workspace_id = ${f.workspaceId} and user_id = ${f.users.accounting}`;
  try {
    assert.ok(!(await listedTools(apps.A, f.keys.accounting)).includes("list_invoices"));
    await callFails(apps.A, f.keys.accounting, "list_invoices", {}, "access_denied");
  } finally {
    await db
      .sql`update workspace_members set role = 'accounting' where workspace_id = ${f.workspaceId} and user_id = ${f.users.accounting}`;
  }
  assert.ok((await listedTools(apps.A, f.keys.accounting)).includes("list_invoices"));
});

Deno.test("rule 1 (B): workspace keys act for the workspace; internal keys carry their user", async () => {
  const p = await callOk(apps.B, f.keys.workspace, "create_project", { name: "by workspace key" });
  assert.equal(p.createdBy, null);
  const seen = (await callOk(apps.B, f.keys.workspace, "list_projects")).map((x: { id: string }) => x.id);
  for (const id of [inA.id, inB.id, noCompany.id]) assert.ok(seen.includes(id), "every company");
  const q = await callOk(apps.B, f.keys.internal, "create_project", { name: "by assistant" });
  assert.equal(q.createdBy, f.users.owner);
  assert.deepEqual(await callOk(apps.B, f.keys.internal, "create_task"), {
    userId: f.users.owner,
    keyKind: "internal",
  });
});

Deno.test("rule 2 (A): user-context tools need a user-bound key (user or internal)", async () => {
  for (const key of [f.keys.owner, f.keys.internal, f.keys.guest]) {
    assert.ok((await listedTools(apps.A, key)).includes("create_task"));
    await callOk(apps.A, key, "create_task");
  }
  // The only unbound kind, workspace, is refused outright in A (rule 1); the check itself is covered in B.
});

Deno.test("rule 2 (B): only internal keys may use user-context tools", async () => {
  assert.ok((await listedTools(apps.B, f.keys.internal)).includes("create_task"));
  for (const key of [f.keys.workspace, f.keys.owner, f.keys.member]) {
    const names = await listedTools(apps.B, key);
    assert.ok(!names.includes("create_task"));
    assert.ok(names.includes("list_projects"));
    const msg = await callFails(apps.B, key, "create_task", {}, "access_denied");
    assert.match(msg, /create_task acts as a person/);
  }
});

Deno.test("rule 3 (A): areas gate roles by default (invoices: owner, admin, accounting)", async () => {
  for (const role of ["owner", "admin", "accounting"] as const) {
    assert.ok((await listedTools(apps.A, f.keys[role])).includes("list_invoices"), role);
    await callOk(apps.A, f.keys[role], "list_invoices");
  }
  for (const role of ["manager", "member", "guest"] as const) {
    assert.ok(!(await listedTools(apps.A, f.keys[role])).includes("list_invoices"), role);
    const msg = await callFails(apps.A, f.keys[role], "list_invoices", {}, "access_denied");
    assert.match(msg, new RegExp(`${role} role may not use invoices tools`));
  }
  // projects: not for guests by default
  assert.ok(!(await listedTools(apps.A, f.keys.guest)).some((n) => n.includes("project")));
  await callFails(apps.A, f.keys.guest, "list_projects", {}, "access_denied");
  await callOk(apps.A, f.keys.member, "list_projects");
});

Deno.test("rule 3 (A): the workspace's role settings override the defaults; the owner keeps access", async () => {
  await db
    .sql`insert into role_permissions (workspace_id, area, roles) values (${f.workspaceId}, 'projects', ${[
    "admin",
    "guest",
  ]})`;
  try {
    await callFails(apps.A, f.keys.member, "list_projects", {}, "access_denied");
    assert.ok(!(await listedTools(apps.A, f.keys.member)).includes("list_projects"));
    await callOk(apps.A, f.keys.guest, "list_projects");
    await callOk(apps.A, f.keys.admin, "list_projects");
    await callOk(apps.A, f.keys.owner, "list_projects");
  } finally {
    await db.sql`delete from role_permissions where workspace_id = ${f.workspaceId}`;
  }
  await callOk(apps.A, f.keys.member, "list_projects");
});

Deno.test("rule 3 (B): no role gating", async () => {
  await callOk(apps.B, f.keys.guest, "list_projects");
  await callOk(apps.B, f.keys.member, "list_invoices");
  assert.ok((await listedTools(apps.B, f.keys.guest)).includes("list_invoices"));
});

Deno.test("rule 4 (A): a disabled module makes its tools unavailable; B ignores modules", async () => {
  await db
    .sql`update workspaces set modules = array_remove(array_remove(modules, 'finance_collections'), 'projects')
                where id = ${f.workspaceId}`;
  try {
    const names = await listedTools(apps.A, f.keys.owner);
    assert.ok(!names.includes("list_invoices") && !names.includes("list_projects"));
    assert.ok(names.includes("create_task"), "other modules still on");
    const msg = await callFails(apps.A, f.keys.owner, "list_invoices", {}, "unavailable");
    assert.match(msg, /finance_collections module is disabled/);
    await callFails(apps.A, f.keys.owner, "create_project", { name: "x" }, "unavailable");
    await callOk(apps.B, f.keys.owner, "list_invoices");
    await callOk(apps.B, f.keys.workspace, "list_projects");
  } finally {
    await db
      .sql`update workspaces set modules = modules || '{finance_collections,projects}' where id = ${f.workspaceId}`;
  }
  assert.ok((await listedTools(apps.A, f.keys.owner)).includes("list_invoices"));
});

const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

Deno.test("rule 5: company-limited members and company-scoped keys see and change only their companies", async () => {
  const limitedKeys: Record<Variant, string[]> = {
    A: [f.keys.limited, f.keys.ownerCompanyA],
    B: [f.keys.limited, f.keys.ownerCompanyA, f.keys.workspaceCompanyA],
  };
  for (const v of both) {
    for (const key of limitedKeys[v]) {
      const app = apps[v];
      const seen = ids(await callOk(app, key, "list_projects"));
      assert.ok(seen.includes(inA.id));
      assert.ok(!seen.includes(inB.id) && !seen.includes(noCompany.id), `${v}: only company a`);
      assert.equal((await callOk(app, key, "get_project", { projectId: inA.id })).id, inA.id);
      for (const projectId of [inB.id, noCompany.id]) {
        await callFails(app, key, "get_project", { projectId }, "not_found");
        await callFails(app, key, "update_project", { projectId, name: "hijack" }, "not_found");
        await callFails(app, key, "update_project_status", { projectId, status: "invoiced" }, "not_found");
      }
      await callFails(app, key, "create_project", { name: "x", companyId: f.companies.b }, "not_found");
      const made = await callOk(app, key, "create_project", { name: "defaults to a" });
      assert.equal(made.companyId, f.companies.a);
      await callOk(app, key, "update_project", { projectId: inA.id, notes: `touched in ${v}` });
    }
  }
  const b = await callOk(apps.A, f.keys.owner, "get_project", { projectId: inB.id });
  assert.equal(b.name, "In B", "untouched");
  assert.equal(b.status, "in_progress");
  // Unlimited callers see every company.
  for (const v of both) {
    const seen = ids(await callOk(apps[v], f.keys.owner, "list_projects", { limit: 500 }));
    for (const id of [inA.id, inB.id, noCompany.id]) assert.ok(seen.includes(id));
  }
});

Deno.test("rule 5: a key scoped to a company its user may not see reaches nothing", async () => {
  const key = await f.key({ user: f.users.limited, companyId: f.companies.b });
  for (const v of both) {
    assert.deepEqual(await callOk(apps[v], key, "list_projects"), []);
    await callFails(apps[v], key, "get_project", { projectId: inB.id }, "not_found");
    await callFails(apps[v], key, "create_project", { name: "x" }, "invalid_input");
  }
});

Deno.test("rule 6: nothing crosses workspaces, whatever ids are sent", async () => {
  for (const v of both) {
    const app = apps[v];
    const other = f.other.key;
    const seen = ids(await callOk(app, other, "list_projects"));
    assert.ok(!seen.includes(inA.id) && !seen.includes(noCompany.id));
    for (const projectId of [inA.id, noCompany.id]) {
      await callFails(app, other, "get_project", { projectId }, "not_found");
      await callFails(app, other, "update_project", { projectId, name: "x" }, "not_found");
      await callFails(app, other, "update_project_status", { projectId, status: "completed" }, "not_found");
    }
    await callFails(app, other, "create_project", { name: "x", companyId: f.companies.a }, "not_found");
    // ...and the other way round: the first workspace cannot reach the other's company.
    await callFails(
      app,
      f.keys.owner,
      "create_project",
      { name: "x", companyId: f.other.companyId },
      "not_found",
    );
    const mine = await callOk(app, other, "create_project", { name: `other ${v}` });
    await callFails(app, f.keys.owner, "get_project", { projectId: mine.id }, "not_found");
  }
  const stillA = await callOk(apps.A, f.keys.owner, "get_project", { projectId: inA.id });
  assert.equal(stillA.name, "In A");
});

Deno.test("tools the caller may not use are absent from tools/list, and present when it may", async () => {
  const r = await callTool(apps.A, f.keys.guest, "list_projects");
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent, undefined);
  const guest = await listedTools(apps.A, f.keys.guest);
  const areaOf = new Map(tools.map((t) => [t.name, t.area]));
  assert.ok(guest.includes("create_task") && !guest.includes("list_projects"));
  for (const name of guest) {
    assert.ok(["tasks", "ai_activities", "context", "members"].includes(areaOf.get(name)!), name);
  }
  const owner = await listedTools(apps.A, f.keys.owner);
  assert.deepEqual(
    owner,
    tools.filter((t) => t.variants.A).map((t) => t.name),
    "the owner sees every tool of A",
  );
});
