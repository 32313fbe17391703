// Tasks: reading — the list, one task with its subtasks, comments and assignees, the subtask list, and the read-back
// every write answers with.
import type { Fragment } from "postgres";
import { allOf, anyOf, contains, isoColumn } from "../db/sql.ts";
import {
  countUpTo,
  cursorFingerprint,
  cursorKeyColumn,
  cursorKeyValue,
  decodeCursor,
  type Keyed,
  keysetPageOf,
  type Page,
  pageOf,
  type Paging,
} from "./page.ts";
import { todayUtc } from "../dates.ts";
import type { Db } from "../db/client.ts";
import { AppError, invalidInput, notFound } from "../errors.ts";
import { errorFields } from "../log.ts";
import { type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import { markForecastLate } from "./task_plan.ts";
import { DISPLAY_ID } from "./task_refs.ts";
import {
  fetchRows,
  listColumns,
  overdueColumn,
  type ReadOptions,
  requireMember,
  type SavedTask,
  type Task,
  type TaskListItem,
  type TaskScope,
  type TaskSummary,
  teamOf,
  userOf,
  visible,
} from "./task_rows.ts";

export interface TaskFilter {
  projectIds?: readonly string[];
  taskScope?: TaskScope;
  targetUserId?: string;
  query?: string;
  taskNumber?: number;
  projectPrefix?: string;
  overdue?: boolean;
  limit: number;
  offset?: number;
  /** the nextCursor of the previous page (same filters); not with a non-zero offset */
  cursor?: string;
}

/** Top-level tasks the caller may see (subtasks too when named by display id or number), newest first. */
export async function listTasks(
  db: Db,
  caller: ScopedCaller,
  filter: TaskFilter,
  opts: ReadOptions,
): Promise<Page<TaskListItem>> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const today = opts.today ?? todayUtc();
  const scope = filter.taskScope ?? "all";
  if (scope !== "all" && !uid) throw invalidInput(`taskScope: ${scope} needs an API key bound to a user`);
  if (filter.targetUserId) await requireMember(db, s, filter.targetUserId, "targetUserId");
  // Only the given filters become conditions: an optional one written as `($n is null or …)` keeps a generic
  // prepared plan from using any index for it (list_tasks took 390 ms at 100,000 tasks).
  const where = [visible(db, s, uid, "t")];
  const assignedTo = (users: Fragment) =>
    db`t.id in (select a.task_id from task_assignees a where a.workspace_id = ${s.workspaceId} and a.user_id in ${users})`;
  // A prefix names at most one project of the workspace (projects_task_prefix): a scalar subquery, so the
  // number lookup can go through tasks_project_number inside a BitmapOr with the trigram scans.
  const projectOf = (prefix: string) =>
    db`(select x.id from projects x where x.workspace_id = ${s.workspaceId} and x.task_prefix = ${prefix.toUpperCase()})`;
  if (filter.projectIds) where.push(db`t.project_id = any(${[...filter.projectIds]}::uuid[])`);
  if (scope === "me") where.push(assignedTo(db`(${uid}::uuid)`));
  if (scope === "my_team") where.push(assignedTo(teamOf(db, s.workspaceId, uid!)));
  if (filter.targetUserId) where.push(assignedTo(db`(${filter.targetUserId}::uuid)`));
  const q = filter.query?.trim();
  // "WEB-42" in the query also matches the task with that display id. A display id or a taskNumber names a task
  // of a project whether it is top-level or a subtask, so those find subtasks too; everything else lists
  // top-level tasks only (issue 25).
  const display = q?.match(DISPLAY_ID);
  const byDisplayId = display
    ? db`(t.project_id = ${projectOf(display[1])} and t.number = ${Number(display[2])}::int)`
    : null;
  if (q) {
    where.push(anyOf(db, [
      contains(db, "t.title", q),
      contains(db, "t.description", q),
      ...(byDisplayId ? [byDisplayId] : []),
    ]));
  }
  if (filter.taskNumber !== undefined) where.push(db`t.number = ${filter.taskNumber}::int`);
  else where.push(byDisplayId ? db`(t.parent_id is null or ${byDisplayId})` : db`t.parent_id is null`);
  if (filter.projectPrefix) where.push(db`t.project_id = ${projectOf(filter.projectPrefix)}`);
  if (filter.overdue !== undefined) {
    where.push(filter.overdue ? overdueColumn(db, today) : db`not ${overdueColumn(db, today)}`);
  }
  const fingerprint = cursorFingerprint("tasks", {
    projectIds: filter.projectIds ? [...filter.projectIds].sort() : undefined,
    taskScope: scope,
    targetUserId: filter.targetUserId,
    query: q,
    taskNumber: filter.taskNumber,
    projectPrefix: filter.projectPrefix?.toUpperCase(),
    overdue: filter.overdue,
  });
  const paging = { limit: filter.limit, offset: filter.offset ?? 0, cursor: filter.cursor };
  if (filter.cursor !== undefined) {
    // ORDER BY created_at desc, id asc (tasks_list_order): mixed directions have no row-value form, so the
    // position is "created_at <= key" (the index's scan start) and, among equal instants, a greater id.
    const at = decodeCursor(filter.cursor, paging, fingerprint, "timestamptz", false);
    const key = cursorKeyValue(db, "timestamptz", at.key!);
    where.push(db`t.created_at <= ${key} and (t.created_at < ${key} or t.id > ${at.id}::uuid)`);
  }
  // The page and a count capped past it (page.ts): a window count(*) over () would compute every match's
  // columns, about 1 s at 100,000 tasks. The ORDER BY is tasks_list_order's, so a first page reads `limit` rows.
  const [rows, count] = await Promise.all([
    db<Keyed<TaskListItem>[]>`
    select ${listColumns(db, s, uid, today, opts.variantA)},
           ${cursorKeyColumn(db, "timestamptz", db`t.created_at`)} as "cursorKey"
      from tasks t
      left join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id
     where ${allOf(db, where)}
     order by t.created_at desc, t.id
     limit ${filter.limit} offset ${paging.offset}`,
    countUpTo(db, db`tasks t where ${allOf(db, where)}`, paging),
  ]);
  const page = keysetPageOf(rows, count, paging, fingerprint);
  if (opts.variantA) await markForecastLate(db, s, uid, today, page.items);
  return page;
}

