// MCP tool get_offer (Portico extension): one offer with its rows and tranches, and the invoice each tranche produced.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getOfferDetail } from "../lib/workspace/offer_reads.ts";

const Input = z.strictObject({
  offerId: uuidField("From list_offers."),
});

export const getOffer = defineTool({
  name: "get_offer",
  title: "Get offer",
  area: "offers",
  module: "crm",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: {
    A: "Returns one offer with rows and tranches {id, label, amount, status, invoiceId, invoiceNumber}.",
    B: "Returns one offer with every field.",
  },
  run: (ctx, input) => getOfferDetail(ctx.db, ctx.caller, input.offerId),
});
