// create_offer and create_idea: totals and payment plans, user context, bad input, not_found, company scope,
// workspace isolation, role and module gating, in both variants.
import assert from "node:assert/strict";
import { MODULES } from "../../lib/workspace/modules.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, callTool, listedTools, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const B = mcpApp(db.sql, "B");
const owner = f.keys.owner;
const MISSING = "00000000-0000-4000-8000-000000000000";

const clientB = await callOk(A, owner, "create_client", {
  companyName: "Client B",
  companyId: f.companies.b,
});
const [foreignClient] = await db.sql<{ id: string }[]>`
  insert into clients (workspace_id, company_id, name) values (${f.other.workspaceId}, ${f.other.companyId}, 'Foreign')
  returning id`;

/** The rows of the worked example in docs/commercial.md: 1187.50 + 53.97 + 0.23 = 1241.70. */
const ROWS = [
  { description: "Design", quantity: 12.5, unit: "h", unitPrice: "95" },
  { description: "Hosting", quantity: "3", unitPrice: 19.99, discountPercent: 10 },
  { description: "Stickers", quantity: 1.5, unitPrice: "0.15" },
];

Deno.test("create_offer A: rows → total, tranches priced (percentage shares and amounts), recorded as the caller", async () => {
  const r = await callTool(A, f.keys.admin, "create_offer", {
    subject: "Website",
    description: "Relaunch",
    clientId: clientB.id,
    offerDate: "2026-03-01",
    validUntil: "2026-03-31",
    currency: "CHF",
    notes: "n",
    rows: ROWS,
    tranches: [
      { label: "Deposit", percentage: 30, dueDate: "2026-03-15" },
      { percentage: "40" },
      { label: "Hosting", amount: "100" },
    ],
  });
  assert.equal(r.isError, false, r.text);
  assert.deepEqual(r.structuredContent, r.data);
  const o = r.data;
  assert.equal(o.subject, "Website");
  assert.equal(o.clientId, clientB.id);
  assert.equal(o.clientName, "Client B");
  assert.equal(o.companyId, f.companies.b, "the client's company");
  assert.equal(o.offerDate, "2026-03-01");
  assert.equal(o.validUntil, "2026-03-31");
  assert.equal(o.currency, "CHF");
  assert.equal(o.createdBy, f.users.admin);
  assert.equal(o.total, "1241.70");
  assert.deepEqual(o.rows, [
    {
      position: 1,
      description: "Design",
      quantity: "12.5",
      unit: "h",
      unitPrice: "95.00",
      discountPercent: "0.00",
      amount: "1187.50",
    },
    {
      position: 2,
      description: "Hosting",
      quantity: "3",
      unit: null,
      unitPrice: "19.99",
      discountPercent: "10.00",
      amount: "53.97",
    },
    {
      position: 3,
      description: "Stickers",
      quantity: "1.5",
      unit: null,
      unitPrice: "0.15",
      discountPercent: "0.00",
      amount: "0.23",
    },
  ]);
  assert.deepEqual(
    o.tranches.map((t: Record<string, unknown>) => ({ ...t, id: undefined })),
    [
      {
        id: undefined,
        position: 1,
        label: "Deposit",
        percentage: "30.00",
        amount: "372.51",
        dueDate: "2026-03-15",
        status: "to_invoice",
        invoiceId: null,
      },
      {
        id: undefined,
        position: 2,
        label: "",
        percentage: "40.00",
        amount: "496.68",
        dueDate: null,
        status: "to_invoice",
        invoiceId: null,
      },
      {
        id: undefined,
        position: 3,
        label: "Hosting",
        percentage: null,
        amount: "100.00",
        dueDate: null,
        status: "to_invoice",
        invoiceId: null,
      },
    ],
  );
  const [stored] = await db.sql`select total::text as total from offers where id = ${o.id}`;
  assert.equal(stored.total, "1241.70");
});

