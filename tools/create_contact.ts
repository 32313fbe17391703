// MCP tool create_contact: a new contact (lead or person) in the caller's company scope.
import { z } from "zod";
import { dateField, textField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { CONTACT_STATUSES, createContact as create } from "../lib/workspace/contacts.ts";

/** Text limits per contact field (characters), as in migrations/00006_crm.sql. */
export const CONTACT_LIMITS = {
  companyName: 200,
  contactName: 200,
  firstName: 100,
  lastName: 100,
  phone: 50,
  mobileNumber: 50,
  website: 500,
  address: 500,
  postalCode: 20,
  city: 100,
  state: 100,
  country: 100,
  department: 100,
  groups: 500,
  source: 100,
  vatNumber: 50,
  notes: 10000,
} as const;

export function contactText(field: keyof typeof CONTACT_LIMITS, what: string, tail: string) {
  const max = CONTACT_LIMITS[field];
  return textField(tail ? `${what}; ${tail}` : `${what}.`, { max });
}

/** An email address of at most 320 characters. */
export function emailSchema() {
  return z.email({ error: "must be an email address" }).max(320, { error: "must be at most 320 characters" });
}

export function emailField(description: string) {
  return emailSchema().describe(description);
}

const Input = z.strictObject({
  companyName: contactText("companyName", "The contact's company or organisation", "").optional(),
  contactName: contactText("contactName", "The person's full name", "").optional(),
  email: emailField("Email address.").optional(),
  phone: contactText("phone", "Phone number as written", "").optional(),
  website: contactText("website", "Website address", "").optional(),
  address: contactText("address", "Street address", "").optional(),
  city: contactText("city", "City of the address", "").optional(),
  country: contactText("country", "Country of the address", "").optional(),
  source: contactText("source", "Where the contact came from (e.g. website, referral, fair)", "")
    .optional(),
  status: z.enum(CONTACT_STATUSES).describe(
    `Pipeline status. Default new.`,
  ).optional(),
  notes: contactText("notes", "Internal notes", "").optional(),
  nextFollowUp: dateField("Date of the next follow-up.").optional(),
});

export const createContact = defineTool({
  name: "create_contact",
  title: "Create contact",
  area: "contacts",
  module: "crm",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: "Creates a contact; every field is optional. Returns the new contact.",
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
