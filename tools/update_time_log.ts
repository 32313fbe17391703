// MCP tool update_time_log: changes one of the key user's own time logs, including what it is linked to.
import { z } from "zod";
import { dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { durationHoursField, timeField } from "../lib/mcp/time_fields.ts";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { updateTimeLog as update } from "../lib/workspace/time_logs.ts";

const common = {
  timeLogId: uuidField("The time log's id."),
  date: dateField("The new day.").optional(),
  startTime: timeField("New start time.").optional(),
  endTime: timeField("New end time.")
    .optional(),
  hours: durationHoursField("Duration instead of endTime.").optional(),
  description: textField('New description; "" clears it.', { max: 2000 })
    .optional(),
  isBillable: z.boolean({ error: "must be true or false" }).describe("New billable flag.")
    .optional(),
  hourlyRate: decimalMoneyField(
    "New hourly rate: at least 0; null clears it.",
  )
    .nullable().optional(),
};

const InputA = z.strictObject({
  ...common,
  taskId: taskRefField("UUID or display id (WEB-42); clears categoryId and projectId.")
    .optional(),
  categoryId: uuidField("Link to this timesheet category; clears taskId.").optional(),
  projectId: uuidField("The project a category log counts towards; null clears it.").nullable().optional(),
});

const InputB = z.strictObject({
  ...common,
  taskId: taskRefField("UUID or display id (WEB-42).").optional(),
});

export const updateTimeLog = defineTool(withTaskRefs({
  name: "update_time_log",
  title: "Update time log",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: InputA, B: InputB },
  // Overwrites the description and times, which cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: {
    A: "Changes the given fields of your time log; taskId and categoryId replace each other. Returns the updated log.",
    B: "Changes the given fields of your time log. Returns the updated log.",
  },
  run: (ctx, { timeLogId, ...patch }) => update(ctx.db, ctx.caller, timeLogId, patch),
}));
