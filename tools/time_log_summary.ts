// MCP tool time_log_summary: totals of the key user's own time logs by project and by category.
import { z } from "zod";
import { dateField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { timeLogSummary as summary } from "../lib/workspace/time_logs.ts";

const Input = z.strictObject({
  startDate: dateField("Only logs on or after this day.")
    .optional(),
  endDate: dateField(
    "Only logs on or before this day, not before startDate.",
  ).optional(),
  projectIds: z.array(uuidField("A project id."), { error: "must be an array of project ids" })
    .max(100, { error: "must hold at most 100 ids" })
    .describe("Only logs counting towards these projects.")
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
  description:
    "Sums your own time logs over a period. Returns totals, billable hours and breakdowns by project and category.",
  run: (ctx, input) => summary(ctx.db, ctx.caller, input),
});
