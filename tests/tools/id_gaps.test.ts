// The last id gaps of issue 25 point 2, closed: list_crm_parties (collaborators and suppliers, the ids
// collaboratorId and supplierId take) and list_clients in variant B. Every UUID parameter of every tool of each
// variant has a lookup the variant serves; happy path, bad input, gating, company scope, isolation, both ways in.
import assert from "node:assert/strict";
import { buildRegistry } from "../../lib/mcp/registry.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { TOOLS } from "../../tools/mod.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, listedTools, mcpApp, rpc } from "../helpers/mcp.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/**
 * The read tools that give each id parameter (docs/mcp.md "Where every id comes from"), by parameter name, or by
 * tool and parameter where one name means two things. A "create" answer is no lookup: the record must be findable.
 */
const LOOKUPS: Record<string, string[]> = {
  companyId: ["get_context"],
  projectId: ["list_projects"],
  projectIds: ["list_projects"],
  taskId: ["list_tasks", "list_subtasks"],
  parentTaskId: ["list_tasks"],
  assigneeIds: ["list_members"],
  userId: ["list_members"],
  targetUserId: ["list_members"],
  assignedTo: ["list_members"],
  clientId: ["list_clients"],
  offerId: ["list_offers"],
  trancheId: ["get_offer"],
  originalInvoiceId: ["list_invoices"],
  contactId: ["list_contacts", "export_contacts"],
  collaboratorId: ["list_crm_parties"],
  supplierId: ["list_crm_parties"],
  documentId: ["list_workspace_documents"],
  recordingId: ["list_recordings"],
  categoryId: ["list_time_categories"],
  timeLogId: ["list_time_logs"],
  appointmentId: ["list_appointments"],
  bookingCalendarId: ["list_calendars", "get_booking_settings"],
  "update_activity.activityId": ["list_activities"],
  "update_ai_activity_phase.activityId": ["list_ai_activities"],
  "get_ai_activity.activityId": ["list_ai_activities"],
  "create_workspace_document.activityId": ["list_ai_activities"],
};

function nonNull(p: Any): Any {
  return p?.anyOf?.find((x: Any) => x.type !== "null") ?? p;
}

for (const variant of ["A", "B"] as const) {
  Deno.test(`variant ${variant}: every UUID parameter of every tool has a read-only lookup the variant serves`, () => {
    const reg = buildRegistry(TOOLS, variant);
    const missing: string[] = [];
    let params = 0;
    for (const t of reg.all.values()) {
      for (
        const [name, raw] of Object.entries((t.listing.inputSchema.properties ?? {}) as Record<string, Any>)
      ) {
        const p = nonNull(raw);
        const item = p.type === "array" ? nonNull(p.items) : p;
        const isId = item?.format === "uuid" || /UUID or display id/.test(String(p.description ?? ""));
        if (!isId) continue;
        params++;
        const lookups = LOOKUPS[`${t.name}.${name}`] ?? LOOKUPS[name];
        const served = (lookups ?? []).filter((l) => reg.all.get(l)?.def.annotations.readOnlyHint === true);
        if (served.length === 0) missing.push(`${t.name}.${name}`);
      }
    }
    assert.deepEqual(missing, []);
    assert.ok(params > (variant === "A" ? 60 : 25), `${params} id parameters`);
  });
}

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const B = mcpApp(db.sql, "B");
const { a, b } = f.companies;

async function collaborator(
  ws: string,
  company: string | null,
  name: string,
  email: string | null,
  role: string,
) {
  const [r] = await db.sql<{ id: string }[]>`
    insert into collaborators (workspace_id, company_id, name, email, phone, role)
    values (${ws}, ${company}, ${name}, ${email}, '+41 44 000 00 00', ${role}) returning id`;
  return r.id;
}
async function supplier(
  ws: string,
  company: string | null,
  name: string,
  email: string | null,
  vat: string | null,
) {
  const [r] = await db.sql<{ id: string }[]>`
    insert into suppliers (workspace_id, company_id, name, email, vat_number)
    values (${ws}, ${company}, ${name}, ${email}, ${vat}) returning id`;
  return r.id;
}

