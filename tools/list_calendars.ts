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
  description: "Lists your calendars, the default first. Returns a JSON array of calendars.",
  run: (ctx) => list(ctx.db, ctx.caller),
});
