// MCP tool set_task_queue_position: puts a task at a slot of a person's workload queue.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { setQueuePosition } from "../lib/workspace/task_queue.ts";
import { taskReadOptions } from "../lib/workspace/task_rows.ts";

const Input = z.strictObject({
  taskId: taskRefField("UUID or display id (WEB-42)."),
  userId: uuidField("Whose queue: a member who can see the task's company."),
  slotIndex: z.number({ error: "must be a number" }).int({ error: "must be an integer" })
    .min(0, { error: "must not be negative" }).max(100_000, { error: "must be at most 100000" })
    .describe(
      "0-based queue position; past the end means last; the focus task keeps slot 0.",
    ),
});

export const setTaskQueuePosition = defineTool(withTaskRefs({
  name: "set_task_queue_position",
  title: "Set task queue position",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Queues a task for a person at slotIndex of their undated queue (todo, assigned to them, start date cleared). Returns {task, userId, slotIndex, queueLength}.",
  run: (ctx, input) =>
    setQueuePosition(ctx.db, ctx.caller, input.taskId, input.userId, input.slotIndex, taskReadOptions(ctx)),
}));
