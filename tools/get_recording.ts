// MCP tool get_recording: one of the key user's recordings with summary, action items, notes and transcription.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { getRecording as get } from "../lib/workspace/recordings.ts";

const Input = z.strictObject({
  recordingId: uuidField("The recording's id, from list_recordings."),
});

export const getRecording = defineTool({
  name: "get_recording",
  title: "Get recording",
  area: "recordings",
  module: "recordings",
  needsUser: true,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Gets one of your own recordings by id. Returns it with summary, action items, notes and transcription.",
  run: (ctx, input) => get(ctx.db, ctx.caller, input.recordingId),
});
