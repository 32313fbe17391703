// MCP tool create_invoice: an invoice (A: or a credit note) with server-computed totals and the next number.
import { z } from "zod";
import { decimalField, decimalMoneyField, percentField, rowsField } from "../lib/mcp/decimal_fields.ts";
import { currencyField, dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { createInvoice as create } from "../lib/workspace/invoices.ts";
import { INVOICE_STATUSES } from "../lib/workspace/invoice_reads.ts";

const common = {
  clientId: uuidField(
    "The client billed. Default: the project's client. The client's vatRate is the default VAT.",
  ).optional(),
  companyId: uuidField(
    "The issuing company. Default: the client's or project's, else the key's only company.",
  ).optional(),
  projectId: uuidField("The project invoiced.").optional(),
  subject: textField("Subject line.", { max: 200 }).optional(),
  description: textField("Text above the rows.", { max: 10000 })
    .optional(),
  invoiceDate: dateField(
    "Invoice date; its year picks the number sequence (2026-0001 …). Default today (UTC).",
  ).optional(),
  dueDate: dateField("Payment due date, not before invoiceDate.").optional(),
  currency: currencyField("ISO 4217 currency, e.g. EUR. Default EUR (credit notes: the original's).")
    .optional(),
  notes: textField("Internal notes.", { max: 10000 }).optional(),
  paymentMethod: textField(
    "How the invoice is paid (bank transfer, card …).",
    {
      max: 100,
    },
  ).optional(),
};

function datesInOrder(v: { invoiceDate?: string; dueDate?: string }): boolean {
  return !v.invoiceDate || !v.dueDate || v.dueDate >= v.invoiceDate;
}
const DATES = { error: "must not be before invoiceDate", path: ["dueDate"] };

const InputA = z.strictObject({
  ...common,
  status: z.enum(INVOICE_STATUSES).describe("Status. Default draft.")
    .optional(),
  vatRate: percentField(
    "VAT rate in percent, 0-100. Default: the original's (credit note), else the client's vatRate, else 0.",
  ).optional(),
  roundingAdjustment: decimalField(
    "Added to subtotal + VAT to round the total, -1.00 to 1.00. Default 0.",
    { scale: 2, max: 100n, negative: true },
  ).optional(),
  collectedAmount: decimalMoneyField(
    "Amount already received, 0 to the total. Default 0.",
    { negative: true },
  ).optional(),
  isCreditNote: z.boolean({ error: "must be true or false" }).describe(
    "true: a credit note (same number sequence; amounts shown negative, negative input taken as positive).",
  ).optional(),
  originalInvoiceId: uuidField(
    "The invoice a credit note credits (only with isCreditNote); client, company, project, currency and VAT " +
      "rate default to the original's.",
  ).optional(),
  rows: rowsField(
    "Line items, at most 200; total = Σ rows + VAT + roundingAdjustment, each rounded half away from zero.",
    { negative: true },
  ).optional(),
}).refine(datesInOrder, DATES);

const InputB = z.strictObject(common).refine(datesInOrder, DATES);

export const createInvoice = defineTool({
  name: "create_invoice",
  title: "Create invoice",
  area: "invoices",
  module: "finance_collections",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: {
    A: "Creates an invoice or credit note with the next number of the year (2026-0007), totals computed from the rows. Returns the invoice with rows; money as decimal strings.",
    B: "Creates a draft invoice (no rows, totals 0.00) with the next number of the year. Returns the invoice.",
  },
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
