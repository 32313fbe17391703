// Tasks: SQL and rules — numbering, subtasks, privacy, assignees, the workload queue, focus, and the Gantt plan.
import {
  type ConstraintAnswers,
  isoColumn,
  likePattern,
  sortableTimeColumn,
  throwMapped,
} from "../db/sql.ts";
import { withTx } from "../db/tx.ts";
import { countUpTo, type Page, pageOf } from "./page.ts";
import { todayUtc } from "../dates.ts";
import type { Db } from "../db/client.ts";
import { AppError, invalidInput, notFound } from "../errors.ts";
import { errorFields, type Logger } from "../log.ts";
import { clipBars, dayNumber, lateTaskIds, type PlanTask, planWorkloads } from "./gantt.ts";
import {
  companyFilter,
  companyForWrite,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";

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
const SORT_STEP = 1024;
/** The widest gantt_plan window. */
export const MAX_PLAN_DAYS = 366;
/** The largest estimate a task may get (five working years at 8 h a day); larger work is a project. */
export const MAX_TASK_ESTIMATE_HOURS = 10_000;
/** How many tasks beyond the planning horizon gantt_plan lists (it always counts them all). */
export const MAX_BEYOND_HORIZON_LISTED = 100;

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
}

export interface NewTask {
  title: string;
  description?: string;
  status?: TaskStatus;
  priority?: TaskPriority;
  estimatedHours?: number;
  startDate?: string;
  dueDate?: string;
  projectId?: string;
  companyId?: string;
  assigneeIds?: readonly string[];
  isPrivate?: boolean;
}

/** Fields to change; undefined = unchanged, null = cleared. */
export interface TaskPatch {
  title?: string;
  description?: string;
  status?: TaskStatus;
  priority?: TaskPriority;
  estimatedHours?: number | null;
  actualHours?: number | null;
  startDate?: string | null;
  dueDate?: string | null;
  sortOrder?: number;
  projectId?: string | null;
  assigneeIds?: readonly string[];
  isPrivate?: boolean;
}

/** The read options of a tool call: its variant, and where a write logs a failed read-back. */
export function taskReadOptions(
  ctx: { variant: "A" | "B"; log: Logger; requestId: string },
): ReadOptions {
  return { variantA: ctx.variant === "A", log: ctx.log, requestId: ctx.requestId };
}

