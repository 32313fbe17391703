// MCP tool list_subtasks: the subtasks of one task, a page at a time.
import { z } from "zod";
import { limitField, offsetField } from "../lib/mcp/fields.ts";
import { pageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { taskRefField, withTaskRefs } from "../lib/mcp/task_refs.ts";
import { listSubtasks as list } from "../lib/workspace/task_reads.ts";

const Input = z.strictObject({
  parentTaskId: taskRefField("UUID or display id (WEB-42)."),
  limit: limitField(100, 500),
  offset: offsetField(),
});

export const listSubtasks = defineTool(withTaskRefs({
  name: "list_subtasks",
  title: "List subtasks",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input, B: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: pageOutput(),
  description: "Lists a task's subtasks in number order. Returns a page of short rows (details: get_task).",
  run: (ctx, input) => list(ctx.db, ctx.caller, input.parentTaskId, input, { variantA: ctx.variant === "A" }),
}));
