// Invoice tools: create_invoice (A and B), list_invoices, generate_invoice_from_offer_tranche — totals, numbering
// under concurrency, credit notes, tranche transition (incl. the concurrent double call), scope, roles, module.
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

const client19 = await callOk(A, owner, "create_client", {
  companyName: "Nineteen GmbH",
  companyId: f.companies.b,
  vatRate: 19,
});
const clientA = await callOk(A, owner, "create_client", { companyName: "Plain A", companyId: f.companies.a });
const projectB = await callOk(A, owner, "create_project", { name: "Project B", clientId: client19.id });
const [foreign] = await db.sql<{ id: string }[]>`
  insert into clients (workspace_id, company_id, name) values (${f.other.workspaceId}, ${f.other.companyId}, 'Foreign')
  returning id`;

/** The worked example of docs/commercial.md. */
const ROWS = [
  { description: "Design", quantity: 12.5, unit: "h", unitPrice: "95" },
  { description: "Hosting", quantity: "3", unitPrice: 19.99, discountPercent: 10 },
  { description: "Stickers", quantity: 1.5, unitPrice: "0.15" },
];

Deno.test("create_invoice A: the worked example — rows, VAT 8.1 %, rounding adjustment, numbered by year", async () => {
  const r = await callTool(A, f.keys.accounting, "create_invoice", {
    clientId: clientA.id,
    subject: "March",
    invoiceDate: "2026-03-31",
    dueDate: "2026-04-30",
    currency: "CHF",
    paymentMethod: "bank transfer",
    status: "sent",
    vatRate: "8.1",
    roundingAdjustment: -0.03,
    collectedAmount: "100",
    rows: ROWS,
  });
  assert.equal(r.isError, false, r.text);
  assert.deepEqual(r.structuredContent, r.data);
  const inv = r.data;
  assert.equal(inv.number, "2026-0001");
  assert.equal(inv.type, "project");
  assert.equal(inv.isCreditNote, false);
  assert.equal(inv.status, "sent");
  assert.equal(inv.companyId, f.companies.a);
  assert.equal(inv.clientName, "Plain A");
  assert.equal(inv.vatRate, "8.10");
  assert.deepEqual(inv.rows.map((x: { amount: string }) => x.amount), ["1187.50", "53.97", "0.23"]);
  assert.equal(inv.subtotal, "1241.70");
  assert.equal(inv.vatAmount, "100.58");
  assert.equal(inv.roundingAdjustment, "-0.03");
  assert.equal(inv.total, "1342.25");
  assert.equal(inv.collectedAmount, "100.00");
  assert.equal(inv.outstanding, "1242.25");
  assert.equal(inv.paymentMethod, "bank transfer");
  assert.equal(inv.createdBy, f.users.accounting);
  const [stored] = await db.sql`
    select subtotal::text, vat_amount::text, total::text, year, sequence from invoices where id = ${inv.id}`;
  assert.deepEqual({ ...stored }, {
    subtotal: "1241.70",
    vat_amount: "100.58",
    total: "1342.25",
    year: 2026,
    sequence: 1,
  });
  const next = await callOk(A, owner, "create_invoice", { invoiceDate: "2026-05-02" });
  assert.equal(next.number, "2026-0002");
  const otherYear = await callOk(A, owner, "create_invoice", { invoiceDate: "2025-12-31" });
  assert.equal(otherYear.number, "2025-0001", "each year has its own sequence");
});

Deno.test("create_invoice: the client's vatRate is the default; an explicit vatRate wins; project gives client", async () => {
  const d = await callOk(A, owner, "create_invoice", {
    clientId: client19.id,
    rows: [{ description: "x", unitPrice: "0.50" }],
  });
  assert.equal(d.vatRate, "19.00");
  assert.equal(d.vatAmount, "0.10", "0.095 rounds half away from zero");
  assert.equal(d.total, "0.60");
  assert.equal(d.companyId, f.companies.b, "the client's company");
  const x = await callOk(A, owner, "create_invoice", {
    clientId: client19.id,
    vatRate: 0,
    rows: [{ description: "x", unitPrice: 10 }],
  });
  assert.equal(x.vatRate, "0.00");
  assert.equal(x.total, "10.00");
  const p = await callOk(A, owner, "create_invoice", { projectId: projectB.id });
  assert.equal(p.clientId, client19.id);
  assert.equal(p.projectId, projectB.id);
  assert.equal(p.vatRate, "19.00");
  const none = await callOk(A, owner, "create_invoice", {});
  assert.equal(none.vatRate, "0.00");
  assert.equal(none.total, "0.00");
  assert.equal(none.status, "draft");
  assert.equal(none.currency, "EUR");
  assert.match(none.invoiceDate, /^\d{4}-\d\d-\d\d$/);
});

