// MCP tool list_activities: the caller's CRM activities, optionally of one record, one type or matching text.
import { z } from "zod";
import { cursorField, limitField, offsetField, textField, uuidField } from "../lib/mcp/fields.ts";
import { cursorPageOutput, fullField } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { ACTIVITY_TYPES, listActivities as list } from "../lib/workspace/activities.ts";

const Input = z.strictObject({
  contactId: uuidField("Only activities about this contact.").optional(),
  clientId: uuidField("Only activities about this client.").optional(),
  collaboratorId: uuidField("Only activities about this collaborator.").optional(),
  supplierId: uuidField("Only activities about this supplier.").optional(),
  type: z.enum(ACTIVITY_TYPES).describe(`Only this kind.`).optional(),
  search: textField(
    "Text to find in title, description, outcome or notes (case-insensitive substring).",
    { max: 200 },
  ).optional(),
  full: fullField(),
  limit: limitField(50, 100),
  offset: offsetField(),
  cursor: cursorField(),
});

export const listActivities = defineTool({
  name: "list_activities",
  title: "List CRM activities",
  area: "crm",
  module: "crm",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: cursorPageOutput(),
  description:
    "Lists CRM activities, most recent first; filters combine with AND. Returns a page of {id, type, title, activityDate, isCompleted, entity {kind, id, name}}; full: true for every field.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
