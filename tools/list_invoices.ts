// MCP tool list_invoices: invoices and credit notes, newest first, credit notes negative, with sums per currency.
import { z } from "zod";
import { limitField, offsetField, uuidField } from "../lib/mcp/fields.ts";
import { fullField, pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { INVOICE_STATUSES, INVOICE_TYPES, listInvoices as list } from "../lib/workspace/invoice_reads.ts";

const Input = z.strictObject({
  status: z.enum(INVOICE_STATUSES).describe(
    "Only invoices in this status.",
  ).optional(),
  type: z.enum(INVOICE_TYPES).describe(
    "Only this type.",
  ).optional(),
  clientId: uuidField("Only invoices of this client.").optional(),
  full: fullField(),
  limit: limitField(50, 200),
  offset: offsetField(),
});

export const listInvoices = defineTool({
  name: "list_invoices",
  title: "List invoices",
  area: "invoices",
  module: "finance_collections",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput({ sums: z.array(z.looseObject({})) }),
  description:
    "Lists invoices and credit notes, newest first. Returns a page of {id, number, type, status, client, subject, dates, currency, total, outstanding} and sums per currency; money as decimal strings, negative for credit notes; full: true adds every field but rows.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