const ids = {
  nina: await collaborator(f.workspaceId, a, "Nina Freelance", "nina@freelance.example", "Illustrator"),
  tom: await collaborator(f.workspaceId, null, "Tom Copy", "tom@copy.example", "Copywriter"),
  bea: await collaborator(f.workspaceId, b, "bea South", null, "Photographer"),
  print: await supplier(f.workspaceId, b, "PrintWorks AG", "orders@printworks.example", "CHE-111.222.333"),
  alpha: await supplier(f.workspaceId, a, "Alpha Supplies", "sales@alpha-supplies.example", null),
  cloud: await supplier(f.workspaceId, null, "CloudHost Ltd", "billing@cloudhost.example", null),
  otherNina: await collaborator(
    f.other.workspaceId,
    f.other.companyId,
    "Nina Other",
    "nina@other.example",
    "x",
  ),
  otherPrint: await supplier(f.other.workspaceId, null, "Print Other", null, null),
};
const ALL = ["alpha", "bea", "cloud", "nina", "print", "tom"] as const;
const names = (page: Any) => page.items.map((p: Any) => p.name);

Deno.test("list_crm_parties for an owner: collaborators and suppliers by name, with kind and the record's fields", async () => {
  const page = await callOk(A, f.keys.owner, "list_crm_parties");
  assert.deepEqual(page.items.map((p: Any) => p.id), ALL.map((k) => ids[k]));
  assert.deepEqual(page.items[3], {
    id: ids.nina,
    kind: "collaborator",
    name: "Nina Freelance",
    email: "nina@freelance.example",
    phone: "+41 44 000 00 00",
    role: "Illustrator",
    companyId: a,
  });
  assert.deepEqual(page.items[4], {
    id: ids.print,
    kind: "supplier",
    name: "PrintWorks AG",
    email: "orders@printworks.example",
    phone: null,
    vatNumber: "CHE-111.222.333",
    companyId: b,
  });
  assert.deepEqual([page.total, page.hasMore, page.nextOffset, page.limit, page.offset], [
    6,
    false,
    null,
    50,
    0,
  ]);
});

Deno.test("list_crm_parties: kind, query (name or email, literal) and paging", async () => {
  const collab = await callOk(A, f.keys.member, "list_crm_parties", { kind: "collaborator" });
  assert.deepEqual(names(collab), ["bea South", "Nina Freelance", "Tom Copy"]);
  assert.ok(collab.items.every((p: Any) => p.kind === "collaborator" && "role" in p && !("vatNumber" in p)));
  const sup = await callOk(A, f.keys.member, "list_crm_parties", { kind: "supplier" });
  assert.deepEqual(names(sup), ["Alpha Supplies", "CloudHost Ltd", "PrintWorks AG"]);
  assert.ok(sup.items.every((p: Any) => p.kind === "supplier" && "vatNumber" in p && !("role" in p)));
  assert.deepEqual(names(await callOk(A, f.keys.member, "list_crm_parties", { query: "NINA" })), [
    "Nina Freelance",
  ]);
  assert.deepEqual(
    names(await callOk(A, f.keys.member, "list_crm_parties", { query: "cloudhost.example" })),
    [
      "CloudHost Ltd",
    ],
  );
  const both = await callOk(A, f.keys.member, "list_crm_parties", { query: "o", kind: "supplier" });
  assert.deepEqual(names(both), ["CloudHost Ltd", "PrintWorks AG"]);
  for (const literal of ["%", "_"]) {
    assert.equal((await callOk(A, f.keys.member, "list_crm_parties", { query: literal })).total, 0, literal);
  }
  const p1 = await callOk(A, f.keys.member, "list_crm_parties", { limit: 4 });
  assert.deepEqual([p1.items.length, p1.total, p1.hasMore, p1.nextOffset], [4, 6, true, 4]);
  const p2 = await callOk(A, f.keys.member, "list_crm_parties", { limit: 4, offset: 4 });
  assert.deepEqual(names(p2), ["PrintWorks AG", "Tom Copy"]);
  assert.deepEqual([p2.hasMore, p2.nextOffset], [false, null]);
});

Deno.test("list_crm_parties: bad input is invalid_input naming the field", async () => {
  for (
    const [args, field] of [
      [{ kind: "client" }, "kind"],
      [{ kind: "" }, "kind"],
      [{ query: "" }, "query"],
      [{ query: "x".repeat(201) }, "query"],
      [{ limit: 0 }, "limit"],
      [{ limit: 201 }, "limit"],
      [{ offset: -1 }, "offset"],
      [{ collaboratorId: ids.nina }, "collaboratorId"],
    ] as const
  ) {
    const text = await callFails(A, f.keys.owner, "list_crm_parties", args, "invalid_input");
    assert.match(text, new RegExp(field), text);
  }
});

