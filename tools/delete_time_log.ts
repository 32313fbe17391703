// MCP tool delete_time_log: deletes one of the key user's own time logs.
import { z } from "zod";
import { uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { deleteTimeLog as remove } from "../lib/workspace/time_logs.ts";

const Input = z.strictObject({
  timeLogId: uuidField("The time log's id."),
});

export const deleteTimeLog = defineTool({
  name: "delete_time_log",
  title: "Delete time log",
  area: "time_tracking",
  module: "time_tracking",
  needsUser: true,
  variants: { A: Input, B: Input },
  // A second call finds nothing (not_found) but changes nothing further.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: "Deletes one of your time logs. Returns {deleted: true, id}.",
  run: (ctx, input) => remove(ctx.db, ctx.caller, input.timeLogId),
});
