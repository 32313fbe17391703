// MCP tool create_time_log: logs time for the key user, on a task or (variant A) a timesheet category.
import { z } from "zod";
import { dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { durationHoursField, timeField } from "../lib/mcp/time_fields.ts";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { createTimeLog as create } from "../lib/workspace/time_logs.ts";

const common = {
  date: dateField("The day worked."),
  startTime: timeField("Start time. Omitted with hours: after your last log that day, else 09:00.")
    .optional(),
  endTime: timeField("End time, after startTime (same day).").optional(),
  hours: durationHoursField("Duration instead of endTime.")
    .optional(),
  description: textField("What was done.", { max: 2000 }).optional(),
  isBillable: z.boolean({ error: "must be true or false" })
    .describe("Billable to the client. Default false.").optional(),
  hourlyRate: decimalMoneyField(
    "Hourly rate for billable time: at least 0.",
  )
    .optional(),
};

const InputA = z.strictObject({
  ...common,
  taskId: taskRefField(
    "UUID or display id (WEB-42). Exactly one of taskId and categoryId.",
  )
    .optional(),
  categoryId: uuidField(
    "Timesheet category (list_time_categories) for time not on a task.",
  ).optional(),
  projectId: uuidField("The project a category log counts towards; only with categoryId.").optional(),
});

const InputB = z.strictObject({
  ...common,
  taskId: taskRefField("UUID or display id (WEB-42)."),
});

export const createTimeLog = defineTool(withTaskRefs({
  name: "create_time_log",
  title: "Log time",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: {
    A: "Logs your time on a task or a timesheet category (exactly one). Returns the new time log.",
    B: "Logs your time on a task. Returns the new time log.",
  },
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
}));
