// Invoices and credit notes: reading — statuses and types, the answer shapes (amounts signed: a credit note counts
// negative), one invoice with its rows, and the list with its sums per currency.
import { allOf, isoColumn } from "../db/sql.ts";
import { type Page, pageOf } from "./page.ts";
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { formatMoney, parseMoney } from "../money.ts";
import { requireClient } from "./clients.ts";
import { type Line, lineColumns, type LineRow, toLine } from "./line_items.ts";
import { companyFilter, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";

export const INVOICE_STATUSES = ["draft", "sent", "partially_paid", "paid"] as const;
export type InvoiceStatus = typeof INVOICE_STATUSES[number];
export const INVOICE_TYPES = ["recurring", "project", "credit_note"] as const;
export type InvoiceType = typeof INVOICE_TYPES[number];

/**
 * An invoice as list_invoices answers it by default: enough to pick one. Money fields are signed: a credit
 * note's amounts (stored positive) are shown negative, so that everything a caller reads adds up the way it
 * counts.
 */
export interface InvoiceSummary {
  id: string;
  number: string;
  type: InvoiceType;
  status: InvoiceStatus;
  clientId: string | null;
  clientName: string | null;
  subject: string;
  invoiceDate: string;
  dueDate: string | null;
  currency: string;
  total: string;
  /** total − collected */
  outstanding: string;
}

/** Every field of an invoice but its rows: list_invoices with `full`. Signed like the summary. */
export interface InvoiceRecord extends InvoiceSummary {
  isCreditNote: boolean;
  originalInvoiceId: string | null;
  companyId: string | null;
  projectId: string | null;
  offerId: string | null;
  vatRate: string;
  subtotal: string;
  vatAmount: string;
  roundingAdjustment: string;
  collectedAmount: string;
  description: string;
  notes: string;
  paymentMethod: string | null;
  createdBy: string | null;
  createdAt: string;
}

/** An invoice with its rows (rows signed too), as create_invoice answers it. */
export interface Invoice extends InvoiceRecord {
  rows: Line[];
}

/** A stored (positive) amount with the document's sign. */
function signed(stored: string, creditNote: boolean): string {
  const cents = parseMoney(stored, "amount");
  return formatMoney(creditNote ? -cents : cents);
}

/**
 * The columns of an InvoiceSummary (or, `full`, an InvoiceRecord), amounts signed in SQL (numeric: exact, two
 * decimals). The client's name only where the caller could read the client itself (see docs/commercial.md).
 */
function columns(db: Db, s: Scope, full: boolean) {
  const sign = db`case when i.is_credit_note then -1 else 1 end`;
  const summary = db`
    i.id, i.number, i.type, i.status, i.client_id as "clientId",
    case when ${companyFilter(db, s, "c.company_id")} then c.name end as "clientName", i.subject,
    i.invoice_date::text as "invoiceDate", i.due_date::text as "dueDate", i.currency,
    (${sign} * i.total)::text as total, (${sign} * (i.total - i.collected_amount))::text as outstanding`;
  if (!full) return summary;
  return db`${summary},
    i.is_credit_note as "isCreditNote", i.original_invoice_id as "originalInvoiceId", i.company_id as "companyId",
    i.project_id as "projectId", i.offer_id as "offerId", i.vat_rate::text as "vatRate",
    (${sign} * i.subtotal)::text as subtotal, (${sign} * i.vat_amount)::text as "vatAmount",
    (${sign} * i.rounding_adjustment)::text as "roundingAdjustment",
    (${sign} * i.collected_amount)::text as "collectedAmount", i.description, i.notes,
    i.payment_method as "paymentMethod", i.created_by as "createdBy", ${
    isoColumn(db, "i.created_at")
  } as "createdAt"`;
}

/** One invoice with its rows as the caller may see it; null when unknown or out of scope. */
export async function fetchInvoice(db: Db, s: Scope, id: string): Promise<Invoice | null> {
  const [r] = await db<InvoiceRecord[]>`
    select ${columns(db, s, true)}
      from invoices i
      left join clients c on c.workspace_id = i.workspace_id and c.id = i.client_id
     where i.workspace_id = ${s.workspaceId} and i.id = ${id} and ${companyFilter(db, s, "i.company_id")}`;
  if (!r) return null;
  const rows = await db<LineRow[]>`
    select ${lineColumns(db)}
      from invoice_rows where workspace_id = ${s.workspaceId} and invoice_id = ${id} order by position`;
  return {
    ...r,
    rows: rows.map(toLine).map((l) =>
      r.isCreditNote ? { ...l, unitPrice: signed(l.unitPrice, true), amount: signed(l.amount, true) } : l
    ),
  };
}

export async function getInvoice(db: Db, caller: ScopedCaller, id: string): Promise<Invoice> {
  const inv = await fetchInvoice(db, scopeOf(caller), id);
  if (!inv) throw notFound(`invoiceId: no invoice ${id}`);
  return inv;
}

export interface InvoiceFilter {
  status?: InvoiceStatus;
  type?: InvoiceType;
  clientId?: string;
  limit: number;
  offset?: number;
  /** whole invoices (InvoiceRecord) instead of summaries */
  full?: boolean;
}

/** Sums per currency over every matching invoice (not only the returned page); credit notes count negative. */
export interface InvoiceTotals {
  currency: string;
  count: number;
  subtotal: string;
  vatAmount: string;
  total: string;
  collectedAmount: string;
  outstanding: string;
}

/** The page every list tool answers, plus money sums per currency over every match (credit notes negative). */
export interface InvoiceList extends Page<InvoiceSummary | InvoiceRecord> {
  sums: InvoiceTotals[];
}

/** Invoices and credit notes the caller may see, newest first, with signed totals per currency. */
export async function listInvoices(
  db: Db,
  caller: ScopedCaller,
  filter: InvoiceFilter,
): Promise<InvoiceList> {
  const s = scopeOf(caller);
  if (filter.clientId) await requireClient(db, s, filter.clientId);
  const parts = [db`i.workspace_id = ${s.workspaceId}`, companyFilter(db, s, "i.company_id")];
  if (filter.status) parts.push(db`i.status = ${filter.status}`);
  if (filter.type) parts.push(db`i.type = ${filter.type}`);
  if (filter.clientId) parts.push(db`i.client_id = ${filter.clientId}`);
  const where = allOf(db, parts);
  const rows = await db<(InvoiceSummary | InvoiceRecord)[]>`
    select ${columns(db, s, filter.full === true)}
      from invoices i
      left join clients c on c.workspace_id = i.workspace_id and c.id = i.client_id
     where ${where}
     order by i.invoice_date desc, i.year desc, i.sequence desc
     limit ${filter.limit} offset ${filter.offset ?? 0}`;
  // Sums in numeric (exact); the sign of a credit note applied per row.
  const sums = await db<
    { currency: string; n: number; subtotal: string; vat: string; total: string; collected: string }[]
  >`
    select i.currency, count(*)::int as n,
           sum(case when i.is_credit_note then -i.subtotal else i.subtotal end)::text as subtotal,
           sum(case when i.is_credit_note then -i.vat_amount else i.vat_amount end)::text as vat,
           sum(case when i.is_credit_note then -i.total else i.total end)::text as total,
           sum(case when i.is_credit_note then -i.collected_amount else i.collected_amount end)::text as collected
      from invoices i
     where ${where}
     group by i.currency
     order by i.currency`;
  const total = sums.reduce((a, t) => a + t.n, 0);
  return {
    ...pageOf([...rows], total, { limit: filter.limit, offset: filter.offset }),
    sums: sums.map((t) => {
      const total = parseMoney(t.total, "total");
      const collected = parseMoney(t.collected, "collected");
      return {
        currency: t.currency,
        count: t.n,
        subtotal: formatMoney(parseMoney(t.subtotal, "subtotal")),
        vatAmount: formatMoney(parseMoney(t.vat, "vat")),
        total: formatMoney(total),
        collectedAmount: formatMoney(collected),
        outstanding: formatMoney(total - collected),
      };
    }),
  };
}
