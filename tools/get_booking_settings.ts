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
    "Gets your online booking settings (defaults with configured: false until first set). Returns the settings.",
  run: (ctx) => get(ctx.db, ctx.caller),
});