Deno.test("create_offer: defaults; percentages of exactly 100 share the total without an extra cent", async () => {
  const o = await callOk(A, owner, "create_offer", {
    rows: [{ description: "x", unitPrice: "100.01" }],
    tranches: [{ percentage: 50 }, { percentage: 50 }],
  });
  assert.match(o.subject, /^Offer of \d{4}-\d\d-\d\d$/);
  assert.equal(o.currency, "EUR");
  assert.equal(o.companyId, null);
  assert.deepEqual(o.tranches.map((t: { amount: string }) => t.amount), ["50.01", "50.00"]);
  const empty = await callOk(A, owner, "create_offer", {});
  assert.equal(empty.total, "0.00");
  assert.deepEqual(empty.rows, []);
  assert.deepEqual(empty.tranches, []);
});

Deno.test("create_offer B: the assistant (internal key) only; no rows or tranches in B", async () => {
  const o = await callOk(B, f.keys.internal, "create_offer", {
    subject: "From the assistant",
    clientId: clientB.id,
    offerDate: "2026-04-01",
  });
  assert.equal(o.subject, "From the assistant");
  assert.equal(o.createdBy, f.users.owner, "the internal key acts as its user");
  assert.equal(o.total, "0.00");
  await callFails(B, f.keys.internal, "create_offer", { rows: ROWS }, "invalid_input");
  await callFails(B, f.keys.internal, "create_offer", { tranches: [] }, "invalid_input");
  const msg = await callFails(B, f.keys.workspace, "create_offer", { subject: "x" }, "access_denied");
  assert.match(msg, /create_offer acts as a person/);
  assert.ok(!(await listedTools(B, f.keys.workspace)).includes("create_offer"));
  assert.ok((await listedTools(B, f.keys.internal)).includes("create_offer"));
});

Deno.test("create_offer: bad input names the field and rule (zod and payment-plan rules)", async () => {
  const row = { description: "x", unitPrice: 100 };
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ clientId: "nope" }, /clientId: must be a UUID/],
    [{ offerDate: "2026-02-30" }, /offerDate: must be a date/],
    [{ offerDate: "2026-03-02", validUntil: "2026-03-01" }, /validUntil: must not be before offerDate/],
    [{ currency: "eur" }, /currency/],
    [
      { rows: [{ description: "x", unitPrice: "1.234" }] },
      /rows\.0\.unitPrice: must have at most 2 decimals/,
    ],
    [{ rows: [{ description: "x", unitPrice: -1 }] }, /rows\.0\.unitPrice: must be at least 0/],
    [
      { rows: [{ description: "x", unitPrice: 1, quantity: 0 }] },
      /rows\.0\.quantity: must be greater than 0/,
    ],
    [
      { rows: [{ description: "x", unitPrice: 1, quantity: "0.0001" }] },
      /rows\.0\.quantity: must have at most 3/,
    ],
    [
      { rows: [{ description: "x", unitPrice: 1, discountPercent: 101 }] },
      /rows\.0\.discountPercent: must be at most 100/,
    ],
    [{ rows: [{ description: "", unitPrice: 1 }] }, /rows\.0\.description: must not be empty/],
    [{ rows: [{ description: "x" }] }, /rows\.0\.unitPrice/],
    [
      { rows: [row], tranches: [{ percentage: 10, amount: 10 }] },
      /tranches\.0: give either percentage or amount/,
    ],
    [{ rows: [row], tranches: [{ label: "x" }] }, /tranches\.0: give either percentage or amount/],
    [{ rows: [row], tranches: [{ percentage: 0 }] }, /tranches\.0\.percentage: must be greater than 0/],
    [{ rows: [row], tranches: [{ percentage: 100.01 }] }, /tranches\.0\.percentage: must be at most 100/],
    [{ rows: [row], tranches: [{ amount: 0 }] }, /tranches\.0\.amount: must be greater than 0/],
    [
      { rows: [row], tranches: [{ percentage: 60 }, { percentage: "40.01" }] },
      /the percentages add up to 100\.01, more than 100/,
    ],
    [
      { rows: [row], tranches: [{ amount: 60 }, { amount: "40.01" }] },
      /the amounts add up to 100\.01, more than the offer total 100\.00/,
    ],
    [
      { rows: [row], tranches: [{ percentage: 50 }, { amount: "50.01" }] },
      /percentages and amounts together come to 100\.01, more than the offer total 100\.00/,
    ],
    [{ tranches: [{ percentage: 50 }] }, /tranches: need an offer total above 0/],
    [{ subject: "x".repeat(201) }, /subject: must be at most 200/],
    [{ total: 5 }, /unknown field total/],
  ];
  for (const [args, re] of cases) {
    const t = await callFails(A, owner, "create_offer", args, "invalid_input");
    assert.match(t, re, JSON.stringify(args));
  }
  const [n] = await db
    .sql`select count(*)::int as n from offers where workspace_id = ${f.workspaceId} and total = 100`;
  assert.equal(n.n, 0, "no refused offer was stored");
});