function userOf(caller: ScopedCaller): string | null {
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

interface Row {
  id: string;
  number: number | null;
  display_id: string | null;
  title: string;
  description: string;
  status: TaskStatus;
  priority: TaskPriority;
  project_id: string | null;
  project_name: string | null;
  parent_id: string | null;
  company_id: string | null;
  is_private: boolean;
  start_date: string | null;
  due_date: string | null;
  estimated_hours: number | null;
  actual_hours: number | null;
  sort_order: number;
  assignee_ids: string[];
  child_task_count: number;
  is_overdue: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** Row columns for `tasks t left join projects p`; child counts respect privacy like everything else. */
function columns(db: Db, s: Scope, userId: string | null, today: string) {
  return db`
    t.id, t.number,
    case when p.task_prefix is not null and t.number is not null then p.task_prefix || '-' || t.number end
      as display_id,
    t.title, t.description, t.status, t.priority, t.project_id, p.name as project_name, t.parent_id,
    t.company_id, t.is_private, t.start_date::text as start_date, t.due_date::text as due_date,
    t.estimated_hours::float8 as estimated_hours, t.actual_hours::float8 as actual_hours, t.sort_order,
    coalesce((select array_agg(a.user_id order by a.user_id) from task_assignees a where a.task_id = t.id),
             '{}') as assignee_ids,
    (select count(*)::int from tasks c where c.parent_id = t.id and ${visible(db, s, userId, "c")})
      as child_task_count,
    (t.due_date is not null and t.due_date < ${today}::date and t.status <> 'done') as is_overdue,
    t.created_by,
    ${isoColumn(db, "t.created_at")} as created_at,
    ${isoColumn(db, "t.updated_at")} as updated_at`;
}

function summary(r: Row, opts: ReadOptions): TaskSummary {
  const s: TaskSummary = {
    id: r.id,
    number: r.number,
    title: r.title,
    status: r.status,
    priority: r.priority,
    projectId: r.project_id,
    projectName: r.project_name,
    parentTaskId: r.parent_id,
    companyId: r.company_id,
    isPrivate: r.is_private,
    startDate: r.start_date,
    dueDate: r.due_date,
    estimatedHours: r.estimated_hours,
    actualHours: r.actual_hours,
    sortOrder: r.sort_order,
    assigneeIds: r.assignee_ids,
    childTaskCount: r.child_task_count,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (opts.variantA) {
    s.displayId = r.display_id;
    s.isOverdue = r.is_overdue;
  }
  return s;
}

/** Users sharing a team with `userId`, and `userId` itself (a person without a team is a team of one). */
function teamOf(db: Db, workspaceId: string, userId: string) {
  return db`(select tm2.user_id from team_members tm1
              join team_members tm2 on tm2.team_id = tm1.team_id
             where tm1.workspace_id = ${workspaceId} and tm1.user_id = ${userId}::uuid
            union select ${userId}::uuid)`;
}

/** A workspace member the caller may name: not_found for a non-member or a member outside all its companies. */
async function requireMember(db: Db, s: Scope, userId: string, field: string): Promise<string[] | null> {
  const [m] = await db<{ company_ids: string[] | null }[]>`
    select company_ids from workspace_members where workspace_id = ${s.workspaceId} and user_id = ${userId}`;
  if (!m) throw notFound(`${field}: no workspace member ${userId}`);
  if (
    s.companyIds !== null && m.company_ids !== null && !m.company_ids.some((c) => s.companyIds!.includes(c))
  ) {
    throw notFound(`${field}: no workspace member ${userId}`);
  }
  return m.company_ids;
}

/**
 * Checks people who are to be assigned to a task of `companyId`: workspace members within the caller's companies
 * (not_found otherwise) who can see the task's company (invalid_input otherwise). Returns them deduplicated.
 */
async function checkAssignees(
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

async function fetchRows(
  db: Db,
  s: Scope,
  userId: string | null,
  today: string,
  where: ReturnType<typeof companyFilter>,
) {
  return await db<Row[]>`
    select ${columns(db, s, userId, today)}
      from tasks t
      left join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id
     where ${visible(db, s, userId, "t")} and ${where}`;
}

/** Constraint violations as answers naming the field. */
const ERRORS: ConstraintAnswers = {
  tasks_dates: invalidInput("dueDate: must not be before startDate"),
};

// ---------------------------------------------------------------------------------------------------------
// Reading

/** Top-level tasks the caller may see, newest first, each with its visible subtask count. */
export async function listTasks(
  db: Db,
  caller: ScopedCaller,
  filter: TaskFilter,
  opts: ReadOptions,
): Promise<Page<TaskSummary>> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const today = opts.today ?? todayUtc();
  const scope = filter.taskScope ?? "all";
  if (scope !== "all" && !uid) throw invalidInput(`taskScope: ${scope} needs an API key bound to a user`);
  if (filter.targetUserId) await requireMember(db, s, filter.targetUserId, "targetUserId");
  const q = filter.query?.trim() ? filter.query.trim() : null;
  const like = q ? likePattern(q) : null;
  // "WEB-42" in the query also matches the task with that display id.
  const display = q?.match(/^([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,9})$/);
  // The page and a count capped past it (page.ts): a window count(*) over () would compute every match's
  // columns, about 1 s at 100,000 tasks.
  const matches = () =>
    db`tasks t
      left join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id
     where ${visible(db, s, uid, "t")}
       and t.parent_id is null
       and (${filter.projectIds ? [...filter.projectIds] : null}::uuid[] is null
            or t.project_id = any(${filter.projectIds ? [...filter.projectIds] : null}::uuid[]))
       and ${
      scope === "me"
        ? db`exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = ${uid})`
        : scope === "my_team"
        ? db`exists (select 1 from task_assignees a where a.task_id = t.id
                     and a.user_id in ${teamOf(db, s.workspaceId, uid!)})`
        : db`true`
    }
       and (${filter.targetUserId ?? null}::uuid is null
            or exists (select 1 from task_assignees a
                        where a.task_id = t.id and a.user_id = ${filter.targetUserId ?? null}::uuid))
       and (${like}::text is null
            or t.title ilike ${like} or t.description ilike ${like}
            or (${display ? display[1].toUpperCase() : null}::text is not null
                and p.task_prefix = ${display ? display[1].toUpperCase() : null}
                and t.number = ${display ? Number(display[2]) : null}::int))
       and (${filter.taskNumber ?? null}::int is null or t.number = ${filter.taskNumber ?? null}::int)
       and (${filter.projectPrefix ?? null}::text is null
            or p.task_prefix = upper(${filter.projectPrefix ?? null}::text))
       and (${filter.overdue ?? null}::boolean is null
            or (t.due_date is not null and t.due_date < ${today}::date and t.status <> 'done')
               = ${filter.overdue ?? null}::boolean)`;
  const offset = filter.offset ?? 0;
  const [rows, total] = await Promise.all([
    db<Row[]>`
    select ${columns(db, s, uid, today)}
      from ${matches()}
     order by t.created_at desc, t.id
     limit ${filter.limit} offset ${offset}`,
    countUpTo(db, matches(), filter),
  ]);
  const out = rows.map((r) => summary(r, opts));
  if (opts.variantA) await markForecastLate(db, s, uid, today, out);
  return pageOf(out, total, filter, true);
}

/** Sets isForecastLate on `tasks` from the plan of their assignees' workloads. */
async function markForecastLate(
  db: Db,
  s: Scope,
  uid: string | null,
  today: string,
  tasks: TaskSummary[],
): Promise<void> {
  const users = [...new Set(tasks.filter((t) => t.dueDate !== null).flatMap((t) => t.assigneeIds))];
  let late = new Set<string>();
  if (users.length) {
    const plan = planWorkloads(await loadPlanTasks(db, s, uid, users), {
      today,
      focus: await loadFocus(db, s.workspaceId, users),
      users: new Set(users),
    });
    late = lateTaskIds(plan.bars, plan.beyondHorizon);
  }
  for (const t of tasks) t.isForecastLate = late.has(t.id);
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
  const [row] = await fetchRows(db, s, uid, today, db`t.id = ${id}`);
  if (!row) return null;
  const base = summary(row, opts);
  const subRows = await fetchRows(
    db,
    s,
    uid,
    today,
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
    description: row.description,
    assignees: [...assignees],
    subtasks: subRows.map((r) => summary(r, opts)),
    comments: [...comments],
  };
  if (opts.variantA && forecast) await markForecastLate(db, s, uid, today, [task, ...task.subtasks]);
  return task;
}

/** What a write answers when it committed but the task could not be read back. */
export interface SavedTask {
  id: string;
  /** the fields the write set, as given */
  [field: string]: unknown;
  saved: true;
  note: string;
}

/**
 * The answer of a committed write: the task read back. The write is done whatever happens here, so nothing here
 * may fail the call (a client would retry and, for a create, make a duplicate — there is no delete tool): a
 * failed forecast is left out (isForecastLate absent), and a failed read answers what is known with a note.
 */
async function readBack(
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

/** The visible subtasks of a visible task, in number order. */
export async function listSubtasks(
  db: Db,
  caller: ScopedCaller,
  parentId: string,
  opts: ReadOptions,
): Promise<TaskSummary[]> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const today = opts.today ?? todayUtc();
  const [parent] = await db`select t.id from tasks t where t.id = ${parentId} and ${
    visible(db, s, uid, "t")
  }`;
  if (!parent) throw notFound(`parentTaskId: no task ${parentId}`);
  const rows = await fetchRows(
    db,
    s,
    uid,
    today,
    db`t.parent_id = ${parentId} order by t.number nulls last, t.created_at, t.id`,
  );
  const out = rows.map((r) => summary(r, opts));
  if (opts.variantA) await markForecastLate(db, s, uid, today, out);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Writing

/** Hands out the next `count` numbers of a project in one statement (the row lock serialises creators). */
async function takeNumbers(
  db: Db,
  s: Scope,
  projectId: string,
  count: number,
  field: string,
): Promise<{ first: number; companyId: string | null }> {
  const [row] = await db<{ first: number; company_id: string | null }[]>`
    update projects p set next_task_number = next_task_number + ${count}::int
     where p.workspace_id = ${s.workspaceId} and p.id = ${projectId}
       and ${companyFilter(db, s, "p.company_id")}
    returning next_task_number - ${count}::int as first, company_id`;
  if (!row) throw notFound(`${field}: no project ${projectId}`);
  return { first: row.first, companyId: row.company_id };
}

function checkDates(startDate: string | null | undefined, dueDate: string | null | undefined): void {
  if (startDate && dueDate && dueDate < startDate) {
    throw invalidInput("dueDate: must not be before startDate");
  }
}

/**
 * Creates a task (or, with `parentTaskId`, a subtask in its parent's project). Numbers come from the project's
 * counter inside the insert transaction; a project task takes its project's company, a project-less one the
 * requested company (or the key's only company).
 */
export async function createTask(
  db: Db,
  caller: ScopedCaller,
  input: NewTask & { parentTaskId?: string },
  opts: ReadOptions,
): Promise<Task | SavedTask> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  checkDates(input.startDate, input.dueDate);
  let id: string;
  try {
    id = await withTx(db, async (tx) => {
      let projectId = input.projectId ?? null;
      let companyId: string | null = null;
      let number: number | null = null;
      let isPrivate = input.isPrivate ?? false;
      if (input.parentTaskId) {
        const [parent] = await tx<
          {
            parent_id: string | null;
            project_id: string | null;
            company_id: string | null;
            is_private: boolean;
          }[]
        >`
          select t.parent_id, t.project_id, t.company_id, t.is_private from tasks t
           where t.id = ${input.parentTaskId} and ${visible(tx, s, uid, "t")}`;
        if (!parent) throw notFound(`parentTaskId: no task ${input.parentTaskId}`);
        if (parent.parent_id) {
          throw invalidInput(
            `parentTaskId: task ${input.parentTaskId} is itself a subtask; subtasks nest one level only`,
          );
        }
        projectId = parent.project_id;
        companyId = parent.company_id;
        // A subtask of a private task is private too unless asked otherwise: it would show the parent's work.
        isPrivate = input.isPrivate ?? parent.is_private;
      }
      if (projectId) {
        const taken = await takeNumbers(
          tx,
          s,
          projectId,
          1,
          input.parentTaskId ? "parentTaskId" : "projectId",
        );
        number = taken.first;
        if (!input.parentTaskId && input.companyId && input.companyId !== taken.companyId) {
          throw invalidInput(
            "companyId: a project task belongs to its project's company; leave companyId out",
          );
        }
        companyId = taken.companyId;
      } else if (!input.parentTaskId) {
        companyId = companyForWrite(s, input.companyId ?? null);
        if (companyId) await requireCompany(tx, s, companyId);
      }
      const assignees = await checkAssignees(tx, s, input.assigneeIds ?? [], companyId, "assigneeIds");
      const [row] = await tx<{ id: string }[]>`
        insert into tasks (workspace_id, company_id, project_id, parent_id, number, title, description, status,
                           priority, is_private, start_date, due_date, estimated_hours, sort_order, created_by)
        values (${s.workspaceId}, ${companyId}, ${projectId}, ${input.parentTaskId ?? null}, ${number},
                ${input.title}, ${input.description ?? ""}, ${input.status ?? "todo"},
                ${input.priority ?? "medium"}, ${isPrivate}, ${input.startDate ?? null}, ${
        input.dueDate ?? null
      },
                ${input.estimatedHours ?? null},
                (select coalesce(max(sort_order), 0) + ${SORT_STEP} from tasks where workspace_id = ${s.workspaceId}),
                ${uid})
        returning id`;
      for (const user of assignees) {
        await tx`insert into task_assignees (workspace_id, task_id, user_id)
                 values (${s.workspaceId}, ${row.id}, ${user})`;
      }
      return row.id;
    });
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  return await readBack(db, s, uid, id, opts, { ...input });
}

const PATCH_COLUMNS = {
  title: "title",
  description: "description",
  status: "status",
  priority: "priority",
  estimatedHours: "estimated_hours",
  actualHours: "actual_hours",
  startDate: "start_date",
  dueDate: "due_date",
  sortOrder: "sort_order",
  isPrivate: "is_private",
} as const;

interface Locked {
  id: string;
  parent_id: string | null;
  project_id: string | null;
  company_id: string | null;
  start_date: string | null;
  status: TaskStatus;
}

async function lockTask(db: Db, s: Scope, uid: string | null, id: string, field = "taskId"): Promise<Locked> {
  const [t] = await db<Locked[]>`
    select t.id, t.parent_id, t.project_id, t.company_id, t.start_date::text as start_date, t.status
      from tasks t where t.id = ${id} and ${visible(db, s, uid, "t")}
       for update of t`;
  if (!t) throw notFound(`${field}: no task ${id}`);
  return t;
}

/**
 * Changes the given fields in one transaction. Moving a task to another project moves its subtasks with it (new
 * numbers from the target project, the target's company); a subtask cannot move on its own.
 */
export async function updateTask(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: TaskPatch,
  opts: ReadOptions,
): Promise<Task | SavedTask> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const set: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const v = patch[field as keyof typeof PATCH_COLUMNS];
    if (v !== undefined) set[column] = v;
  }
  if (Object.keys(set).length === 0 && patch.projectId === undefined && patch.assigneeIds === undefined) {
    throw invalidInput("nothing to change: give at least one field");
  }
  checkDates(patch.startDate, patch.dueDate);
  try {
    await withTx(db, async (tx) => {
      const t = await lockTask(tx, s, uid, id);
      let companyId = t.company_id;
      const target = patch.projectId;
      if (target !== undefined && target !== t.project_id) {
        if (t.parent_id) {
          throw invalidInput(
            "projectId: a subtask stays in its parent's project; move the parent task instead",
          );
        }
        const subs = await tx<{ id: string }[]>`
          select id from tasks where workspace_id = ${s.workspaceId} and parent_id = ${id}
           order by number nulls last, created_at, id
             for update`;
        if (target === null) {
          await tx`update tasks set project_id = null, number = null, updated_at = now()
                    where workspace_id = ${s.workspaceId} and (id = ${id} or parent_id = ${id})`;
        } else {
          const taken = await takeNumbers(tx, s, target, 1 + subs.length, "projectId");
          companyId = taken.companyId;
          const ids = [id, ...subs.map((r) => r.id)];
          const numbers = ids.map((_, i) => taken.first + i);
          await tx`
            update tasks t set project_id = ${target}, company_id = ${companyId},
                               number = v.number, updated_at = now()
              from (select unnest(${ids}::uuid[]) as id, unnest(${numbers}::int[]) as number) v
             where t.workspace_id = ${s.workspaceId} and t.id = v.id`;
        }
      }
      if (patch.assigneeIds !== undefined) {
        const assignees = await checkAssignees(tx, s, patch.assigneeIds, companyId, "assigneeIds");
        await tx`delete from task_assignees where workspace_id = ${s.workspaceId} and task_id = ${id}`;
        for (const user of assignees) {
          await tx`insert into task_assignees (workspace_id, task_id, user_id)
                   values (${s.workspaceId}, ${id}, ${user})`;
        }
      }
      if (companyId !== t.company_id) {
        // Everyone already assigned (to the task or its subtasks) must be able to see the new company.
        const current = await tx<{ user_id: string }[]>`
          select distinct a.user_id from task_assignees a join tasks x on x.id = a.task_id
           where x.workspace_id = ${s.workspaceId} and (x.id = ${id} or x.parent_id = ${id})`;
        await checkAssignees(tx, s, current.map((r) => r.user_id), companyId, "projectId (assignees)");
      }
      if (Object.keys(set).length) {
        await tx`update tasks set ${
          tx(set)
        }, updated_at = now() where workspace_id = ${s.workspaceId} and id = ${id}`;
      }
      if (patch.status !== undefined && patch.status !== "in_progress") {
        await tx`delete from task_focus where workspace_id = ${s.workspaceId} and task_id = ${id}`;
      }
      if (patch.isPrivate !== undefined || patch.assigneeIds !== undefined) {
        // A caller may not lock itself out of a task it is changing: the answer would be a task it cannot see.
        const [still] = await tx`select 1 from tasks t where t.id = ${id} and ${visible(tx, s, uid, "t")}`;
        if (!still) {
          throw invalidInput(
            `${
              patch.isPrivate ? "isPrivate" : "assigneeIds"
            }: the task would be private and hidden from you; ` +
              "keep yourself among the assignees (or leave it public)",
          );
        }
      }
    });
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  return await readBack(db, s, uid, id, opts, { ...patch });
}

export function setTaskStatus(
  db: Db,
  caller: ScopedCaller,
  id: string,
  status: TaskStatus,
  opts: ReadOptions,
): Promise<Task | SavedTask> {
  return updateTask(db, caller, id, { status }, opts);
}

// ---------------------------------------------------------------------------------------------------------
// The workload queue and focus

interface QueueEntry {
  id: string;
  sort_order: number;
}

/** Serialises queue changes of one person (two placements at once would pick the same gap). */
async function lockQueue(db: Db, workspaceId: string, userId: string): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtextextended(${`task-queue:${workspaceId}:${userId}`}, 0))`;
}

/** The person's focus task, if it still counts: in progress and assigned to them. */
async function currentFocus(db: Db, workspaceId: string, userId: string): Promise<string | null> {
  const [row] = await db<{ task_id: string }[]>`
    select f.task_id from task_focus f
      join tasks t on t.workspace_id = f.workspace_id and t.id = f.task_id
     where f.workspace_id = ${workspaceId} and f.user_id = ${userId}
       and t.status = 'in_progress'
       and exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = ${userId})`;
  return row?.task_id ?? null;
}

async function loadFocus(
  db: Db,
  workspaceId: string,
  users: readonly string[] | null,
): Promise<Map<string, string>> {
  const rows = await db<{ user_id: string; task_id: string }[]>`
    select f.user_id, f.task_id from task_focus f
      join tasks t on t.workspace_id = f.workspace_id and t.id = f.task_id
     where f.workspace_id = ${workspaceId}
       and (${users ? [...users] : null}::uuid[] is null or f.user_id = any(${
    users ? [...users] : null
  }::uuid[]))
       and t.status = 'in_progress'
       and exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = f.user_id)`;
  return new Map(rows.map((r) => [r.user_id, r.task_id]));
}

/**
 * Places `taskId` at `slot` of `userId`'s queue (their todo/in_progress tasks without a start date: the focus task
 * first, then by sortOrder) by giving it a sortOrder between its new neighbours, so no other task's relative order
 * changes. Returns the slot it got (the focus task keeps slot 0; past the end means last). The queue is the
 * person's real one, including tasks the caller may not see (their private ones, other companies'): a slot must
 * mean the same in their own plan. Only ids and sort orders are read; the answer reveals no more than a count.
 */
async function placeInQueue(
  db: Db,
  s: Scope,
  userId: string,
  taskId: string,
  slot: number,
  focusId: string | null,
): Promise<{ sortOrder: number; slot: number; length: number }> {
  const queue = await db<QueueEntry[]>`
    select t.id, t.sort_order from tasks t
     where t.workspace_id = ${s.workspaceId}
       and t.status in ('todo', 'in_progress') and t.start_date is null and t.id <> ${taskId}
       and exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = ${userId})
     order by t.sort_order, t.created_at, t.id`;
  const focusFirst = focusId !== null && focusId !== taskId && queue.some((q) => q.id === focusId);
  const rest = queue.filter((q) => !(focusFirst && q.id === focusId));
  const k = Math.min(focusFirst ? Math.max(0, slot - 1) : slot, rest.length);
  // The gap is taken in the full sortOrder order: the focus task is shown first but keeps its own sortOrder,
  // which may lie between rest[k - 1] and rest[k] — their midpoint would then collide with it.
  const next = rest[k];
  const prev = queue[(next ? queue.indexOf(next) : queue.length) - 1];
  let sortOrder: number;
  if (!prev && !next) {
    const [cur] = await db<{ sort_order: number }[]>`select sort_order from tasks where id = ${taskId}`;
    sortOrder = cur.sort_order;
  } else if (!prev) {
    sortOrder = next.sort_order - SORT_STEP;
  } else if (!next) {
    sortOrder = prev.sort_order + SORT_STEP;
  } else {
    sortOrder = (prev.sort_order + next.sort_order) / 2;
    if (!(prev.sort_order < sortOrder && sortOrder < next.sort_order)) {
      // Equal neighbours or the float gap is used up: shift `next` and everything after it in the workspace's
      // total order (sort_order, created_at, id) up by the same amount, which keeps every queue's order.
      await db`
        update tasks set sort_order = sort_order + ${2 * SORT_STEP}
         where workspace_id = ${s.workspaceId}
           and (sort_order, created_at, id) >= (select sort_order, created_at, id from tasks where id = ${next.id})`;
      sortOrder = prev.sort_order + SORT_STEP;
    }
  }
  return { sortOrder, slot: k + (focusFirst ? 1 : 0), length: queue.length + 1 };
}

export interface QueuePlacement {
  task: Task | SavedTask;
  userId: string;
  /** the 0-based slot the task got in the user's queue */
  slotIndex: number;
  /** how many tasks the user's queue holds now */
  queueLength: number;
}

/**
 * set_task_queue_position: the task becomes todo, is assigned to `userId` (other assignees stay), loses a start
 * date if it had one (a queued task is undated by definition) and moves to `slotIndex` of the user's queue.
 */
export async function setQueuePosition(
  db: Db,
  caller: ScopedCaller,
  taskId: string,
  userId: string,
  slotIndex: number,
  opts: ReadOptions,
): Promise<QueuePlacement> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const placed = await withTx(db, async (tx) => {
    // The person's queue lock first, then rows: every queue change takes locks in this order (no deadlocks).
    await lockQueue(tx, s.workspaceId, userId);
    const t = await lockTask(tx, s, uid, taskId);
    await checkAssignees(tx, s, [userId], t.company_id, "userId");
    const focus = await currentFocus(tx, s.workspaceId, userId);
    const p = await placeInQueue(tx, s, userId, taskId, slotIndex, focus);
    await tx`
      update tasks set status = 'todo', start_date = null, sort_order = ${p.sortOrder}, updated_at = now()
       where workspace_id = ${s.workspaceId} and id = ${taskId}`;
    await tx`
      insert into task_assignees (workspace_id, task_id, user_id) values (${s.workspaceId}, ${taskId}, ${userId})
      on conflict do nothing`;
    // A todo task is nobody's focus any more.
    await tx`delete from task_focus where workspace_id = ${s.workspaceId} and task_id = ${taskId}`;
    return p;
  });
  return {
    task: await readBack(db, s, uid, taskId, opts, { status: "todo", startDate: null }),
    userId,
    slotIndex: placed.slot,
    queueLength: placed.length,
  };
}

export interface FocusChange {
  task: Task | SavedTask;
  userId: string;
  /** the task that was in focus before and went back to todo at slot 1, or null */
  demotedTaskId: string | null;
}

/**
 * move_task_to_focus: the task becomes in_progress, assigned to `userId`, and that user's focus; the task that was
 * in focus for them before (if another) goes back to todo at slot 1 of their queue, right after the new focus,
 * and loses its start date (as with set_task_queue_position: a queued task is undated; its due date stays).
 */
export async function moveToFocus(
  db: Db,
  caller: ScopedCaller,
  taskId: string,
  userId: string,
  opts: ReadOptions,
): Promise<FocusChange> {
  const s = scopeOf(caller);
  const uid = userOf(caller);
  const demoted = await withTx(db, async (tx) => {
    // The person's queue lock first, then rows: every queue change takes locks in this order (no deadlocks).
    await lockQueue(tx, s.workspaceId, userId);
    // Both rows this change writes (the task and the current focus), locked in id order: two people swapping
    // focus tasks at once must not each hold one row and wait for the other.
    const prior = await currentFocus(tx, s.workspaceId, userId);
    await tx`select id from tasks where workspace_id = ${s.workspaceId}
               and id = any(${prior ? [taskId, prior] : [taskId]}::uuid[]) order by id for update`;
    const t = await lockTask(tx, s, uid, taskId);
    await checkAssignees(tx, s, [userId], t.company_id, "userId");
    const old = await currentFocus(tx, s.workspaceId, userId);
    await tx`update tasks set status = 'in_progress', updated_at = now()
              where workspace_id = ${s.workspaceId} and id = ${taskId}`;
    await tx`
      insert into task_assignees (workspace_id, task_id, user_id) values (${s.workspaceId}, ${taskId}, ${userId})
      on conflict do nothing`;
    await tx`
      insert into task_focus (workspace_id, user_id, task_id) values (${s.workspaceId}, ${userId}, ${taskId})
      on conflict (workspace_id, user_id) do update set task_id = excluded.task_id, set_at = now()`;
    if (!old || old === taskId) return null;
    const p = await placeInQueue(tx, s, userId, old, 1, taskId);
    // Slot 1 of the queue means undated: a start date would keep it on the timeline as a solid bar instead.
    await tx`update tasks set status = 'todo', start_date = null, sort_order = ${p.sortOrder}, updated_at = now()
              where workspace_id = ${s.workspaceId} and id = ${old}`;
    return old;
  });
  const task = await readBack(db, s, uid, taskId, opts, { status: "in_progress" });
  return { task, userId, demotedTaskId: demoted };
}

// ---------------------------------------------------------------------------------------------------------
// The Gantt plan

interface PlanRow {
  id: string;
  title: string;
  status: TaskStatus;
  start_date: string | null;
  due_date: string | null;
  estimated_hours: number | null;
  sort_order: number;
  created_at: string;
  assignee_ids: string[];
  project_id: string | null;
  display_id: string | null;
}

type PlannedTask = PlanTask & { projectId: string | null; displayId: string | null };

/** The visible tasks that make up these users' workloads (every user, and unassigned dated tasks, for null). */
async function loadPlanTasks(
  db: Db,
  s: Scope,
  uid: string | null,
  users: readonly string[] | null,
): Promise<PlannedTask[]> {
  const list = users ? [...users] : null;
  const rows = await db<Omit<PlanRow, "assignee_ids">[]>`
    select t.id, t.title, t.status, t.start_date::text as start_date, t.due_date::text as due_date,
           t.estimated_hours::float8 as estimated_hours, t.sort_order,
           ${sortableTimeColumn(db, "t.created_at")} as created_at, t.project_id,
           case when p.task_prefix is not null and t.number is not null then p.task_prefix || '-' || t.number end
             as display_id
      from tasks t
      left join projects p on p.workspace_id = t.workspace_id and p.id = t.project_id
     where ${visible(db, s, uid, "t")}
       and (t.start_date is not null or t.status in ('todo', 'in_progress'))
       -- An undated task nobody is assigned to has no lane and no queue: the planner could not place it, and
       -- loading it made gantt_plan grow with the workspace (1.8 s beside 98,000 of them).
       and (t.start_date is not null or t.due_date is not null
            or exists (select 1 from task_assignees a where a.task_id = t.id))
       and (${list}::uuid[] is null
            or exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = any(${list}::uuid[])))`;
  // Assignees in a second query joined here: an aggregate joined in SQL turned quadratic when the statistics
  // lagged behind a burst of new tasks (seconds for a few thousand), this stays linear whatever the planner does.
  const assignments = rows.length
    ? await db<{ task_id: string; user_id: string }[]>`
      select task_id, user_id from task_assignees
       where workspace_id = ${s.workspaceId} and task_id = any(${rows.map((r) => r.id)}::uuid[])`
    : [];
  const assignees = new Map<string, string[]>();
  for (const a of assignments) {
    const list = assignees.get(a.task_id);
    if (list) list.push(a.user_id);
    else assignees.set(a.task_id, [a.user_id]);
  }
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    status: r.status,
    startDate: r.start_date,
    dueDate: r.due_date,
    estimatedHours: r.estimated_hours,
    sortOrder: r.sort_order,
    createdAt: r.created_at,
    assigneeIds: assignees.get(r.id) ?? [],
    projectId: r.project_id,
    displayId: r.display_id,
  }));
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
    users = (await db<{ user_id: string }[]>`select user_id from ${teamOf(db, s.workspaceId, uid!)} team`)
      .map((r) => r.user_id);
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
