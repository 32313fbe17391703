// MCP tool time_log_summary: totals of the key user's own time logs by project and by category.
import { z } from "zod";
import { dateField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { timeLogSummary as summary } from "../lib/workspace/time_logs.ts";

const Input = z.strictObject({
  startDate: dateField("Only logs on or after this day, YYYY-MM-DD. Optional; default: no lower bound.")
    .optional(),
  endDate: dateField(
    "Only logs on or before this day, YYYY-MM-DD, not before startDate. Optional; default: no " +
      "upper bound.",
  ).optional(),
  projectIds: z.array(uuidField("A project id (UUID)."), { error: "must be an array of project ids" })
    .max(100, { error: "must hold at most 100 ids" })
    .describe(
      "Only logs counting towards these projects (a task's project or a category log's project), 1-100 " +
        "UUIDs. Optional; default: every log.",
    )
    .optional(),
});

export const timeLogSummary = defineTool({
  name: "time_log_summary",
  title: "Time log summary",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Sums the key user's own time logs. Returns a JSON object: startDate, endDate, projectIds, " +
    "totalHours, entryCount, billableHours, byProject (array of {projectId, projectName, hours, entryCount}: a " +
    "task's project or a category log's project), byCategory (array of {categoryId, categoryName, hours, " +
    "entryCount}: category logs) and withoutProject {hours, entryCount}. Minutes are summed first and each " +
    "figure is rounded once to 2 decimals.",
  run: (ctx, input) => summary(ctx.db, ctx.caller, input),
});
