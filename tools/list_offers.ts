// MCP tool list_offers (Portico extension): offers as summaries with their invoicing status, newest first.
import { z } from "zod";
import { limitField, offsetField, textField, uuidField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listOffers as list, OFFER_STATUSES } from "../lib/workspace/offer_reads.ts";

const common = {
  clientId: uuidField("Only offers for this client.").optional(),
  query: textField("Case-insensitive text in the subject or the client's name.", { min: 1, max: 200 })
    .optional(),
  limit: limitField(50, 200),
  offset: offsetField(),
};

// B has no payment plans and no project-to-offer link, so only A filters by them.
const InputA = z.strictObject({
  ...common,
  projectId: uuidField("Only the offer this project was made from.").optional(),
  status: z.enum(OFFER_STATUSES).describe("Only offers whose tranches stand so.").optional(),
});
const InputB = z.strictObject(common);

export const listOffers = defineTool({
  name: "list_offers",
  title: "List offers",
  area: "offers",
  module: "crm",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description: {
    A: "Lists offers, newest first. Returns a page of {id, subject, client, offerDate, validUntil, currency, total, status, tranchesToInvoice}; get_offer gives the tranches.",
    B: "Lists offers, newest first. Returns a page of {id, subject, client, offerDate, validUntil, currency, total}.",
  },
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
