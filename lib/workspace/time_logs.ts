// Time logs and timesheet categories: the key user's own time entries — reading, summing and writing them (the
// pure rules: time_log_rules.ts).
import { choicesSuffix } from "./choices.ts";
import { allOf, clockColumn, type ConstraintAnswers, isoColumn, throwMapped } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import { actingUser, checkRange, hoursOf, personalCompany, projectInScope } from "./personal.ts";
import { companyFilter, inScope, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import { visible as visibleTask } from "./task_rows.ts";
import { countUpTo, type Page, pageOf, type Paging } from "./page.ts";
import {
  endTimeOf,
  EXCLUSIVE_LINK_RULE,
  type Link,
  logAmount,
  logMinutes,
  newLink,
  patchedLink,
  PROJECT_LINK_RULE,
  START_REQUIRED_RULE,
  storedRate,
  summarize,
  type TimeLogPatch,
  type TimeLogSummary,
  TIMES_RULE,
} from "./time_log_rules.ts";

export interface TimeCategory {
  id: string;
  name: string;
  description: string;
}

/**
 * A time log as list_time_logs answers it: what a caller needs to pick a log (day, times, hours, what it was for,
 * the linked task, category and project with their names, the money). The full TimeLog adds the minutes, the
 * company and the audit times.
 */
export interface TimeLogRow {
  id: string;
  date: string;
  startTime: string;
  endTime: string;
  /** minutes / 60, rounded to 2 decimals */
  hours: number;
  description: string;
  taskId: string | null;
  taskTitle: string | null;
  categoryId: string | null;
  categoryName: string | null;
  /** the task's project for a task log, the directly set project for a category log */
  projectId: string | null;
  projectName: string | null;
  isBillable: boolean;
  /** decimal string with 2 decimals ("85.00"), or null */
  hourlyRate: string | null;
  /** minutes / 60 × hourlyRate rounded half away from zero to the cent, for billable logs with a rate; else null */
  amount: string | null;
}

/** The full time log: its list row plus the minutes, the company and the audit times. */
export interface TimeLog extends TimeLogRow {
  /** whole minutes between startTime and endTime */
  minutes: number;
  companyId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewTimeLog {
  date: string;
  /** absent with `hours`: the log follows the person's last log of that day (stackedStart) */
  startTime?: string;
  /** exactly one of endTime and hours (the duration from startTime) */
  endTime?: string;
  hours?: number;
  taskId?: string;
  categoryId?: string;
  projectId?: string;
  description?: string;
  isBillable?: boolean;
  /** a JSON number or a decimal string; at most 2 decimals */
  hourlyRate?: string | number | null;
}

export interface TimeLogFilter {
  startDate?: string;
  endDate?: string;
  limit: number;
  offset?: number;
}

// ---- lookups ----------------------------------------------------------------------------------------------

/** The workspace's active timesheet categories. */
export async function listTimeCategories(
  db: Db,
  caller: ScopedCaller,
  paging: Paging,
): Promise<Page<TimeCategory>> {
  const s = scopeOf(caller);
  actingUser(caller);
  const where = db`c.workspace_id = ${s.workspaceId} and c.is_active`;
  const [items, total] = await Promise.all([
    db<TimeCategory[]>`
      select c.id, c.name, c.description from time_categories c
       where ${where}
       order by c.sort_order, c.name, c.id
       limit ${paging.limit} offset ${paging.offset ?? 0}`,
    countUpTo(db, db`time_categories c where ${where}`, paging),
  ]);
  return pageOf(items, total, paging, true);
}

async function requireCategory(db: Db, s: Scope, categoryId: string): Promise<void> {
  const [row] = await db<{ isActive: boolean }[]>`
    select is_active as "isActive" from time_categories
     where workspace_id = ${s.workspaceId} and id = ${categoryId}`;
  if (!row) {
    const active = db`select c.id, c.name from time_categories c
      where c.workspace_id = ${s.workspaceId} and c.is_active order by c.sort_order, c.name, c.id`;
    throw notFound(
      `categoryId: no time category ${categoryId}${await choicesSuffix(
        db,
        active,
        "active categories",
        "list_time_categories",
      )}`,
    );
  }
  if (!row.isActive) throw invalidInput(`categoryId: time category ${categoryId} is no longer active`);
}

/**
 * A task the caller may log time on: in the workspace and the caller's companies (through its project), and not
 * a private task of other people. Returns its project and company.
 */
async function taskInScope(
  db: Db,
  s: Scope,
  userId: string,
  taskId: string,
): Promise<{ projectId: string | null; companyId: string | null }> {
  const [row] = await db<{ projectId: string | null; companyId: string | null }[]>`
    select t.project_id as "projectId", t.company_id as "companyId"
      from tasks t
     where t.workspace_id = ${s.workspaceId} and t.id = ${taskId}
       and (not t.is_private or t.created_by = ${userId}
            or exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = ${userId}))`;
  if (!row || !inScope(s, row.companyId)) throw notFound(`taskId: no task ${taskId}`);
  return row;
}

/**
 * The company a log gets from its link: the task's project's company, or a category log's project's company;
 * `fallback` when the link names no company (a new log: the caller's only company, see personalCompany).
 */
async function linkCompany(
  db: Db,
  s: Scope,
  userId: string,
  link: Link,
  fallback: () => string | null,
): Promise<string | null> {
  if (link.taskId) {
    const t = await taskInScope(db, s, userId, link.taskId);
    return t.companyId ?? fallback();
  }
  if (link.categoryId) await requireCategory(db, s, link.categoryId);
  if (link.projectId) {
    const p = await projectInScope(db, s, link.projectId);
    if (p.companyId) return p.companyId;
  }
  return fallback();
}

// ---- reads ------------------------------------------------------------------------------------------------

/** A log as stored, with its linked names: the list row without its computed hours and amount, with minutes. */
type Row = Omit<TimeLogRow, "hours" | "amount"> & { minutes: number };

/**
 * The log columns for the log's own user `userId` in scope `s`. The linked task's title and the project's name
 * only where that user could read the task (company, privacy) or project itself: a task that became private or
 * moved to another company keeps its id here, its title becomes null.
 */
function columns(db: Db, s: Scope, userId: string) {
  return db`
    l.id, l.date::text as date, ${clockColumn(db, "l.start_time")} as "startTime",
    ${clockColumn(db, "l.end_time")} as "endTime",
    (extract(epoch from (l.end_time - l.start_time)) / 60)::int as minutes,
    l.description, l.task_id as "taskId",
    case when ${visibleTask(db, s, userId, "t")} then t.title end as "taskTitle",
    l.category_id as "categoryId", c.name as "categoryName",
    coalesce(t.project_id, l.project_id) as "projectId",
    case when ${companyFilter(db, s, "p.company_id")} then p.name end as "projectName",
    l.is_billable as "isBillable", l.hourly_rate::text as "hourlyRate"`;
}

/** The full log's further columns: its company and audit times. */
function fullColumns(db: Db, s: Scope, userId: string) {
  return db`
    ${columns(db, s, userId)}, l.company_id as "companyId",
    ${isoColumn(db, "l.created_at")} as "createdAt", ${isoColumn(db, "l.updated_at")} as "updatedAt"`;
}

function joins(db: Db) {
  return db`
      from time_logs l
      left join tasks t on t.workspace_id = l.workspace_id and t.id = l.task_id
      left join time_categories c on c.workspace_id = l.workspace_id and c.id = l.category_id
      left join projects p on p.workspace_id = l.workspace_id and p.id = coalesce(t.project_id, l.project_id)`;
}

/** The list row: hours and amount computed from the stored minutes and rate. */
function toRow(r: Row): TimeLogRow {
  return {
    id: r.id,
    date: r.date,
    startTime: r.startTime,
    endTime: r.endTime,
    hours: hoursOf(r.minutes),
    description: r.description,
    taskId: r.taskId,
    taskTitle: r.taskTitle,
    categoryId: r.categoryId,
    categoryName: r.categoryName,
    projectId: r.projectId,
    projectName: r.projectName,
    isBillable: r.isBillable,
    hourlyRate: r.hourlyRate,
    amount: logAmount(r.minutes, r.isBillable, r.hourlyRate),
  };
}

/** A stored log with the full answer's further columns (fullColumns). */
type FullRow = Row & Pick<TimeLog, "companyId" | "createdAt" | "updatedAt">;

/** The full log, in the order its answer has always had: the list row with the minutes after the times. */
function toLog(r: FullRow): TimeLog {
  const { id, date, startTime, endTime, ...rest } = toRow(r);
  return {
    id,
    date,
    startTime,
    endTime,
    minutes: r.minutes,
    ...rest,
    companyId: r.companyId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** The caller's own time logs in scope, newest day first, earliest start first within a day. */
/** The caller's own time logs in the workspace (company scope kept), between the filter's dates when given. */
function ownLogsIn(db: Db, s: Scope, userId: string, filter: { startDate?: string; endDate?: string }) {
  const parts = [
    db`l.workspace_id = ${s.workspaceId}`,
    db`l.user_id = ${userId}`,
    companyFilter(db, s, "l.company_id"),
  ];
  if (filter.startDate) parts.push(db`l.date >= ${filter.startDate}::date`);
  if (filter.endDate) parts.push(db`l.date <= ${filter.endDate}::date`);
  return parts;
}

export async function listTimeLogs(
  db: Db,
  caller: ScopedCaller,
  filter: TimeLogFilter,
): Promise<Page<TimeLogRow>> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  checkRange(filter.startDate, filter.endDate);
  const parts = ownLogsIn(db, s, userId, filter);
  const where = allOf(db, parts);
  const [rows, total] = await Promise.all([
    db<Row[]>`
      select ${columns(db, s, userId)} ${joins(db)} where ${where}
       order by l.date desc, l.start_time, l.id
       limit ${filter.limit} offset ${filter.offset ?? 0}`,
    countUpTo(db, db`time_logs l where ${where}`, filter),
  ]);
  return pageOf(rows.map(toRow), total, filter, true);
}

async function fetchLog(db: Db, s: Scope, userId: string, id: string): Promise<TimeLog | null> {
  const [row] = await db<FullRow[]>`
    select ${fullColumns(db, s, userId)} ${joins(db)}
     where l.workspace_id = ${s.workspaceId} and l.user_id = ${userId} and l.id = ${id}
       and ${companyFilter(db, s, "l.company_id")}`;
  return row ? toLog(row) : null;
}

/** One of the caller's own logs; another person's, workspace's or company's → not_found. */
export async function getTimeLog(db: Db, caller: ScopedCaller, id: string): Promise<TimeLog> {
  const log = await fetchLog(db, scopeOf(caller), actingUser(caller), id);
  if (!log) throw notFound(`timeLogId: no time log ${id}`);
  return log;
}

export interface SummaryFilter {
  startDate?: string;
  endDate?: string;
  projectIds?: readonly string[];
}

/**
 * Totals of the caller's own logs in scope, optionally within dates and limited to logs counting towards the
 * given projects. Project ids the caller cannot see simply match nothing.
 */
export async function timeLogSummary(
  db: Db,
  caller: ScopedCaller,
  filter: SummaryFilter,
): Promise<
  { startDate: string | null; endDate: string | null; projectIds: string[] | null } & TimeLogSummary
> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  checkRange(filter.startDate, filter.endDate);
  const projectIds = filter.projectIds && filter.projectIds.length > 0
    ? [...new Set(filter.projectIds)]
    : null;
  const parts = ownLogsIn(db, s, userId, filter);
  if (projectIds) parts.push(db`coalesce(t.project_id, l.project_id) = any(${projectIds}::uuid[])`);
  const rows = await db<Row[]>`select ${columns(db, s, userId)} ${joins(db)} where ${allOf(db, parts)}`;
  return {
    startDate: filter.startDate ?? null,
    endDate: filter.endDate ?? null,
    projectIds,
    ...summarize(rows),
  };
}

// ---- writes -----------------------------------------------------------------------------------------------

/** Constraint violations as answers naming the field. */
const ERRORS: ConstraintAnswers = {
  time_logs_times: () => invalidInput(TIMES_RULE),
  time_logs_link: () => invalidInput(EXCLUSIVE_LINK_RULE),
  time_logs_project: () => invalidInput(PROJECT_LINK_RULE),
  "23503": () => notFound("taskId: a linked task, category or project no longer exists"),
};

/** Logs time for the caller. */
export async function createTimeLog(db: Db, caller: ScopedCaller, input: NewTimeLog): Promise<TimeLog> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const startTime = input.startTime ?? await stackedStart(db, s.workspaceId, userId, input);
  const endTime = endTimeOf(startTime, input, true)!;
  logMinutes(startTime, endTime);
  const link = newLink(input);
  const companyId = await linkCompany(db, s, userId, link, () => personalCompany(s, "time log"));
  let id: string;
  try {
    [{ id }] = await db<{ id: string }[]>`
      insert into time_logs (workspace_id, company_id, user_id, date, start_time, end_time, task_id, category_id,
                             project_id, description, is_billable, hourly_rate)
      values (${s.workspaceId}, ${companyId}, ${userId}, ${input.date}, ${startTime}, ${endTime},
              ${link.taskId}, ${link.categoryId}, ${link.projectId}, ${input.description ?? ""},
              ${input.isBillable ?? false}, ${storedRate(input.hourlyRate)})
      returning id`;
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  return (await fetchLog(db, s, userId, id))!;
}

/** Where a log given as a duration alone starts when nobody said: the day's first log starts here. */
export const DAY_START = "09:00";

/**
 * The start of a log given as `hours` without a start ("log 2 hours yesterday"): the end of the person's latest
 * log that day, else DAY_START. The person said how long, not when; placing it after what is already logged
 * keeps the day's logs from overlapping, and the answer shows the times chosen.
 */
async function stackedStart(
  db: Db,
  workspaceId: string,
  userId: string,
  input: Pick<NewTimeLog, "date" | "hours">,
): Promise<string> {
  if (input.hours === undefined) throw invalidInput(START_REQUIRED_RULE);
  const [row] = await db<{ end: string }[]>`
    select ${clockColumn(db, "end_time")} as "end" from time_logs
     where workspace_id = ${workspaceId} and user_id = ${userId} and date = ${input.date}
     order by end_time desc limit 1`;
  return row?.end ?? DAY_START;
}

/**
 * Changes the given fields of one of the caller's logs. The times are checked against the stored ones; the
 * link follows patchedLink. The table's CHECK constraints back both rules against a concurrent change.
 */
export async function updateTimeLog(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: TimeLogPatch,
): Promise<TimeLog> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  if (Object.values(patch).every((v) => v === undefined)) {
    throw invalidInput("nothing to change: give at least one field");
  }
  const current = await fetchLog(db, s, userId, id);
  if (!current) throw notFound(`timeLogId: no time log ${id}`);
  const startTime = patch.startTime ?? current.startTime;
  const endTime = endTimeOf(startTime, patch, false);
  logMinutes(startTime, endTime ?? current.endTime);
  // A task log's projectId is the task's project (read-only); its direct project column is null.
  const stored: Link = {
    taskId: current.taskId,
    categoryId: current.categoryId,
    projectId: current.taskId ? null : current.projectId,
  };
  const link = patchedLink(stored, patch);
  const linkChanged = link.taskId !== stored.taskId || link.categoryId !== stored.categoryId ||
    link.projectId !== stored.projectId;
  const companyId = linkChanged
    ? await linkCompany(db, s, userId, link, () => current.companyId)
    : current.companyId;
  const set: Record<string, unknown> = {
    task_id: link.taskId,
    category_id: link.categoryId,
    project_id: link.projectId,
    company_id: companyId,
  };
  if (patch.date !== undefined) set.date = patch.date;
  if (patch.startTime !== undefined) set.start_time = patch.startTime;
  if (endTime !== undefined) set.end_time = endTime;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.isBillable !== undefined) set.is_billable = patch.isBillable;
  if (patch.hourlyRate !== undefined) set.hourly_rate = storedRate(patch.hourlyRate);
  let rows: { id: string }[];
  try {
    rows = await db<{ id: string }[]>`
      update time_logs l set ${db(set)}, updated_at = now()
       where l.workspace_id = ${s.workspaceId} and l.user_id = ${userId} and l.id = ${id}
         and ${companyFilter(db, s, "l.company_id")}
      returning l.id`;
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  if (rows.length === 0) throw notFound(`timeLogId: no time log ${id}`);
  return (await fetchLog(db, s, userId, id))!;
}

/** Deletes one of the caller's logs in one statement; another person's log → not_found. */
export async function deleteTimeLog(
  db: Db,
  caller: ScopedCaller,
  id: string,
): Promise<{ deleted: true; id: string }> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const rows = await db`
    delete from time_logs l
     where l.workspace_id = ${s.workspaceId} and l.user_id = ${userId} and l.id = ${id}
       and ${companyFilter(db, s, "l.company_id")}
    returning l.id`;
  if (rows.length === 0) throw notFound(`timeLogId: no time log ${id}`);
  return { deleted: true, id };
}

/** Adds a timesheet category (no tool manages categories; the demo seeder and tests use this). */
export async function insertTimeCategory(
  db: Db,
  workspaceId: string,
  c: { name: string; description?: string; isActive?: boolean; sortOrder?: number },
): Promise<{ id: string }> {
  const [row] = await db<{ id: string }[]>`
    insert into time_categories (workspace_id, name, description, is_active, sort_order)
    values (${workspaceId}, ${c.name}, ${c.description ?? ""}, ${c.isActive ?? true}, ${c.sortOrder ?? 0})
    returning id`;
  return row;
}
