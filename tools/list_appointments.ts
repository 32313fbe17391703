// MCP tool list_appointments: the key user's own appointments, optionally within dates.
import { z } from "zod";
import { dateField, limitField, offsetField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listAppointments as list } from "../lib/workspace/appointments.ts";

const Input = z.strictObject({
  startDate: dateField("First day.")
    .optional(),
  endDate: dateField("Last day, not before startDate.").optional(),
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
    "Lists your appointments by date. Returns a page of rows without calendar, company and audit times.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
