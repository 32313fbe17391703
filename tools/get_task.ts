// MCP tool get_task: one task with its subtasks, comments and assignees.
import { z } from "zod";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { getTask as get } from "../lib/workspace/task_reads.ts";

const Input = z.strictObject({
  taskId: taskRefField("UUID or display id (WEB-42)."),
});

export const getTask = defineTool(withTaskRefs({
  name: "get_task",
  title: "Get task",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Gets one task by id. Returns the task with description, assignees, subtasks and comments.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.taskId, { variantA: ctx.variant === "A" }),
}));
