// MCP tool list_activities: the caller's CRM activities, optionally of one record, one type or matching text.
import { z } from "zod";
import { limitField, offsetField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { ACTIVITY_TYPES, listActivities as list } from "../lib/workspace/activities.ts";

const Input = z.strictObject({
  contactId: uuidField("Only activities about this contact (UUID). Optional.").optional(),
  clientId: uuidField("Only activities about this client (UUID). Optional.").optional(),
  collaboratorId: uuidField("Only activities about this collaborator (UUID). Optional.").optional(),
  supplierId: uuidField("Only activities about this supplier (UUID). Optional.").optional(),
  type: z.enum(ACTIVITY_TYPES).describe(`Only this kind: ${ACTIVITY_TYPES.join(", ")}. Optional.`).optional(),
  search: textField(
    "Text to find in title, description, outcome or notes (case-insensitive substring); up to 200 " +
      "characters. Optional.",
    { max: 200 },
  ).optional(),
  limit: limitField(50, 100),
  offset: offsetField(),
});

export const listActivities = defineTool({
  name: "list_activities",
  title: "List CRM activities",
  area: "crm",
  module: "crm",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists the CRM activities the key may see, most recent activityDate first; filters combine with " +
    "AND. Returns { items, total, limit, offset, hasMore, nextOffset }; each item has every activity field and entity " +
    "{ kind, id, name } (the contact, client, collaborator or supplier). not_found when a given record id is " +
    "unknown or outside the key's companies.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
