// MCP tool create_offer: an offer recorded as the calling person; A also takes line items and a payment plan.
import { z } from "zod";
import { decimalMoneyField, percentField, rowsField } from "../lib/mcp/decimal_fields.ts";
import { currencyField, dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { createOffer as create, MAX_TRANCHES } from "../lib/workspace/offers.ts";

const common = {
  subject: textField('What the offer is for. Default "Offer of <offerDate>".', {
    max: 200,
  }).optional(),
  description: textField("Text of the offer.", { max: 10000 })
    .optional(),
  clientId: uuidField(
    "The client the offer is for. the offer then belongs to the client's company.",
  )
    .optional(),
  companyId: uuidField(
    "The offer's company. Default: the client's, else the key's only company.",
  ).optional(),
  offerDate: dateField("Date of the offer. Default today (UTC).").optional(),
  validUntil: dateField("Last day the offer is valid, not before offerDate.")
    .optional(),
  currency: currencyField("ISO 4217 currency of the offer, e.g. EUR. Default EUR.").optional(),
  notes: textField("Internal notes.", { max: 10000 }).optional(),
};

const Tranche = z.strictObject({
  label: textField(
    'Name of the tranche ("Deposit", "On delivery"). Default "Tranche N".',
    {
      max: 200,
    },
  ).optional(),
  percentage: percentField(
    "Share of the offer total in percent, > 0 to 100. Give this or " +
      "amount, not both; the percentages of an offer add up to at most 100.",
    { positive: true },
  ).optional(),
  amount: decimalMoneyField(
    "Fixed amount of the tranche, > 0. Give this or " +
      "percentage, not both; all tranches together come to at most the offer total.",
    { positive: true },
  ).optional(),
  dueDate: dateField("When the tranche is due.").optional(),
}).refine((t) => (t.percentage === undefined) !== (t.amount === undefined), {
  error: "give either percentage or amount, not both and not neither",
});

function datesInOrder(v: { offerDate?: string; validUntil?: string }): boolean {
  return !v.offerDate || !v.validUntil || v.validUntil >= v.offerDate;
}
const DATES = { error: "must not be before offerDate", path: ["validUntil"] };

const InputA = z.strictObject({
  ...common,
  rows: rowsField(
    "Line items, at most 200; the offer total is the net sum of the rows, rounded to the cent.",
  ).optional(),
  tranches: z.array(Tranche, { error: "must be an array of tranches" })
    .max(MAX_TRANCHES, { error: `must have at most ${MAX_TRANCHES} tranches` })
    .describe(
      `Payment plan, at most ${MAX_TRANCHES} tranches, each a percentage of the offer total or a fixed amount. ` +
        "Each starts in status to_invoice. Needs rows (a total above 0).",
    ).optional(),
}).refine(datesInOrder, DATES);

const InputB = z.strictObject(common).refine(datesInOrder, DATES);

export const createOffer = defineTool({
  name: "create_offer",
  title: "Create offer",
  area: "offers",
  module: "crm",
  needsUser: true,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: {
    A: "Creates an offer with optional rows and payment-plan tranches. Returns the offer with total, rows and tranches; money as decimal strings.",
    B: 'Creates an offer. Returns the offer with total "0.00".',
  },
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
