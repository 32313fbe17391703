// MCP tool list_invoices: invoices and credit notes, newest first, credit notes negative, with sums per currency.
import { z } from "zod";
import { limitField, offsetField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { INVOICE_STATUSES, INVOICE_TYPES, listInvoices as list } from "../lib/workspace/invoices.ts";

const Input = z.strictObject({
  status: z.enum(INVOICE_STATUSES).describe(
    "Only invoices in this status: draft, sent, partially_paid or paid. Default: every status.",
  ).optional(),
  type: z.enum(INVOICE_TYPES).describe(
    "Only this type: recurring, project or credit_note. Default: every type.",
  ).optional(),
  clientId: uuidField("Only invoices of this client (UUID). Optional.").optional(),
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
  description: "Lists the invoices and credit notes the key may see, newest invoice date first. Returns " +
    "{ items, total, limit, offset, hasMore, nextOffset, sums }: items are summaries (id, number like 2026-0007, type, status, " +
    "client, company, dates, currency, vatRate, subtotal, vatAmount, roundingAdjustment, total, " +
    "collectedAmount, outstanding); money as decimal strings, negative for credit notes. total counts every " +
    "match; when hasMore is true, call again with offset = nextOffset for the next page; sums holds per currency the signed sums over every match (credit notes subtract).",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
