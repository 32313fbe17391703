// MCP tool create_client: a new client, in the caller's company scope; A also sets VAT and intermediary terms.
import { z } from "zod";
import { percentField } from "../lib/mcp/decimal_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { createClient as create } from "../lib/workspace/clients.ts";

/** The limit is in the schema (maxLength); the description does not repeat it. */
function optionalText(what: string, max: number) {
  return textField(`${what}.`, { max }).optional();
}

/** The fields of both variants. */
const CLIENT_FIELDS = {
  firstName: optionalText("First name of the contact person", 100),
  lastName: optionalText("Last name of the contact person", 100),
  email: z.email({ error: "must be an email address" }).max(320, { error: "must be at most 320 characters" })
    .describe("Email address.").optional(),
  phone: optionalText("Phone number", 50),
  vatNumber: optionalText("The client's VAT identification number", 50),
  address: optionalText("Street and house number", 500),
  postalCode: optionalText("Postal code", 20),
  city: optionalText("City of the address", 100),
  country: optionalText("Country (name or ISO code)", 100),
  companyId: uuidField(
    "The client's company. Default: the key's only company, else none.",
  ).optional(),
};

const CLIENT_FIELDS_A = {
  department: optionalText("Department at the client", 200),
  vatRate: percentField(
    "Default VAT rate in percent for this client's new invoices, 0-100 with at most 2 decimals (8.1 or " +
      '"8.10"). without it new invoices use 0 unless they give vatRate.',
  ).optional(),
  intermediary: optionalText("Who brought the client (an agent or partner); kept and returned", 200),
  commission: percentField(
    "The intermediary's commission in percent, 0-100; kept and returned.",
  ).optional(),
};

const companyName = textField("The client's company name.", { min: 1, max: 200 });

const InputB = z.strictObject({ companyName, ...CLIENT_FIELDS });
const InputA = z.strictObject({ companyName, ...CLIENT_FIELDS, ...CLIENT_FIELDS_A });

export const createClient = defineTool({
  name: "create_client",
  title: "Create client",
  area: "clients",
  module: null,
  needsUser: false,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: "Creates a client. Returns the new client; percentages as decimal strings.",
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
