// MCP tool generate_invoice_from_offer_tranche: invoices one to_invoice tranche of an offer's payment plan, once.
import { z } from "zod";
import { percentField, rowsField } from "../lib/mcp/decimal_fields.ts";
import { currencyField, dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { invoiceOfferTranche } from "../lib/workspace/invoices.ts";

const Input = z.strictObject({
  offerId: uuidField("The offer."),
  trancheId: uuidField(
    "The tranche to invoice (get_offer lists them); must be in to_invoice. Missing: the person is asked to choose.",
  ).optional(),
  clientId: uuidField("The client billed. Default: the offer's client.").optional(),
  companyId: uuidField(
    "The issuing workspace company. Default: the offer's (or the client's) company.",
  )
    .optional(),
  subject: textField('Subject line. Default "<offer subject>: <tranche label>".', {
    max: 200,
  }).optional(),
  description: textField("Text above the rows.", { max: 10000 })
    .optional(),
  invoiceDate: dateField("Invoice date; its year picks the number sequence. Default today (UTC).")
    .optional(),
  dueDate: dateField("Payment due date, not before invoiceDate.").optional(),
  currency: currencyField("ISO 4217 currency. Default: the offer's.").optional(),
  vatRate: percentField(
    "VAT rate in percent, 0-100. Default: the client's vatRate, else 0.",
  )
    .optional(),
  notes: textField("Internal notes.", { max: 10000 }).optional(),
  paymentMethod: textField("How the invoice is paid.", { max: 100 })
    .optional(),
  rows: rowsField(
    "Line items replacing the default single row (1 × the tranche's amount), 1-200 rows.",
    { min: 1 },
  ).optional(),
}).refine((v) => !v.invoiceDate || !v.dueDate || v.dueDate >= v.invoiceDate, {
  error: "must not be before invoiceDate",
  path: ["dueDate"],
});

export const generateInvoiceFromOfferTranche = defineTool({
  name: "generate_invoice_from_offer_tranche",
  title: "Invoice an offer tranche",
  area: "invoices",
  module: "finance_collections",
  needsUser: false,
  variants: { A: Input },
  // A repeated call changes nothing: the tranche is already invoiced and the call answers conflict.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Invoices one to_invoice tranche of an offer and marks it invoiced, in one step. Returns {invoice, tranche}.",
  run: (ctx, input) => invoiceOfferTranche(ctx.db, ctx.caller, input),
});
