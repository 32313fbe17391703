// MCP tool get_booking_settings: the key user's online booking page settings.
import { z } from "zod";
import { defineTool } from "../lib/mcp/tool.ts";
import { getBookingSettings as get, LOCATION_TYPES } from "../lib/workspace/booking.ts";

const Input = z.strictObject({});

const Interval = z.object({ start: z.string(), end: z.string() });
const Output = z.object({
  configured: z.boolean(),
  slug: z.string().nullable(),
  isActive: z.boolean(),
  slotDuration: z.int(),
  bufferMinutes: z.int(),
  weeklyHours: z.record(z.string(), z.array(Interval)),
  maxDaysAhead: z.int(),
  minimumNoticeMinutes: z.int(),
  welcomeMessage: z.string(),
  locationType: z.enum(LOCATION_TYPES),
  locationAddress: z.string().nullable(),
  bookingCalendarId: z.string().nullable(),
  bookingCalendarName: z.string().nullable(),
  companyId: z.string().nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export const getBookingSettings = defineTool({
  name: "get_booking_settings",
  title: "Get booking settings",
  area: "booking",
  module: "booking",
  needsUser: true,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: Output,
  description:
    "Gets your online booking settings (defaults with configured: false until first set). Returns the settings.",
  run: (ctx) => get(ctx.db, ctx.caller),
});
