// MCP tool list_time_categories: the workspace's active timesheet reasons (the categoryId of a time log).
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listTimeCategories as list } from "../lib/workspace/time_logs.ts";

const Input = z.strictObject({
  limit: limitField(100, 500),
  offset: offsetField(),
});

export const listTimeCategories = defineTool({
  name: "list_time_categories",
  title: "List time categories",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description:
    "Lists the active timesheet categories (for time not on a task). Returns a page of {id, name, description}.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