Deno.test("create_invoice B: a draft invoice without rows; A-only fields unknown; no role gating in B", async () => {
  const inv = await callOk(B, f.keys.workspace, "create_invoice", {
    clientId: client19.id,
    subject: "From B",
    invoiceDate: "2027-01-05",
  });
  assert.equal(inv.number, "2027-0001");
  assert.equal(inv.status, "draft");
  assert.equal(inv.vatRate, "19.00", "the client's default VAT");
  assert.equal(inv.total, "0.00");
  assert.deepEqual(inv.rows, []);
  for (
    const field of [
      "status",
      "vatRate",
      "roundingAdjustment",
      "collectedAmount",
      "isCreditNote",
      "originalInvoiceId",
      "rows",
    ]
  ) {
    const t = await callFails(B, f.keys.workspace, "create_invoice", { [field]: null }, "invalid_input");
    assert.match(t, new RegExp(`unknown field ${field}`));
  }
  const scoped = await callOk(B, f.keys.workspaceCompanyA, "create_invoice", {});
  assert.equal(scoped.companyId, f.companies.a);
  await callFails(B, f.keys.workspaceCompanyA, "create_invoice", { clientId: client19.id }, "not_found");
});

Deno.test("create_invoice B: bad input, not_found and workspace isolation", async () => {
  const w = f.keys.workspace;
  await callFails(B, w, "create_invoice", { clientId: "x" }, "invalid_input");
  const t = await callFails(
    B,
    w,
    "create_invoice",
    { invoiceDate: "2027-02-02", dueDate: "2027-02-01" },
    "invalid_input",
  );
  assert.match(t, /dueDate: must not be before invoiceDate/);
  await callFails(B, w, "create_invoice", { clientId: MISSING }, "not_found");
  await callFails(B, w, "create_invoice", { clientId: foreign.id }, "not_found");
  await callFails(B, w, "create_invoice", { projectId: MISSING }, "not_found");
  await callFails(B, w, "create_invoice", { companyId: f.other.companyId }, "not_found");
  await callFails(B, f.keys.workspaceCompanyA, "create_invoice", { projectId: projectB.id }, "not_found");
});

Deno.test("create_invoice: bad input names the field and rule", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ clientId: "x" }, /clientId: must be a UUID/],
    [{ status: "void" }, /status/],
    [{ invoiceDate: "2026-13-01" }, /invoiceDate: must be a date/],
    [{ invoiceDate: "2026-03-02", dueDate: "2026-03-01" }, /dueDate: must not be before invoiceDate/],
    [{ vatRate: 101 }, /vatRate: must be at most 100/],
    [{ vatRate: "7.777" }, /vatRate: must have at most 2 decimals/],
    [{ roundingAdjustment: 1.5 }, /roundingAdjustment: must be between -1 and 1/],
    [{ roundingAdjustment: "0.001" }, /roundingAdjustment: must have at most 2 decimals/],
    [{ roundingAdjustment: -0.05 }, /roundingAdjustment: would make the total negative/],
    [{ collectedAmount: 0.01 }, /collectedAmount 0\.01 exceeds the total 0\.00/],
    [{ collectedAmount: -1 }, /collectedAmount: must not be negative/],
    [
      { rows: [{ description: "x", unitPrice: "1.234" }] },
      /rows\.0\.unitPrice: must have at most 2 decimals/,
    ],
    [{ rows: [{ description: "x", unitPrice: -5 }] }, /rows\.0\.unitPrice: must not be negative/],
    [{ rows: [{ description: "x", unitPrice: 5, quantity: -1 }] }, /rows\.0\.quantity: must not be negative/],
    [
      { rows: [{ description: "x", unitPrice: 5, quantity: 0 }] },
      /rows\.0\.quantity: must be greater than 0/,
    ],
    [{ rows: [{ description: "x", unitPrice: 1e21 }] }, /rows\.0\.unitPrice: must be a decimal number/],
    [{ originalInvoiceId: MISSING }, /originalInvoiceId: is only for credit notes/],
    [{ total: "100.00" }, /unknown field total/],
  ];
  for (const [args, re] of cases) {
    assert.match(
      await callFails(A, owner, "create_invoice", args, "invalid_input"),
      re,
      JSON.stringify(args),
    );
  }
});

