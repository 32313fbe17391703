// MCP tool update_task_status: sets a task's status (A: todo, in_progress, frozen, done; B: no frozen).
import { z } from "zod";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { setTaskStatus } from "../lib/workspace/tasks.ts";
import { TASK_STATUSES, TASK_STATUSES_B, taskReadOptions } from "../lib/workspace/task_rows.ts";

const taskId = taskRefField("UUID or display id (WEB-42).");
const InputA = z.strictObject({
  taskId,
  status: z.enum(TASK_STATUSES).describe("The new status."),
});
const InputB = z.strictObject({
  taskId,
  status: z.enum(TASK_STATUSES_B).describe("The new status."),
});

export const updateTaskStatus = defineTool(withTaskRefs({
  name: "update_task_status",
  title: "Set task status",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  // Reversible: the status can be set back, nothing else changes.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Sets a task's status (leaving in_progress ends its focus). Returns the updated task.",
  run: (ctx, input) => setTaskStatus(ctx.db, ctx.caller, input.taskId, input.status, taskReadOptions(ctx)),
}));
