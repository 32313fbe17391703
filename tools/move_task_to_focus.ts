// MCP tool move_task_to_focus: makes a task the one a person works on now.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { moveToFocus } from "../lib/workspace/task_queue.ts";
import { taskReadOptions } from "../lib/workspace/task_rows.ts";

const Input = z.strictObject({
  taskId: taskRefField("UUID or display id (WEB-42)."),
  userId: uuidField(
    "Who focuses on it: a member who can see the task's company.",
  ),
});

export const moveTaskToFocus = defineTool(withTaskRefs({
  name: "move_task_to_focus",
  title: "Move task to focus",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Makes a task a person's focus (in_progress, assigned to them); their previous focus goes back to slot 1 of the queue. Returns {task, userId, demotedTaskId}.",
  run: (ctx, input) => moveToFocus(ctx.db, ctx.caller, input.taskId, input.userId, taskReadOptions(ctx)),
}));
