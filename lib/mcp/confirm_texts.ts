// Which tool calls need the person's confirmation, and the exact text they are shown (docs/mcp.md "Confirmations").
//
// Each entry decides for one call, from its validated input and the database read with the caller's own scope,
// whether it deletes data or moves money, and says what will happen: names, ids, amounts with their currency.
// null means "run it as today": nothing to confirm, or a record the caller cannot see (the tool then answers
// not_found exactly as without a confirmation, so a confirmation never reveals more than the tool would).
// Names are quoted with JSON.stringify: a record named `Apollo"? Nothing else happens.` stays visibly one name.
import type { TransactionSql } from "postgres";
import type { Db } from "../db/client.ts";
import { withTx } from "../db/tx.ts";
import { AppError } from "../errors.ts";
import type { Caller } from "./caller.ts";
import {
  createInvoice,
  invoiceOfferTranche,
  type NewInvoice,
  type TrancheInvoiceInput,
} from "../workspace/invoices.ts";
import type { Invoice } from "../workspace/invoice_reads.ts";
import { getProject, type ProjectPatch } from "../workspace/projects.ts";
import { companyFilter, scopeOf } from "../workspace/scope.ts";
import { getTimeLog } from "../workspace/time_logs.ts";

/** Decides for one validated call: the confirmation text, or null to run it without one. */
export type Confirmation = (db: Db, caller: Caller, input: Record<string, unknown>) => Promise<string | null>;

/** Thrown to roll a preview back, carrying what the preview computed. */
class Rollback<T> extends Error {
  constructor(readonly value: T) {
    super("preview rolled back");
  }
}

/**
 * Runs `fn` — the tool's own domain function — in a transaction that is always rolled back, and returns what it
 * would have answered: the amounts shown are computed by the one home of those rules (lib/workspace/invoices.ts),
 * never re-derived here. An AppError (not found, conflict, bad input) means "no confirmation": the tool then
 * answers that same error for real.
 */
export async function preview<T>(db: Db, fn: (tx: TransactionSql) => Promise<T>): Promise<T | null> {
  try {
    await withTx(db, async (tx) => {
      throw new Rollback(await fn(tx));
    });
  } catch (err) {
    if (err instanceof Rollback) return err.value as T;
    if (err instanceof AppError) return null;
    throw err;
  }
  return null;
}

/** A name or free text as one visibly quoted string, cut to `max` characters. */
export function quoted(text: string, max = 120): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);
}

