// MCP tool get_booking_settings: the key user's online booking page settings.
import { z } from "zod";
import { defineTool } from "../lib/mcp/tool.ts";
import { getBookingSettings as get } from "../lib/workspace/booking.ts";

const Input = z.strictObject({});

export const getBookingSettings = defineTool({
  name: "get_booking_settings",
  title: "Get booking settings",
  area: "booking",
  module: "booking",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Returns the key user's online booking settings as a JSON object: configured (false until the " +
    "first update_booking_settings; the other values are then the defaults), slug, isActive, slotDuration, " +
    'bufferMinutes, weeklyHours ({"1": [{start, end}], … "7": []}, Monday-Sunday), maxDaysAhead, ' +
    "minimumNoticeMinutes, welcomeMessage, locationType, locationAddress, bookingCalendarId, " +
    "bookingCalendarName, companyId, createdAt, updatedAt.",
  run: (ctx) => get(ctx.db, ctx.caller),
});
