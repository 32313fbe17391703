// MCP tool list_subtasks: the subtasks of one task.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listSubtasks as list } from "../lib/workspace/tasks.ts";

const Input = z.strictObject({
  parentTaskId: uuidField("The parent task's id."),
});

export const listSubtasks = defineTool({
  name: "list_subtasks",
  title: "List subtasks",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Lists the subtasks of a task in number order. Returns a JSON array of task summaries.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input.parentTaskId, { variantA: ctx.variant === "A" }),
});
