// MCP tool list_time_logs: the key user's own time logs, optionally within dates.
import { z } from "zod";
import { dateField, limitField, offsetField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listTimeLogs as list } from "../lib/workspace/time_logs.ts";

const Input = z.strictObject({
  startDate: dateField("Only logs on or after this day, YYYY-MM-DD. Optional; default: no lower bound.")
    .optional(),
  endDate: dateField(
    "Only logs on or before this day, YYYY-MM-DD, not before startDate. Optional; default: no " +
      "upper bound.",
  ).optional(),
  limit: limitField(100, 500),
  offset: offsetField(),
});

export const listTimeLogs = defineTool({
  name: "list_time_logs",
  title: "List time logs",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists the key user's own time logs, newest day first. Returns { items, total, limit, offset, hasMore, " +
    "nextOffset } (when hasMore, call again with offset = nextOffset); items are logs: id, date, " +
    "startTime, endTime (HH:MM), minutes, hours (2 decimals), description, taskId, taskTitle, categoryId, " +
    "categoryName, projectId and projectName (the task's project, or a category log's project), isBillable, " +
    "hourlyRate, amount, companyId, createdAt, updatedAt.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