/** 150 minutes → "2h30". */
export function duration(minutes: number): string {
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}`;
}

/** "19.00" → "19", "7.50" → "7.5" (a VAT rate as people write it). */
export function percent(rate: string): string {
  return rate.includes(".") ? rate.replace(/0+$/, "").replace(/\.$/, "") : rate;
}

/** "1190.00 EUR (1000.00 net + 190.00 VAT at 19 %)" */
export function amounts(inv: Invoice): string {
  return `${inv.total} ${inv.currency} (${inv.subtotal} net + ${inv.vatAmount} VAT at ${
    percent(inv.vatRate)
  } %` +
    (inv.roundingAdjustment !== "0.00" && inv.roundingAdjustment !== "-0.00"
      ? ` ${inv.roundingAdjustment.startsWith("-") ? "−" : "+"} ${
        inv.roundingAdjustment.replace("-", "")
      } rounding`
      : "") +
    ")";
}

export function clientPart(inv: Invoice): string {
  if (inv.clientId === null) return "without a client";
  return inv.clientName === null
    ? `to client ${inv.clientId}`
    : `to client ${quoted(inv.clientName)} (id ${inv.clientId})`;
}

async function personName(db: Db, userId: string | undefined): Promise<string> {
  if (!userId) return "";
  const [row] = await db<{ name: string }[]>`select name from users where id = ${userId}`;
  return row?.name ?? "";
}

const deleteTimeLog: Confirmation = async (db, caller, input) => {
  let log;
  try {
    log = await getTimeLog(db, caller, input.timeLogId as string);
  } catch (err) {
    if (err instanceof AppError) return null;
    throw err;
  }
  const name = await personName(db, caller.userId);
  const whose = name ? `the time log of ${quoted(name)}` : "your time log";
  const what = log.taskTitle !== null
    ? ` for task ${quoted(log.taskTitle)}${
      log.projectName !== null ? ` of project ${quoted(log.projectName)}` : ""
    }`
    : log.categoryName !== null
    ? ` in category ${quoted(log.categoryName)}${
      log.projectName !== null ? ` for project ${quoted(log.projectName)}` : ""
    }`
    : log.projectName !== null
    ? ` for project ${quoted(log.projectName)}`
    : "";
  const desc = log.description ? `, described as ${quoted(log.description)}` : "";
  return `Delete ${whose} (id ${log.id}): ${
    duration(log.minutes)
  } on ${log.date}, ${log.startTime}–${log.endTime}` +
    `${what}${desc}? A deleted time log cannot be restored.`;
};

const createInvoiceConfirmation: Confirmation = async (db, caller, input) => {
  const status = input.status as string | undefined;
  if (status === undefined || status === "draft") return null; // a draft can still be changed: nothing is issued
  const found = await preview(db, async (tx) => {
    const inv = await createInvoice(tx, caller, input as NewInvoice);
    let original: string | null = null;
    if (inv.originalInvoiceId) {
      const [row] = await tx<{ number: string }[]>`
        select number from invoices where workspace_id = ${caller.workspaceId} and id = ${inv.originalInvoiceId}`;
      original = row?.number ?? null;
    }
    return { inv, original };
  });
  if (!found) return null;
  const { inv, original } = found;
  const kind = inv.isCreditNote ? "a credit note" : "an invoice";
  const credits = !inv.isCreditNote || !inv.originalInvoiceId
    ? ""
    : original
    ? ` crediting invoice ${original} (id ${inv.originalInvoiceId})`
    : ` crediting invoice ${inv.originalInvoiceId}`;
  const collected = inv.collectedAmount !== "0.00" && inv.collectedAmount !== "-0.00"
    ? `, ${inv.collectedAmount} ${inv.currency} recorded as collected`
    : "";
  return `Issue ${kind} with status ${status} ${clientPart(inv)}${credits}: total ${
    amounts(inv)
  }${collected}, ` +
    `dated ${inv.invoiceDate}${inv.dueDate ? `, due ${inv.dueDate}` : ""}, under the next number of ` +
    `${inv.invoiceDate.slice(0, 4)}? The number is used for good: no tool deletes an invoice.`;
};

const invoiceTranche: Confirmation = async (db, caller, input) => {
  const i = input as unknown as TrancheInvoiceInput;
  const s = scopeOf(caller);
  const found = await preview(db, async (tx) => {
    const [offer] = await tx<{ title: string }[]>`
      select title from offers
       where workspace_id = ${s.workspaceId} and id = ${i.offerId} and ${companyFilter(tx, s, "company_id")}`;
    const done = await invoiceOfferTranche(tx, caller, i);
    return { ...done, offerTitle: offer?.title ?? "" };
  });
  if (!found) return null;
  const { invoice: inv, tranche: t, offerTitle } = found;
  const label = t.label ? ` ${quoted(t.label)}` : "";
  const share = t.percentage ? `, ${percent(t.percentage)} % of the offer` : "";
  return `Invoice tranche ${t.position}${label} (id ${t.id}${share}) of offer ${quoted(offerTitle)} ` +
    `(id ${i.offerId}): a draft invoice ${clientPart(inv)} for ${amounts(inv)}, dated ${inv.invoiceDate}, ` +
    `under the next number of ${inv.invoiceDate.slice(0, 4)}; the tranche is marked invoiced and cannot be ` +
    "invoiced again. Go ahead?";
};

/** A project moved to `invoiced` (from any other status); `others` names further fields the same call changes. */
async function projectInvoiced(db: Db, caller: Caller, id: string, others: string[]): Promise<string | null> {
  let p;
  try {
    p = await getProject(db, caller, id);
  } catch (err) {
    if (err instanceof AppError) return null;
    throw err;
  }
  if (p.status === "invoiced") return null; // nothing changes
  const facts = [`id ${p.id}`];
  if (p.clientId !== null) {
    facts.push(p.clientName === null ? `client ${p.clientId}` : `client ${quoted(p.clientName)}`);
  }
  if (p.budget !== null) facts.push(`budget ${p.budget} ${p.currency}`);
  const also = others.length ? ` The same call also changes: ${others.join(", ")}.` : "";
  return `Mark project ${quoted(p.name)} (${facts.join(", ")}) as invoiced (now ${p.status})?${also}`;
}

const updateProjectStatus: Confirmation = (db, caller, input) =>
  input.status === "invoiced"
    ? projectInvoiced(db, caller, input.projectId as string, [])
    : Promise.resolve(null);

const updateProject: Confirmation = (db, caller, input) => {
  if ((input as ProjectPatch).status !== "invoiced") return Promise.resolve(null);
  const others = Object.keys(input).filter((k) =>
    k !== "projectId" && k !== "status" && input[k] !== undefined
  );
  return projectInvoiced(db, caller, input.projectId as string, others);
};

/**
 * The list (docs/mcp.md "Confirmations" says why these and not others): calls that delete a record for good or
 * issue money documents. Any other tool runs as it always has.
 */
export const CONFIRMATIONS: Readonly<Record<string, Confirmation>> = Object.freeze({
  delete_time_log: deleteTimeLog,
  create_invoice: createInvoiceConfirmation,
  generate_invoice_from_offer_tranche: invoiceTranche,
  update_project_status: updateProjectStatus,
  update_project: updateProject,
});
