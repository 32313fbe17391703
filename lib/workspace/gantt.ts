// The Gantt planner: solid and ghost bars as a pure function of the tasks, the focus tasks and "today".

export type PlanStatus = "todo" | "in_progress" | "frozen" | "done";

/** What the planner needs to know about a task. */
export interface PlanTask {
  id: string;
  title: string;
  status: PlanStatus;
  /** YYYY-MM-DD; a task with a start date is a solid bar */
  startDate: string | null;
  dueDate: string | null;
  /** null or 0 counts as one working day (8 hours) */
  estimatedHours: number | null;
  sortOrder: number;
  /** ISO time; second tie-breaker of the queue order after sortOrder (then id) */
  createdAt?: string;
  assigneeIds: readonly string[];
}

export interface Bar {
  taskId: string;
  title: string;
  /** null: a dated task nobody is assigned to */
  userId: string | null;
  start: string;
  end: string;
  kind: "solid" | "ghost";
  dueDate: string | null;
  /** the bar ends after the task's due date */
  late: boolean;
}

export interface ClippedBar extends Bar {
  /** the bar began before the window (start was moved to `from`) */
  clippedStart: boolean;
  /** the bar goes on after the window (end was moved to `to`) */
  clippedEnd: boolean;
}

export const HOURS_PER_DAY = 8;
const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD date (UTC; no time zones involved). */
export function dayNumber(date: string): number {
  return Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10)) / DAY_MS;
}

const dayStrings = new Map<number, string>();

/** YYYY-MM-DD of a day number; memoised, since a plan names the same few hundred days thousands of times. */
export function dayString(day: number): string {
  let s = dayStrings.get(day);
  if (s === undefined) {
    s = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayStrings.size < 100_000) dayStrings.set(day, s);
  }
  return s;
}

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
function weekday(day: number): number {
  return ((day % 7) + 7 + 4) % 7;
}

export function isWorkingDay(day: number): boolean {
  const w = weekday(day);
  return w >= 1 && w <= 5;
}

/** The first working day on or after `day`. */
export function nextWorkingDay(day: number): number {
  const w = weekday(day);
  return w === 6 ? day + 2 : w === 0 ? day + 1 : day;
}

/** The n-th working day after the working day `day` (n = 0 is `day` itself); O(1), no loop over days. */
export function addWorkingDays(day: number, n: number): number {
  const pos = weekday(day) - 1 + n; // position counted from that week's Monday
  return day - (weekday(day) - 1) + Math.floor(pos / 5) * 7 + (pos % 5);
}

function effortHours(t: PlanTask): number {
  return t.estimatedHours && t.estimatedHours > 0 ? t.estimatedHours : HOURS_PER_DAY;
}

