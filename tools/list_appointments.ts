// MCP tool list_appointments: the key user's own appointments, optionally within dates.
import { z } from "zod";
import { dateField, limitField, offsetField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listAppointments as list } from "../lib/workspace/appointments.ts";

const Input = z.strictObject({
  startDate: dateField(
    "Only appointments on or after this day. Default: no lower bound.",
  )
    .optional(),
  endDate: dateField(
    "Only appointments on or before this day, not before startDate. Default: no upper " +
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
    "Lists your appointments in date and time order. Returns a page {items, total, hasMore, nextOffset} of appointments.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