Deno.test("create_offer: unknown, foreign or out-of-scope client/company → not_found", async () => {
  await callFails(A, owner, "create_offer", { clientId: MISSING }, "not_found");
  await callFails(A, owner, "create_offer", { clientId: foreignClient.id }, "not_found");
  await callFails(A, owner, "create_offer", { companyId: f.other.companyId }, "not_found");
  await callFails(A, f.keys.ownerCompanyA, "create_offer", { clientId: clientB.id }, "not_found");
  await callFails(A, f.keys.ownerCompanyA, "create_offer", { companyId: f.companies.b }, "not_found");
  const t = await callFails(
    A,
    owner,
    "create_offer",
    { clientId: clientB.id, companyId: f.companies.a },
    "invalid_input",
  );
  assert.match(t, /belongs to another company than companyId/);
  const scoped = await callOk(A, f.keys.ownerCompanyA, "create_offer", { subject: "In A" });
  assert.equal(scoped.companyId, f.companies.a);
});

Deno.test("create_idea A: every field; priority 1-3 with its label; recorded as the caller", async () => {
  const r = await callTool(A, f.keys.member, "create_idea", {
    title: "  Newsletter  ",
    description: "Monthly",
    estimatedBudget: "1500.5",
    currency: "USD",
    priority: 3,
    notes: "n",
    clientId: clientB.id,
  });
  assert.equal(r.isError, false, r.text);
  assert.deepEqual(r.structuredContent, r.data);
  const i = r.data;
  assert.equal(i.title, "Newsletter");
  assert.equal(i.estimatedBudget, "1500.50");
  assert.equal(i.currency, "USD");
  assert.equal(i.priority, 3);
  assert.equal(i.priorityLabel, "high");
  assert.equal(i.clientId, clientB.id);
  assert.equal(i.companyId, f.companies.b);
  assert.equal(i.createdBy, f.users.member);
  const min = await callOk(A, owner, "create_idea", { title: "Min" });
  assert.equal(min.priority, 2);
  assert.equal(min.priorityLabel, "medium");
  assert.equal(min.estimatedBudget, null);
  assert.equal(min.currency, "EUR");
});

Deno.test("create_idea B: priority as a word, internal key only", async () => {
  const i = await callOk(B, f.keys.internal, "create_idea", {
    title: "B idea",
    priority: "low",
    estimatedBudget: 10,
  });
  assert.equal(i.priority, 1);
  assert.equal(i.priorityLabel, "low");
  assert.equal(i.estimatedBudget, "10.00");
  assert.equal(i.createdBy, f.users.owner);
  await callFails(B, f.keys.internal, "create_idea", { title: "x", priority: 3 }, "invalid_input");
  await callFails(B, f.keys.workspace, "create_idea", { title: "x" }, "access_denied");
});

