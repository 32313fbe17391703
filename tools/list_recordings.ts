// MCP tool list_recordings: the key user's most recent audio recordings.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
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
  description:
    "Lists the key user's own most recent audio recordings (at most 10 per page), newest first. Returns " +
    "{ items, total, limit, offset, hasMore, nextOffset } (when hasMore, call again with offset = nextOffset); " +
    "items are summaries: id, title, recordedAt, durationSeconds, companyId, summaryPreview (first 280 " +
    "characters), actionItemCount, hasTranscription. Use get_recording for the full summary and transcription.",
  run: (ctx, input) => list(ctx.db, ctx.caller, input),
});
