// MCP tool list_contacts: the caller's contacts, filtered (AND), sorted from a whitelist and paged, with a total.
import { z } from "zod";
import { cursorField, limitField, offsetField, textField, uuidField } from "../lib/mcp/fields.ts";
import { cursorPageOutput, fullField } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  CONTACT_SORT_FIELDS,
  CONTACT_STATUSES,
  CONTACT_TEXT_FILTERS,
  type ContactSortField,
  type ContactTextFilter,
  listContacts as list,
} from "../lib/workspace/contacts.ts";

const LABELS: Record<ContactTextFilter, string> = {
  companyName: "company name",
  contactName: "contact name",
  firstName: "first name",
  lastName: "last name",
  email: "email address",
  phone: "phone number",
  mobileNumber: "mobile number",
  address: "street address",
  postalCode: "postal code",
  city: "city",
  state: "state or region",
  country: "country",
  department: "department",
  groups: "groups",
  source: "source (where the contact came from)",
  vatNumber: "VAT number",
};

const textFilters = Object.fromEntries(
  (Object.keys(CONTACT_TEXT_FILTERS) as ContactTextFilter[]).map((f) => [
    f,
    textField(
      `${LABELS[f][0].toUpperCase()}${LABELS[f].slice(1)} contains this text.`,
      { max: 200 },
    ).optional(),
  ]),
) as Record<ContactTextFilter, z.ZodOptional<z.ZodString>>;

const SORT_NAMES = Object.keys(CONTACT_SORT_FIELDS) as ContactSortField[];
/** The seed's 16 names and, as before, their snake_case columns (created_at); only the names are advertised. */
const SORT_ACCEPTED: ReadonlySet<string> = new Set([...SORT_NAMES, ...Object.values(CONTACT_SORT_FIELDS)]);

/**
 * An enum of the 16 sortable names in the JSON Schema; the server accepts exactly what it accepted when this was
 * a free string (lib/workspace/contacts.ts sortColumn), column names included.
 */
function sortFieldSchema() {
  return z.string({ error: "must be a string" })
    .refine((v) => SORT_ACCEPTED.has(v), { error: `must be one of ${SORT_NAMES.join(", ")}` })
    .meta({ enum: SORT_NAMES })
    .describe("Column to sort by. Default createdAt.")
    .optional();
}

/** The filter and sort fields, shared with export_contacts. */
export const CONTACT_FILTER_FIELDS = {
  search: textField(
    "Text to find in the contact's name (contact, first and last name), company name, email or phone/mobile " +
      "number (case-insensitive substring).",
    { max: 200 },
  ).optional(),
  ...textFilters,
  status: z.enum(CONTACT_STATUSES).describe(
    `Only contacts with this pipeline status.`,
  ).optional(),
  assignedTo: uuidField("Only contacts assigned to this workspace member (user id).")
    .optional(),
  sortField: sortFieldSchema(),
  sortDirection: z.enum(["asc", "desc"]).default("desc").describe("Sort direction. Default desc."),
};

const Input = z.strictObject({
  ...CONTACT_FILTER_FIELDS,
  full: fullField(),
  limit: limitField(50, 100),
  offset: offsetField(),
  cursor: cursorField(),
});

export const listContacts = defineTool({
  name: "list_contacts",
  title: "List contacts",
  area: "contacts",
  module: "crm",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: cursorPageOutput(),
  description:
    "Lists contacts matching every given filter (text filters: case-insensitive substrings), most recent first unless sorted. Returns a page of {id, name, companyName, email, status, nextFollowUp}; full: true (or export_contacts) for every field.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
