// MCP tool list_appointments: the key user's own appointments, optionally within dates.
import { z } from "zod";
import { dateField, limitField, offsetField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listAppointments as list } from "../lib/workspace/appointments.ts";

const Input = z.strictObject({
  startDate: dateField(
    "Only appointments on or after this day, YYYY-MM-DD. Optional; default: no lower bound.",
  )
    .optional(),
  endDate: dateField(
    "Only appointments on or before this day, YYYY-MM-DD, not before startDate. Optional; default: no upper " +
      "bound.",
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
  description:
    "Lists the key user's own appointments in date and time order. Returns { items, total, limit, " +
    "offset, hasMore, nextOffset } (when hasMore, call again with offset = nextOffset); items are appointments: id, title, clientName, clientEmail, clientPhone, date, startTime, endTime, isAllDay, " +
    "location, address, onlinePlatform, onlineLink, notes, status, projectId, projectName, calendarId, " +
    "companyId, createdAt, updatedAt.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
