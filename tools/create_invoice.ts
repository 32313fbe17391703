// MCP tool create_invoice: an invoice (A: or a credit note) with server-computed totals and the next number.
import { z } from "zod";
import { decimalField, decimalMoneyField, percentField, rowsField } from "../lib/mcp/decimal_fields.ts";
import { currencyField, dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { createInvoice as create, INVOICE_STATUSES } from "../lib/workspace/invoices.ts";

const common = {
  clientId: uuidField(
    "The client billed (UUID). Optional; default: the project's client. The client's vatRate is the default VAT.",
  ).optional(),
  companyId: uuidField(
    "The workspace company issuing the invoice (UUID). Optional; default: the client's or project's company, " +
      "or the key's only company when the key is limited to one.",
  ).optional(),
  projectId: uuidField("The project invoiced (UUID). Optional.").optional(),
  subject: textField("Subject line, up to 200 characters. Default empty.", { max: 200 }).optional(),
  description: textField("Text above the rows, up to 10000 characters. Default empty.", { max: 10000 })
    .optional(),
  invoiceDate: dateField(
    "Invoice date, YYYY-MM-DD; its year picks the number sequence (2026-0001 …). Default today (UTC).",
  ).optional(),
  dueDate: dateField("Payment due date, YYYY-MM-DD, not before invoiceDate. Optional.").optional(),
  currency: currencyField("ISO 4217 currency, e.g. EUR. Default EUR (credit notes: the original's).")
    .optional(),
  notes: textField("Internal notes, up to 10000 characters. Default empty.", { max: 10000 }).optional(),
  paymentMethod: textField(
    "How the invoice is paid (bank transfer, card …), up to 100 characters. Optional.",
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
  status: z.enum(INVOICE_STATUSES).describe("Status: draft, sent, partially_paid or paid. Default draft.")
    .optional(),
  vatRate: percentField(
    "VAT rate in percent, 0-100 with at most 2 decimals. Default: the original invoice's for a credit note, " +
      "else the client's vatRate, else 0.",
  ).optional(),
  roundingAdjustment: decimalField(
    "Added to subtotal + VAT to round the total (e.g. -0.03 to the 5 cents), -1.00 to 1.00 with at most 2 " +
      "decimals; number or string. Default 0.",
    { scale: 2, max: 100n, negative: true },
  ).optional(),
  collectedAmount: decimalMoneyField(
    "Amount already received, at least 0 and at most the total, at most 2 decimals. Default 0. (Credit notes: " +
      "a negative value is taken as positive.)",
    { negative: true },
  ).optional(),
  isCreditNote: z.boolean({ error: "must be true or false" }).describe(
    "true: a credit note for originalInvoiceId. It shares the invoices' number sequence; amounts are stored " +
      "positive (negative input is normalised) and shown negative. Default false.",
  ).optional(),
  originalInvoiceId: uuidField(
    "The invoice a credit note credits (UUID, an invoice of this workspace in the key's scope). Only with " +
      "isCreditNote, and optional there (a credit note without it stands alone); client, company, project, " +
      "currency and VAT rate default to the original's.",
  ).optional(),
  rows: rowsField(
    "Line items, at most 200. Row amount = quantity × unitPrice less discountPercent, rounded half away from " +
      "zero to the cent; subtotal = Σ rows; VAT = subtotal × vatRate, rounded; total = subtotal + VAT + " +
      "roundingAdjustment. Default none (total 0).",
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
    A: "Creates an invoice or a credit note (isCreditNote) with the next number of the workspace's sequence for " +
      "the invoice year (2026-0007; invoices and credit notes share it). Totals are computed from the rows, the " +
      "VAT rate and the rounding adjustment. Returns the invoice as a JSON object with every field and its " +
      "rows; money as decimal strings, negative for a credit note.",
    B: "Creates a draft invoice (no rows yet, totals 0.00) with the next number of the workspace's sequence " +
      "for the invoice year (2026-0007). Returns the invoice as a JSON object with every field.",
  },
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
