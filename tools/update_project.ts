// MCP tool update_project: changes the given fields of a project.
import { z } from "zod";
import { dateField, hoursField, textField, uuidField } from "../lib/mcp/fields.ts";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { PROJECT_STATUSES, TASK_PREFIX, updateProject as update } from "../lib/workspace/projects.ts";

const Input = z.strictObject({
  projectId: uuidField("The project's id."),
  name: textField("New project name.", { min: 1, max: 200 }).optional(),
  description: textField('New description; "" clears it.', {
    max: 10000,
  }).optional(),
  status: z.enum(PROJECT_STATUSES).describe("New status.")
    .optional(),
  startDate: dateField("New first day; null clears it.").nullable().optional(),
  endDate: dateField("New last day; null clears it.")
    .nullable().optional(),
  budget: decimalMoneyField(
    "New budget: at least 0; null clears it.",
  ).nullable()
    .optional(),
  estimatedHours: hoursField("New estimate in hours; null clears it.").nullable()
    .optional(),
  notes: textField('New internal notes; "" clears them.', {
    max: 10000,
  }).optional(),
  taskPrefix: z.string().regex(TASK_PREFIX, {
    error: "must be 2-10 capital letters or digits, starting with a letter",
  }).describe(
    "New task-number prefix, unique in the workspace; null clears it.",
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
  description: "Changes the given fields of a project. Returns the updated project.",
  run: (ctx, { projectId, ...patch }) => update(ctx.db, ctx.caller, projectId, patch),
});
