// Client tools: list_clients, create_client, update_client — happy path, bad input, not_found, company scope,
// workspace isolation, role gating, in each variant they exist in.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, callTool, listedTools, mcpApp, rpc } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const B = mcpApp(db.sql, "B");
const owner = f.keys.owner;
const MISSING = "00000000-0000-4000-8000-000000000000";

const [otherClient] = await db.sql<{ id: string }[]>`
  insert into clients (workspace_id, company_id, name) values (${f.other.workspaceId}, ${f.other.companyId}, 'Foreign')
  returning id`;

Deno.test("create_client A: every field, decimals normalised, answered as JSON and structuredContent", async () => {
  const r = await callTool(A, owner, "create_client", {
    companyName: "  Zeta Works  ",
    firstName: "Zoe",
    lastName: "Zed",
    email: "zoe@zeta.example",
    phone: "+41 44 000 00 00",
    vatNumber: "CHE-123.456.789",
    address: "Main street 1",
    postalCode: "8000",
    city: "Zürich",
    country: "CH",
    companyId: f.companies.a,
    department: "Purchasing",
    vatRate: 8.1,
    intermediary: "Partner AG",
    commission: "12.5",
  });
  assert.equal(r.isError, false, r.text);
  assert.deepEqual(r.structuredContent, r.data);
  const c = r.data;
  assert.match(c.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual({ ...c, id: undefined, createdAt: undefined, updatedAt: undefined }, {
    id: undefined,
    companyName: "Zeta Works",
    firstName: "Zoe",
    lastName: "Zed",
    email: "zoe@zeta.example",
    phone: "+41 44 000 00 00",
    vatNumber: "CHE-123.456.789",
    address: "Main street 1",
    postalCode: "8000",
    city: "Zürich",
    country: "CH",
    companyId: f.companies.a,
    department: "Purchasing",
    vatRate: "8.10",
    intermediary: "Partner AG",
    commission: "12.50",
    createdAt: undefined,
    updatedAt: undefined,
  });
  assert.match(c.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const min = await callOk(A, owner, "create_client", { companyName: "Minimal" });
  assert.equal(min.companyId, null);
  assert.equal(min.vatRate, null);
  assert.equal(min.email, null);
});

Deno.test("create_client B: base fields only; A-only fields are unknown there", async () => {
  const c = await callOk(B, f.keys.workspace, "create_client", {
    companyName: "Beta B",
    email: "b@beta.example",
    city: "Bern",
  });
  assert.equal(c.companyName, "Beta B");
  assert.equal(c.city, "Bern");
  assert.equal(c.vatRate, null);
  for (const field of ["department", "vatRate", "intermediary", "commission"]) {
    const t = await callFails(
      B,
      f.keys.workspace,
      "create_client",
      { companyName: "x", [field]: "1" },
      "invalid_input",
    );
    assert.match(t, new RegExp(`unknown field ${field}`));
  }
});

Deno.test("create_client: bad input names the field and rule", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{}, /companyName/],
    [{ companyName: "" }, /companyName: must not be empty/],
    [{ companyName: "x".repeat(201) }, /companyName: must be at most 200/],
    [{ companyName: "x", email: "not-an-email" }, /email: must be an email address/],
    [{ companyName: "x", vatRate: 100.5 }, /vatRate: must be at most 100/],
    [{ companyName: "x", vatRate: "8.125" }, /vatRate: must have at most 2 decimals/],
    [{ companyName: "x", vatRate: -1 }, /vatRate: must be at least 0/],
    [{ companyName: "x", vatRate: "eight" }, /vatRate: must be a decimal number/],
    [{ companyName: "x", commission: true }, /commission: must be a number or a decimal string/],
    [{ companyName: "x", companyId: "nope" }, /companyId: must be a UUID/],
    [{ companyName: "x", postalCode: "1".repeat(21) }, /postalCode: must be at most 20/],
    [{ companyName: "x", color: "red" }, /unknown field color/],
  ];
  for (const [args, re] of cases) {
    const t = await callFails(A, owner, "create_client", args, "invalid_input");
    assert.match(t, re, JSON.stringify(args));
  }
});

Deno.test("create_client: unknown or foreign company → not_found; a company-limited key writes into its company", async () => {
  await callFails(A, owner, "create_client", { companyName: "x", companyId: MISSING }, "not_found");
  await callFails(A, owner, "create_client", { companyName: "x", companyId: f.other.companyId }, "not_found");
  // the key scoped to company a: cannot name company b, and lands in a by default
  await callFails(
    A,
    f.keys.ownerCompanyA,
    "create_client",
    { companyName: "x", companyId: f.companies.b },
    "not_found",
  );
  const c = await callOk(A, f.keys.ownerCompanyA, "create_client", { companyName: "Scoped" });
  assert.equal(c.companyId, f.companies.a);
  const cb = await callOk(B, f.keys.workspaceCompanyA, "create_client", { companyName: "Scoped B" });
  assert.equal(cb.companyId, f.companies.a);
});