Deno.test("create_invoice: unknown, foreign or out-of-scope client/project/company/original → not_found", async () => {
  await callFails(A, owner, "create_invoice", { clientId: MISSING }, "not_found");
  await callFails(A, owner, "create_invoice", { clientId: foreign.id }, "not_found");
  await callFails(A, owner, "create_invoice", { projectId: MISSING }, "not_found");
  await callFails(A, owner, "create_invoice", { companyId: f.other.companyId }, "not_found");
  await callFails(A, f.keys.ownerCompanyA, "create_invoice", { clientId: client19.id }, "not_found");
  await callFails(A, f.keys.ownerCompanyA, "create_invoice", { projectId: projectB.id }, "not_found");
  const [otherInv] = await db.sql<{ id: string }[]>`
    insert into invoices (workspace_id, number, year, sequence, type, invoice_date)
    values (${f.other.workspaceId}, '2026-0001', 2026, 1, 'project', '2026-01-01') returning id`;
  await callFails(
    A,
    owner,
    "create_invoice",
    { isCreditNote: true, originalInvoiceId: otherInv.id },
    "not_found",
  );
  const inB = await callOk(A, owner, "create_invoice", { clientId: client19.id });
  await callFails(A, f.keys.ownerCompanyA, "create_invoice", {
    isCreditNote: true,
    originalInvoiceId: inB.id,
  }, "not_found");
  const t = await callFails(
    A,
    owner,
    "create_invoice",
    { clientId: client19.id, companyId: f.companies.a },
    "invalid_input",
  );
  assert.match(t, /belongs to another company than companyId/);
});

Deno.test("credit notes: negative input normalised, stored positive, shown negative, summed negative", async () => {
  const original = await callOk(A, owner, "create_invoice", {
    clientId: clientA.id,
    invoiceDate: "2028-02-01",
    vatRate: 10,
    rows: [{ description: "Work", quantity: 2, unitPrice: "50" }],
  });
  assert.equal(original.total, "110.00");
  // written in the displayed sign: negative rows and adjustment
  const cn = await callOk(A, owner, "create_invoice", {
    isCreditNote: true,
    originalInvoiceId: original.id,
    invoiceDate: "2028-02-10",
    rows: [{ description: "Refund", quantity: -1, unitPrice: "-45.55" }],
    roundingAdjustment: "0.01",
    collectedAmount: -10,
  });
  assert.equal(cn.number, "2028-0002", "credit notes share the invoices' sequence");
  assert.equal(cn.type, "credit_note");
  assert.equal(cn.isCreditNote, true);
  assert.equal(cn.originalInvoiceId, original.id);
  assert.equal(cn.clientId, clientA.id, "defaults from the original");
  assert.equal(cn.companyId, f.companies.a);
  assert.equal(cn.vatRate, "10.00", "the original's VAT rate");
  // stored: 45.55 + 4.56 (4.555 → 4.56) − 0.01 = 50.10
  assert.equal(cn.subtotal, "-45.55");
  assert.equal(cn.vatAmount, "-4.56");
  assert.equal(cn.roundingAdjustment, "0.01");
  assert.equal(cn.total, "-50.10");
  assert.equal(cn.collectedAmount, "-10.00");
  assert.equal(cn.outstanding, "-40.10");
  assert.deepEqual(
    cn.rows.map((
      r: { quantity: string; unitPrice: string; amount: string },
    ) => [r.quantity, r.unitPrice, r.amount]),
    [
      ["1", "-45.55", "-45.55"],
    ],
  );
  const [s] = await db.sql`
    select subtotal::text, vat_amount::text, rounding_adjustment::text, total::text, collected_amount::text
      from invoices where id = ${cn.id}`;
  assert.deepEqual({ ...s }, {
    subtotal: "45.55",
    vat_amount: "4.56",
    rounding_adjustment: "-0.01",
    total: "50.10",
    collected_amount: "10.00",
  });
  const [row] = await db
    .sql`select quantity::text, unit_price::text, amount::text from invoice_rows where invoice_id = ${cn.id}`;
  assert.deepEqual({ ...row }, { quantity: "1.000", unit_price: "45.55", amount: "45.55" });
  // the same credit note written positive is stored the same
  const pos = await callOk(A, owner, "create_invoice", {
    isCreditNote: true,
    originalInvoiceId: original.id,
    invoiceDate: "2028-02-11",
    rows: [{ description: "Refund", quantity: 1, unitPrice: "45.55" }],
    roundingAdjustment: "-0.01",
  });
  assert.equal(pos.total, "-50.10");
  // a credit note cannot be credited
  const t = await callFails(
    A,
    owner,
    "create_invoice",
    { isCreditNote: true, originalInvoiceId: cn.id },
    "invalid_input",
  );
  assert.match(t, /is a credit note: credit an invoice/);
  // the seed lists isCreditNote and originalInvoiceId as separately optional: a credit note may stand alone
  const alone = await callOk(A, owner, "create_invoice", {
    isCreditNote: true,
    invoiceDate: "2028-02-12",
    rows: [{ description: "Goodwill", unitPrice: "20.00" }],
  });
  assert.equal(alone.type, "credit_note");
  assert.equal(alone.isCreditNote, true);
  assert.equal(alone.originalInvoiceId, null);
  assert.equal(alone.subtotal, "-20.00");
  const [stored] = await db.sql`
    select is_credit_note, original_invoice_id, subtotal::text from invoices where id = ${alone.id}`;
  assert.deepEqual({ ...stored }, { is_credit_note: true, original_invoice_id: null, subtotal: "20.00" });

  const list = await callOk(A, owner, "list_invoices", { clientId: clientA.id });
  const byId = new Map(list.items.map((i: { id: string }) => [i.id, i]));
  assert.equal((byId.get(cn.id) as { total: string }).total, "-50.10");
  assert.equal((byId.get(original.id) as { total: string }).total, "110.00");
  const cnOnly = await callOk(A, owner, "list_invoices", { type: "credit_note", clientId: clientA.id });
  assert.equal(cnOnly.total, 2);
  assert.deepEqual(cnOnly.sums, [{
    currency: "EUR",
    count: 2,
    subtotal: "-91.10",
    vatAmount: "-9.12",
    total: "-100.20",
    collectedAmount: "-10.00",
    outstanding: "-90.20",
  }]);
});

