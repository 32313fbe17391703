// MCP tool set_task_queue_position: puts a task at a slot of a person's workload queue.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { setQueuePosition, taskReadOptions } from "../lib/workspace/tasks.ts";

const Input = z.strictObject({
  taskId: uuidField("The task to place (UUID). Required."),
  userId: uuidField("Whose queue (UUID of a workspace member who can see the task's company). Required."),
  slotIndex: z.number({ error: "must be a number" }).int({ error: "must be an integer" })
    .min(0, { error: "must not be negative" }).max(100_000, { error: "must be at most 100000" })
    .describe(
      "0-based position in the queue (0 = first; a slot past the end puts the task last). The user's focus " +
        "task keeps slot 0, so 0 then means right after it. Required.",
    ),
});

export const setTaskQueuePosition = defineTool({
  name: "set_task_queue_position",
  title: "Set task queue position",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Queues a task for a person: it becomes todo, is assigned to them (other assignees stay), loses " +
    "its start date, and gets a sortOrder placing it at slotIndex of their queue (their todo and in_progress " +
    "tasks without a start date: the focus task first, then by sortOrder); other tasks keep their order. " +
    "Returns a JSON object: task (the get_task fields; {id, saved: true, note} if the change was saved but " +
    "could not be read back), userId, slotIndex (the slot it got), queueLength.",
  run: (ctx, input) =>
    setQueuePosition(ctx.db, ctx.caller, input.taskId, input.userId, input.slotIndex, taskReadOptions(ctx)),
});
