// MCP tool create_activity: records a call, meeting, email … about one contact, client, collaborator or supplier.
import { z } from "zod";
import { instantField } from "../lib/mcp/crm_fields.ts";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { ACTIVITY_TYPES, createActivity as create } from "../lib/workspace/activities.ts";

/** The fields create_activity and update_activity share; `tail` ends each description. */
export function activityFields(tail: string, clear: string) {
  return {
    type: z.enum(ACTIVITY_TYPES).describe(`Kind of activity.${tail}`),
    description: textField(`What it was about${clear}.${tail}`, { max: 10000 }),
    contactId: uuidField("The contact it is about."),
    clientId: uuidField("The client it is about."),
    collaboratorId: uuidField("The collaborator it is about."),
    supplierId: uuidField("The supplier it is about."),
    activityDate: instantField(
      `When it happened or is planned: ISO 8601 date-time with Z/offset, or YYYY-MM-DD (midnight UTC).${tail}`,
    ),
    startDate: instantField(`Start, ISO 8601 date-time or YYYY-MM-DD${clear}.${tail}`),
    endDate: instantField(`End, not before startDate, ISO 8601 date-time or YYYY-MM-DD${clear}.${tail}`),
    isAllDay: z.boolean({ error: "must be true or false" }).describe(`Whether it lasts all day.${tail}`),
    durationMinutes: z.number({ error: "must be a number" }).int({ error: "must be an integer" })
      .min(0, { error: "must not be negative" }).max(10080, { error: "must be at most 10080 (a week)" })
      .describe(`Duration in minutes, 0-10080${clear}.${tail}`),
    isCompleted: z.boolean({ error: "must be true or false" }).describe(
      `Whether it is done; true stamps completedAt (now unless given), false clears it.${tail}`,
    ),
    completedAt: instantField(`When it was completed (marks it completed)${clear}.${tail}`),
    outcome: textField(`Result of the activity${clear}.${tail}`, { max: 2000 }),
    notes: textField(`Internal notes${clear}.${tail}`, { max: 10000 }),
  };
}

const f = activityFields("", "");
const Input = z.strictObject({
  title: textField("Short title.", { min: 1, max: 200 }),
  type: f.type.optional().describe(`Kind of activity. Default other.`),
  description: f.description.optional(),
  contactId: f.contactId.optional(),
  clientId: f.clientId.optional(),
  collaboratorId: f.collaboratorId.optional(),
  supplierId: f.supplierId.optional(),
  activityDate: f.activityDate.optional().describe(
    "When it happened or is planned: ISO 8601 date-time with Z/offset, or YYYY-MM-DD (midnight UTC). " +
      "Default startDate, else now.",
  ),
  startDate: f.startDate.optional(),
  endDate: f.endDate.optional(),
  isAllDay: f.isAllDay.optional().describe("Whether it lasts all day. Default false."),
  durationMinutes: f.durationMinutes.optional().describe(
    "Duration in minutes, 0-10080. Default: the minutes between startDate and endDate when both are given.",
  ),
  isCompleted: f.isCompleted.optional().describe(
    "Whether it is done; true stamps completedAt (now unless given). Default false (true when completedAt is given).",
  ),
  completedAt: f.completedAt.optional(),
  outcome: f.outcome.optional(),
  notes: f.notes.optional(),
});

export const createActivity = defineTool({
  name: "create_activity",
  title: "Log CRM activity",
  area: "crm",
  module: "crm",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    "Records a CRM activity (call, email, meeting …) about exactly one contact, client, collaborator or supplier. Returns the new activity.",
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
