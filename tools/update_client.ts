// MCP tool update_client: changes the given fields of a client; null clears an optional field.
import { z } from "zod";
import { percentField } from "../lib/mcp/decimal_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { updateClient as update } from "../lib/workspace/clients.ts";

function clearableText(what: string, max: number) {
  return textField(`New ${what}; null clears it.`, { max }).nullable()
    .optional();
}

const Input = z.strictObject({
  clientId: uuidField("The client's id."),
  companyName: textField("New company name.", { min: 1, max: 200 })
    .optional(),
  firstName: clearableText("first name of the contact person", 100),
  lastName: clearableText("last name of the contact person", 100),
  email: z.email({ error: "must be an email address" }).max(320, { error: "must be at most 320 characters" })
    .describe("New email address; null clears it.").nullable().optional(),
  phone: clearableText("phone number", 50),
  vatNumber: clearableText("VAT identification number", 50),
  address: clearableText("street and house number", 500),
  postalCode: clearableText("postal code", 20),
  city: clearableText("city", 100),
  country: clearableText("country (name or ISO code)", 100),
  companyId: uuidField(
    "Move the client to this workspace company (must be in the key's scope); null removes the company " +
      "(only for keys not limited to companies).",
  ).nullable().optional(),
  department: clearableText("department at the client", 200),
  vatRate: percentField(
    "New default VAT rate in percent for the client's new invoices, 0-100; null " +
      "clears it (existing invoices keep theirs).",
  ).nullable().optional(),
  intermediary: clearableText("intermediary (who brought the client)", 200),
  commission: percentField(
    "New commission of the intermediary in percent, 0-100; null clears it.",
  ).nullable().optional(),
});

export const updateClient = defineTool({
  name: "update_client",
  title: "Update client",
  area: "clients",
  module: null,
  needsUser: false,
  variants: { A: Input },
  // Overwrites contact data that cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Changes the given fields of a client; null clears an optional field. Returns the updated client.",
  run: (ctx, { clientId, ...patch }) => update(ctx.db, ctx.caller, clientId, patch),
});
