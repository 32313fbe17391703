// Tasks: each person's workload queue and focus task (set_task_queue_position, move_task_to_focus).
import { withTx } from "../db/tx.ts";
import type { Db } from "../db/client.ts";
import { type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import { readBack } from "./task_reads.ts";
import {
  checkAssignees,
  lockTask,
  type ReadOptions,
  type SavedTask,
  SORT_STEP,
  type Task,
  userOf,
} from "./task_rows.ts";

interface QueueEntry {
  id: string;
  sortOrder: number;
}

/** Serialises queue changes of one person (two placements at once would pick the same gap). */
async function lockQueue(db: Db, workspaceId: string, userId: string): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtextextended(${`task-queue:${workspaceId}:${userId}`}, 0))`;
}

/** The person's focus task, if it still counts: in progress and assigned to them. */
async function currentFocus(db: Db, workspaceId: string, userId: string): Promise<string | null> {
  const [row] = await db<{ taskId: string }[]>`
    select f.task_id as "taskId" from task_focus f
      join tasks t on t.workspace_id = f.workspace_id and t.id = f.task_id
     where f.workspace_id = ${workspaceId} and f.user_id = ${userId}
       and t.status = 'in_progress'
       and exists (select 1 from task_assignees a where a.task_id = t.id and a.user_id = ${userId})`;
  return row?.taskId ?? null;
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
    select t.id, t.sort_order as "sortOrder" from tasks t
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
    const [cur] = await db<
      { sortOrder: number }[]
    >`select sort_order as "sortOrder" from tasks where id = ${taskId}`;
    sortOrder = cur.sortOrder;
  } else if (!prev) {
    sortOrder = next.sortOrder - SORT_STEP;
  } else if (!next) {
    sortOrder = prev.sortOrder + SORT_STEP;
  } else {
    sortOrder = (prev.sortOrder + next.sortOrder) / 2;
    if (!(prev.sortOrder < sortOrder && sortOrder < next.sortOrder)) {
      // Equal neighbours or the float gap is used up: shift `next` and everything after it in the workspace's
      // total order (sort_order, created_at, id) up by the same amount, which keeps every queue's order.
      await db`
        update tasks set sort_order = sort_order + ${2 * SORT_STEP}
         where workspace_id = ${s.workspaceId}
           and (sort_order, created_at, id) >= (select sort_order, created_at, id from tasks where id = ${next.id})`;
      sortOrder = prev.sortOrder + SORT_STEP;
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
    await checkAssignees(tx, s, [userId], t.companyId, "userId");
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
    await checkAssignees(tx, s, [userId], t.companyId, "userId");
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
