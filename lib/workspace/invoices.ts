// Invoices and credit notes: writing — server-computed totals, one gapless number sequence per workspace and
// year, and invoicing an offer's payment-plan tranche exactly once. The reads live in invoice_reads.ts; the
// domain's callers import both from here.
import { withTx } from "../db/tx.ts";
import { todayUtc } from "../dates.ts";
import type { Db } from "../db/client.ts";
import { conflict, invalidInput, notFound } from "../errors.ts";
import {
  abs,
  type Cents,
  checkTotals,
  computeTotals,
  formatDecimal,
  formatMoney,
  parseDecimal,
  parseMoney,
  PERCENT_SCALE,
} from "../money.ts";
import { type ClientRef, requireClient } from "./clients.ts";
import { LINE_COLUMNS, type LineInput, lineRecords, parseLines } from "./line_items.ts";
import { type Tranche, trancheColumns } from "./offers.ts";
import { trancheChoices, tranchesText, unknownTranche } from "./offer_reads.ts";
import {
  companyFilter,
  companyForWrite,
  inScope,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";
import { fetchInvoice, type Invoice, type InvoiceStatus, type InvoiceType } from "./invoice_reads.ts";

/** A rounding adjustment is for cents (cash rounding to 0.05, rounding to whole units), not for discounts. */
export const MAX_ROUNDING_ADJUSTMENT: Cents = 100n;

export interface NewInvoice {
  clientId?: string;
  companyId?: string;
  projectId?: string;
  subject?: string;
  description?: string;
  invoiceDate?: string;
  dueDate?: string;
  currency?: string;
  notes?: string;
  paymentMethod?: string;
  status?: InvoiceStatus;
  /** percent; default: the original invoice's (credit notes), else the client's vatRate, else 0 */
  vatRate?: string | number;
  roundingAdjustment?: string | number;
  collectedAmount?: string | number;
  isCreditNote?: boolean;
  originalInvoiceId?: string;
  rows?: LineInput[];
}

/** What only the server sets: tranche invoices carry the offer; the demo seeds a recurring invoice. */
interface Origin {
  offerId?: string;
  type?: InvoiceType;
}

function percentBp(value: string | number, field: string): bigint {
  const bp = parseDecimal(value, PERCENT_SCALE, field);
  if (bp < 0n || bp > 10_000n) throw invalidInput(`${field}: must be between 0 and 100`);
  return bp;
}

function text(v: string | undefined, field: string, max: number): string {
  const t = (v ?? "").trim();
  if (t.length > max) throw invalidInput(`${field}: must be at most ${max} characters`);
  return t;
}

/**
 * The next number of the workspace's sequence for `year`, as `2026-0007`. Must run inside the invoice's
 * transaction: the counter row stays locked until it commits (concurrent creations queue, no duplicates) and
 * is restored if it rolls back (no gaps).
 */
export async function nextInvoiceNumber(
  tx: Db,
  workspaceId: string,
  year: number,
): Promise<{ number: string; sequence: number }> {
  const [{ last }] = await tx<{ last: number }[]>`
    insert into invoice_counters (workspace_id, year, last) values (${workspaceId}, ${year}, 1)
    on conflict (workspace_id, year) do update set last = invoice_counters.last + 1
    returning last`;
  return { number: `${year}-${String(last).padStart(4, "0")}`, sequence: last };
}

/** What a credit note takes from the invoice it credits. */
interface OriginalRow {
  clientId: string | null;
  companyId: string | null;
  projectId: string | null;
  currency: string;
  vatRate: string;
  isCreditNote: boolean;
}

/** Creates an invoice or credit note inside an open transaction `tx` (see createInvoice). */
async function insertInvoice(
  tx: Db,
  caller: ScopedCaller,
  s: Scope,
  input: NewInvoice,
  origin: Origin,
): Promise<string> {
  const creditNote = input.isCreditNote === true;
  if (input.originalInvoiceId && !creditNote) {
    throw invalidInput("originalInvoiceId: is only for credit notes (isCreditNote: true)");
  }
  const invoiceDate = input.invoiceDate ?? todayUtc();
  if (input.dueDate && input.dueDate < invoiceDate) {
    throw invalidInput("dueDate: must not be before invoiceDate");
  }

  // Defaults come from what the invoice refers to: the credited invoice, the project, the client.
  let original: OriginalRow | undefined;
  if (input.originalInvoiceId) {
    const [o] = await tx<OriginalRow[]>`
      select client_id as "clientId", company_id as "companyId", project_id as "projectId", currency,
             vat_rate::text as "vatRate", is_credit_note as "isCreditNote"
        from invoices where workspace_id = ${s.workspaceId} and id = ${input.originalInvoiceId}`;
    if (!o || !inScope(s, o.companyId)) {
      throw notFound(`originalInvoiceId: no invoice ${input.originalInvoiceId}`);
    }
    if (o.isCreditNote) {
      throw invalidInput(`originalInvoiceId: ${input.originalInvoiceId} is a credit note: credit an invoice`);
    }
    original = o;
  }
  const projectId = input.projectId ?? original?.projectId ?? null;
  let project: { companyId: string | null; clientId: string | null } | undefined;
  if (projectId) {
    [project] = await tx<{ companyId: string | null; clientId: string | null }[]>`
      select company_id as "companyId", client_id as "clientId" from projects
       where workspace_id = ${s.workspaceId} and id = ${projectId}`;
    if (!project || !inScope(s, project.companyId)) throw notFound(`projectId: no project ${projectId}`);
  }
  const clientId = input.clientId ?? original?.clientId ?? project?.clientId ?? null;
  let client: ClientRef | undefined;
  if (clientId) client = await requireClient(tx, s, clientId);

  let companyId = input.companyId ?? original?.companyId ?? null;
  for (
    const [what, id, theirs] of [
      ["client", clientId, client?.companyId],
      ["project", projectId, project?.companyId],
    ] as const
  ) {
    if (!theirs) continue;
    if (companyId && companyId !== theirs) {
      throw invalidInput(
        `${what}Id: ${what} ${id} belongs to another company than ${
          input.companyId ? "companyId" : "the invoice"
        }`,
      );
    }
    companyId = theirs;
  }
  companyId = companyForWrite(s, companyId);
  if (companyId) await requireCompany(tx, s, companyId);

  const vatRateBp = input.vatRate !== undefined
    ? percentBp(input.vatRate, "vatRate")
    : original
    ? parseDecimal(original.vatRate, PERCENT_SCALE, "vatRate")
    : client?.vatRateBp ?? 0n;

  // Credit notes are stored positive: negative rows are read as written in the displayed sign and normalised,
  // and then the rounding adjustment was written in that sign too.
  const { lines, negative } = parseLines(input.rows ?? [], { normaliseSign: creditNote });
  let adjustment = parseMoney(input.roundingAdjustment ?? 0, "roundingAdjustment");
  if (abs(adjustment) > MAX_ROUNDING_ADJUSTMENT) {
    throw invalidInput("roundingAdjustment: must be between -1.00 and 1.00");
  }
  if (negative) adjustment = -adjustment;
  let totals = computeTotals(lines, vatRateBp, adjustment);
  if (totals.total < 0n) {
    if (!creditNote) throw invalidInput("roundingAdjustment: would make the total negative");
    totals = computeTotals(lines, vatRateBp, -adjustment);
  }
  checkTotals(totals);
  let collected = parseMoney(input.collectedAmount ?? 0, "collectedAmount");
  if (collected < 0n) {
    if (!creditNote) throw invalidInput("collectedAmount: must not be negative");
    collected = -collected;
  }
  if (collected > totals.total) {
    throw invalidInput(
      `collectedAmount ${formatMoney(collected)} exceeds the total ${formatMoney(totals.total)}`,
    );
  }

  const subject = text(input.subject, "subject", 200);
  const description = text(input.description, "description", 10000);
  const notes = text(input.notes, "notes", 10000);
  const paymentMethod = text(input.paymentMethod, "paymentMethod", 100) || null;
  const type: InvoiceType = creditNote ? "credit_note" : origin.type ?? "project";

  const year = Number(invoiceDate.slice(0, 4));
  const { number, sequence } = await nextInvoiceNumber(tx, s.workspaceId, year);
  const [{ id }] = await tx<{ id: string }[]>`
    insert into invoices (workspace_id, company_id, client_id, project_id, offer_id, number, year, sequence, type,
                          is_credit_note, original_invoice_id, status, subject, description, invoice_date,
                          due_date, currency, notes, payment_method, vat_rate, subtotal, vat_amount,
                          rounding_adjustment, total, collected_amount, created_by)
    values (${s.workspaceId}, ${companyId}, ${clientId}, ${projectId}, ${origin.offerId ?? null}, ${number},
            ${year}, ${sequence}, ${type}, ${creditNote}, ${input.originalInvoiceId ?? null},
            ${input.status ?? "draft"}, ${subject}, ${description}, ${invoiceDate}, ${input.dueDate ?? null},
            ${input.currency ?? original?.currency ?? "EUR"}, ${notes}, ${paymentMethod},
            ${formatDecimal(vatRateBp, PERCENT_SCALE)}, ${formatMoney(totals.subtotal)},
            ${formatMoney(totals.vatAmount)}, ${formatMoney(totals.roundingAdjustment)},
            ${formatMoney(totals.total)}, ${formatMoney(collected)}, ${caller.userId ?? null})
    returning id`;
  if (lines.length) {
    const records = lineRecords(s.workspaceId, { column: "invoice_id", id }, lines, totals);
    await tx`insert into invoice_rows ${tx(records, ...LINE_COLUMNS, "invoice_id")}`;
  }
  return id;
}

/**
 * Creates an invoice or a credit note with its rows and number in one transaction. Totals come from the rows,
 * the VAT rate and the rounding adjustment, never from the caller.
 */
export async function createInvoice(
  db: Db,
  caller: ScopedCaller,
  input: NewInvoice,
  origin: Origin = {},
): Promise<Invoice> {
  const s = scopeOf(caller);
  const id = await withTx(db, (tx) => insertInvoice(tx, caller, s, input, origin));
  return (await fetchInvoice(db, s, id))!;
}

export interface TrancheInvoiceInput {
  offerId: string;
  /** optional since the tools answer a missing one with the offer's open tranches (docs/mcp.md) */
  trancheId?: string;
  clientId?: string;
  companyId?: string;
  subject?: string;
  description?: string;
  invoiceDate?: string;
  dueDate?: string;
  currency?: string;
  vatRate?: string | number;
  notes?: string;
  paymentMethod?: string;
  rows?: LineInput[];
}

interface TrancheClaim {
  position: number;
  label: string;
  percentage: string | null;
  amount: string;
}

/**
 * Invoices one tranche of an offer's payment plan: in ONE transaction the tranche moves to_invoice → invoiced
 * (a single conditional UPDATE, so of two concurrent calls exactly one wins; the other waits for its row lock,
 * then finds it invoiced → conflict), the invoice is created for the tranche's share (or the given rows), and
 * the tranche is linked to it. Any failure rolls all three back.
 */
export async function invoiceOfferTranche(
  db: Db,
  caller: ScopedCaller,
  input: TrancheInvoiceInput,
): Promise<{ invoice: Invoice; tranche: Tranche }> {
  const s = scopeOf(caller);
  const [id, trancheId] = await withTx(db, async (tx) => {
    const [offer] = await tx<
      { title: string; clientId: string | null; companyId: string | null; currency: string }[]
    >`
      select title, client_id as "clientId", company_id as "companyId", currency from offers
       where workspace_id = ${s.workspaceId} and id = ${input.offerId}
         and ${companyFilter(tx, s, "company_id")}`;
    if (!offer) throw notFound(`offerId: no offer ${input.offerId}`);
    if (!input.trancheId) {
      const found = (await trancheChoices(tx, s, input.offerId))!;
      throw invalidInput(`trancheId: required; ${tranchesText(input.offerId, found, "to_invoice")}`);
    }
    const [claim] = await tx<TrancheClaim[]>`
      update offer_tranches set status = 'invoiced', invoiced_at = now()
       where workspace_id = ${s.workspaceId} and offer_id = ${input.offerId} and id = ${input.trancheId}
         and status = 'to_invoice'
      returning position, label, percentage::text as percentage, amount::text as amount`;
    if (!claim) {
      const [t] = await tx<{ status: string; number: string | null }[]>`
        select t.status, i.number from offer_tranches t
          left join invoices i on i.workspace_id = t.workspace_id and i.id = t.invoice_id
         where t.workspace_id = ${s.workspaceId} and t.offer_id = ${input.offerId} and t.id = ${input.trancheId}`;
      if (!t) throw await unknownTranche(tx, s, input.offerId, input.trancheId);
      throw conflict(
        `tranche ${input.trancheId} is ${t.status}${
          t.number ? ` (invoice ${t.number})` : ""
        }: only a tranche ` +
          "in to_invoice can be invoiced",
      );
    }
    const name = claim.label || `Tranche ${claim.position}`;
    const share = claim.percentage ? ` (${claim.percentage.replace(/\.00$/, "")} %)` : "";
    const rows = input.rows ??
      [{ description: `${name}${share} of offer "${offer.title}"`, unitPrice: claim.amount }];
    const invoiceId = await insertInvoice(tx, caller, s, {
      clientId: input.clientId ?? offer.clientId ?? undefined,
      companyId: input.companyId ?? (input.clientId ? undefined : offer.companyId ?? undefined),
      subject: input.subject ?? `${offer.title}: ${name}`.slice(0, 200),
      description: input.description,
      invoiceDate: input.invoiceDate,
      dueDate: input.dueDate,
      currency: input.currency ?? offer.currency,
      vatRate: input.vatRate,
      notes: input.notes,
      paymentMethod: input.paymentMethod,
      rows,
    }, { offerId: input.offerId, type: "project" });
    await tx`
      update offer_tranches set invoice_id = ${invoiceId}
       where workspace_id = ${s.workspaceId} and id = ${input.trancheId}`;
    return [invoiceId, input.trancheId] as const;
  });
  const invoice = (await fetchInvoice(db, s, id))!;
  const [tranche] = await db<Tranche[]>`
    select ${trancheColumns(db)}
      from offer_tranches where workspace_id = ${s.workspaceId} and id = ${trancheId}`;
  return { invoice, tranche };
}