async function fetchTask(
  db: Db,
  s: Scope,
  uid: string | null,
  id: string,
  opts: ReadOptions,
  forecast = true,
): Promise<Task | null> {
  const today = opts.today ?? todayUtc();
  const [row] = await fetchRows<TaskSummary & { description: string }>(
    db,
    s,
    uid,
    opts,
    db`t.id = ${id}`,
    db`, t.description`,
  );
  if (!row) return null;
  const { description, ...base } = row;
  const subtasks = await fetchRows(
    db,
    s,
    uid,
    opts,
    db`t.parent_id = ${id} order by t.number nulls last, t.created_at, t.id`,
  );
  const assignees = await db<{ userId: string; name: string; email: string }[]>`
    select u.id as "userId", u.name, u.email
      from task_assignees a join users u on u.id = a.user_id
     where a.workspace_id = ${s.workspaceId} and a.task_id = ${id}
     order by u.name, u.id`;
  const comments = await db<Task["comments"]>`
    select c.id, c.author_id as "authorId", u.name as "authorName", c.body,
           ${isoColumn(db, "c.created_at")} as "createdAt"
      from task_comments c left join users u on u.id = c.author_id
     where c.workspace_id = ${s.workspaceId} and c.task_id = ${id}
     order by c.created_at, c.id`;
  const task: Task = {
    ...base,
    description,
    assignees: [...assignees],
    subtasks,
    comments: [...comments],
  };
  if (opts.variantA && forecast) await markForecastLate(db, s, uid, today, [task, ...task.subtasks]);
  return task;
}

/**
 * The answer of a committed write: the task read back. The write is done whatever happens here, so nothing here
 * may fail the call (a client would retry and, for a create, make a duplicate — there is no delete tool): a
 * failed forecast is left out (isForecastLate absent), and a failed read answers what is known with a note.
 */
export async function readBack(
  db: Db,
  s: Scope,
  uid: string | null,
  id: string,
  opts: ReadOptions,
  known: Record<string, unknown>,
): Promise<Task | SavedTask> {
  for (const forecast of opts.variantA ? [true, false] : [false]) {
    try {
      const task = await fetchTask(db, s, uid, id, opts, forecast);
      if (task) return task;
      break; // committed, yet no longer visible to the caller (changed meanwhile): answer what is known
    } catch (err) {
      opts.log?.error("task read-back after a committed write failed", {
        request_id: opts.requestId,
        task_id: id,
        forecast,
        ...errorFields(err),
      });
      if (err instanceof AppError) break;
    }
  }
  return {
    ...known,
    id,
    saved: true,
    note: "The change was saved, but reading the task back failed; get_task with this id shows it. Do not " +
      "repeat the call.",
  };
}

/** One task with its subtasks, comments and assignees; not_found when unknown, private or out of scope. */
export async function getTask(db: Db, caller: ScopedCaller, id: string, opts: ReadOptions): Promise<Task> {
  const t = await fetchTask(db, scopeOf(caller), userOf(caller), id, opts);
  if (!t) throw notFound(`taskId: no task ${id}`);
  return t;
}

/** The visible subtasks of a visible task, in number order, a page at a time. */
export async function listSubtasks(
  db: Db,
  caller: ScopedCaller,
  parentId: string,
  paging: Paging,
  opts: ReadOptions,
): Promise<Page<TaskListItem>> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const today = opts.today ?? todayUtc();
  const [parent] = await db`select t.id from tasks t where t.id = ${parentId} and ${
    visible(db, s, uid, "t")
  }`;
  if (!parent) throw notFound(`parentTaskId: no task ${parentId}`);
  const where = db`${visible(db, s, uid, "t")} and t.parent_id = ${parentId}`;
  const [rows, total] = await Promise.all([
    db<TaskListItem[]>`
    select ${listColumns(db, s, uid, today, opts.variantA)}
      from tasks t
      left join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id
     where ${where}
     order by t.number nulls last, t.created_at, t.id
     limit ${paging.limit} offset ${paging.offset ?? 0}`,
    countUpTo(db, db`tasks t where ${where}`, paging),
  ]);
  const out = [...rows];
  if (opts.variantA) await markForecastLate(db, s, uid, today, out);
  return pageOf(out, total, paging, true);
}
