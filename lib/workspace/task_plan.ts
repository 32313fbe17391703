// Tasks: the Gantt plan — loading the workloads the planner (gantt.ts) places, gantt_plan, and forecast lateness.
import { allOf, sortableTimeColumn } from "../db/sql.ts";
import { todayUtc } from "../dates.ts";
import type { Db } from "../db/client.ts";
import { invalidInput } from "../errors.ts";
import { clipBars, dayNumber, lateTaskIds, type PlanTask, planWorkloads } from "./gantt.ts";
import { type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import {
  displayIdColumn,
  type ReadOptions,
  requireMember,
  type TaskScope,
  type TaskStatus,
  teamOf,
  userOf,
  visible,
} from "./task_rows.ts";

/** The widest gantt_plan window. */
export const MAX_PLAN_DAYS = 366;
/** How many tasks beyond the planning horizon gantt_plan lists (it always counts them all). */
export const MAX_BEYOND_HORIZON_LISTED = 100;

/** Each of these users' focus task (every user's for null), where it still counts. */
async function loadFocus(
  db: Db,
  workspaceId: string,
  users: readonly string[] | null,
): Promise<Map<string, string>> {
  const rows = await db<{ userId: string; taskId: string }[]>`
    select f.user_id as "userId", f.task_id as "taskId" from task_focus f
      join tasks t on t.workspace_id = f.workspace_id and t.id = f.task_id
     where ${
    allOf(db, [
      db`f.workspace_id = ${workspaceId}`,
      ...(users ? [db`f.user_id = any(${[...users]}::uuid[])`] : []),
      db`t.status = 'in_progress'`,
      db`exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = f.user_id)`,
    ])
  }`;
  return new Map(rows.map((r) => [r.userId, r.taskId]));
}

/** Sets isForecastLate on `tasks` from the plan of their assignees' workloads. */
export async function markForecastLate(
  db: Db,
  s: Scope,
  uid: string | null,
  today: string,
  tasks: { id: string; dueDate: string | null; assigneeIds: string[]; isForecastLate?: boolean }[],
): Promise<void> {
  const users = [...new Set(tasks.filter((t) => t.dueDate !== null).flatMap((t) => t.assigneeIds))];
  let late = new Set<string>();
  if (users.length) {
    const plan = planWorkloads(await loadPlanTasks(db, s, uid, users, true), {
      today,
      focus: await loadFocus(db, s.workspaceId, users),
      users: new Set(users),
    });
    late = lateTaskIds(plan.bars, plan.beyondHorizon);
  }
  for (const t of tasks) t.isForecastLate = late.has(t.id);
}

type PlannedTask = PlanTask & { projectId: string | null; displayId: string | null };

/**
 * The visible tasks that make up these users' workloads (every user, and unassigned dated tasks, for null).
 * `lean`: only what the planner reads (list_tasks' forecast flag shows no bar): no title, project or display id.
 */
async function loadPlanTasks(
  db: Db,
  s: Scope,
  uid: string | null,
  users: readonly string[] | null,
  lean = false,
): Promise<PlannedTask[]> {
  // Only tasks the planner can place, reached through an index: an undated task nobody is assigned to has no
  // lane and no queue, and reading it made gantt_plan grow with the workspace (1.8 s, then 384 ms, beside
  // 98,000 of them). Assigned tasks come from task_assignees_user, dated ones from tasks_dated (00021).
  const placeable = users
    ? db`select a.task_id from task_assignees a
          where a.workspace_id = ${s.workspaceId} and a.user_id = any(${[...users]}::uuid[])`
    : db`select d.id from tasks d
          where d.workspace_id = ${s.workspaceId} and (d.start_date is not null or d.due_date is not null)
         union
         select a.task_id from task_assignees a where a.workspace_id = ${s.workspaceId}`;
  const rows = await db<Omit<PlannedTask, "assigneeIds">[]>`
    select t.id, t.status, t.start_date::text as "startDate", t.due_date::text as "dueDate",
           t.estimated_hours::float8 as "estimatedHours", t.sort_order as "sortOrder",
           ${sortableTimeColumn(db, "t.created_at")} as "createdAt",
           ${
    lean
      ? db`'' as title, null::uuid as "projectId", null::text as "displayId"`
      : db`t.title, t.project_id as "projectId", ${displayIdColumn(db)} as "displayId"`
  }
      from tasks t
      ${lean ? db`` : db`left join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id`}
     where t.id in (${placeable})
       and ${visible(db, s, uid, "t")}
       and (t.start_date is not null or t.status in ('todo', 'in_progress'))`;
  // Assignees in a second query joined here: an aggregate joined in SQL turned quadratic when the statistics
  // lagged behind a burst of new tasks (seconds for a few thousand), this stays linear whatever the planner does.
  // For given users the same placeable set is a semi-join (no array of every task id to send and parse); rows of
  // tasks the first query left out find no task below and are ignored.
  const assignments = !rows.length ? [] : users
    ? await db<{ taskId: string; userId: string }[]>`
      select task_id as "taskId", user_id as "userId" from task_assignees
       where workspace_id = ${s.workspaceId} and task_id in (${placeable})`
    : await db<{ taskId: string; userId: string }[]>`
      select task_id as "taskId", user_id as "userId" from task_assignees
       where workspace_id = ${s.workspaceId} and task_id = any(${rows.map((r) => r.id)}::uuid[])`;
  const assignees = new Map<string, string[]>();
  for (const a of assignments) {
    const list = assignees.get(a.taskId);
    if (list) list.push(a.userId);
    else assignees.set(a.taskId, [a.userId]);
  }
  return rows.map((r) => ({ ...r, assigneeIds: assignees.get(r.id) ?? [] }));
}

