// MCP tool update_time_log: changes one of the key user's own time logs, including what it is linked to.
import { z } from "zod";
import { dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { timeField } from "../lib/mcp/time_fields.ts";
import { decimalMoneyField } from "../lib/mcp/decimal_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { updateTimeLog as update } from "../lib/workspace/time_logs.ts";

const common = {
  timeLogId: uuidField("The time log's id (UUID). Required."),
  date: dateField("New day, YYYY-MM-DD. Omit to keep.").optional(),
  startTime: timeField("New start time HH:MM; must stay before the end time. Omit to keep.").optional(),
  endTime: timeField("New end time HH:MM; must stay after the start time (same day). Omit to keep.")
    .optional(),
  description: textField('New description, up to 2000 characters; "" clears it. Omit to keep.', { max: 2000 })
    .optional(),
  isBillable: z.boolean({ error: "must be true or false" }).describe("New billable flag. Omit to keep.")
    .optional(),
  hourlyRate: decimalMoneyField(
    "New hourly rate: at least 0, at most 2 decimals, a number or a decimal string such as 85.00; null clears it. Omit to keep.",
  )
    .nullable().optional(),
};

const InputA = z.strictObject({
  ...common,
  taskId: uuidField(
    "Link the log to this task (UUID); clears categoryId and any direct projectId. Not together with " +
      "categoryId. Omit to keep.",
  ).optional(),
  categoryId: uuidField(
    "Link the log to this timesheet category (UUID); clears taskId. Not together with taskId. Omit to keep.",
  ).optional(),
  projectId: uuidField(
    "The project a category-linked log counts towards (UUID); null clears it. Refused on task-linked logs. " +
      "Omit to keep.",
  ).nullable().optional(),
});

const InputB = z.strictObject({
  ...common,
  taskId: uuidField("Link the log to this task (UUID). Omit to keep.").optional(),
});

export const updateTimeLog = defineTool({
  name: "update_time_log",
  title: "Update time log",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: InputA, B: InputB },
  // Overwrites the description and times, which cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: {
    A: "Changes the given fields of one of the key user's own time logs; omitted fields stay. Setting taskId " +
      "clears categoryId and projectId; setting categoryId clears taskId. Returns the updated log as a JSON " +
      "object. Another person's log is not_found.",
    B: "Changes the given fields of one of the key user's own time logs; omitted fields stay. Returns the " +
      "updated log as a JSON object. Another person's log is not_found.",
  },
  run: (ctx, { timeLogId, ...patch }) => update(ctx.db, ctx.caller, timeLogId, patch),
});
