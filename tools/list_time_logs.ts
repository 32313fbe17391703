// MCP tool list_time_logs: the key user's own time logs, optionally within dates.
import { z } from "zod";
import { dateField, limitField, offsetField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listTimeLogs as list } from "../lib/workspace/time_logs.ts";

const Input = z.strictObject({
  startDate: dateField("First day.")
    .optional(),
  endDate: dateField("Last day, not before startDate.").optional(),
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
  outputSchema: pageOutput(),
  description:
    "Lists your time logs, newest first. Returns a page of short rows (full log: create/update_time_log).",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