Deno.test("list_crm_parties: its ids are what create_activity and list_activities take", async () => {
  const [nina] = (await callOk(A, f.keys.member, "list_crm_parties", { query: "Nina" })).items;
  const act = await callOk(A, f.keys.member, "create_activity", {
    title: "Briefing",
    type: "call",
    collaboratorId: nina.id,
  });
  assert.deepEqual(act.entity, { kind: "collaborator", id: ids.nina, name: "Nina Freelance" });
  const [print] =
    (await callOk(A, f.keys.member, "list_crm_parties", { kind: "supplier", query: "print" })).items;
  await callOk(A, f.keys.member, "create_activity", { title: "Reorder", supplierId: print.id });
  const found = await callOk(A, f.keys.member, "list_activities", { supplierId: print.id });
  assert.deepEqual(found.items.map((x: Any) => x.title), ["Reorder"]);
});

Deno.test("list_crm_parties: company scope — a limited caller sees its companies' records, no company-less ones", async () => {
  const want = ["Alpha Supplies", "Nina Freelance"];
  assert.deepEqual(names(await callOk(A, f.keys.limited, "list_crm_parties")), want);
  assert.deepEqual(names(await callOk(A, f.keys.ownerCompanyA, "list_crm_parties")), want);
  const bOnly = await f.key({ user: f.users.owner, companyId: b });
  assert.deepEqual(names(await callOk(A, bOnly, "list_crm_parties")), ["bea South", "PrintWorks AG"]);
  // the limited member's key scoped to company b reaches nothing
  const none = await f.key({ user: f.users.limited, companyId: b });
  assert.equal((await callOk(A, none, "list_crm_parties")).total, 0);
});

Deno.test("list_crm_parties: another workspace's records never appear, its own caller sees only its own", async () => {
  const mine = await callOk(A, f.keys.owner, "list_crm_parties", { limit: 200 });
  const seen = mine.items.map((p: Any) => p.id);
  assert.equal(seen.includes(ids.otherNina) || seen.includes(ids.otherPrint), false);
  assert.equal((await callOk(A, f.keys.owner, "list_crm_parties", { query: "Other" })).total, 0);
  const theirs = await callOk(A, f.other.key, "list_crm_parties");
  assert.deepEqual(theirs.items.map((p: Any) => p.id), [ids.otherNina, ids.otherPrint]);
});

Deno.test("list_crm_parties: gated like the activity tools — crm area roles, the role setting, the crm module", async () => {
  for (const role of ["owner", "admin", "manager", "member"] as const) {
    assert.ok((await listedTools(A, f.keys[role])).includes("list_crm_parties"), role);
    assert.equal((await callOk(A, f.keys[role], "list_crm_parties")).total, 6, role);
  }
  for (const role of ["accounting", "guest"] as const) {
    assert.equal((await listedTools(A, f.keys[role])).includes("list_crm_parties"), false, role);
    const t = await callFails(A, f.keys[role], "list_crm_parties", {}, "access_denied");
    assert.equal(t, `access_denied: the ${role} role may not use crm tools in this workspace`);
  }
  await db.sql`insert into role_permissions (workspace_id, area, roles) values (${f.workspaceId}, 'crm', ${[
    "admin",
  ]})`;
  try {
    await callFails(A, f.keys.member, "list_crm_parties", {}, "access_denied");
    await callFails(A, f.keys.manager, "list_crm_parties", {}, "access_denied");
    assert.equal((await callOk(A, f.keys.admin, "list_crm_parties")).total, 6);
    assert.equal((await callOk(A, f.keys.owner, "list_crm_parties")).total, 6);
  } finally {
    await db.sql`delete from role_permissions where workspace_id = ${f.workspaceId}`;
  }
  const noCrm = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "crm") });
  assert.equal((await listedTools(A, noCrm.keys.owner)).includes("list_crm_parties"), false);
  const t = await callFails(A, noCrm.keys.owner, "list_crm_parties", {}, "unavailable");
  assert.match(t, /crm module is disabled/);
});

Deno.test("list_crm_parties is A only, like the activity tools that take its ids", async () => {
  for (const key of [f.keys.internal, f.keys.workspace]) {
    assert.equal((await listedTools(B, key)).includes("list_crm_parties"), false);
    const r = await rpc(B, key, "tools/call", { name: "list_crm_parties", arguments: {} });
    assert.equal(r.body.error.code, -32602);
  }
});

