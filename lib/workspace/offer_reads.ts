// Offers: reading — the list with its invoicing status, one offer with the invoice each tranche produced, and the
// tranches as choices (for the answers that name an unknown or missing trancheId, and the form that asks for one).
import { allOf, anyOf, contains } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { requireClient } from "./clients.ts";
import { getOffer, type Offer, type Tranche } from "./offers.ts";
import { countUpTo, type Page, pageOf } from "./page.ts";
import { companyFilter, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";

/**
 * Where an offer's payment plan stands: no tranches; none invoiced yet; some; all. Derived from the tranches
 * (offers carry no status column), so it can never disagree with them.
 */
export const OFFER_STATUSES = ["no_tranches", "to_invoice", "partially_invoiced", "invoiced"] as const;
export type OfferStatus = typeof OFFER_STATUSES[number];

/** An offer as list_offers answers it: enough to pick one and to see whether a tranche is left to invoice. */
export interface OfferSummary {
  id: string;
  subject: string;
  clientId: string | null;
  clientName: string | null;
  offerDate: string;
  validUntil: string | null;
  currency: string;
  /** net, as the offer carries no VAT */
  total: string;
  status: OfferStatus;
  /** how many tranches are still to_invoice */
  tranchesToInvoice: number;
}

export interface OfferFilter {
  clientId?: string;
  status?: OfferStatus;
  /** case-insensitive substring of the subject or the client's name */
  query?: string;
  limit: number;
  offset?: number;
}

/** A tranche with the number of the invoice it produced (null while to_invoice, or when out of the caller's scope). */
export interface TrancheDetail extends Tranche {
  invoiceNumber: string | null;
}

/** An offer as get_offer answers it: the whole offer, its invoicing status, and each tranche's invoice. */
export interface OfferDetail extends Omit<Offer, "tranches"> {
  status: OfferStatus;
  tranches: TrancheDetail[];
}

/** The status of a plan of `count` tranches of which `open` are to_invoice. */
function statusOf(count: number, open: number): OfferStatus {
  if (count === 0) return "no_tranches";
  if (open === count) return "to_invoice";
  return open === 0 ? "invoiced" : "partially_invoiced";
}

/** SQL of the status, for filtering (the same rule as statusOf, on the counts of the lateral join `t`). */
function statusCondition(db: Db, status: OfferStatus) {
  switch (status) {
    case "no_tranches":
      return db`t.n = 0`;
    case "to_invoice":
      return db`t.n > 0 and t.open = t.n`;
    case "partially_invoiced":
      return db`t.open > 0 and t.open < t.n`;
    case "invoiced":
      return db`t.n > 0 and t.open = 0`;
  }
}

/** Offers the caller may see, newest first, as summaries. */
export async function listOffers(db: Db, caller: ScopedCaller, f: OfferFilter): Promise<Page<OfferSummary>> {
  const s = scopeOf(caller);
  if (f.clientId) await requireClient(db, s, f.clientId);
  const parts = [db`o.workspace_id = ${s.workspaceId}`, companyFilter(db, s, "o.company_id")];
  if (f.clientId) parts.push(db`o.client_id = ${f.clientId}`);
  if (f.status) parts.push(statusCondition(db, f.status));
  if (f.query) {
    // the client's name only where the caller could read the client itself, as in the answer
    parts.push(anyOf(db, [
      contains(db, "o.title", f.query),
      db`(${companyFilter(db, s, "c.company_id")} and ${contains(db, "c.name", f.query)})`,
    ]));
  }
  const from = db`offers o
    left join clients c on c.workspace_id = o.workspace_id and c.id = o.client_id
    cross join lateral (
      select count(*)::int as n, (count(*) filter (where ot.status = 'to_invoice'))::int as open
        from offer_tranches ot where ot.workspace_id = o.workspace_id and ot.offer_id = o.id) t
    where ${allOf(db, parts)}`;
  const paging = { limit: f.limit, offset: f.offset };
  const [rows, total] = await Promise.all([
    db<(Omit<OfferSummary, "status"> & { n: number })[]>`
      select o.id, o.title as subject, o.client_id as "clientId",
             case when ${companyFilter(db, s, "c.company_id")} then c.name end as "clientName",
             o.offer_date::text as "offerDate", o.valid_until::text as "validUntil", o.currency,
             o.total::text as total, t.n, t.open as "tranchesToInvoice"
        from ${from}
       order by o.offer_date desc, o.created_at desc, o.id
       limit ${f.limit} offset ${f.offset ?? 0}`,
    countUpTo(db, from, paging),
  ]);
  const items = rows.map(({ n, ...r }) => ({
    id: r.id,
    subject: r.subject,
    clientId: r.clientId,
    clientName: r.clientName,
    offerDate: r.offerDate,
    validUntil: r.validUntil,
    currency: r.currency,
    total: r.total,
    status: statusOf(n, r.tranchesToInvoice),
    tranchesToInvoice: r.tranchesToInvoice,
  }));
  return pageOf(items, total, paging, true);
}

/** One offer with its rows, its status and each tranche's invoice (number only where the caller sees it). */
export async function getOfferDetail(db: Db, caller: ScopedCaller, id: string): Promise<OfferDetail> {
  const s = scopeOf(caller);
  const offer = await getOffer(db, caller, id);
  const numbers = new Map<string, string>();
  const invoiceIds = offer.tranches.flatMap((t) => t.invoiceId ? [t.invoiceId] : []);
  if (invoiceIds.length) {
    const rows = await db<{ id: string; number: string }[]>`
      select id, number from invoices
       where workspace_id = ${s.workspaceId} and id = any(${invoiceIds}::uuid[])
         and ${companyFilter(db, s, "company_id")}`;
    for (const r of rows) numbers.set(r.id, r.number);
  }
  const { tranches, ...head } = offer;
  const open = tranches.filter((t) => t.status === "to_invoice").length;
  return {
    ...head,
    status: statusOf(tranches.length, open),
    tranches: tranches.map((t) => ({
      ...t,
      invoiceNumber: t.invoiceId ? numbers.get(t.invoiceId) ?? null : null,
    })),
  };
}

/** How many tranches an answer lists by name; an offer with more is pointed to get_offer instead. */
export const LISTED_TRANCHES = 10;

/** One tranche of a visible offer, as a choice. */
export interface TrancheChoice {
  id: string;
  position: number;
  label: string;
  percentage: string | null;
  amount: string;
  status: Tranche["status"];
  invoiceNumber: string | null;
}

/** The offer (title, currency) and its tranches in order, or null when the caller cannot see the offer. */
export async function trancheChoices(
  db: Db,
  s: Scope,
  offerId: string,
): Promise<{ title: string; currency: string; tranches: TrancheChoice[] } | null> {
  const [offer] = await db<{ title: string; currency: string }[]>`
    select title, currency from offers
     where workspace_id = ${s.workspaceId} and id = ${offerId} and ${companyFilter(db, s, "company_id")}`;
  if (!offer) return null;
  const tranches = await db<TrancheChoice[]>`
    select t.id, t.position, t.label, t.percentage::text as percentage, t.amount::text as amount, t.status,
           case when ${companyFilter(db, s, "i.company_id")} then i.number end as "invoiceNumber"
      from offer_tranches t
      left join invoices i on i.workspace_id = t.workspace_id and i.id = t.invoice_id
     where t.workspace_id = ${s.workspaceId} and t.offer_id = ${offerId}
     order by t.position`;
  return { ...offer, tranches: [...tranches] };
}

/** `Tranche 2 "Design"` (the label quoted as one visible string; a tranche without a label by its position). */
export function trancheName(t: Pick<TrancheChoice, "position" | "label">): string {
  return t.label ? `Tranche ${t.position} ${JSON.stringify(t.label)}` : `Tranche ${t.position}`;
}

/** `<id> (Tranche 2 "Design", 40 %, 496.68 EUR, invoiced as 2026-0003)`: one tranche in an error's list. */
function describe(t: TrancheChoice, currency: string): string {
  const share = t.percentage ? `, ${t.percentage.replace(/\.00$/, "")} %` : "";
  const state = t.status === "to_invoice"
    ? "to_invoice"
    : `invoiced${t.invoiceNumber ? ` as ${t.invoiceNumber}` : ""}`;
  return `${t.id} (${trancheName(t)}${share}, ${t.amount} ${currency}, ${state})`;
}

/**
 * The tranches an answer names, as text: each with its id, name, share, amount and status when there are at most
 * LISTED_TRANCHES; otherwise how many there are and where to see them. `only` narrows to one status.
 */
export function tranchesText(
  offerId: string,
  found: { currency: string; tranches: TrancheChoice[] },
  only?: Tranche["status"],
): string {
  const list = only ? found.tranches.filter((t) => t.status === only) : found.tranches;
  const which = only === "to_invoice" ? "tranches to invoice" : "tranches";
  if (list.length === 0) return `offer ${offerId} has no ${which}`;
  if (list.length > LISTED_TRANCHES) {
    return `offer ${offerId} has ${list.length} ${which}: get_offer {offerId} lists them`;
  }
  return `the offer's ${which}: ${list.map((t) => describe(t, found.currency)).join("; ")}`;
}

/** not_found for a trancheId that is not one of the (visible) offer's, listing the ones that are. */
export async function unknownTranche(db: Db, s: Scope, offerId: string, trancheId: string) {
  const found = await trancheChoices(db, s, offerId);
  if (!found) return notFound(`offerId: no offer ${offerId}`);
  return notFound(`trancheId: no tranche ${trancheId} in offer ${offerId}; ${tranchesText(offerId, found)}`);
}
