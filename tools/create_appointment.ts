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
  date: dateField("The appointment's day."),
  startTime: timeField("Start time."),
  endTime: timeField("End time, after startTime unless isAllDay."),
  title: textField('Title. Default "Appointment with <clientName>".', {
    min: 1,
    max: 200,
  }).optional(),
  clientName: textField("The client's name.", { max: 200 }).optional(),
  clientEmail: emailField("The client's e-mail address.").optional(),
  clientPhone: textField("The client's phone number.", { max: 50 }).optional(),
  isAllDay: z.boolean({ error: "must be true or false" })
    .describe("All day (times not checked). Default false.").optional(),
  location: z.enum(APPOINTMENT_LOCATIONS, { error: "must be studio, online or home" })
    .describe("Where it takes place.").optional(),
  address: textField("Street address.", { max: 500 })
    .optional(),
  onlinePlatform: textField("Video platform, e.g. Zoom.", { max: 100 })
    .optional(),
  onlineLink: webLinkField("Meeting link (http or https).").optional(),
  notes: textField("Free-text notes.", { max: 10000 }).optional(),
  status: z.enum(APPOINTMENT_STATUSES, {
    error: "must be scheduled, confirmed, completed, cancelled or no_show",
  }).describe("Status. Default scheduled.").optional(),
  projectId: uuidField("The project it belongs to.").optional(),
});

export const createAppointment = defineTool({
  name: "create_appointment",
  title: "Create appointment",
  area: "calendar",
  module: "calendar",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description: "Creates an appointment in your default calendar. Returns the new appointment.",
  run: (ctx, input) => create(ctx.db, ctx.caller, input),
});
