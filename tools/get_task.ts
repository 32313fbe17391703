// MCP tool get_task: one task with its subtasks, comments and assignees.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getTask as get } from "../lib/workspace/tasks.ts";

const Input = z.strictObject({
  taskId: uuidField("The task's id (UUID), as returned by list_tasks. Required."),
});

export const getTask = defineTool({
  name: "get_task",
  title: "Get task",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Gets one task. Returns a JSON object: the list_tasks summary fields plus description, " +
    "assignees (userId, name, email), subtasks (summaries) and comments (id, authorId, authorName, body, " +
    "createdAt). not_found when the id is unknown, private to others or outside the key's companies.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.taskId, { variantA: ctx.variant === "A" }),
});
