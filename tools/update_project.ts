// MCP tool update_project: changes the given fields of a project.
import { z } from "zod";
import { dateField, hoursField, textField, uuidField } from "../lib/mcp/fields.ts";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { PROJECT_STATUSES, TASK_PREFIX, updateProject as update } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  projectId: uuidField("The project's id (UUID). Required."),
  name: textField("New name, 1-200 characters. Omit to keep.", { min: 1, max: 200 }).optional(),
  description: textField('New description, up to 10000 characters; "" clears it. Omit to keep.', {
    max: 10000,
  }).optional(),
  status: z.enum(PROJECT_STATUSES).describe("New status: in_progress, completed or invoiced. Omit to keep.")
    .optional(),
  startDate: dateField("New first day, YYYY-MM-DD; null clears it. Omit to keep.").nullable().optional(),
  endDate: dateField("New last day, YYYY-MM-DD, not before the start date; null clears it. Omit to keep.")
    .nullable().optional(),
  budget: decimalMoneyField(
    "New budget: at least 0, at most 2 decimals, a number or a decimal string such as 85.00; null clears it. Omit to keep.",
  ).nullable()
    .optional(),
  estimatedHours: hoursField("New estimate in hours, 0-100000; null clears it. Omit to keep.").nullable()
    .optional(),
  notes: textField('New internal notes, up to 10000 characters; "" clears them. Omit to keep.', {
    max: 10000,
  }).optional(),
  taskPrefix: z.string().regex(TASK_PREFIX, {
    error: "must be 2-10 capital letters or digits, starting with a letter",
  }).describe(
    "New task-number prefix: 2-10 capital letters or digits, starting with a letter, unique in the " +
      "workspace; null clears it. Omit to keep.",
  ).nullable().optional(),
});

export const updateProject = defineTool({
  name: "update_project",
  title: "Update project",
  area: "projects",
  module: "projects",
  needsUser: false,
  variants: { A: Input, B: Input },
  // Overwrites free text (description, notes) that cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Changes the given fields of a project; omitted fields stay as they are. Returns the updated " +
    "project as a JSON object with every field.",
  run: (ctx, { projectId, ...patch }) => update(ctx.db, ctx.caller, projectId, patch),
});
