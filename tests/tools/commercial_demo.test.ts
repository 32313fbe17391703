// The commercial demo seeder: runs inside seedDemo; its clients, offer plan, invoices and credit note answer
// through the demo user's key.
import assert from "node:assert/strict";
import { seedDemo } from "../../lib/demo.ts";
import { freshDatabase } from "../helpers/db.ts";
import { callOk, mcpApp } from "../helpers/mcp.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

Deno.test("demo data: clients, an offer with a payment plan, invoices (tranche, recurring) and a credit note", async () => {
  const db = await freshDatabase();
  try {
    const demo = await seedDemo(db.sql, { scrypt: TEST_SCRYPT });
    const app = mcpApp(db.sql, "A");
    const clients = await callOk(app, demo.apiKey, "list_clients", { full: true });
    const helvetia = clients.items.find((c: { companyName: string }) =>
      c.companyName === "Helvetia Design AG"
    );
    assert.equal(helvetia.vatRate, "8.10");
    assert.equal(helvetia.intermediary, "Alpine Partners GmbH");
    assert.equal(helvetia.commission, "5.00");

    const [offer] = await db.sql`
      select o.total::text as total, count(t.id)::int as tranches,
             count(t.id) filter (where t.status = 'invoiced')::int as invoiced
        from offers o join offer_tranches t on t.offer_id = o.id
       where o.workspace_id = ${demo.ctx.workspaceId} and o.title = 'Website relaunch'
       group by o.total`;
    assert.deepEqual({ ...offer }, { total: "1241.70", tranches: 3, invoiced: 1 });

    const list = await callOk(app, demo.apiKey, "list_invoices");
    const byType = (t: string) => list.items.filter((i: { type: string }) => i.type === t);
    assert.equal(list.total, 4);
    assert.equal(byType("credit_note").length, 1);
    assert.equal(byType("recurring").length, 1);
    const deposit = list.items.find((i: { subject: string }) => i.subject === "Website relaunch: Deposit");
    assert.equal(deposit.number, "2026-0001");
    assert.equal(deposit.total, "402.68"); // 372.51 + 8.1 % VAT (30.17)
    const credit = byType("credit_note")[0];
    assert.equal(credit.total, "-142.80"); // 2 × 60.00 + 19 % VAT, shown negative
    const eur = list.sums.find((s: { currency: string }) => s.currency === "EUR");
    assert.equal(eur.total, "975.68"); // 1059.10 − 142.80 + 59.38
  } finally {
    await db.close();
  }
});