/** Queue order: sortOrder, then creation time, then id, so equal sort orders still give one answer. */
function queueCompare(a: PlanTask, b: PlanTask): number {
  if (a.sortOrder !== b.sortOrder) return a.sortOrder - b.sortOrder;
  const ca = a.createdAt ?? "", cb = b.createdAt ?? "";
  if (ca !== cb) return ca < cb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Is the task in its assignees' queues (undated and still to be worked on)? */
export function isQueued(t: PlanTask): boolean {
  return t.startDate === null && (t.status === "todo" || t.status === "in_progress");
}

export interface PlanOptions {
  /** YYYY-MM-DD */
  today: string;
  /** user id → that user's focus task id (counts only while the task is queued and assigned to the user) */
  focus?: ReadonlyMap<string, string>;
  /** plan only these users' lanes (and no unassigned bars); default every user */
  users?: ReadonlySet<string>;
}

/**
 * The whole plan, unclipped. Per user: a solid bar for each dated task (start to due date, or to the end its
 * estimate gives on working days), then a ghost bar for each queued task — the focus task first, then in queue
 * order — packed hour by hour at 8 hours per working day, from the later of today and the day after the user's
 * last not-done solid work. A dated task nobody is assigned to gets one solid bar with userId null.
 */
export function planBars(tasks: readonly PlanTask[], opts: PlanOptions): Bar[] {
  const today = dayNumber(opts.today);
  const wanted = opts.users;
  const solidByUser = new Map<string | null, Bar[]>();
  const queueByUser = new Map<string, PlanTask[]>();
  const solidEnd = new Map<string, number>();

  for (const t of tasks) {
    if (t.startDate !== null) {
      const start = dayNumber(t.startDate);
      let end: number;
      if (t.dueDate !== null && t.dueDate >= t.startDate) {
        end = dayNumber(t.dueDate);
      } else {
        end = addWorkingDays(nextWorkingDay(start), Math.ceil(effortHours(t) / HOURS_PER_DAY) - 1);
      }
      const late = t.dueDate !== null && dayString(end) > t.dueDate;
      const lanes: (string | null)[] = t.assigneeIds.length ? [...t.assigneeIds] : [null];
      for (const user of lanes) {
        if (wanted && (user === null || !wanted.has(user))) continue;
        const bar: Bar = {
          taskId: t.id,
          title: t.title,
          userId: user,
          start: t.startDate,
          end: dayString(end),
          kind: "solid",
          dueDate: t.dueDate,
          late,
        };
        let list = solidByUser.get(user);
        if (!list) solidByUser.set(user, list = []);
        list.push(bar);
        if (user !== null && t.status !== "done") {
          solidEnd.set(user, Math.max(solidEnd.get(user) ?? -Infinity, end));
        }
      }
    } else if (isQueued(t)) {
      for (const user of t.assigneeIds) {
        if (wanted && !wanted.has(user)) continue;
        let q = queueByUser.get(user);
        if (!q) queueByUser.set(user, q = []);
        q.push(t);
      }
    }
  }

  const users = [...new Set<string | null>([...solidByUser.keys(), ...queueByUser.keys()])]
    .sort((a, b) => a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0);
  const out: Bar[] = [];
  for (const user of users) {
    const solid = solidByUser.get(user) ?? [];
    solid.sort((a, b) => a.start < b.start ? -1 : a.start > b.start ? 1 : 0);
    out.push(...solid);
    if (user === null) continue;
    const queue = queueByUser.get(user);
    if (!queue) continue;
    const focusId = opts.focus?.get(user);
    queue.sort((a, b) => a.id === focusId ? -1 : b.id === focusId ? 1 : queueCompare(a, b));
    const after = solidEnd.has(user) ? solidEnd.get(user)! + 1 : -Infinity;
    const first = nextWorkingDay(Math.max(today, after));
    let hours = 0; // working hours already packed since the first day's morning
    for (const t of queue) {
      const h = effortHours(t);
      const start = addWorkingDays(first, Math.floor(hours / HOURS_PER_DAY));
      const end = addWorkingDays(first, Math.ceil((hours + h) / HOURS_PER_DAY) - 1);
      hours += h;
      const endStr = dayString(end);
      out.push({
        taskId: t.id,
        title: t.title,
        userId: user,
        start: dayString(start),
        end: endStr,
        kind: "ghost",
        dueDate: t.dueDate,
        late: t.dueDate !== null && endStr > t.dueDate,
      });
    }
  }
  return out;
}

/** The bars that touch [from, to], cut to the window; `late` still describes the whole bar. */
export function clipBars(bars: readonly Bar[], from: string, to: string): ClippedBar[] {
  const out: ClippedBar[] = [];
  for (const b of bars) {
    if (b.end < from || b.start > to) continue;
    out.push({
      ...b,
      start: b.start < from ? from : b.start,
      end: b.end > to ? to : b.end,
      clippedStart: b.start < from,
      clippedEnd: b.end > to,
    });
  }
  return out;
}

/** Ids of the tasks the plan finishes after their due date (on any assignee's lane). */
export function lateTaskIds(bars: readonly Bar[]): Set<string> {
  const ids = new Set<string>();
  for (const b of bars) if (b.late) ids.add(b.taskId);
  return ids;
}
