// MCP tool update_appointment: changes one of the key user's own appointments.
import { z } from "zod";
import { dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { emailField, timeField, webLinkField } from "../lib/mcp/time_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  APPOINTMENT_LOCATIONS,
  APPOINTMENT_STATUSES,
  updateAppointment as update,
} from "../lib/workspace/appointments.ts";

const Input = z.strictObject({
  appointmentId: uuidField("The appointment's id."),
  title: textField("New title.", { min: 1, max: 200 }).optional(),
  clientName: textField("New client name.", { max: 200 }).optional(),
  clientEmail: emailField("New client e-mail; null clears it.").nullable().optional(),
  clientPhone: textField("New client phone; null clears it.", { max: 50 })
    .nullable().optional(),
  date: dateField("The new day.").optional(),
  startTime: timeField("New start time.").optional(),
  endTime: timeField("New end time, after the start unless all-day.").optional(),
  isAllDay: z.boolean({ error: "must be true or false" }).describe("New all-day flag.")
    .optional(),
  location: z.enum(APPOINTMENT_LOCATIONS, { error: "must be studio, online or home" })
    .describe("New location; null clears it.").nullable().optional(),
  address: textField("New address; null clears it.", { max: 500 })
    .nullable().optional(),
  onlinePlatform: textField("New video platform; null clears it.", {
    max: 100,
  }).nullable().optional(),
  onlineLink: webLinkField("New meeting link; null clears it.").nullable()
    .optional(),
  notes: textField('New notes; "" clears them.', { max: 10000 })
    .optional(),
  status: z.enum(APPOINTMENT_STATUSES, {
    error: "must be scheduled, confirmed, completed, cancelled or no_show",
  }).describe("New status.").optional(),
  projectId: uuidField("New project; null unlinks it.")
    .nullable().optional(),
});

export const updateAppointment = defineTool({
  name: "update_appointment",
  title: "Update appointment",
  area: "calendar",
  module: "calendar",
  needsUser: true,
  variants: { A: Input, B: Input },
  // Overwrites notes and client details, which cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: "Changes the given fields of one of your appointments. Returns the updated appointment.",
  run: (ctx, { appointmentId, ...patch }) => update(ctx.db, ctx.caller, appointmentId, patch),
});
