// MCP tool update_activity: changes the given fields of a CRM activity, or moves it to another record.
import { z } from "zod";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { updateActivity as update } from "../lib/workspace/activities.ts";
import { activityFields } from "./create_activity.ts";

const KEEP = "";
const f = activityFields(KEEP, "; null clears it");

const Input = z.strictObject({
  activityId: uuidField("The activity's id, as returned by list_activities."),
  title: textField("New title.", { min: 1, max: 200 }).optional(),
  type: f.type.optional(),
  description: f.description.nullable().optional(),
  contactId: f.contactId.optional().describe("Move to this contact."),
  clientId: f.clientId.optional().describe("Move to this client."),
  collaboratorId: f.collaboratorId.optional().describe("Move to this collaborator."),
  supplierId: f.supplierId.optional().describe("Move to this supplier."),
  activityDate: f.activityDate.optional(),
  startDate: f.startDate.nullable().optional(),
  endDate: f.endDate.nullable().optional(),
  isAllDay: f.isAllDay.optional(),
  durationMinutes: f.durationMinutes.nullable().optional(),
  isCompleted: f.isCompleted.optional(),
  completedAt: f.completedAt.nullable().optional(),
  outcome: f.outcome.nullable().optional(),
  notes: f.notes.nullable().optional(),
});

export const updateActivity = defineTool({
  name: "update_activity",
  title: "Update CRM activity",
  area: "crm",
  module: "crm",
  needsUser: false,
  variants: { A: Input },
  // Overwrites free text (description, outcome, notes) that cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Changes the given fields of a CRM activity; one of contactId, clientId, collaboratorId or supplierId moves it. Returns the updated activity.",
  run: (ctx, { activityId, ...patch }) => update(ctx.db, ctx.caller, activityId, patch),
});
