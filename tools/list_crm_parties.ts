// MCP tool list_crm_parties (Portico extension): collaborators and suppliers by name, with the ids the activity
// tools' collaboratorId and supplierId take.
import { z } from "zod";
import { limitField, offsetField, textField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { CRM_PARTY_KINDS, listCrmParties as list } from "../lib/workspace/crm_parties.ts";

const Input = z.strictObject({
  kind: z.enum(CRM_PARTY_KINDS).describe("Only this kind. Default both.").optional(),
  query: textField("Part of a name or email.", { min: 1, max: 200 }).optional(),
  limit: limitField(50, 200),
  offset: offsetField(),
});

// One tool for both kinds (fewer tokens than two); A only, like the activity tools that take these ids.
export const listCrmParties = defineTool({
  name: "list_crm_parties",
  title: "List collaborators and suppliers",
  area: "crm",
  module: "crm",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists collaborators and suppliers by name. Returns a page of {id, kind, name, email, phone, companyId}; pass id as collaboratorId or supplierId.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