Deno.test("create_idea: bad input, not_found and company scope", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{}, /title/],
    [{ title: " " }, /title: must not be empty/],
    [{ title: "x", priority: 4 }, /priority: must be 1, 2 or 3/],
    [{ title: "x", priority: "high" }, /priority: must be 1, 2 or 3/],
    [{ title: "x", estimatedBudget: -5 }, /estimatedBudget: must be at least 0/],
    [{ title: "x", estimatedBudget: 1.234 }, /estimatedBudget: must have at most 2 decimals/],
    [{ title: "x", clientId: "1" }, /clientId: must be a UUID/],
  ];
  for (const [args, re] of cases) {
    assert.match(await callFails(A, owner, "create_idea", args, "invalid_input"), re, JSON.stringify(args));
  }
  await callFails(A, owner, "create_idea", { title: "x", clientId: MISSING }, "not_found");
  await callFails(A, owner, "create_idea", { title: "x", clientId: foreignClient.id }, "not_found");
  await callFails(A, owner, "create_idea", { title: "x", companyId: f.other.companyId }, "not_found");
  await callFails(A, f.keys.limited, "create_idea", { title: "x", clientId: clientB.id }, "not_found");
  const scoped = await callOk(A, f.keys.limited, "create_idea", { title: "Limited" });
  assert.equal(scoped.companyId, f.companies.a, "the member's only company");
});

Deno.test("offers and ideas: role areas and modules gate A; roles without them neither see nor call", async () => {
  for (const role of ["member", "guest"] as const) {
    assert.ok(!(await listedTools(A, f.keys[role])).includes("create_offer"));
    assert.match(await callFails(A, f.keys[role], "create_offer", {}, "access_denied"), /offers tools/);
  }
  for (const role of ["accounting", "guest"] as const) {
    assert.ok(!(await listedTools(A, f.keys[role])).includes("create_idea"));
    assert.match(
      await callFails(A, f.keys[role], "create_idea", { title: "x" }, "access_denied"),
      /ideas tools/,
    );
  }
  for (const role of ["owner", "admin", "manager", "accounting"] as const) {
    assert.ok((await listedTools(A, f.keys[role])).includes("create_offer"), role);
  }
  // a workspace without the crm and projects modules
  const g = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "crm" && m !== "projects") });
  const names = await listedTools(A, g.keys.owner);
  assert.ok(!names.includes("create_offer") && !names.includes("create_idea"));
  assert.ok(names.includes("create_client"), "clients need no module");
  assert.match(
    await callFails(A, g.keys.owner, "create_offer", {}, "unavailable"),
    /the crm module is disabled/,
  );
  assert.match(
    await callFails(A, g.keys.owner, "create_idea", { title: "x" }, "unavailable"),
    /the projects module is disabled/,
  );
  // variant B ignores modules: the assistant may still create them
  await callOk(B, g.keys.internal, "create_idea", { title: "B ignores modules" });
});

Deno.test("variant B: bad input, not_found and company scope for create_offer and create_idea", async () => {
  const internalA = await f.key({ kind: "internal", user: f.users.owner, companyId: f.companies.a });
  for (const [tool, base] of [["create_offer", {}], ["create_idea", { title: "t" }]] as const) {
    await callFails(B, f.keys.internal, tool, { ...base, clientId: "nope" }, "invalid_input");
    await callFails(B, f.keys.internal, tool, { ...base, clientId: MISSING }, "not_found");
    await callFails(B, f.keys.internal, tool, { ...base, clientId: foreignClient.id }, "not_found");
    await callFails(B, f.keys.internal, tool, { ...base, companyId: f.other.companyId }, "not_found");
    await callFails(B, internalA, tool, { ...base, clientId: clientB.id }, "not_found");
    const scoped = await callOk(B, internalA, tool, base);
    assert.equal(scoped.companyId, f.companies.a, `${tool}: the key's only company`);
  }
  const t = await callFails(B, f.keys.internal, "create_offer", {
    offerDate: "2026-05-02",
    validUntil: "2026-05-01",
  }, "invalid_input");
  assert.match(t, /validUntil: must not be before offerDate/);
  assert.match(await callFails(B, f.keys.internal, "create_idea", { title: "" }, "invalid_input"), /title/);
});