Deno.test("list_invoices: newest first, filters, limit, per-currency sums, company scope and workspace isolation", async () => {
  const g = await buildFixture(db.sql);
  const c = await callOk(A, g.keys.owner, "create_client", { companyName: "C", companyId: g.companies.a });
  const mk = (args: Record<string, unknown>) => callOk(A, g.keys.owner, "create_invoice", args);
  const i1 = await mk({
    clientId: c.id,
    invoiceDate: "2026-01-10",
    rows: [{ description: "a", unitPrice: 100 }],
  });
  const i2 = await mk({
    invoiceDate: "2026-02-10",
    status: "paid",
    companyId: g.companies.b,
    rows: [{ description: "b", unitPrice: 50 }],
    collectedAmount: 50,
  });
  const i3 = await mk({
    invoiceDate: "2026-03-10",
    currency: "USD",
    rows: [{ description: "c", unitPrice: "0.10" }],
  });
  const cn = await mk({
    isCreditNote: true,
    originalInvoiceId: i1.id,
    invoiceDate: "2026-03-11",
    rows: [{ description: "r", unitPrice: 30 }],
  });
  const all = await callOk(A, g.keys.owner, "list_invoices");
  assert.deepEqual(all.items.map((i: { id: string }) => i.id), [cn.id, i3.id, i2.id, i1.id]);
  assert.deepEqual(all.items.map((i: { number: string }) => i.number), [
    "2026-0004",
    "2026-0003",
    "2026-0002",
    "2026-0001",
  ]);
  assert.equal(all.total, 4);
  assert.equal(all.limit, 50);
  assert.equal(all.hasMore, false);
  // compact rows: what picks an invoice, amounts signed; every field but the rows with full: true
  assert.deepEqual(all.items[0], {
    id: cn.id,
    number: "2026-0004",
    type: "credit_note",
    status: "draft",
    clientId: c.id,
    clientName: "C",
    subject: "",
    invoiceDate: "2026-03-11",
    dueDate: null,
    currency: "EUR",
    total: "-30.00",
    outstanding: "-30.00",
  });
  assert.equal(all.items[2].outstanding, "0.00", "paid in full");
  const full = await callOk(A, g.keys.owner, "list_invoices", { full: true });
  assert.deepEqual(full.items.map((i: { id: string }) => i.id), [cn.id, i3.id, i2.id, i1.id]);
  for (const [i, created] of [cn, i3, i2, i1].entries()) {
    const { rows: _rows, ...record } = created;
    assert.deepEqual(full.items[i], record);
  }
  assert.deepEqual(full.sums, all.sums);
  assert.deepEqual(all.sums, [
    {
      currency: "EUR",
      count: 3,
      subtotal: "120.00",
      vatAmount: "0.00",
      total: "120.00",
      collectedAmount: "50.00",
      outstanding: "70.00",
    },
    {
      currency: "USD",
      count: 1,
      subtotal: "0.10",
      vatAmount: "0.00",
      total: "0.10",
      collectedAmount: "0.00",
      outstanding: "0.10",
    },
  ]);
  const page = await callOk(A, g.keys.owner, "list_invoices", { limit: 2 });
  assert.equal(page.items.length, 2);
  assert.equal(page.total, 4);
  assert.equal(page.hasMore, true);
  assert.equal(page.sums[0].total, "120.00", "sums cover every match, not only the page");
  assert.deepEqual(
    (await callOk(A, g.keys.owner, "list_invoices", { status: "paid" })).items.map((i: { id: string }) =>
      i.id
    ),
    [i2.id],
  );
  assert.deepEqual(
    (await callOk(A, g.keys.owner, "list_invoices", { type: "credit_note" })).items.map((i: { id: string }) =>
      i.id
    ),
    [cn.id],
  );
  assert.deepEqual(
    (await callOk(A, g.keys.owner, "list_invoices", { clientId: c.id })).items.map((i: { id: string }) =>
      i.id
    ),
    [cn.id, i1.id],
  );
  assert.equal((await callOk(A, g.keys.owner, "list_invoices", { type: "recurring" })).total, 0);
  // company scope: the key of company a sees a's invoices only
  const scoped = await callOk(A, g.keys.ownerCompanyA, "list_invoices");
  assert.deepEqual(scoped.items.map((i: { id: string }) => i.id), [cn.id, i1.id]);
  // isolation: the other workspace's fixture sees none of these
  const mine = await callOk(A, f.keys.owner, "list_invoices", { limit: 200 });
  for (const id of [i1.id, i2.id, i3.id, cn.id]) {
    assert.ok(!mine.items.some((i: { id: string }) => i.id === id));
  }
  await callFails(A, g.keys.owner, "list_invoices", { clientId: MISSING }, "not_found");
  await callFails(A, g.keys.owner, "list_invoices", { clientId: client19.id }, "not_found");
  await callFails(A, g.keys.owner, "list_invoices", { status: "open" }, "invalid_input");
  await callFails(A, g.keys.owner, "list_invoices", { limit: 201 }, "invalid_input");
  await callFails(A, g.keys.owner, "list_invoices", { type: "offer" }, "invalid_input");
});

