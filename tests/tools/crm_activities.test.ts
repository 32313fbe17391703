// CRM activity tools through /mcp: the one-entity rule, completion, moves, filters, company scope and roles.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, listedTools, mcpApp, rpc } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const MISSING = "00000000-0000-4000-8000-000000000000";
const sql = db.sql;

Deno.test.afterAll(() => db.close());

async function insert(
  table: string,
  company: string | null,
  name: string,
  ws = f.workspaceId,
): Promise<string> {
  const col = table === "contacts" ? "contact_name" : "name";
  const [row] = await sql<{ id: string }[]>`
    insert into ${sql(table)} (workspace_id, company_id, ${sql(col)}) values (${ws}, ${company}, ${name})
    returning id`;
  return row.id;
}

const contact = await insert("contacts", null, "Carla Contact");
const contactA = await insert("contacts", f.companies.a, "Anton A");
const clientA = await insert("clients", f.companies.a, "Client A AG");
const clientB = await insert("clients", f.companies.b, "Client B GmbH");
const collaborator = await insert("collaborators", f.companies.a, "Cora Collab");
const supplier = await insert("suppliers", f.companies.b, "Supply Co");
const otherContact = await insert("contacts", null, "Foreign", f.other.workspaceId);

Deno.test("create_activity: happy path for each kind of record, defaults, completion and derived duration", async () => {
  const a = await callOk(appA, f.keys.owner, "create_activity", { title: "First call", contactId: contact });
  assert.equal(a.type, "other");
  assert.deepEqual(a.entity, { kind: "contact", id: contact, name: "Carla Contact" });
  assert.deepEqual([a.contactId, a.clientId, a.collaboratorId, a.supplierId], [contact, null, null, null]);
  assert.equal(a.companyId, null);
  assert.equal(a.createdBy, f.users.owner);
  assert.equal(a.isCompleted, false);
  assert.equal(a.completedAt, null);
  assert.ok(Math.abs(Date.parse(a.activityDate) - Date.now()) < 60_000, "activityDate defaults to now");

  const m = await callOk(appA, f.keys.manager, "create_activity", {
    title: "Kick-off",
    type: "meeting",
    clientId: clientA,
    startDate: "2026-03-02T09:00:00+01:00",
    endDate: "2026-03-02T10:30:00+01:00",
    isCompleted: true,
    outcome: "signed",
    description: "Went well",
    notes: "bring cake",
  });
  assert.deepEqual(m.entity, { kind: "client", id: clientA, name: "Client A AG" });
  assert.equal(m.companyId, f.companies.a, "the activity takes its record's company");
  assert.equal(m.startDate, "2026-03-02T08:00:00Z");
  assert.equal(m.activityDate, "2026-03-02T08:00:00Z", "activityDate defaults to startDate");
  assert.equal(m.durationMinutes, 90);
  assert.equal(m.isCompleted, true);
  assert.ok(m.completedAt);
  assert.equal(m.createdBy, f.users.manager);

  const c = await callOk(appA, f.keys.owner, "create_activity", {
    title: "Sync",
    type: "video_call",
    collaboratorId: collaborator,
    activityDate: "2026-01-05",
    completedAt: "2026-01-05T12:00:00Z",
    isAllDay: true,
    durationMinutes: 15,
  });
  assert.deepEqual(c.entity, { kind: "collaborator", id: collaborator, name: "Cora Collab" });
  assert.equal(c.activityDate, "2026-01-05T00:00:00Z");
  assert.equal(c.isCompleted, true, "completedAt alone marks it completed");
  assert.equal(c.completedAt, "2026-01-05T12:00:00Z");
  assert.equal(c.isAllDay, true);
  assert.equal(c.durationMinutes, 15);

  const s = await callOk(appA, f.keys.owner, "create_activity", {
    title: "Order",
    type: "email",
    supplierId: supplier,
  });
  assert.deepEqual(s.entity, { kind: "supplier", id: supplier, name: "Supply Co" });
  assert.equal(s.companyId, f.companies.b);
  const [row] = await sql`select workspace_id, company_id, supplier_id from activities where id = ${s.id}`;
  assert.deepEqual({ ...row }, {
    workspace_id: f.workspaceId,
    company_id: f.companies.b,
    supplier_id: supplier,
  });
});