Deno.test("list_clients: sorted by company name, limited by company scope and workspace", async () => {
  const created: Record<string, Record<string, unknown>> = {};
  for (
    const [name, company] of [["alpha GmbH", f.companies.b], ["Omega Ltd", f.companies.b], ["Beta AG", null]]
  ) {
    created[name!] = await callOk(A, owner, "create_client", {
      companyName: name,
      ...(company ? { companyId: company } : {}),
      ...(name === "Beta AG"
        ? { firstName: "Bea", lastName: "Berger", email: "bea@beta.example", city: "Basel", address: "Weg 1" }
        : {}),
    });
  }
  const all = await callOk(A, owner, "list_clients");
  // compact rows: what picks a client; everything else with full: true
  const row = (name: string) => all.items.find((c: { companyName: string }) => c.companyName === name);
  assert.deepEqual(row("Beta AG"), {
    id: created["Beta AG"].id,
    companyName: "Beta AG",
    contactName: "Bea Berger",
    email: "bea@beta.example",
    city: "Basel",
  });
  assert.deepEqual(row("alpha GmbH"), {
    id: created["alpha GmbH"].id,
    companyName: "alpha GmbH",
    contactName: null,
    email: null,
    city: null,
  });
  const full = await callOk(A, owner, "list_clients", { full: true });
  assert.deepEqual(full.items.map((c: { id: string }) => c.id), all.items.map((c: { id: string }) => c.id));
  assert.deepEqual(
    full.items.find((c: { id: string }) => c.id === created["Beta AG"].id),
    created["Beta AG"],
  );
  const names: string[] = all.items.map((c: { companyName: string }) => c.companyName);
  assert.deepEqual(names, [...names].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())));
  assert.equal(all.total, all.items.length);
  assert.ok(names.includes("alpha GmbH") && names.includes("Beta AG"));
  assert.ok(!names.includes("Foreign"), "another workspace's client is invisible");
  const scoped = await callOk(A, f.keys.ownerCompanyA, "list_clients", { full: true });
  assert.ok(scoped.items.length > 0);
  for (const c of scoped.items) assert.equal(c.companyId, f.companies.a);
  const scopedCompact = await callOk(A, f.keys.ownerCompanyA, "list_clients");
  assert.deepEqual(
    scopedCompact.items.map((c: { id: string }) => c.id),
    scoped.items.map((c: { id: string }) => c.id),
  );
  await callFails(A, owner, "list_clients", { limit: 0 }, "invalid_input");
  await callFails(A, owner, "list_clients", { full: "yes" }, "invalid_input");
});

Deno.test("update_client: changes given fields, clears with null, moves company within scope", async () => {
  const c = await callOk(A, owner, "create_client", {
    companyName: "Update Me",
    email: "u@x.example",
    vatRate: 20,
    commission: 5,
    companyId: f.companies.a,
  });
  const u = await callOk(A, owner, "update_client", {
    clientId: c.id.toUpperCase(),
    companyName: "Updated",
    email: null,
    vatRate: "7.7",
    city: "Basel",
    commission: null,
    companyId: f.companies.b,
  });
  assert.equal(u.id, c.id);
  assert.equal(u.companyName, "Updated");
  assert.equal(u.email, null);
  assert.equal(u.vatRate, "7.70");
  assert.equal(u.commission, null);
  assert.equal(u.city, "Basel");
  assert.equal(u.companyId, f.companies.b);
  const cleared = await callOk(A, owner, "update_client", { clientId: c.id, companyId: null });
  assert.equal(cleared.companyId, null);

  await callFails(A, owner, "update_client", { clientId: c.id }, "invalid_input");
  await callFails(A, owner, "update_client", { clientId: "x", city: "y" }, "invalid_input");
  await callFails(A, owner, "update_client", { clientId: c.id, companyName: null }, "invalid_input");
  await callFails(A, owner, "update_client", { clientId: c.id, vatRate: 101 }, "invalid_input");
  await callFails(A, owner, "update_client", { clientId: MISSING, city: "y" }, "not_found");
  await callFails(A, owner, "update_client", { clientId: otherClient.id, city: "y" }, "not_found");
  await callFails(A, owner, "update_client", { clientId: c.id, companyId: f.other.companyId }, "not_found");
  // the company-a key: a client without company or of company b does not exist for it
  await callFails(A, f.keys.ownerCompanyA, "update_client", { clientId: c.id, city: "y" }, "not_found");
  const inA = await callOk(A, f.keys.ownerCompanyA, "create_client", { companyName: "In A" });
  await callFails(
    A,
    f.keys.ownerCompanyA,
    "update_client",
    { clientId: inA.id, companyId: f.companies.b },
    "not_found",
  );
  const t = await callFails(
    A,
    f.keys.ownerCompanyA,
    "update_client",
    { clientId: inA.id, companyId: null },
    "invalid_input",
  );
  assert.match(t, /companyId: cannot be cleared/);
  const [row] = await db.sql`select company_id from clients where id = ${inA.id}`;
  assert.equal(row.company_id, f.companies.a, "nothing changed");
});

Deno.test("client tools: roles without the clients area neither see nor call them; B has no role gating", async () => {
  for (const role of ["owner", "admin", "manager", "accounting"] as const) {
    const names = await listedTools(A, f.keys[role]);
    for (const t of ["list_clients", "create_client", "update_client"]) {
      assert.ok(names.includes(t), `${role} ${t}`);
    }
  }
  for (const role of ["member", "guest"] as const) {
    const names = await listedTools(A, f.keys[role]);
    for (const t of ["list_clients", "create_client", "update_client"]) {
      assert.ok(!names.includes(t), `${role} ${t}`);
    }
    const msg = await callFails(A, f.keys[role], "list_clients", {}, "access_denied");
    assert.match(msg, /may not use clients tools/);
    await callFails(A, f.keys[role], "create_client", { companyName: "x" }, "access_denied");
  }
  const b = await listedTools(B, f.keys.workspace);
  assert.ok(b.includes("create_client"));
  // list_clients is in B too (a Portico extension there: tests/tools/id_gaps.test.ts); update_client is not
  assert.ok(b.includes("list_clients") && !b.includes("update_client"), "update_client is A only");
  const r = await rpc(B, f.keys.workspace, "tools/call", { name: "update_client", arguments: {} });
  assert.equal(r.body.error.code, -32602);
});