Deno.test("numbering: 20 concurrent creations (invoices and credit notes) get 2030-0001 … 2030-0020", async () => {
  const g = await buildFixture(db.sql);
  const original = await callOk(A, g.keys.owner, "create_invoice", {
    invoiceDate: "2029-12-01",
    rows: [{ description: "o", unitPrice: 1000 }],
  });
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      callOk(A, g.keys.owner, "create_invoice", {
        invoiceDate: "2030-06-01",
        rows: [{ description: `n${i}`, unitPrice: i + 1 }],
        // every fifth one is a credit note: invoices and credit notes share the sequence
        ...(i % 5 === 4 ? { isCreditNote: true, originalInvoiceId: original.id } : {}),
      })),
  );
  const numbers = results.map((r) => r.number).sort();
  assert.deepEqual(numbers, Array.from({ length: 20 }, (_, i) => `2030-${String(i + 1).padStart(4, "0")}`));
  assert.equal(results.filter((r) => r.isCreditNote).length, 4);
  const [counter] = await db.sql`
    select last from invoice_counters where workspace_id = ${g.workspaceId} and year = 2030`;
  assert.equal(counter.last, 20);
  // a refused creation takes no number
  await callFails(
    A,
    g.keys.owner,
    "create_invoice",
    { invoiceDate: "2030-06-02", collectedAmount: 5 },
    "invalid_input",
  );
  const next = await callOk(A, g.keys.owner, "create_invoice", { invoiceDate: "2030-06-02" });
  assert.equal(next.number, "2030-0021");
});

