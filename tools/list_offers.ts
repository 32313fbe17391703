// MCP tool list_offers (Portico extension): offers as summaries with their invoicing status, newest first.
import { z } from "zod";
import { limitField, offsetField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listOffers as list, OFFER_STATUSES } from "../lib/workspace/offer_reads.ts";

const common = {
  clientId: uuidField("Only this client's.").optional(),
  query: textField("Text in the subject or client name.", { min: 1, max: 200 }).optional(),
  limit: limitField(50, 200),
  offset: offsetField(),
};

// B has no payment plans, so only A filters by their status. No projectId filter: get_project answers offerId.
const InputA = z.strictObject({
  ...common,
  status: z.enum(OFFER_STATUSES).describe("Tranches' state.").optional(),
});
const InputB = z.strictObject(common);

// No outputSchema (unlike the other page lists): tools/list's token budget (docs/mcp.md "Offers").
export const listOffers = defineTool({
  name: "list_offers",
  title: "List offers",
  area: "offers",
  module: "crm",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: {
    A: "Lists offers, newest first. Returns a page of {id, subject, client, dates, currency, total, status, tranchesToInvoice}.",
    B: "Lists offers, newest first. Returns a page of {id, subject, client, dates, currency, total}.",
  },
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
