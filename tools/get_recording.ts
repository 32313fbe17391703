// MCP tool get_recording: one of the key user's recordings with summary, action items, notes and transcription.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getRecording as get } from "../lib/workspace/recordings.ts";

const Input = z.strictObject({
  recordingId: uuidField("The recording's id (UUID), from list_recordings. Required."),
});

export const getRecording = defineTool({
  name: "get_recording",
  title: "Get recording",
  area: "recordings",
  module: "recordings",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Returns one of the key user's own recordings as a JSON object: id, title, recordedAt, " +
    "durationSeconds, companyId, summary, actionItems (array of {text, done}), notes, transcription, createdAt. " +
    "Another person's recording is not_found.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.recordingId),
});
