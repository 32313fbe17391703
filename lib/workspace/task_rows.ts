// Tasks: what every task module shares — statuses, the summary row and its columns, visibility, member checks.
import { isoColumn } from "../db/sql.ts";
import type { Fragment } from "postgres";
import type { Db } from "../db/client.ts";
import { todayUtc } from "../dates.ts";
import { invalidInput, notFound } from "../errors.ts";
import type { Logger } from "../log.ts";
import { companyFilter, type Scope, type ScopedCaller } from "./scope.ts";

/** Variant A's statuses (what the database stores). */
export const TASK_STATUSES = ["todo", "in_progress", "frozen", "done"] as const;
/** Variant B's tools accept only these. */
export const TASK_STATUSES_B = ["todo", "in_progress", "done"] as const;
export type TaskStatus = typeof TASK_STATUSES[number];
export const TASK_PRIORITIES = ["low", "medium", "high", "urgent"] as const;
export type TaskPriority = typeof TASK_PRIORITIES[number];
export const TASK_SCOPES = ["me", "my_team", "all"] as const;
export type TaskScope = typeof TASK_SCOPES[number];

/** Gap between neighbours in a queue: new tasks go last, placement takes midpoints. */
export const SORT_STEP = 1024;
/** The largest estimate a task may get (five working years at 8 h a day); larger work is a project. */
export const MAX_TASK_ESTIMATE_HOURS = 10_000;

