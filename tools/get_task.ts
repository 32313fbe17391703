// MCP tool get_task: one task with its subtasks, comments and assignees.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getTask as get } from "../lib/workspace/task_reads.ts";

const Input = z.strictObject({
  taskId: uuidField("The task's id."),
});

export const getTask = defineTool({
  name: "get_task",
  title: "Get task",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Gets one task by id. Returns the task with description, assignees, subtasks and comments.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.taskId, { variantA: ctx.variant === "A" }),
});
