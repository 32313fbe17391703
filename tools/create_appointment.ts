// MCP tool create_appointment: a new appointment in the key user's default calendar.
import { z } from "zod";
import { dateField, textField, uuidField } from "../lib/mcp/fields.ts";
import { emailField, timeField, webLinkField } from "../lib/mcp/time_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  APPOINTMENT_LOCATIONS,
  APPOINTMENT_STATUSES,
  createAppointment as create,
} from "../lib/workspace/appointments.ts";

const Input = z.strictObject({
  date: dateField("The day, YYYY-MM-DD. Required."),
  startTime: timeField("Start time HH:MM (00:00-23:59). Required."),
  endTime: timeField("End time HH:MM, after startTime unless isAllDay is true. Required."),
  title: textField('Title, 1-200 characters. Default: "Appointment with <clientName>" or "Appointment".', {
    min: 1,
    max: 200,
  }).optional(),
  clientName: textField("The client's name, up to 200 characters. Optional.", { max: 200 }).optional(),
  clientEmail: emailField("The client's e-mail address. Optional.").optional(),
  clientPhone: textField("The client's phone number, up to 50 characters. Optional.", { max: 50 }).optional(),
  isAllDay: z.boolean({ error: "must be true or false" })
    .describe("An all-day appointment (the times are then not checked for order). Default false.").optional(),
  location: z.enum(APPOINTMENT_LOCATIONS, { error: "must be studio, online or home" })
    .describe("Where it takes place: studio, online or home. Optional.").optional(),
  address: textField("Street address (for studio or home), up to 500 characters. Optional.", { max: 500 })
    .optional(),
  onlinePlatform: textField("Video platform name (e.g. Zoom), up to 100 characters. Optional.", { max: 100 })
    .optional(),
  onlineLink: webLinkField("Meeting link, an http or https URL up to 2000 characters. Optional.").optional(),
  notes: textField("Notes, up to 10000 characters. Default empty.", { max: 10000 }).optional(),
  status: z.enum(APPOINTMENT_STATUSES, {
    error: "must be scheduled, confirmed, completed, cancelled or no_show",
  }).describe("Status: scheduled, confirmed, completed, cancelled or no_show. Default scheduled.").optional(),
  projectId: uuidField("The project it belongs to (UUID), within the key's companies. Optional.").optional(),
});

export const createAppointment = defineTool({
  name: "create_appointment",
  title: "Create appointment",
  area: "calendar",
  module: "calendar",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    "Creates an appointment for the key user in their default calendar. Returns the new appointment " +
    "as a JSON object with every field, including its id and calendarId.",
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
