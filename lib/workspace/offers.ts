// Offers: line items, a net total computed by the server, and a payment plan of tranches (percentage or amount).
import { isoColumn } from "../db/sql.ts";
import { withTx } from "../db/tx.ts";
import { todayUtc } from "../dates.ts";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import {
  type Cents,
  checkTotals,
  computeTotals,
  formatDecimal,
  formatMoney,
  parseDecimal,
  parseMoney,
  PERCENT_SCALE,
  percentageShares,
} from "../money.ts";
import { requireClient } from "./clients.ts";
import {
  type Line,
  LINE_COLUMNS,
  lineColumns,
  type LineInput,
  lineRecords,
  type LineRow,
  parseLines,
  toLine,
} from "./line_items.ts";
import {
  companyFilter,
  companyForWrite,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";

export const TRANCHE_STATUSES = ["to_invoice", "invoiced"] as const;
export type TrancheStatus = typeof TRANCHE_STATUSES[number];
export const MAX_TRANCHES = 50;

export interface TrancheInput {
  label?: string;
  /** percent of the offer total, > 0, at most 2 decimals */
  percentage?: string | number;
  /** fixed amount, > 0, at most 2 decimals */
  amount?: string | number;
  dueDate?: string;
}

export interface NewOffer {
  subject?: string;
  description?: string;
  clientId?: string;
  companyId?: string;
  offerDate?: string;
  validUntil?: string;
  currency?: string;
  notes?: string;
  rows?: LineInput[];
  tranches?: TrancheInput[];
}

export interface Tranche {
  id: string;
  position: number;
  label: string;
  /** "30.00" for a percentage tranche, else null */
  percentage: string | null;
  /** the tranche's share of the offer total in money (computed for percentage tranches) */
  amount: string;
  dueDate: string | null;
  status: TrancheStatus;
  invoiceId: string | null;
}

export interface Offer {
  id: string;
  subject: string;
  description: string;
  clientId: string | null;
  clientName: string | null;
  companyId: string | null;
  offerDate: string;
  validUntil: string | null;
  currency: string;
  notes: string;
  /** Σ row amounts, net (offers carry no VAT; the invoices of the tranches do) */
  total: string;
  rows: Line[];
  tranches: Tranche[];
  createdBy: string | null;
  createdAt: string;
}

interface ParsedTranche {
  label: string;
  percentageBp: bigint | null;
  fixedAmount: Cents | null;
  amount: Cents;
  dueDate: string | null;
}

/**
 * Checks and prices a payment plan: each tranche is a percentage or an amount (not both), percentages add up to
 * at most 100, fixed amounts — and all shares together — to at most the offer total. Percentage shares use
 * cumulative rounding (lib/money.ts percentageShares) so they never add up to more than their percentages.
 */
export function planTranches(total: Cents, tranches: readonly TrancheInput[]): ParsedTranche[] {
  if (tranches.length === 0) return [];
  if (tranches.length > MAX_TRANCHES) throw invalidInput(`tranches: at most ${MAX_TRANCHES} tranches`);
  if (total === 0n) throw invalidInput("tranches: need an offer total above 0: give rows with the offer");
  const parsed = tranches.map((t, i) => {
    const f = (name: string) => `tranches.${i}.${name}`;
    const hasPct = t.percentage !== undefined;
    const hasAmount = t.amount !== undefined;
    if (hasPct === hasAmount) {
      throw invalidInput(
        `tranches.${i}: give either percentage or amount, not ${hasPct ? "both" : "neither"}`,
      );
    }
    const label = (t.label ?? "").trim();
    if (label.length > 200) throw invalidInput(`${f("label")}: must be at most 200 characters`);
    let percentageBp: bigint | null = null;
    let fixedAmount: Cents | null = null;
    if (hasPct) {
      percentageBp = parseDecimal(t.percentage!, PERCENT_SCALE, f("percentage"));
      if (percentageBp <= 0n || percentageBp > 10_000n) {
        throw invalidInput(`${f("percentage")}: must be greater than 0 and at most 100`);
      }
    } else {
      fixedAmount = parseMoney(t.amount!, f("amount"));
      if (fixedAmount <= 0n) throw invalidInput(`${f("amount")}: must be greater than 0`);
    }
    return { label, percentageBp, fixedAmount, amount: 0n, dueDate: t.dueDate ?? null };
  });
  const pcts = parsed.filter((t) => t.percentageBp !== null);
  const pctSum = pcts.reduce((a, t) => a + t.percentageBp!, 0n);
  if (pctSum > 10_000n) {
    throw invalidInput(`tranches: the percentages add up to ${formatDecimal(pctSum, 2)}, more than 100`);
  }
  const amountSum = parsed.reduce((a, t) => a + (t.fixedAmount ?? 0n), 0n);
  if (amountSum > total) {
    throw invalidInput(
      `tranches: the amounts add up to ${formatMoney(amountSum)}, more than the offer total ${
        formatMoney(total)
      }`,
    );
  }
  const shares = percentageShares(total, pcts.map((t) => t.percentageBp!));
  pcts.forEach((t, i) => t.amount = shares[i]);
  for (const t of parsed) if (t.fixedAmount !== null) t.amount = t.fixedAmount;
  const all = parsed.reduce((a, t) => a + t.amount, 0n);
  if (all > total) {
    throw invalidInput(
      `tranches: percentages and amounts together come to ${formatMoney(all)}, more than the offer total ` +
        formatMoney(total),
    );
  }
  return parsed;
}

/** The columns of a Tranche, aliased to its field names. */
export function trancheColumns(db: Db) {
  return db`
    id, position, label, percentage::text as percentage, amount::text as amount, due_date::text as "dueDate",
    status, invoice_id as "invoiceId"`;
}

async function fetchOffer(db: Db, s: Scope, id: string): Promise<Offer | null> {
  const [o] = await db<Omit<Offer, "rows" | "tranches">[]>`
    select o.id, o.title as subject, o.description, o.client_id as "clientId",
           -- the client's name only where the caller could read the client itself (docs/commercial.md)
           case when ${companyFilter(db, s, "c.company_id")} then c.name end as "clientName",
           o.company_id as "companyId", o.offer_date::text as "offerDate", o.valid_until::text as "validUntil",
           o.currency, o.notes, o.total::text as total, o.created_by as "createdBy",
           ${isoColumn(db, "o.created_at")} as "createdAt"
      from offers o
      left join clients c on c.workspace_id = o.workspace_id and c.id = o.client_id
     where o.workspace_id = ${s.workspaceId} and o.id = ${id} and ${companyFilter(db, s, "o.company_id")}`;
  if (!o) return null;
  const [rows, tranches] = await Promise.all([
    db<LineRow[]>`
      select ${lineColumns(db)}
        from offer_rows where workspace_id = ${s.workspaceId} and offer_id = ${id} order by position`,
    db<Tranche[]>`
      select ${trancheColumns(db)}
        from offer_tranches where workspace_id = ${s.workspaceId} and offer_id = ${id} order by position`,
  ]);
  const { createdBy, createdAt, ...head } = o;
  return { ...head, rows: rows.map(toLine), tranches: [...tranches], createdBy, createdAt };
}

function text(v: string | undefined, field: string, max: number): string {
  const t = (v ?? "").trim();
  if (t.length > max) throw invalidInput(`${field}: must be at most ${max} characters`);
  return t;
}

/**
 * Creates an offer with its rows and payment plan in one transaction. The company is the client's (or the given
 * one, which must match it); the total is computed from the rows.
 */
export async function createOffer(db: Db, caller: ScopedCaller, input: NewOffer): Promise<Offer> {
  const s = scopeOf(caller);
  const offerDate = input.offerDate ?? todayUtc();
  if (input.validUntil && input.validUntil < offerDate) {
    throw invalidInput("validUntil: must not be before offerDate");
  }
  const subject = text(input.subject, "subject", 200) || `Offer of ${offerDate}`;
  const description = text(input.description, "description", 10000);
  const notes = text(input.notes, "notes", 10000);
  const { lines } = parseLines(input.rows ?? [], { normaliseSign: false });
  const totals = computeTotals(lines, 0n, 0n);
  checkTotals(totals);
  const tranches = planTranches(totals.total, input.tranches ?? []);

  let companyId = input.companyId ?? null;
  if (input.clientId) {
    const client = await requireClient(db, s, input.clientId);
    if (companyId && client.companyId && companyId !== client.companyId) {
      throw invalidInput(`clientId: client ${input.clientId} belongs to another company than companyId`);
    }
    companyId ??= client.companyId;
  }
  companyId = companyForWrite(s, companyId);
  if (companyId) await requireCompany(db, s, companyId);

  const id = await withTx(db, async (tx) => {
    const [{ id }] = await tx<{ id: string }[]>`
      insert into offers (workspace_id, company_id, client_id, title, description, offer_date, valid_until,
                          currency, notes, total, created_by)
      values (${s.workspaceId}, ${companyId}, ${
      input.clientId ?? null
    }, ${subject}, ${description}, ${offerDate},
              ${input.validUntil ?? null}, ${input.currency ?? "EUR"}, ${notes}, ${formatMoney(totals.total)},
              ${caller.userId ?? null})
      returning id`;
    if (lines.length) {
      const records = lineRecords(s.workspaceId, { column: "offer_id", id }, lines, totals);
      await tx`insert into offer_rows ${tx(records, ...LINE_COLUMNS, "offer_id")}`;
    }
    if (tranches.length) {
      const records = tranches.map((t, i) => ({
        workspace_id: s.workspaceId,
        offer_id: id,
        position: i + 1,
        label: t.label,
        percentage: t.percentageBp === null ? null : formatDecimal(t.percentageBp, PERCENT_SCALE),
        fixed_amount: t.fixedAmount === null ? null : formatMoney(t.fixedAmount),
        amount: formatMoney(t.amount),
        due_date: t.dueDate,
      }));
      await tx`insert into offer_tranches ${tx(records)}`;
    }
    return id;
  });
  return (await fetchOffer(db, s, id))!;
}

export async function getOffer(db: Db, caller: ScopedCaller, id: string): Promise<Offer> {
  const offer = await fetchOffer(db, scopeOf(caller), id);
  if (!offer) throw notFound(`offerId: no offer ${id}`);
  return offer;
}
