// Deterministic interleavings of the two concurrency rules (Postgres only: PGlite serves one connection, so a
// second transaction could not even start while the first holds its locks):
// the invoice counter row lock (a rolled-back invoice gives its number back) and the tranche claim.
import assert from "node:assert/strict";
import type { Sql } from "../../lib/db/client.ts";
import { AppError } from "../../lib/errors.ts";
import { createInvoice, invoiceOfferTranche } from "../../lib/workspace/invoices.ts";
import { createOffer } from "../../lib/workspace/offers.ts";
import { DATABASE_URL, freshDatabase } from "../helpers/db.ts";
import { buildFixture } from "../helpers/mcp.ts";
import { waitingOnLock } from "../helpers/wait.ts";

const ignore = !DATABASE_URL;

/**
 * Whether `p` has settled once its statement waits on a lock (pg_stat_activity): it must not have. This was "not
 * settled after 300 ms", which on a loaded host can mean the statement had not even reached Postgres yet — and
 * then the interleaving under test did not happen.
 */
async function settledWhileBlocked(sql: Sql, p: Promise<unknown>, what: string): Promise<boolean> {
  let settled = false;
  p.then(() => settled = true, () => settled = true);
  await waitingOnLock(sql, what);
  return settled;
}

Deno.test({
  name: "numbering: a second creation waits for the first's counter lock; a rollback leaves no gap",
  ignore,
  async fn() {
    const db = await freshDatabase();
    try {
      const f = await buildFixture(db.sql);
      const caller = { workspaceId: f.workspaceId, userId: f.users.owner };
      let release!: () => void;
      const gate = new Promise<void>((r) => release = r);
      let numbered!: () => void;
      const firstNumbered = new Promise<void>((r) => numbered = r);
      const first = db.sql.begin(async (tx) => {
        const inv = await createInvoice(tx, caller, { invoiceDate: "2032-01-01" });
        assert.equal(inv.number, "2032-0001");
        numbered();
        await gate;
        throw new Error("roll back");
      });
      await firstNumbered;
      const second = createInvoice(db.sql, caller, { invoiceDate: "2032-01-02" });
      assert.equal(
        await settledWhileBlocked(db.sql, second, "the second waits for the counter row"),
        false,
        "the second waits for the counter row",
      );
      release();
      await assert.rejects(first, /roll back/);
      assert.equal((await second).number, "2032-0001", "the rolled-back number is reused: no gap");
    } finally {
      await db.close();
    }
  },
});

Deno.test({
  name: "tranche: while one transaction holds the claim, a second call waits, then answers conflict",
  ignore,
  async fn() {
    const db = await freshDatabase();
    try {
      const f = await buildFixture(db.sql);
      const caller = { workspaceId: f.workspaceId, userId: f.users.owner };
      const offer = await createOffer(db.sql, caller, {
        rows: [{ description: "x", unitPrice: "1000" }],
        tranches: [{ percentage: 50 }, { percentage: 50 }],
      });
      const input = { offerId: offer.id, trancheId: offer.tranches[0].id, invoiceDate: "2033-01-01" };
      let release!: () => void;
      const gate = new Promise<void>((r) => release = r);
      let claimed!: () => void;
      const firstClaimed = new Promise<void>((r) => claimed = r);
      const first = db.sql.begin(async (tx) => {
        const r = await invoiceOfferTranche(tx, caller, input);
        claimed();
        await gate;
        return r;
      });
      await firstClaimed;
      const second = invoiceOfferTranche(db.sql, caller, input);
      assert.equal(
        await settledWhileBlocked(db.sql, second, "the second waits for the tranche row"),
        false,
        "the second waits for the tranche row",
      );
      release();
      const won = await first;
      assert.equal(won.tranche.status, "invoiced");
      await assert.rejects(second, (err) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, "conflict");
        assert.match(err.message, /is invoiced \(invoice 2033-0001\): only a tranche in to_invoice/);
        return true;
      });
      const [n] = await db.sql`select count(*)::int as n, max(number) as last from invoices
        where workspace_id = ${f.workspaceId} and year = 2033`;
      assert.deepEqual({ ...n }, { n: 1, last: "2033-0001" });
    } finally {
      await db.close();
    }
  },
});
