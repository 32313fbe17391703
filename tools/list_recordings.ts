// MCP tool list_recordings: the key user's most recent audio recordings.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listRecordings as list, RECORDINGS_MAX_LIMIT } from "../lib/workspace/recordings.ts";

const Input = z.strictObject({
  limit: limitField(10, RECORDINGS_MAX_LIMIT),
  offset: offsetField(),
});

export const listRecordings = defineTool({
  name: "list_recordings",
  title: "List recordings",
  area: "recordings",
  module: "recordings",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description:
    "Lists your audio recordings, newest first. Returns a page of short rows (details: get_recording).",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
