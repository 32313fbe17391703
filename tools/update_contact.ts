// MCP tool update_contact: changes the given fields of a contact.
import { z } from "zod";
import { dateField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { CONTACT_STATUSES, updateContact as update } from "../lib/workspace/contacts.ts";
import { CONTACT_LIMITS, contactText, emailSchema } from "./create_contact.ts";

const KEEP = 'null or "" clears it. Omit to keep.';
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
  city: "New city",
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
    contactText(f, LABELS[f], KEEP).nullable().optional(),
  ]),
) as Record<keyof typeof CONTACT_LIMITS, z.ZodOptional<z.ZodNullable<z.ZodString>>>;

const Input = z.strictObject({
  contactId: uuidField("The contact's id (UUID), as returned by list_contacts. Required."),
  ...texts,
  email: z.union([z.literal(""), emailSchema()]).nullable().optional().describe(
    `New email address, up to 320 characters; ${KEEP}`,
  ),
  status: z.enum(CONTACT_STATUSES).describe(
    `New pipeline status: ${CONTACT_STATUSES.join(", ")}. Omit to keep.`,
  ).optional(),
  assignedTo: uuidField(
    `Workspace member (user id, UUID) responsible for the contact; null clears it. Omit to keep.`,
  )
    .nullable().optional(),
  nextFollowUp: dateField("New follow-up date, YYYY-MM-DD; null clears it. Omit to keep.").nullable()
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
    "Changes the given fields of a contact; omitted fields stay as they are. Returns the updated " +
    "contact as a JSON object with every field. not_found when the id is unknown or outside the key's companies.",
  run: (ctx, { contactId, ...patch }) => update(ctx.db, ctx.caller, contactId, patch),
});
