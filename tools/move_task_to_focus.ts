// MCP tool move_task_to_focus: makes a task the one a person works on now.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { moveToFocus, taskReadOptions } from "../lib/workspace/tasks.ts";

const Input = z.strictObject({
  taskId: uuidField("The task to focus on (UUID). Required."),
  userId: uuidField(
    "Who focuses on it (UUID of a workspace member who can see the task's company). Required.",
  ),
});

export const moveTaskToFocus = defineTool({
  name: "move_task_to_focus",
  title: "Move task to focus",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Puts a task in a person's focus: it becomes in_progress and assigned to them (other assignees " +
    "stay); the task that was in focus for them before goes back to todo at slot 1 of their queue. Returns a " +
    "JSON object: task (the get_task fields; {id, saved: true, note} if the change was saved but could not be " +
    "read back), userId, demotedTaskId (or null).",
  run: (ctx, input) => moveToFocus(ctx.db, ctx.caller, input.taskId, input.userId, taskReadOptions(ctx)),
});
