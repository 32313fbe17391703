// MCP tool list_time_categories: the workspace's active timesheet reasons (the categoryId of a time log).
import { z } from "zod";
import { defineTool } from "../lib/mcp/tool.ts";
import { listTimeCategories as list } from "../lib/workspace/time_logs.ts";

const Input = z.strictObject({});

export const listTimeCategories = defineTool({
  name: "list_time_categories",
  title: "List time categories",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists the workspace's active timesheet categories (reasons for time not spent on a task, such " +
    "as meetings or admin). Returns a JSON array of {id, name, description}; use the id as categoryId in " +
    "create_time_log and update_time_log.",
  run: (ctx) => list(ctx.db, ctx.caller),
});