export interface TaskSummary {
  id: string;
  /** the project's task prefix and the task's number, e.g. WEB-42 (variant A only) */
  displayId?: string | null;
  number: number | null;
  title: string;
  status: TaskStatus;
  priority: TaskPriority;
  projectId: string | null;
  projectName: string | null;
  parentTaskId: string | null;
  companyId: string | null;
  isPrivate: boolean;
  startDate: string | null;
  dueDate: string | null;
  estimatedHours: number | null;
  actualHours: number | null;
  sortOrder: number;
  assigneeIds: string[];
  childTaskCount: number;
  /** due date passed and not done (variant A only) */
  isOverdue?: boolean;
  /** the plan finishes it after its due date (variant A only) */
  isForecastLate?: boolean;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Task extends TaskSummary {
  description: string;
  assignees: { userId: string; name: string; email: string }[];
  subtasks: TaskSummary[];
  comments: {
    id: string;
    authorId: string | null;
    authorName: string | null;
    body: string;
    createdAt: string;
  }[];
}

/** Variant A adds displayId, isOverdue and isForecastLate; "today" can be fixed for tests. */
export interface ReadOptions {
  variantA: boolean;
  /** YYYY-MM-DD (UTC); default the current UTC date */
  today?: string;
  /** where a write logs a read-back that failed after its commit (the answer still reports success) */
  log?: Logger;
  requestId?: string;
}

/** The read options of a tool call: its variant, and where a write logs a failed read-back. */
export function taskReadOptions(
  ctx: { variant: "A" | "B"; log: Logger; requestId: string },
): ReadOptions {
  return { variantA: ctx.variant === "A", log: ctx.log, requestId: ctx.requestId };
}

export function userOf(caller: ScopedCaller): string | null {
  return caller.userId ?? null;
}

/**
 * The rows of `tasks` (aliased `alias`) the caller may see: its workspace, its companies, and private tasks only
 * when the caller created the task or is assigned to it. Other domains use it for what they show of a task (a
 * time log shows its task's title only where this holds).
 */
export function visible(db: Db, s: Scope, userId: string | null, alias: string) {
  const col = (c: string) => db(`${alias}.${c}`);
  return db`${col("workspace_id")} = ${s.workspaceId}
    and ${companyFilter(db, s, `${alias}.company_id`)}
    and (not ${col("is_private")}
         or (${userId}::uuid is not null
             and (${col("created_by")} = ${userId}::uuid
                  or exists (select 1 from task_assignees va
                              where va.task_id = ${col("id")} and va.user_id = ${userId}::uuid))))`;
}

/** `WEB-42`: the project's task prefix and the task's number, for `tasks t left join projects p` (null without). */
export function displayIdColumn(db: Db) {
  return db`case when p.task_prefix is not null and t.number is not null then p.task_prefix || '-' || t.number end`;
}

/** Due date passed and not done, on the caller's "today" (a column, and list_tasks' `overdue` filter). */
export function overdueColumn(db: Db, today: string) {
  return db`(t.due_date is not null and t.due_date < ${today}::date and t.status <> 'done')`;
}

/** The columns shared by a summary and a list row: the assignees' ids, and the count of visible subtasks. */
function assigneeAndChildColumns(db: Db, s: Scope, userId: string | null) {
  return db`
    coalesce((select array_agg(a.user_id order by a.user_id) from task_assignees a where a.task_id = t.id),
             '{}') as "assigneeIds",
    (select count(*)::int from tasks c where c.parent_id = t.id and ${visible(db, s, userId, "c")})
      as "childTaskCount"`;
}

/**
 * The columns of a TaskSummary for `tasks t left join projects p`, named as the answer names them (variant A adds
 * displayId and isOverdue); child counts respect privacy like everything else.
 */
export function summaryColumns(db: Db, s: Scope, userId: string | null, today: string, variantA: boolean) {
  return db`
    t.id, t.number, t.title, t.status, t.priority, t.project_id as "projectId", p.name as "projectName",
    t.parent_id as "parentTaskId", t.company_id as "companyId", t.is_private as "isPrivate",
    t.start_date::text as "startDate", t.due_date::text as "dueDate",
    t.estimated_hours::float8 as "estimatedHours", t.actual_hours::float8 as "actualHours",
    t.sort_order as "sortOrder", ${assigneeAndChildColumns(db, s, userId)},
    t.created_by as "createdBy",
    ${isoColumn(db, "t.created_at")} as "createdAt",
    ${isoColumn(db, "t.updated_at")} as "updatedAt"${
    variantA
      ? db`,
    ${displayIdColumn(db)} as "displayId",
    ${overdueColumn(db, today)} as "isOverdue"`
      : db``
  }`;
}

/**
 * A row of list_tasks and list_subtasks: what a model needs to pick a task (variant A adds displayId, isOverdue
 * and isForecastLate); description, hours, privacy, authorship and times come from get_task.
 */
export interface TaskListItem {
  id: string;
  displayId?: string | null;
  title: string;
  status: TaskStatus;
  priority: TaskPriority;
  startDate: string | null;
  dueDate: string | null;
  projectId: string | null;
  projectName: string | null;
  assigneeIds: string[];
  childTaskCount: number;
  isOverdue?: boolean;
  isForecastLate?: boolean;
}

/** The columns of a TaskListItem for `tasks t left join projects p`, in the order the answer shows them. */
export function listColumns(db: Db, s: Scope, userId: string | null, today: string, variantA: boolean) {
  return db`
    t.id, ${variantA ? db`${displayIdColumn(db)} as "displayId",` : db``}
    t.title, t.status, t.priority, t.start_date::text as "startDate", t.due_date::text as "dueDate",
    t.project_id as "projectId", p.name as "projectName", ${assigneeAndChildColumns(db, s, userId)}${
    variantA ? db`, ${overdueColumn(db, today)} as "isOverdue"` : db``
  }`;
}

/** Users sharing a team with `userId`, and `userId` itself (a person without a team is a team of one). */
export function teamOf(db: Db, workspaceId: string, userId: string) {
  return db`(select tm2.user_id from team_members tm1
              join team_members tm2 on tm2.team_id = tm1.team_id
             where tm1.workspace_id = ${workspaceId} and tm1.user_id = ${userId}::uuid
            union select ${userId}::uuid)`;
}

/** A workspace member the caller may name: not_found for a non-member or a member outside all its companies. */
export async function requireMember(
  db: Db,
  s: Scope,
  userId: string,
  field: string,
): Promise<string[] | null> {
  const [m] = await db<{ companyIds: string[] | null }[]>`
    select company_ids as "companyIds" from workspace_members
     where workspace_id = ${s.workspaceId} and user_id = ${userId}`;
  if (!m) throw notFound(`${field}: no workspace member ${userId}`);
  if (
    s.companyIds !== null && m.companyIds !== null && !m.companyIds.some((c) => s.companyIds!.includes(c))
  ) {
    throw notFound(`${field}: no workspace member ${userId}`);
  }
  return m.companyIds;
}

/**
 * Checks people who are to be assigned to a task of `companyId`: workspace members within the caller's companies
 * (not_found otherwise) who can see the task's company (invalid_input otherwise). Returns them deduplicated.
 */
export async function checkAssignees(
  db: Db,
  s: Scope,
  ids: readonly string[],
  companyId: string | null,
  field: string,
): Promise<string[]> {
  const unique = [...new Set(ids)];
  for (const id of unique) {
    const companies = await requireMember(db, s, id, field);
    if (companies === null) continue;
    if (companyId === null) {
      throw invalidInput(
        `${field}: user ${id} is limited to some companies and cannot see a task without a company`,
      );
    }
    if (!companies.includes(companyId)) {
      throw invalidInput(`${field}: user ${id} may not see the task's company ${companyId}`);
    }
  }
  return unique;
}

/** Summaries of the visible tasks matching `where` (which may end in an ORDER BY); `extra` adds columns. */
export async function fetchRows<T extends TaskSummary = TaskSummary>(
  db: Db,
  s: Scope,
  userId: string | null,
  opts: ReadOptions,
  where: Fragment,
  extra: Fragment = db``,
): Promise<T[]> {
  const today = opts.today ?? todayUtc();
  return await db<T[]>`
    select ${summaryColumns(db, s, userId, today, opts.variantA)}${extra}
      from tasks t
      left join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id
     where ${visible(db, s, userId, "t")} and ${where}`;
}

/** What a write answers when it committed but the task could not be read back. */
export interface SavedTask {
  id: string;
  /** the fields the write set, as given */
  [field: string]: unknown;
  saved: true;
  note: string;
}

interface Locked {
  id: string;
  parentId: string | null;
  projectId: string | null;
  companyId: string | null;
  startDate: string | null;
  status: TaskStatus;
}

export async function lockTask(
  db: Db,
  s: Scope,
  uid: string | null,
  id: string,
  field = "taskId",
): Promise<Locked> {
  const [t] = await db<Locked[]>`
    select t.id, t.parent_id as "parentId", t.project_id as "projectId", t.company_id as "companyId",
           t.start_date::text as "startDate", t.status
      from tasks t where t.id = ${id} and ${visible(db, s, uid, "t")}
       for update of t`;
  if (!t) throw notFound(`${field}: no task ${id}`);
  return t;
}
