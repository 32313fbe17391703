// list_offers and get_offer (Portico extensions, issue 25 point 2), and what generate_invoice_from_offer_tranche
// answers for an unknown or missing trancheId: filters, the tranches' invoices, bad input, company scope, workspace
// isolation, role and module gating, both variants, both ways in.
import assert from "node:assert/strict";
import { MODULES } from "../../lib/workspace/modules.ts";
import { createOffer } from "../../lib/workspace/offers.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, callTool, listedTools, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const B = mcpApp(db.sql, "B");
const owner = f.keys.owner;
const MISSING = "00000000-0000-4000-8000-000000000000";

const northClient = await callOk(A, owner, "create_client", {
  companyName: "North AG",
  companyId: f.companies.a,
});
const southClient = await callOk(A, owner, "create_client", {
  companyName: "South GmbH",
  companyId: f.companies.b,
});
const ROWS = [{ description: "Work", quantity: 10, unitPrice: "100" }];

const website = await callOk(A, owner, "create_offer", {
  subject: "Website relaunch",
  clientId: northClient.id,
  offerDate: "2026-05-01",
  currency: "CHF",
  rows: ROWS,
  tranches: [{ label: "Deposit", percentage: 30 }, { percentage: 50 }, { label: "Hosting", amount: "200" }],
});
const shop = await callOk(A, owner, "create_offer", {
  subject: "Shop",
  clientId: southClient.id,
  offerDate: "2026-04-01",
  rows: ROWS,
  tranches: [{ label: "All", percentage: 100 }],
});
const plain = await callOk(A, owner, "create_offer", {
  subject: "Advice",
  clientId: northClient.id,
  offerDate: "2026-03-01",
});
// One tranche of the website invoiced; the shop's only tranche invoiced.
const deposit = await callOk(A, owner, "generate_invoice_from_offer_tranche", {
  offerId: website.id,
  trancheId: website.tranches[0].id,
  invoiceDate: "2026-05-02",
});
await callOk(A, owner, "generate_invoice_from_offer_tranche", {
  offerId: shop.id,
  trancheId: shop.tranches[0].id,
  invoiceDate: "2026-04-02",
});
const [foreign] = await db.sql<{ id: string }[]>`
  insert into offers (workspace_id, company_id, title, offer_date, currency, total)
  values (${f.other.workspaceId}, ${f.other.companyId}, 'Foreign offer', '2026-05-01', 'EUR', 10)
  returning id`;

