// MCP tool gantt_plan: solid and ghost bars of the workloads in scope, clipped to a window of dates.
import { z } from "zod";
import { dateField, limitField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { ganttPlan as plan, MAX_PLAN_DAYS } from "../lib/workspace/task_plan.ts";
import { TASK_SCOPES, TASK_STATUSES } from "../lib/workspace/task_rows.ts";

const Input = z.strictObject({
  from: dateField("First day of the window."),
  to: dateField(
    `Last day of the window, not before from; at most ${MAX_PLAN_DAYS} days.`,
  ),
  taskScope: z.enum(TASK_SCOPES).describe(
    "Whose lanes: me, my_team (everyone sharing a team with the caller) or all (every assignee, plus " +
      "unassigned dated tasks).",
  ).optional(),
  targetUserId: uuidField("Only this workspace member's lane; overrides taskScope.")
    .optional(),
  projectIds: z.array(uuidField("A project id."), { error: "must be an array of UUIDs" })
    .min(1, { error: "must not be empty" }).max(50, { error: "must hold at most 50 ids" })
    .describe("Show only bars of these projects; the plan still counts every task.")
    .optional(),
  statuses: z.array(z.enum(TASK_STATUSES), { error: "must be an array of statuses" })
    .min(1, { error: "must not be empty" }).max(4, { error: "must hold at most 4 statuses" })
    .describe("Show only bars of tasks with these statuses.")
    .optional(),
  search: textField(
    "Show only bars whose title contains this text (case-insensitive).",
    { max: 200 },
  ).optional(),
  limit: limitField(500, 5000),
}).refine((v) => v.to >= v.from, { error: "must not be before from", path: ["to"] });

export const ganttPlan = defineTool({
  name: "gantt_plan",
  title: "Project Gantt plan",
  area: "tasks",
  module: "tasks",
  needsUser: false,
  variants: { A: Input },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Plans workloads: solid bars for dated tasks, ghost bars for each person's queue at 8 h a working day. Returns the window's bars and tasks beyond the horizon.",
  run: (ctx, input) => plan(ctx.db, ctx.caller, input, { variantA: true }),
});
