// MCP tool update_contact: changes the given fields of a contact.
import { z } from "zod";
import { dateField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { CONTACT_STATUSES, updateContact as update } from "../lib/workspace/contacts.ts";
import { CONTACT_LIMITS, contactText, emailSchema } from "./create_contact.ts";

const LABELS: Record<keyof typeof CONTACT_LIMITS, string> = {
  companyName: "New company or organisation name",
  contactName: "New full name",
  firstName: "New first name",
  lastName: "New last name",
  phone: "New phone number",
  mobileNumber: "New mobile number",
  website: "New website address",
  address: "New street address",
  postalCode: "New postal code",
  city: "New city name",
  state: "New state or region",
  country: "New country",
  department: "New department",
  groups: "New groups (free text, e.g. comma-separated tags)",
  source: "New source (where the contact came from)",
  vatNumber: "New VAT number",
  notes: "New internal notes (replace the old ones)",
};

const texts = Object.fromEntries(
  (Object.keys(CONTACT_LIMITS) as (keyof typeof CONTACT_LIMITS)[]).map((f) => [
    f,
    contactText(f, LABELS[f], "").nullable().optional(),
  ]),
) as Record<keyof typeof CONTACT_LIMITS, z.ZodOptional<z.ZodNullable<z.ZodString>>>;

const Input = z.strictObject({
  contactId: uuidField("The contact's id, as returned by list_contacts."),
  ...texts,
  email: z.union([z.literal(""), emailSchema()]).nullable().optional().describe(
    "New email address.",
  ),
  status: z.enum(CONTACT_STATUSES).describe(
    `New pipeline status.`,
  ).optional(),
  assignedTo: uuidField(
    `Workspace member (user id) responsible for the contact; null clears it.`,
  )
    .nullable().optional(),
  nextFollowUp: dateField("New follow-up date; null clears it.").nullable()
    .optional(),
});

export const updateContact = defineTool({
  name: "update_contact",
  title: "Update contact",
  area: "contacts",
  module: "crm",
  needsUser: false,
  variants: { A: Input },
  // Overwrites free text (notes and the other fields) that cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    'Changes the given fields of a contact; null or "" clears a text field. Returns the updated contact.',
  run: (ctx, { contactId, ...patch }) => update(ctx.db, ctx.caller, contactId, patch),
});