export interface PlanRequest {
  from: string;
  to: string;
  taskScope?: TaskScope;
  targetUserId?: string;
  projectIds?: readonly string[];
  statuses?: readonly TaskStatus[];
  search?: string;
  limit: number;
}

export interface PlanBar {
  taskId: string;
  displayId: string | null;
  title: string;
  projectId: string | null;
  status: TaskStatus;
  userId: string | null;
  userName: string | null;
  start: string;
  end: string;
  kind: "solid" | "ghost";
  dueDate: string | null;
  endsAfterDueDate: boolean;
  clippedStart: boolean;
  clippedEnd: boolean;
}

export interface Plan {
  from: string;
  to: string;
  today: string;
  bars: PlanBar[];
  /** bars in the window before `limit` cut the list */
  total: number;
  truncated: boolean;
  /** the last day ghost work is planned on (today + PLAN_HORIZON_YEARS) */
  horizon: string;
  /** queued tasks (per lane) whose work would start after the horizon: no bar; at most MAX_BEYOND_HORIZON_LISTED */
  beyondHorizon: BeyondHorizonTask[];
  /** how many there are in all */
  beyondHorizonTotal: number;
}

export interface BeyondHorizonTask {
  taskId: string;
  displayId: string | null;
  title: string;
  projectId: string | null;
  status: TaskStatus;
  userId: string;
  userName: string | null;
  dueDate: string | null;
  /** the due date is on or before the horizon, so the task certainly ends after it */
  endsAfterDueDate: boolean;
}

/**
 * gantt_plan: plans the workloads of the users in scope (the plan is always computed over their whole visible
 * workload, so filters only choose which bars are shown, never where they fall), then clips to [from, to].
 */
export async function ganttPlan(
  db: Db,
  caller: ScopedCaller,
  req: PlanRequest,
  opts: ReadOptions,
): Promise<Plan> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const today = opts.today ?? todayUtc();
  if (req.to < req.from) throw invalidInput("to: must not be before from");
  if (dayNumber(req.to) - dayNumber(req.from) + 1 > MAX_PLAN_DAYS) {
    throw invalidInput(`to: the window may span at most ${MAX_PLAN_DAYS} days`);
  }
  const scope = req.taskScope ?? "all";
  if (scope !== "all" && !uid) throw invalidInput(`taskScope: ${scope} needs an API key bound to a user`);
  let users: string[] | null = null;
  if (req.targetUserId) {
    await requireMember(db, s, req.targetUserId, "targetUserId");
    users = [req.targetUserId];
  } else if (scope === "me") {
    users = [uid!];
  } else if (scope === "my_team") {
    users =
      (await db<{ userId: string }[]>`select user_id as "userId" from ${
        teamOf(db, s.workspaceId, uid!)
      } team`)
        .map((r) => r.userId);
  }
  const tasks = await loadPlanTasks(db, s, uid, users);
  const focus = await loadFocus(db, s.workspaceId, users);
  const plan = planWorkloads(tasks, { today, focus, users: users ? new Set(users) : undefined });
  const bars = clipBars(plan.bars, req.from, req.to);

  // Filters choose bars (and tasks beyond the horizon) after planning.
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const needle = req.search?.trim().toLowerCase();
  const wanted = req.projectIds ? new Set(req.projectIds) : null;
  const chosen = (b: { taskId: string; title: string }) =>
    (!req.statuses || req.statuses.includes(byId.get(b.taskId)!.status)) &&
    (!needle || b.title.toLowerCase().includes(needle)) &&
    (!wanted || wanted.has(byId.get(b.taskId)!.projectId ?? ""));
  const shown = bars.filter(chosen);
  const beyond = plan.beyondHorizon.filter(chosen);
  const listedBeyond = beyond.slice(0, MAX_BEYOND_HORIZON_LISTED);
  const userIds = [
    ...new Set(
      [...shown.slice(0, req.limit), ...listedBeyond].map((b) => b.userId).filter((u): u is string =>
        u !== null
      ),
    ),
  ];
  const names = new Map(
    (await db<{ id: string; name: string }[]>`select id, name from users where id = any(${userIds}::uuid[])`)
      .map((r) => [r.id, r.name]),
  );
  const out: PlanBar[] = shown.slice(0, req.limit).map((b) => ({
    taskId: b.taskId,
    displayId: byId.get(b.taskId)!.displayId,
    title: b.title,
    projectId: byId.get(b.taskId)!.projectId,
    status: byId.get(b.taskId)!.status,
    userId: b.userId,
    userName: b.userId ? names.get(b.userId) ?? null : null,
    start: b.start,
    end: b.end,
    kind: b.kind,
    dueDate: b.dueDate,
    endsAfterDueDate: b.late,
    clippedStart: b.clippedStart,
    clippedEnd: b.clippedEnd,
  }));
  return {
    from: req.from,
    to: req.to,
    today,
    bars: out,
    total: shown.length,
    truncated: shown.length > req.limit,
    horizon: plan.horizon,
    beyondHorizon: listedBeyond.map((b) => ({
      taskId: b.taskId,
      displayId: byId.get(b.taskId)!.displayId,
      title: b.title,
      projectId: byId.get(b.taskId)!.projectId,
      status: byId.get(b.taskId)!.status,
      userId: b.userId,
      userName: names.get(b.userId) ?? null,
      dueDate: b.dueDate,
      endsAfterDueDate: b.late,
    })),
    beyondHorizonTotal: beyond.length,
  };
}