Deno.test("create_activity: the one-entity rule — none or several records → invalid_input naming it", async () => {
  let t = await callFails(appA, f.keys.owner, "create_activity", { title: "Orphan" }, "invalid_input");
  assert.match(t, /exactly one of contactId, clientId, collaboratorId or supplierId \(none was given\)/);
  t = await callFails(
    appA,
    f.keys.owner,
    "create_activity",
    { title: "Two", contactId: contact, clientId: clientA },
    "invalid_input",
  );
  assert.match(t, /exactly one of .* \(got contactId, clientId\)/);
  t = await callFails(appA, f.keys.owner, "create_activity", {
    title: "All",
    contactId: contact,
    clientId: clientA,
    collaboratorId: collaborator,
    supplierId: supplier,
  }, "invalid_input");
  assert.match(t, /got contactId, clientId, collaboratorId, supplierId/);
  // and the database refuses it too, whatever a future code path does
  await assert.rejects(
    sql`insert into activities (workspace_id, title, contact_id, client_id)
        values (${f.workspaceId}, 'x', ${contact}, ${clientA})`,
    /activities_one_entity/,
  );
  await assert.rejects(
    sql`insert into activities (workspace_id, title) values (${f.workspaceId}, 'x')`,
    /activities_one_entity/,
  );
});

Deno.test("create_activity: bad input and records out of reach", async () => {
  const base = { title: "x", contactId: contact };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ contactId: contact }, /title/],
    [{ ...base, title: "" }, /title: must not be empty/],
    [{ ...base, type: "fax" }, /type/],
    [{ ...base, contactId: "c-1" }, /contactId: must be a UUID/],
    [
      { ...base, startDate: "2026-03-02T10:00:00Z", endDate: "2026-03-02T09:00:00Z" },
      /endDate: must not be before startDate/,
    ],
    [{ ...base, durationMinutes: -1 }, /durationMinutes: must not be negative/],
    [{ ...base, durationMinutes: 1.5 }, /durationMinutes: must be an integer/],
    [{ ...base, activityDate: "yesterday" }, /activityDate/],
    [{ ...base, activityDate: "2026-03-02T10:00:00" }, /activityDate/],
    [{ ...base, isCompleted: false, completedAt: "2026-01-01" }, /completedAt: needs isCompleted true/],
    [{ ...base, extra: 1 }, /unknown field extra/],
  ];
  for (const [args, re] of cases) {
    const t = await callFails(appA, f.keys.owner, "create_activity", args, "invalid_input");
    assert.match(t, re, JSON.stringify(args));
  }
  let t = await callFails(
    appA,
    f.keys.owner,
    "create_activity",
    { title: "x", contactId: MISSING },
    "not_found",
  );
  assert.equal(t, `not_found: contactId: no contact ${MISSING}`);
  t = await callFails(
    appA,
    f.keys.owner,
    "create_activity",
    { title: "x", contactId: otherContact },
    "not_found",
  );
  assert.equal(
    t,
    `not_found: contactId: no contact ${otherContact}`,
    "another workspace's contact is unknown",
  );
  await callFails(appA, f.keys.owner, "create_activity", { title: "x", clientId: contact }, "not_found");
  // a key limited to company a cannot attach to company b's or company-less records
  await callFails(appA, f.keys.limited, "create_activity", { title: "x", clientId: clientB }, "not_found");
  await callFails(appA, f.keys.limited, "create_activity", { title: "x", contactId: contact }, "not_found");
  await callFails(
    appA,
    f.keys.ownerCompanyA,
    "create_activity",
    { title: "x", supplierId: supplier },
    "not_found",
  );
  const ok = await callOk(appA, f.keys.limited, "create_activity", { title: "mine", contactId: contactA });
  assert.equal(ok.companyId, f.companies.a);
});

