// MCP tool list_calendars: the key user's own calendars.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listCalendars as list } from "../lib/workspace/calendars.ts";

const Input = z.strictObject({
  limit: limitField(100, 500),
  offset: offsetField(),
});

export const listCalendars = defineTool({
  name: "list_calendars",
  title: "List calendars",
  area: "calendar",
  module: "calendar",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description: "Lists your calendars, default first. Returns a page of {id, name, timeZone, isDefault}.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
