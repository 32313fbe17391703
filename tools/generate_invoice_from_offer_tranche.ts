// MCP tool generate_invoice_from_offer_tranche: invoices one to_invoice tranche of an offer's payment plan, once.
import { z } from "zod";
import { percentField, rowsField } from "../lib/mcp/decimal_fields.ts";
import { currencyField, dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { invoiceOfferTranche } from "../lib/workspace/invoices.ts";

const Input = z.strictObject({
  offerId: uuidField("The offer."),
  trancheId: uuidField(
    "A to_invoice tranche (get_offer lists them). Omitted: the person is asked to pick one.",
  ).optional(),
  clientId: uuidField("Client billed. Default: the offer's.").optional(),
  companyId: uuidField(
    "Issuing company. Default: the offer's (or client's).",
  )
    .optional(),
  subject: textField('Subject line. Default "<offer subject>: <tranche label>".', {
    max: 200,
  }).optional(),
  description: textField("Text above the rows.", { max: 10000 })
    .optional(),
  invoiceDate: dateField("Default today (UTC); its year picks the number sequence.")
    .optional(),
  dueDate: dateField("Payment due date, not before invoiceDate.").optional(),
  currency: currencyField("ISO 4217 currency. Default: the offer's.").optional(),
  vatRate: percentField(
    "Percent, 0-100. Default: the client's vatRate, else 0.",
  )
    .optional(),
  notes: textField("Internal notes.", { max: 10000 }).optional(),
  paymentMethod: textField("How the invoice is paid.", { max: 100 })
    .optional(),
  rows: rowsField(
    "1-200 rows replacing the default one (the tranche's amount).",
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
