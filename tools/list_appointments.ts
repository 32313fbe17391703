// MCP tool list_appointments: the key user's own appointments, optionally within dates.
import { z } from "zod";
import { dateField, limitField, offsetField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listAppointments as list } from "../lib/workspace/appointments.ts";

const Input = z.strictObject({
  startDate: dateField(
    "Only appointments on or after this day.",
  )
    .optional(),
  endDate: dateField(
    "Only appointments on or before this day, not before startDate.",
  ).optional(),
  limit: limitField(100, 500),
  offset: offsetField(),
});

export const listAppointments = defineTool({
  name: "list_appointments",
  title: "List appointments",
  area: "calendar",
  module: "calendar",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description:
    "Lists your appointments in date and time order. Returns a page of short rows; create_appointment and " +
    "update_appointment answer one in full (client contact, notes, calendar).",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
