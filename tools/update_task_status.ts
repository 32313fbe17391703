// MCP tool update_task_status: sets a task's status (A: todo, in_progress, frozen, done; B: no frozen).
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { setTaskStatus, TASK_STATUSES, TASK_STATUSES_B, taskReadOptions } from "../lib/workspace/tasks.ts";

const taskId = uuidField("The task's id (UUID). Required.");
const InputA = z.strictObject({
  taskId,
  status: z.enum(TASK_STATUSES).describe("The new status: todo, in_progress, frozen or done. Required."),
});
const InputB = z.strictObject({
  taskId,
  status: z.enum(TASK_STATUSES_B).describe("The new status: todo, in_progress or done. Required."),
});

export const updateTaskStatus = defineTool({
  name: "update_task_status",
  title: "Set task status",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  // Reversible: the status can be set back, nothing else changes.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Sets a task's status (it does not change subtasks or anyone's focus, except that a task " +
    "leaving in_progress stops being a focus). Returns the updated task as a JSON object (the get_task fields)." +
    " If the task was saved but could not be read back, returns {id, saved: true, note} with the given fields instead: do not repeat the call.",
  run: (ctx, input) => setTaskStatus(ctx.db, ctx.caller, input.taskId, input.status, taskReadOptions(ctx)),
});