Deno.test("invoice tools: accounting/admin/owner only in A, module finance_collections; others neither see nor call", async () => {
  const invoiceTools = ["list_invoices", "create_invoice", "generate_invoice_from_offer_tranche"];
  for (const role of ["owner", "admin", "accounting"] as const) {
    const names = await listedTools(A, f.keys[role]);
    for (const t of invoiceTools) assert.ok(names.includes(t), `${role} ${t}`);
  }
  for (const role of ["manager", "member", "guest"] as const) {
    const names = await listedTools(A, f.keys[role]);
    for (const t of invoiceTools) assert.ok(!names.includes(t), `${role} ${t}`);
    assert.match(
      await callFails(A, f.keys[role], "create_invoice", {}, "access_denied"),
      /may not use invoices tools/,
    );
    await callFails(A, f.keys[role], "list_invoices", {}, "access_denied");
    await callFails(A, f.keys[role], "generate_invoice_from_offer_tranche", {
      offerId: MISSING,
      trancheId: MISSING,
    }, "access_denied");
  }
  const g = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "finance_collections") });
  const names = await listedTools(A, g.keys.owner);
  for (const t of invoiceTools) assert.ok(!names.includes(t), t);
  assert.match(
    await callFails(A, g.keys.owner, "create_invoice", {}, "unavailable"),
    /finance_collections module is disabled/,
  );
  await callFails(A, g.keys.owner, "list_invoices", {}, "unavailable");
  const [n] = await db.sql`select count(*)::int as n from invoices where workspace_id = ${g.workspaceId}`;
  assert.equal(n.n, 0);
  const b = await listedTools(B, f.keys.workspace);
  assert.ok(b.includes("create_invoice"));
  assert.ok(!b.includes("list_invoices") && !b.includes("generate_invoice_from_offer_tranche"), "A-only");
});

async function offerWithPlan(key = owner, clientId = client19.id) {
  return await callOk(A, key, "create_offer", {
    subject: "Plan",
    clientId,
    currency: "CHF",
    rows: [{ description: "Build", quantity: 10, unitPrice: "123.45" }], // 1234.50
    tranches: [{ label: "Deposit", percentage: 30 }, { percentage: 60 }, { amount: "100" }],
  });
}

Deno.test("generate_invoice_from_offer_tranche: invoices the share, marks the tranche invoiced and links it", async () => {
  const offer = await offerWithPlan();
  const [t1, t2] = offer.tranches;
  assert.equal(t1.amount, "370.35");
  const r = await callTool(A, f.keys.accounting, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t1.id,
    invoiceDate: "2029-01-15",
    dueDate: "2029-02-14",
  });
  assert.equal(r.isError, false, r.text);
  assert.deepEqual(r.structuredContent, r.data);
  const { invoice, tranche } = r.data;
  assert.equal(invoice.number, "2029-0001");
  assert.equal(invoice.offerId, offer.id);
  assert.equal(invoice.clientId, client19.id);
  assert.equal(invoice.companyId, f.companies.b);
  assert.equal(invoice.currency, "CHF", "the offer's currency");
  assert.equal(invoice.vatRate, "19.00", "the client's default VAT");
  assert.equal(invoice.subject, "Plan: Deposit");
  assert.deepEqual(invoice.rows, [{
    position: 1,
    description: 'Deposit (30 %) of offer "Plan"',
    quantity: "1",
    unit: null,
    unitPrice: "370.35",
    discountPercent: "0.00",
    amount: "370.35",
  }]);
  assert.equal(invoice.subtotal, "370.35");
  assert.equal(invoice.vatAmount, "70.37"); // 70.3665
  assert.equal(invoice.total, "440.72");
  assert.deepEqual(tranche, { ...t1, status: "invoiced", invoiceId: invoice.id });
  const [row] = await db
    .sql`select status, invoice_id, invoiced_at is not null as stamped from offer_tranches where id = ${t1.id}`;
  assert.deepEqual({ ...row }, { status: "invoiced", invoice_id: invoice.id, stamped: true });

  // again → conflict naming the rule; nothing new
  const msg = await callFails(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t1.id,
  }, "conflict");
  assert.match(
    msg,
    /tranche .* is invoiced \(invoice 2029-0001\): only a tranche in to_invoice can be invoiced/,
  );

  // rows given replace the default row; vatRate given wins
  const own = await callOk(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t2.id,
    vatRate: 0,
    invoiceDate: "2029-01-20",
    rows: [{ description: "Part 1", unitPrice: "500" }, {
      description: "Part 2",
      quantity: 2,
      unitPrice: "182.07",
    }],
  });
  assert.equal(own.invoice.number, "2029-0002");
  assert.equal(own.invoice.total, "864.14");
  assert.equal(own.invoice.rows.length, 2);
  assert.equal(own.tranche.status, "invoiced");
});