Deno.test("list_crm_parties through an OAuth access token answers as the person's key does", async () => {
  const limited = await bearerFor(db.sql, { userId: f.users.limited, workspaceId: f.workspaceId });
  assert.deepEqual(
    await callOk(A, limited.auth, "list_crm_parties"),
    await callOk(A, f.keys.limited, "list_crm_parties"),
  );
  const scoped = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId, companyId: a });
  assert.deepEqual(names(await callOk(A, scoped.auth, "list_crm_parties")), [
    "Alpha Supplies",
    "Nina Freelance",
  ]);
  const guest = await bearerFor(db.sql, { userId: f.users.guest, workspaceId: f.workspaceId });
  await callFails(A, guest.auth, "list_crm_parties", {}, "access_denied");
});

// ---------------------------------------------------------------------------------------------------------------
// list_clients in variant B

const clients = {
  north: (await callOk(A, f.keys.owner, "create_client", { companyName: "Zeta North", companyId: a })).id,
  south: (await callOk(A, f.keys.owner, "create_client", { companyName: "Ypsilon South", companyId: b })).id,
  none: (await callOk(A, f.keys.owner, "create_client", { companyName: "Xenon Free", city: "Bern" })).id,
  other: (await callOk(A, f.other.key, "create_client", { companyName: "Other Client" })).id,
};
const clientIds = (page: Any) => page.items.map((c: Any) => c.id);

Deno.test("list_clients in B: A's schema, description and annotations unchanged", () => {
  const inA = buildRegistry(TOOLS, "A").all.get("list_clients")!.listing;
  const inB = buildRegistry(TOOLS, "B").all.get("list_clients")!.listing;
  assert.deepEqual(inB, inA);
});

Deno.test("list_clients in B: every B caller lists the clients of its companies, as A answers them", async () => {
  const everyone = [clients.none, clients.south, clients.north];
  for (const key of [f.keys.internal, f.keys.workspace]) {
    assert.ok((await listedTools(B, key)).includes("list_clients"));
    assert.deepEqual(clientIds(await callOk(B, key, "list_clients")), everyone);
  }
  // the assistant acts as the owner: the same page as the owner's in A, summaries and full rows
  assert.deepEqual(
    await callOk(B, f.keys.internal, "list_clients"),
    await callOk(A, f.keys.owner, "list_clients"),
  );
  assert.deepEqual(
    await callOk(B, f.keys.internal, "list_clients", { full: true, limit: 2, offset: 1 }),
    await callOk(A, f.keys.owner, "list_clients", { full: true, limit: 2, offset: 1 }),
  );
  // company scope: a key of company a, a limited member's key
  assert.deepEqual(clientIds(await callOk(B, f.keys.workspaceCompanyA, "list_clients")), [clients.north]);
  assert.deepEqual(clientIds(await callOk(B, f.keys.limited, "list_clients")), [clients.north]);
  const internalB = await f.key({ kind: "internal", user: f.users.admin, companyId: b });
  assert.deepEqual(clientIds(await callOk(B, internalB, "list_clients")), [clients.south]);
  // a clientId found there is what create_project takes in B
  const [zeta] = (await callOk(B, f.keys.workspaceCompanyA, "list_clients")).items;
  const project = await callOk(B, f.keys.workspaceCompanyA, "create_project", {
    name: "Via B",
    clientId: zeta.id,
  });
  assert.equal(project.clientId, clients.north);
});

Deno.test("list_clients in B: bad input is invalid_input naming the field; another workspace's clients stay out", async () => {
  for (
    const [args, field] of [[{ limit: 0 }, "limit"], [{ limit: 501 }, "limit"], [
      { query: "x" },
      "query",
    ]] as const
  ) {
    const text = await callFails(B, f.keys.workspace, "list_clients", args, "invalid_input");
    assert.match(text, new RegExp(field), text);
  }
  const mine = await callOk(B, f.keys.workspace, "list_clients", { limit: 500 });
  assert.equal(clientIds(mine).includes(clients.other), false);
  assert.deepEqual(clientIds(await callOk(B, f.other.key, "list_clients")), [clients.other]);
});

Deno.test("list_clients in B through an OAuth access token answers as the person's key does", async () => {
  const owner = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  assert.deepEqual(
    await callOk(B, owner.auth, "list_clients"),
    await callOk(A, f.keys.owner, "list_clients"),
  );
  const limited = await bearerFor(db.sql, { userId: f.users.limited, workspaceId: f.workspaceId });
  assert.deepEqual(clientIds(await callOk(B, limited.auth, "list_clients")), [clients.north]);
});
