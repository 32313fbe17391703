// MCP tool update_booking_settings: changes (and on first use creates) the key user's booking page settings.
import { z } from "zod";
import { textField, uuidField } from "../lib/mcp/fields.ts";
import { timeField } from "../lib/mcp/time_fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import {
  BOOKING_BOUNDS,
  LOCATION_TYPES,
  MAX_INTERVALS_PER_DAY,
  updateBookingSettings as update,
} from "../lib/workspace/booking.ts";

function bounded(name: keyof typeof BOOKING_BOUNDS, what: string) {
  const b = BOOKING_BOUNDS[name];
  return z.number({ error: "must be a number" }).int({ error: "must be a whole number" })
    .min(b.min, { error: `must be at least ${b.min}` }).max(b.max, { error: `must be at most ${b.max}` })
    .describe(`${what}; default ${b.default}.`);
}

const Interval = z.strictObject({
  start: timeField(),
  end: timeField(),
});

const Input = z.strictObject({
  isActive: z.boolean({ error: "must be true or false" })
    .describe("Whether the page accepts bookings. Default false.").optional(),
  slotDuration: bounded("slotDuration", "Slot length in minutes").optional(),
  bufferMinutes: bounded("bufferMinutes", "Free minutes after each booking").optional(),
  weeklyHours: z.record(
    z.string().regex(/^[1-7]$/),
    z.array(Interval, { error: "must be an array of {start, end} intervals" }).max(MAX_INTERVALS_PER_DAY, {
      error: `must hold at most ${MAX_INTERVALS_PER_DAY} intervals per day`,
    }),
    {
      error: (iss) =>
        iss.code === "invalid_key"
          ? 'is not a day: keys are "1" (Monday) to "7" (Sunday)'
          : 'must be an object keyed "1" (Monday) to "7" (Sunday)',
    },
  ).describe(
    `Bookable hours, replacing the stored ones: keys "1" (Monday) to "7" (Sunday), each up to ` +
      `${MAX_INTERVALS_PER_DAY} non-overlapping {start, end} HH:MM intervals. A missing day is closed.`,
  ).optional(),
  maxDaysAhead: bounded("maxDaysAhead", "Days ahead people may book").optional(),
  minimumNoticeMinutes: bounded("minimumNoticeMinutes", "Minimum notice in minutes")
    .optional(),
  welcomeMessage: textField("Text shown on the booking page.", {
    max: 2000,
  }).optional(),
  locationType: z.enum(LOCATION_TYPES, { error: "must be none, in_person or google_meet" })
    .describe("Where booked meetings happen.")
    .optional(),
  locationAddress: textField(
    "Address for in_person meetings; null clears it.",
    {
      max: 500,
    },
  ).nullable().optional(),
  bookingCalendarId: uuidField("Your calendar bookings go to (list_calendars); null clears it.").nullable()
    .optional(),
  companyId: uuidField("The booking page's company. Default on creation: the key's only company.").optional(),
});

export const updateBookingSettings = defineTool({
  name: "update_booking_settings",
  title: "Update booking settings",
  area: "booking",
  module: "booking",
  needsUser: true,
  variants: { A: Input },
  // Replaces weekly hours and the welcome text, which cannot be recovered afterwards.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: "Changes your online booking settings; the first call creates them. Returns the settings.",
  run: (ctx, input) => update(ctx.db, ctx.caller, input),
});