Deno.test("generate_invoice_from_offer_tranche: bad input, not_found, scope, and a failure rolls the claim back", async () => {
  const offer = await offerWithPlan();
  const other = await offerWithPlan();
  const t = offer.tranches[0];
  await callFails(A, owner, "generate_invoice_from_offer_tranche", { offerId: offer.id }, "invalid_input");
  await callFails(
    A,
    owner,
    "generate_invoice_from_offer_tranche",
    { offerId: "x", trancheId: t.id },
    "invalid_input",
  );
  await callFails(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t.id,
    rows: [],
  }, "invalid_input");
  await callFails(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t.id,
    invoiceDate: "2029-02-02",
    dueDate: "2029-02-01",
  }, "invalid_input");
  await callFails(
    A,
    owner,
    "generate_invoice_from_offer_tranche",
    { offerId: MISSING, trancheId: t.id },
    "not_found",
  );
  await callFails(
    A,
    owner,
    "generate_invoice_from_offer_tranche",
    { offerId: offer.id, trancheId: MISSING },
    "not_found",
  );
  const wrong = await callFails(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: other.id,
    trancheId: t.id,
  }, "not_found");
  assert.match(wrong, /no tranche .* in offer/);
  await callFails(A, f.keys.ownerCompanyA, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t.id,
  }, "not_found");
  await callFails(A, f.other.key, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t.id,
  }, "not_found");
  // the invoice fails after the tranche was claimed (foreign client) → the claim is rolled back
  await callFails(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t.id,
    clientId: foreign.id,
  }, "not_found");
  await callFails(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t.id,
    rows: [{ description: "x", unitPrice: -1 }],
  }, "invalid_input");
  const [row] = await db.sql`select status, invoice_id from offer_tranches where id = ${t.id}`;
  assert.deepEqual({ ...row }, { status: "to_invoice", invoice_id: null });
  const ok = await callOk(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: t.id,
  });
  assert.equal(ok.tranche.status, "invoiced");
});

Deno.test("generate_invoice_from_offer_tranche: two concurrent calls → one invoice, the other conflict; no gap", async () => {
  const g = await buildFixture(db.sql);
  const c = await callOk(A, g.keys.owner, "create_client", { companyName: "C" });
  const offer = await offerWithPlan(g.keys.owner, c.id);
  const t = offer.tranches[1];
  for (let round = 0; round < 3; round++) {
    const tranche = round === 0 ? t : offer.tranches[round === 1 ? 0 : 2];
    const calls = await Promise.all(
      [1, 2].map(() =>
        callTool(A, g.keys.owner, "generate_invoice_from_offer_tranche", {
          offerId: offer.id,
          trancheId: tranche.id,
          invoiceDate: "2031-01-01",
        })
      ),
    );
    const ok = calls.filter((r) => !r.isError);
    const failed = calls.filter((r) => r.isError);
    assert.equal(ok.length, 1, calls.map((r) => r.text).join(" | "));
    assert.equal(failed.length, 1);
    assert.match(failed[0].text, /^conflict: tranche .* is invoiced/);
    assert.equal(ok[0].data.tranche.invoiceId, ok[0].data.invoice.id);
  }
  const invoices = await db.sql<{ number: string }[]>`
    select number from invoices where workspace_id = ${g.workspaceId} and offer_id = ${offer.id} order by number`;
  assert.deepEqual(
    invoices.map((i) => i.number),
    ["2031-0001", "2031-0002", "2031-0003"],
    "one per tranche, no gap",
  );
  const linked = await db.sql`
    select count(*)::int as n from offer_tranches where offer_id = ${offer.id} and status = 'invoiced'
       and invoice_id is not null`;
  assert.equal(linked[0].n, 3);
});