Deno.test("update_activity: changes fields, moves between records, completion, rules and scope", async () => {
  const a = await callOk(appA, f.keys.owner, "create_activity", {
    title: "Draft",
    contactId: contactA,
    notes: "n",
    startDate: "2026-04-01T10:00:00Z",
  });
  let u = await callOk(appA, f.keys.admin, "update_activity", {
    activityId: a.id,
    title: "Final",
    type: "lunch",
    notes: null,
    outcome: "ok",
    isCompleted: true,
  });
  assert.equal(u.title, "Final");
  assert.equal(u.type, "lunch");
  assert.equal(u.notes, null);
  assert.equal(u.outcome, "ok");
  assert.equal(u.isCompleted, true);
  assert.ok(u.completedAt);
  assert.deepEqual(u.entity.kind, "contact", "records stay when none is given");
  u = await callOk(appA, f.keys.owner, "update_activity", { activityId: a.id, isCompleted: false });
  assert.deepEqual([u.isCompleted, u.completedAt], [false, null]);
  u = await callOk(appA, f.keys.owner, "update_activity", {
    activityId: a.id,
    completedAt: "2026-04-02T08:00:00Z",
  });
  assert.deepEqual([u.isCompleted, u.completedAt], [true, "2026-04-02T08:00:00Z"]);

  // move to a supplier of company b: the one record and the company change together
  u = await callOk(appA, f.keys.owner, "update_activity", { activityId: a.id, supplierId: supplier });
  assert.deepEqual(u.entity, { kind: "supplier", id: supplier, name: "Supply Co" });
  assert.deepEqual([u.contactId, u.supplierId, u.companyId], [null, supplier, f.companies.b]);
  // now out of reach for the company-a key
  await callFails(appA, f.keys.limited, "update_activity", { activityId: a.id, title: "x" }, "not_found");

  let t = await callFails(
    appA,
    f.keys.owner,
    "update_activity",
    { activityId: a.id, contactId: contact, clientId: clientA },
    "invalid_input",
  );
  assert.match(t, /exactly one of contactId/);
  t = await callFails(appA, f.keys.owner, "update_activity", {
    activityId: a.id,
    endDate: "2026-03-01T00:00:00Z",
  }, "invalid_input");
  assert.match(t, /endDate: must not be before startDate/, "checked against the stored startDate");
  await callFails(appA, f.keys.owner, "update_activity", { activityId: a.id }, "invalid_input");
  await callFails(
    appA,
    f.keys.owner,
    "update_activity",
    { activityId: a.id, type: "telegram" },
    "invalid_input",
  );
  await callFails(appA, f.keys.owner, "update_activity", { activityId: "1", title: "x" }, "invalid_input");
  await callFails(appA, f.keys.owner, "update_activity", { activityId: MISSING, title: "x" }, "not_found");
  await callFails(
    appA,
    f.keys.owner,
    "update_activity",
    { activityId: a.id, clientId: MISSING },
    "not_found",
  );
  t = await callFails(appA, f.other.key, "update_activity", { activityId: a.id, title: "x" }, "not_found");
  assert.equal(t, `not_found: activityId: no activity ${a.id}`);
  const [row] = await sql`select title from activities where id = ${a.id}`;
  assert.equal(row.title, "Final");
});