async function invoiceCount(): Promise<number> {
  const [{ n }] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from invoices where workspace_id = ${f.workspaceId}`;
  return n;
}

Deno.test("list_offers: newest first, compact rows with the invoicing status, a page", async () => {
  const page = await callOk(A, owner, "list_offers");
  assert.deepEqual(page.items.map((o: { id: string }) => o.id), [website.id, shop.id, plain.id]);
  assert.deepEqual(page.items[0], {
    id: website.id,
    subject: "Website relaunch",
    clientId: northClient.id,
    clientName: "North AG",
    offerDate: "2026-05-01",
    validUntil: null,
    currency: "CHF",
    total: "1000.00",
    status: "partially_invoiced",
    tranchesToInvoice: 2,
  });
  assert.equal(page.items[1].status, "invoiced");
  assert.equal(page.items[1].tranchesToInvoice, 0);
  assert.equal(page.items[2].status, "no_tranches");
  assert.deepEqual({ total: page.total, hasMore: page.hasMore, nextOffset: page.nextOffset }, {
    total: 3,
    hasMore: false,
    nextOffset: null,
  });
  const cut = await callOk(A, owner, "list_offers", { limit: 1, offset: 1 });
  assert.deepEqual(cut.items.map((o: { id: string }) => o.id), [shop.id]);
  assert.equal(cut.nextOffset, 2);
});

Deno.test("list_offers: filters by client, status and text (subject or client name)", async () => {
  const ids = async (args: Record<string, unknown>) =>
    (await callOk(A, owner, "list_offers", args)).items.map((o: { id: string }) => o.id);
  assert.deepEqual(await ids({ clientId: northClient.id }), [website.id, plain.id]);
  assert.deepEqual(await ids({ status: "invoiced" }), [shop.id]);
  assert.deepEqual(await ids({ status: "partially_invoiced" }), [website.id]);
  assert.deepEqual(await ids({ status: "to_invoice" }), []);
  assert.deepEqual(await ids({ status: "no_tranches" }), [plain.id]);
  assert.deepEqual(await ids({ query: "RELAUNCH" }), [website.id]);
  assert.deepEqual(await ids({ query: "south" }), [shop.id]);
  assert.deepEqual(await ids({ query: "%" }), [], "LIKE characters are taken literally");
});

Deno.test("get_offer: rows, status, and each tranche with the invoice it produced (id and number)", async () => {
  const o = await callOk(A, owner, "get_offer", { offerId: website.id });
  assert.equal(o.subject, "Website relaunch");
  assert.equal(o.status, "partially_invoiced");
  assert.equal(o.currency, "CHF");
  assert.equal(o.rows.length, 1);
  assert.deepEqual(
    o.tranches.map((
      t: Record<string, unknown>,
    ) => [t.position, t.label, t.amount, t.status, t.invoiceId, t.invoiceNumber]),
    [
      [1, "Deposit", "300.00", "invoiced", deposit.invoice.id, deposit.invoice.number],
      [2, "", "500.00", "to_invoice", null, null],
      [3, "Hosting", "200.00", "to_invoice", null, null],
    ],
  );
  assert.match(deposit.invoice.number, /^2026-\d{4}$/);
});

Deno.test("list_offers/get_offer: bad input names the field; unknown ids are not_found", async () => {
  assert.match(await callFails(A, owner, "list_offers", { query: "" }, "invalid_input"), /query/);
  assert.match(await callFails(A, owner, "list_offers", { status: "open" }, "invalid_input"), /status/);
  assert.match(await callFails(A, owner, "list_offers", { limit: 201 }, "invalid_input"), /limit/);
  assert.match(await callFails(A, owner, "get_offer", { offerId: "x" }, "invalid_input"), /offerId/);
  assert.match(await callFails(A, owner, "get_offer", {}, "invalid_input"), /offerId/);
  assert.equal(
    await callFails(A, owner, "get_offer", { offerId: MISSING }, "not_found"),
    `not_found: offerId: no offer ${MISSING}`,
  );
  assert.match(await callFails(A, owner, "list_offers", { clientId: MISSING }, "not_found"), /clientId/);
  assert.match(
    await callFails(A, owner, "list_offers", { projectId: MISSING }, "invalid_input"),
    /projectId/,
  );
});

Deno.test("company scope and workspace isolation: another company's or workspace's offer is not_found", async () => {
  // the owner's key scoped to company a sees North's offers only
  const scoped = await callOk(A, f.keys.ownerCompanyA, "list_offers");
  assert.deepEqual(scoped.items.map((o: { id: string }) => o.id), [website.id, plain.id]);
  assert.equal(
    await callFails(A, f.keys.ownerCompanyA, "get_offer", { offerId: shop.id }, "not_found"),
    `not_found: offerId: no offer ${shop.id}`,
  );
  await callFails(A, f.keys.ownerCompanyA, "list_offers", { clientId: southClient.id }, "not_found");
  assert.equal(
    await callFails(A, owner, "get_offer", { offerId: foreign.id }, "not_found"),
    `not_found: offerId: no offer ${foreign.id}`,
  );
  assert.deepEqual((await callOk(A, f.other.key, "list_offers")).items.map((o: { id: string }) => o.id), [
    foreign.id,
  ]);
  await callFails(A, f.other.key, "get_offer", { offerId: website.id }, "not_found");
  // invoicing an offer of another company or workspace: not_found, nothing stored
  const before = await invoiceCount();
  for (
    const [key, offerId] of [[f.keys.ownerCompanyA, shop.id], [owner, foreign.id], [f.other.key, website.id]]
  ) {
    assert.equal(
      await callFails(A, key, "generate_invoice_from_offer_tranche", { offerId }, "not_found"),
      `not_found: offerId: no offer ${offerId}`,
    );
  }
  assert.equal(await invoiceCount(), before);
});

Deno.test("role and module gating, as create_offer: offers area, crm module", async () => {
  for (const role of ["owner", "admin", "manager", "accounting"] as const) {
    assert.ok((await listedTools(A, f.keys[role])).includes("list_offers"), role);
    await callOk(A, f.keys[role], "get_offer", { offerId: website.id });
  }
  for (const role of ["member", "guest"] as const) {
    const listed = await listedTools(A, f.keys[role]);
    assert.ok(!listed.includes("list_offers") && !listed.includes("get_offer"), role);
    assert.match(await callFails(A, f.keys[role], "list_offers", {}, "access_denied"), /offers tools/);
    await callFails(A, f.keys[role], "get_offer", { offerId: website.id }, "access_denied");
  }
  const g = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "crm") });
  const noCrm = mcpApp(db.sql, "A");
  assert.ok(!(await listedTools(noCrm, g.keys.owner)).includes("list_offers"));
  assert.equal(
    await callFails(noCrm, g.keys.owner, "list_offers", {}, "unavailable"),
    "unavailable: the crm module is disabled in this workspace",
  );
});

Deno.test("both ways in: an OAuth Bearer caller is the person in the workspace and company of the grant", async () => {
  const all = await bearerFor(db.sql, { userId: f.users.accounting, workspaceId: f.workspaceId });
  assert.equal((await callOk(A, all.auth, "list_offers")).total, 3);
  const o = await callOk(A, all.auth, "get_offer", { offerId: website.id });
  assert.equal(o.tranches[0].invoiceNumber, deposit.invoice.number);
  const limited = await bearerFor(db.sql, {
    userId: f.users.owner,
    workspaceId: f.workspaceId,
    companyId: f.companies.b,
  });
  assert.deepEqual((await callOk(A, limited.auth, "list_offers")).items.map((o: { id: string }) => o.id), [
    shop.id,
  ]);
  await callFails(A, limited.auth, "get_offer", { offerId: website.id }, "not_found");
  const member = await bearerFor(db.sql, { userId: f.users.member, workspaceId: f.workspaceId });
  await callFails(A, member.auth, "list_offers", {}, "access_denied");
});

Deno.test("variant B: both tools, without the A-only filters", async () => {
  const offer = await createOffer(db.sql, { workspaceId: f.workspaceId, userId: f.users.owner }, {
    subject: "B offer",
    offerDate: "2020-01-01",
  });
  for (const key of [f.keys.workspace, f.keys.owner]) {
    assert.ok((await listedTools(B, key)).includes("list_offers"));
    const page = await callOk(B, key, "list_offers", { query: "B offer" });
    assert.deepEqual(page.items.map((o: { id: string }) => o.id), [offer.id]);
    assert.equal((await callOk(B, key, "get_offer", { offerId: offer.id })).subject, "B offer");
  }
  assert.match(
    await callFails(B, f.keys.workspace, "list_offers", { status: "invoiced" }, "invalid_input"),
    /status/,
  );
  const scoped = await callOk(B, f.keys.workspaceCompanyA, "list_offers");
  assert.ok(
    scoped.items.every((o: { id: string }) => o.id !== shop.id && o.id !== offer.id),
    "company a only",
  );
});

Deno.test("generate_invoice_from_offer_tranche: an unknown trancheId lists the offer's tranches", async () => {
  const before = await invoiceCount();
  const [t1, t2, t3] = website.tranches;
  const text = await callFails(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: website.id,
    trancheId: shop.tranches[0].id,
  }, "not_found");
  assert.equal(
    text,
    `not_found: trancheId: no tranche ${shop.tranches[0].id} in offer ${website.id}; the offer's tranches: ` +
      `${t1.id} (Tranche 1 "Deposit", 30 %, 300.00 CHF, invoiced as ${deposit.invoice.number}); ` +
      `${t2.id} (Tranche 2, 50 %, 500.00 CHF, to_invoice); ${t3.id} (Tranche 3 "Hosting", 200.00 CHF, to_invoice)`,
  );
  assert.equal(await invoiceCount(), before, "nothing stored");
});

