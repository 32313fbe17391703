// MCP tool list_calendars: the key user's own calendars.
import { z } from "zod";
import { defineTool } from "../lib/mcp/tool.ts";
import { listCalendars as list } from "../lib/workspace/calendars.ts";

const Input = z.strictObject({});

export const listCalendars = defineTool({
  name: "list_calendars",
  title: "List calendars",
  area: "calendar",
  module: "calendar",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Lists the key user's own calendars, the default one first. Returns a JSON array of {id, name, " +
    "color, timeZone, isDefault, companyId, createdAt}; an id can be the bookingCalendarId of " +
    "update_booking_settings.",
  run: (ctx) => list(ctx.db, ctx.caller),
});