Deno.test("list_activities: filters by record, type and search; newest first; paging; scope and isolation", async () => {
  const fx = await buildFixture(sql);
  const mk = (table: string, company: string | null, name: string) =>
    insert(table, company, name, fx.workspaceId);
  const ct = await mk("contacts", fx.companies.a, "Lisa List");
  const cl = await mk("clients", fx.companies.b, "Listing Client");
  const co = await mk("collaborators", null, "Col");
  const su = await mk("suppliers", fx.companies.a, "Sup");
  const ids: Record<string, string> = {};
  const items: [string, Record<string, unknown>][] = [
    ["c1", { contactId: ct, type: "call", activityDate: "2026-01-01T10:00:00Z", notes: "budget talk" }],
    ["c2", { contactId: ct, type: "email", activityDate: "2026-01-03T10:00:00Z", outcome: "Needs BUDGET" }],
    ["l1", { clientId: cl, type: "call", activityDate: "2026-01-02T10:00:00Z", description: "intro" }],
    ["o1", { collaboratorId: co, type: "meeting", activityDate: "2026-01-04T10:00:00Z" }],
    ["s1", { supplierId: su, type: "call", activityDate: "2026-01-05T10:00:00Z", title: "Budget order" }],
  ];
  for (const [k, args] of items) {
    ids[k] = (await callOk(appA, fx.keys.owner, "create_activity", { title: k, ...args })).id;
  }
  const list = (key: string, args: Record<string, unknown>) =>
    callOk(appA, key, "list_activities", args).then((r) => r.items.map((a: { id: string }) => a.id));
  assert.deepEqual(await list(fx.keys.owner, {}), [ids.s1, ids.o1, ids.c2, ids.l1, ids.c1]);
  assert.deepEqual(await list(fx.keys.owner, { contactId: ct }), [ids.c2, ids.c1]);
  assert.deepEqual(await list(fx.keys.owner, { clientId: cl }), [ids.l1]);
  assert.deepEqual(await list(fx.keys.owner, { collaboratorId: co }), [ids.o1]);
  assert.deepEqual(await list(fx.keys.owner, { supplierId: su }), [ids.s1]);
  assert.deepEqual(await list(fx.keys.owner, { type: "call" }), [ids.s1, ids.l1, ids.c1]);
  assert.deepEqual(await list(fx.keys.owner, { search: "budget" }), [ids.s1, ids.c2, ids.c1]);
  assert.deepEqual(await list(fx.keys.owner, { search: "budget", type: "call", contactId: ct }), [ids.c1]);
  const page = await callOk(appA, fx.keys.owner, "list_activities", { limit: 2, offset: 2 });
  assert.deepEqual(page.items.map((a: { id: string }) => a.id), [ids.c2, ids.l1]);
  assert.deepEqual([page.total, page.limit, page.offset, page.hasMore], [5, 2, 2, true]);
  assert.deepEqual(page.items[0], {
    id: ids.c2,
    type: "email",
    title: "c2",
    activityDate: "2026-01-03T10:00:00Z",
    isCompleted: false,
    entity: { kind: "contact", id: ct, name: "Lisa List" },
  });
  // full: every field, as get and update answer it
  const whole = await callOk(appA, fx.keys.owner, "list_activities", { limit: 2, offset: 2, full: true });
  assert.deepEqual(whole.items.map((a: { id: string }) => a.id), [ids.c2, ids.l1]);
  const c2 = await callOk(appA, fx.keys.owner, "update_activity", { activityId: ids.c2, isAllDay: false });
  assert.deepEqual({ ...whole.items[0], updatedAt: c2.updatedAt }, c2);
  assert.equal(whole.items[0].outcome, "Needs BUDGET");
  assert.deepEqual(whole.items[1].entity, { kind: "client", id: cl, name: "Listing Client" });
  assert.equal(whole.items[1].clientId, cl);

  // company scope: the company-a member sees the activities of company-a records only
  assert.deepEqual(await list(fx.keys.limited, {}), [ids.s1, ids.c2, ids.c1]);
  await callFails(appA, fx.keys.limited, "list_activities", { clientId: cl }, "not_found");
  await callFails(appA, fx.keys.limited, "list_activities", { collaboratorId: co }, "not_found");
  // isolation
  assert.deepEqual(await list(f.keys.owner, { search: "budget order" }), []);
  await callFails(appA, f.keys.owner, "list_activities", { contactId: ct }, "not_found");
  // bad input
  await callFails(appA, fx.keys.owner, "list_activities", { type: "fax" }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_activities", { contactId: "x" }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_activities", { limit: 101 }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_activities", { contactId: MISSING }, "not_found");
});

Deno.test("activity tools: role gating, user context and variants", async () => {
  for (const role of ["accounting", "guest"] as const) {
    for (
      const [tool, args] of [
        ["list_activities", {}],
        ["create_activity", { title: "x", contactId: contact }],
        ["update_activity", { activityId: MISSING, title: "x" }],
      ] as const
    ) {
      const t = await callFails(appA, f.keys[role], tool, args, "access_denied");
      assert.match(t, new RegExp(`the ${role} role may not use crm tools`));
    }
  }
  for (const role of ["owner", "admin", "manager", "member"] as const) {
    assert.ok((await listedTools(appA, f.keys[role])).includes("create_activity"), role);
  }
  // variant B has none of them
  const b = await listedTools(appB, f.keys.internal);
  for (const name of ["list_activities", "create_activity", "update_activity"]) {
    assert.ok(!b.includes(name));
    const r = await rpc(appB, f.keys.internal, "tools/call", { name, arguments: {} });
    assert.equal(r.body.error.code, -32602);
  }
});