Deno.test("generate_invoice_from_offer_tranche without trancheId (2025 client): invalid_input listing the open ones", async () => {
  const before = await invoiceCount();
  const [, t2, t3] = website.tranches;
  assert.equal(
    await callFails(
      A,
      owner,
      "generate_invoice_from_offer_tranche",
      { offerId: website.id },
      "invalid_input",
    ),
    `invalid_input: trancheId: required; the offer's tranches to invoice: ${t2.id} (Tranche 2, 50 %, 500.00 CHF, ` +
      `to_invoice); ${t3.id} (Tranche 3 "Hosting", 200.00 CHF, to_invoice)`,
  );
  assert.equal(
    await callFails(A, owner, "generate_invoice_from_offer_tranche", { offerId: shop.id }, "invalid_input"),
    `invalid_input: trancheId: required; offer ${shop.id} has no tranches to invoice`,
  );
  // more than ten open tranches: pointed to get_offer instead of a long list
  const many = await callOk(A, owner, "create_offer", {
    subject: "Many",
    rows: ROWS,
    tranches: Array.from({ length: 11 }, () => ({ percentage: 5 })),
  });
  assert.equal(
    await callFails(A, owner, "generate_invoice_from_offer_tranche", { offerId: many.id }, "invalid_input"),
    `invalid_input: trancheId: required; offer ${many.id} has 11 tranches to invoice: get_offer {offerId} lists them`,
  );
  assert.equal(await invoiceCount(), before, "nothing stored");
  // the seed's call shape still works
  const ok = await callTool(A, owner, "generate_invoice_from_offer_tranche", {
    offerId: many.id,
    trancheId: many.tranches[0].id,
  });
  assert.equal(ok.isError, false, ok.text);
});
