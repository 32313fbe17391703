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
  appointmentId: uuidField("The appointment's id (UUID). Required."),
  title: textField("New title, 1-200 characters. Omit to keep.", { min: 1, max: 200 }).optional(),
  clientName: textField("New client name, up to 200 characters. Omit to keep.", { max: 200 }).optional(),
  clientEmail: emailField("New client e-mail address; null clears it. Omit to keep.").nullable().optional(),
  clientPhone: textField("New client phone, up to 50 characters; null clears it. Omit to keep.", { max: 50 })
    .nullable().optional(),
  date: dateField("New day, YYYY-MM-DD. Omit to keep.").optional(),
  startTime: timeField("New start time HH:MM. Omit to keep.").optional(),
  endTime: timeField("New end time HH:MM, after the start time unless all-day. Omit to keep.").optional(),
  isAllDay: z.boolean({ error: "must be true or false" }).describe("New all-day flag. Omit to keep.")
    .optional(),
  location: z.enum(APPOINTMENT_LOCATIONS, { error: "must be studio, online or home" })
    .describe("New location: studio, online or home; null clears it. Omit to keep.").nullable().optional(),
  address: textField("New address, up to 500 characters; null clears it. Omit to keep.", { max: 500 })
    .nullable().optional(),
  onlinePlatform: textField("New video platform, up to 100 characters; null clears it. Omit to keep.", {
    max: 100,
  }).nullable().optional(),
  onlineLink: webLinkField("New meeting link (http or https URL); null clears it. Omit to keep.").nullable()
    .optional(),
  notes: textField('New notes, up to 10000 characters; "" clears them. Omit to keep.', { max: 10000 })
    .optional(),
  status: z.enum(APPOINTMENT_STATUSES, {
    error: "must be scheduled, confirmed, completed, cancelled or no_show",
  }).describe("New status: scheduled, confirmed, completed, cancelled or no_show. Omit to keep.").optional(),
  projectId: uuidField("New project (UUID) within the key's companies; null unlinks it. Omit to keep.")
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
  description: "Changes the given fields of one of the key user's own appointments; omitted fields stay. " +
    "Returns the updated appointment as a JSON object. Another person's appointment is not_found.",
  run: (ctx, { appointmentId, ...patch }) => update(ctx.db, ctx.caller, appointmentId, patch),
});
