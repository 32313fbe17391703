// MCP tool update_task: changes the given fields of a task (moving a task moves its subtasks).
import { z } from "zod";
import { dateField, hoursField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { updateTask as update } from "../lib/workspace/tasks.ts";
import {
  MAX_TASK_ESTIMATE_HOURS,
  TASK_PRIORITIES,
  TASK_STATUSES,
  TASK_STATUSES_B,
  taskReadOptions,
} from "../lib/workspace/task_rows.ts";

const common = {
  taskId: taskRefField("UUID or display id (WEB-42)."),
  title: textField("New title.", { min: 1, max: 500 }).optional(),
  description: textField('New description; "" clears it.', {
    max: 20000,
  }).optional(),
  priority: z.enum(TASK_PRIORITIES).describe("New priority.")
    .optional(),
  estimatedHours: hoursField(
    "New estimate in hours; null clears it.",
    { max: MAX_TASK_ESTIMATE_HOURS },
  ).nullable()
    .optional(),
  actualHours: hoursField("Hours spent so far; null clears it.").nullable()
    .optional(),
  dueDate: dateField("New due date; null clears it.")
    .nullable().optional(),
  sortOrder: z.number({ error: "must be a number" })
    .min(-1e12, { error: "must be at least -1000000000000" }).max(1e12, {
      error: "must be at most 1000000000000",
    })
    .describe(
      "Queue order (ascending).",
    ).optional(),
  projectId: uuidField(
    "Moves it and its subtasks (new numbers); null: no project. Not for subtasks.",
  ).nullable().optional(),
  assigneeIds: z.array(uuidField("A workspace member's user id."), {
    error: "must be an array of UUIDs",
  })
    .max(20, { error: "must hold at most 20 ids" })
    .describe("Replaces the assignees (members who can see the task's company).")
    .optional(),
  isPrivate: z.boolean({ error: "must be true or false" })
    .describe("true: only its creator and assignees see it.").optional(),
};

const InputA = z.strictObject({
  ...common,
  status: z.enum(TASK_STATUSES).describe("New status.")
    .optional(),
  startDate: dateField(
    "New first day of work (a solid bar in gantt_plan); null clears it (back into the queues).",
  ).nullable().optional(),
}).refine((v) => !v.startDate || !v.dueDate || v.dueDate >= v.startDate, {
  error: "must not be before startDate",
  path: ["dueDate"],
});

const InputB = z.strictObject({
  ...common,
  status: z.enum(TASK_STATUSES_B).describe("New status.").optional(),
});

export const updateTask = defineTool(withTaskRefs({
  name: "update_task",
  title: "Update task",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  // Overwrites the description and replaces the assignee list, which cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: "Changes the given fields of a task. Returns the updated task.",
  run: (ctx, { taskId, ...patch }) => update(ctx.db, ctx.caller, taskId, patch, taskReadOptions(ctx)),
}));
