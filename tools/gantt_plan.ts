// MCP tool gantt_plan: solid and ghost bars of the workloads in scope, clipped to a window of dates.
import { z } from "zod";
import { dateField, limitField, textField, uuidField } from "../lib/mcp/fields.ts";
import { defineTool } from "../lib/mcp/tool.ts";
import { PLAN_HORIZON_YEARS } from "../lib/workspace/gantt.ts";
import {
  ganttPlan as plan,
  MAX_BEYOND_HORIZON_LISTED,
  MAX_PLAN_DAYS,
  TASK_SCOPES,
  TASK_STATUSES,
} from "../lib/workspace/tasks.ts";

const Input = z.strictObject({
  from: dateField("First day of the window, YYYY-MM-DD. Required."),
  to: dateField(
    `Last day of the window, YYYY-MM-DD, not before from; at most ${MAX_PLAN_DAYS} days. Required.`,
  ),
  taskScope: z.enum(TASK_SCOPES).describe(
    "Whose lanes: me, my_team (everyone sharing a team with the caller, the caller included) or all (every " +
      "assignee, plus dated tasks nobody is assigned to). Default all.",
  ).optional(),
  targetUserId: uuidField("Only this workspace member's lane (UUID); overrides taskScope. Optional.")
    .optional(),
  projectIds: z.array(uuidField("A project id (UUID)."), { error: "must be an array of UUIDs" })
    .min(1, { error: "must not be empty" }).max(50, { error: "must hold at most 50 ids" })
    .describe("Show only bars of tasks in these projects (1-50). The plan still counts every task. Optional.")
    .optional(),
  statuses: z.array(z.enum(TASK_STATUSES), { error: "must be an array of statuses" })
    .min(1, { error: "must not be empty" }).max(4, { error: "must hold at most 4 statuses" })
    .describe("Show only bars of tasks with these statuses (todo, in_progress, frozen, done). Default all.")
    .optional(),
  search: textField(
    "Show only bars whose task title contains this text (case-insensitive); up to 200 " +
      "characters. Optional.",
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
  description: "Plans the workloads: a solid bar per dated task (start to due date, or as long as its " +
    "estimate), then ghost bars for each person's undated todo/in_progress tasks, the focus task first, then by " +
    "sortOrder, packed from the later of today and the end of their solid work at 8 hours per working day " +
    "(Mon-Fri; no estimate = one day). Returns a JSON object: from, to, today, bars (taskId, displayId, title, " +
    "projectId, status, userId, userName, start, end, kind solid|ghost, dueDate, endsAfterDueDate, " +
    "clippedStart, clippedEnd; cut to the window), total, truncated, horizon (ghost work is planned up to " +
    `today + ${PLAN_HORIZON_YEARS} years), beyondHorizon (queued tasks whose work would start later: no bar; ` +
    "taskId, displayId, title, projectId, status, userId, userName, dueDate, endsAfterDueDate; at most " +
    `${MAX_BEYOND_HORIZON_LISTED}) and beyondHorizonTotal.`,
  run: (ctx, input) => plan(ctx.db, ctx.caller, input, { variantA: true }),
});
