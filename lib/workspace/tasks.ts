// Tasks: writing — creating a task or subtask, changing one (moves, numbering, privacy, assignees), its status.
// The reads live in task_reads.ts; the domain's callers import both from here.
import { type ConstraintAnswers, throwMapped } from "../db/sql.ts";
import { withTx } from "../db/tx.ts";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import {
  companyFilter,
  companyForWrite,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";
import {
  checkAssignees,
  lockTask,
  type ReadOptions,
  type SavedTask,
  SORT_STEP,
  type Task,
  type TaskPriority,
  type TaskStatus,
  userOf,
  visible,
} from "./task_rows.ts";
import { readBack } from "./task_reads.ts";

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

/** Constraint violations as answers naming the field. */
const ERRORS: ConstraintAnswers = {
  tasks_dates: invalidInput("dueDate: must not be before startDate"),
};

/** Hands out the next `count` numbers of a project in one statement (the row lock serialises creators). */
async function takeNumbers(
  db: Db,
  s: Scope,
  projectId: string,
  count: number,
  field: string,
): Promise<{ first: number; companyId: string | null }> {
  const [row] = await db<{ first: number; companyId: string | null }[]>`
    update projects p set next_task_number = next_task_number + ${count}::int
     where p.workspace_id = ${s.workspaceId} and p.id = ${projectId}
       and ${companyFilter(db, s, "p.company_id")}
    returning next_task_number - ${count}::int as first, company_id as "companyId"`;
  if (!row) throw notFound(`${field}: no project ${projectId}`);
  return row;
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
            parentId: string | null;
            projectId: string | null;
            companyId: string | null;
            isPrivate: boolean;
          }[]
        >`
          select t.parent_id as "parentId", t.project_id as "projectId", t.company_id as "companyId",
                 t.is_private as "isPrivate"
            from tasks t
           where t.id = ${input.parentTaskId} and ${visible(tx, s, uid, "t")}`;
        if (!parent) throw notFound(`parentTaskId: no task ${input.parentTaskId}`);
        if (parent.parentId) {
          throw invalidInput(
            `parentTaskId: task ${input.parentTaskId} is itself a subtask; subtasks nest one level only`,
          );
        }
        projectId = parent.projectId;
        companyId = parent.companyId;
        // A subtask of a private task is private too unless asked otherwise: it would show the parent's work.
        isPrivate = input.isPrivate ?? parent.isPrivate;
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
      let companyId = t.companyId;
      const target = patch.projectId;
      if (target !== undefined && target !== t.projectId) {
        if (t.parentId) {
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
      if (companyId !== t.companyId) {
        // Everyone already assigned (to the task or its subtasks) must be able to see the new company.
        const current = await tx<{ userId: string }[]>`
          select distinct a.user_id as "userId" from task_assignees a join tasks x on x.id = a.task_id
           where x.workspace_id = ${s.workspaceId} and (x.id = ${id} or x.parent_id = ${id})`;
        await checkAssignees(tx, s, current.map((r) => r.userId), companyId, "projectId (assignees)");
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
