// MCP tool list_tasks: top-level tasks the key may see, with filters (A: scope, search, numbers, overdue).
import { z } from "zod";
import { cursorField, limitField, offsetField, textField, uuidField } from "../lib/mcp/fields.ts";
import { cursorPageOutput } from "../lib/mcp/output.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { listTasks as list } from "../lib/workspace/task_reads.ts";
import { TASK_SCOPES } from "../lib/workspace/task_rows.ts";

const InputA = z.strictObject({
  projectIds: z.array(uuidField("A project id."), { error: "must be an array of UUIDs" })
    .min(1, { error: "must not be empty" }).max(50, { error: "must hold at most 50 ids" })
    .describe("Only tasks of these projects (1-50 UUIDs).")
    .optional(),
  taskScope: z.enum(TASK_SCOPES).describe(
    "Whose tasks: me (assigned to the caller), my_team (to anyone sharing a team with the caller) or all.",
  ).optional(),
  targetUserId: uuidField("Only tasks assigned to this workspace member.").optional(),
  query: textField(
    "Text in the title or description (case-insensitive), or a display id such as WEB-42.",
    { max: 200 },
  ).optional(),
  taskNumber: z.number({ error: "must be a number" }).int({ error: "must be an integer" })
    .min(1, { error: "must be at least 1" }).max(999_999_999, { error: "must be at most 999999999" })
    .describe("Only tasks with this number in their project (42 of WEB-42).")
    .optional(),
  projectPrefix: z.string({ error: "must be a string" }).regex(/^[A-Za-z][A-Za-z0-9]{1,9}$/, {
    error: "must be 2-10 letters or digits, starting with a letter",
  }).describe(
    "Only tasks of the project with this prefix (WEB of WEB-42), case-insensitive.",
  )
    .optional(),
  overdue: z.boolean({ error: "must be true or false" }).describe(
    "true: only overdue tasks (past due, not done); false: only the others.",
  ).optional(),
  limit: limitField(100, 500),
  offset: offsetField(),
  cursor: cursorField(),
});

const InputB = z.strictObject({
  projectId: uuidField("Only tasks of this project.").optional(),
  limit: limitField(100, 500),
  offset: offsetField(),
  cursor: cursorField(),
});

export const listTasks = defineTool({
  name: "list_tasks",
  title: "List tasks",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: InputA, B: InputB },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  outputSchema: cursorPageOutput(),
  description: {
    A: "Lists top-level tasks, newest first, with filters. Returns a page of short rows (details: get_task).",
    B: "Lists top-level tasks, newest first. Returns a page of short rows (details: get_task).",
  },
  run: (ctx, input) => {
    if (ctx.variant === "B") {
      const b = input as z.output<typeof InputB>;
      return list(ctx.db, ctx.caller, {
        projectIds: b.projectId ? [b.projectId] : undefined,
        limit: b.limit,
        offset: b.offset,
        cursor: b.cursor,
      }, { variantA: false });
    }
    return list(ctx.db, ctx.caller, input as z.output<typeof InputA>, { variantA: true });
  },
});
