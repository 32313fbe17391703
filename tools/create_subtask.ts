// MCP tool create_subtask: a subtask of a top-level task, in the parent's project.
import { z } from "zod";
import { dateField, hoursField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { createTask as create } from "../lib/workspace/tasks.ts";
import {
  MAX_TASK_ESTIMATE_HOURS,
  TASK_PRIORITIES,
  TASK_STATUSES,
  TASK_STATUSES_B,
  taskReadOptions,
} from "../lib/workspace/task_rows.ts";

const common = {
  parentTaskId: taskRefField(
    "A top-level task: UUID or display id (WEB-42).",
  ),
  title: textField("The subtask's title.", { min: 1, max: 500 }),
  description: textField("What is to be done.", { max: 20000 })
    .optional(),
  priority: z.enum(TASK_PRIORITIES).describe("Task priority. Default medium.").optional(),
  estimatedHours: hoursField(
    "Estimated effort in hours.",
    { max: MAX_TASK_ESTIMATE_HOURS },
  ).optional(),
  dueDate: dateField("Due date of the task.").optional(),
  assigneeIds: z.array(uuidField("A workspace member's user id."), {
    error: "must be an array of UUIDs",
  })
    .max(20, { error: "must hold at most 20 ids" })
    .describe("Who works on it: 0-20 members who can see the task's company.")
    .optional(),
  isPrivate: z.boolean({ error: "must be true or false" })
    .describe(
      "true: only the creator and the assignees see it. Default: the parent's setting.",
    ).optional(),
};

const InputA = z.strictObject({
  ...common,
  status: z.enum(TASK_STATUSES).describe("Default todo.").optional(),
  startDate: dateField("First day of work (makes it a solid bar in gantt_plan).")
    .optional(),
}).refine((v) => !v.startDate || !v.dueDate || v.dueDate >= v.startDate, {
  error: "must not be before startDate",
  path: ["dueDate"],
});

const InputB = z.strictObject({
  ...common,
  status: z.enum(TASK_STATUSES_B).describe("Default todo.").optional(),
});

export const createSubtask = defineTool(withTaskRefs({
  name: "create_subtask",
  title: "Create subtask",
  area: "tasks",
  module: "tasks",
  needsUser: true,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    "Creates a subtask under a top-level task, in the parent's project and company. Returns the new subtask (get_task fields).",
  run: (ctx, input) => create(ctx.db, ctx.caller, input, taskReadOptions(ctx)),
}));
