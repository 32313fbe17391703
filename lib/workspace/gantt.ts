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
/**
 * How far ahead ghost bars are planned: queued work that would start more than this many years after today is
 * not placed on a day but reported as beyond the horizon. Bounds the plan (and its dates) whatever the data.
 */
export const PLAN_HORIZON_YEARS = 10;
/** Effort the arithmetic accepts per task; more (only possible through SQL) counts as this, keeping sums finite. */
const MAX_EFFORT_HOURS = 1e12;

/** Days since 1970-01-01 of year/month/day on the proleptic Gregorian calendar; plain arithmetic, any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** The first and last day the planner names: four-digit years, as the tools accept and answer them. */
export const MIN_DAY = daysFromCivil(1, 1, 1);
export const MAX_DAY = daysFromCivil(9999, 12, 31);

// What Postgres prints for a date: YYYY-MM-DD, more digits after year 9999, " BC" before year 1.
const DATE_TEXT = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;

/**
 * Days since 1970-01-01 of a date as Postgres prints it (UTC; no time zones involved), clamped to
 * [MIN_DAY, MAX_DAY]. Total: a date outside the range counts as its end ("infinity" too), and text that is no
 * date as MIN_DAY.
 * (Date.UTC would read years 0-99 as 1900-1999.)
 */
export function dayNumber(date: string): number {
  const m = DATE_TEXT.exec(date);
  if (!m) return date === "infinity" ? MAX_DAY : MIN_DAY;
  const year = m[4] ? 1 - Number(m[1]) : Number(m[1]);
  return clampDay(daysFromCivil(year, Number(m[2]), Number(m[3])));
}

/** `day` within [MIN_DAY, MAX_DAY]; NaN (only from nonsense input) counts as MAX_DAY, i.e. "never". */
export function clampDay(day: number): number {
  return Number.isNaN(day) ? MAX_DAY : Math.min(MAX_DAY, Math.max(MIN_DAY, day));
}

const dayStrings = new Map<number, string>();

/** YYYY-MM-DD of a day number (clamped to [MIN_DAY, MAX_DAY], so it never throws); memoised, since a plan
 * names the same few hundred days thousands of times. */
export function dayString(day: number): string {
  const d = clampDay(Math.floor(day));
  let s = dayStrings.get(d);
  if (s === undefined) {
    s = new Date(d * DAY_MS).toISOString().slice(0, 10);
    if (dayStrings.size < 100_000) dayStrings.set(d, s);
  }
  return s;
}

/** The day `years` calendar years after `day` (29 February → 1 March), clamped. */
function addYears(day: number, years: number): number {
  const [y, m, d] = dayString(day).split("-").map(Number);
  return clampDay(daysFromCivil(y + years, m, d));
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

/** Hours a task takes: its estimate; none, 0 or nonsense (NaN, negative) counts as one working day. */
function effortHours(t: PlanTask): number {
  const h = t.estimatedHours;
  return h !== null && h > 0 ? Math.min(h, MAX_EFFORT_HOURS) : HOURS_PER_DAY;
}

/** Ascending numbers; NaN (only possible through SQL) sorts as equal instead of making the sort throw. */
function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Queue order: sortOrder, then creation time, then id, so equal sort orders still give one answer. */
function queueCompare(a: PlanTask, b: PlanTask): number {
  const bySort = compareNumbers(a.sortOrder, b.sortOrder);
  if (bySort !== 0) return bySort;
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

/** A queued task of one lane whose work would start after the horizon: it gets no bar. */
export interface BeyondHorizon {
  taskId: string;
  title: string;
  userId: string;
  dueDate: string | null;
  /** the due date is on or before the horizon, so the task certainly ends after it */
  late: boolean;
}

export interface Workloads {
  bars: Bar[];
  /** the last day ghost work is planned on: today + PLAN_HORIZON_YEARS */
  horizon: string;
  beyondHorizon: BeyondHorizon[];
}

/** The bars of planWorkloads (the tasks beyond the horizon left out). */
export function planBars(tasks: readonly PlanTask[], opts: PlanOptions): Bar[] {
  return planWorkloads(tasks, opts).bars;
}

/**
 * The whole plan, unclipped. Per user: a solid bar for each dated task (start to due date, or to the end its
 * estimate gives on working days), then a ghost bar for each queued task — the focus task first, then in queue
 * order — packed hour by hour at 8 hours per working day, from the later of today and the day after the user's
 * last not-done solid work. A dated task nobody is assigned to gets one solid bar with userId null. Queued work
 * that would start after the horizon (today + PLAN_HORIZON_YEARS) gets no bar and is listed in beyondHorizon.
 * Total on any input: every day is clamped to 0001-01-01..9999-12-31, so no value makes it throw.
 */
export function planWorkloads(tasks: readonly PlanTask[], opts: PlanOptions): Workloads {
  const today = dayNumber(opts.today);
  const horizon = addYears(today, PLAN_HORIZON_YEARS);
  const wanted = opts.users;
  const solidByUser = new Map<string | null, Bar[]>();
  const queueByUser = new Map<string, PlanTask[]>();
  const solidEnd = new Map<string, number>();

  for (const t of tasks) {
    if (t.startDate !== null) {
      const start = dayNumber(t.startDate);
      const due = t.dueDate !== null ? dayNumber(t.dueDate) : null;
      const end = due !== null && due >= start
        ? due
        : clampDay(addWorkingDays(nextWorkingDay(start), Math.ceil(effortHours(t) / HOURS_PER_DAY) - 1));
      const late = due !== null && end > due;
      const lanes: (string | null)[] = t.assigneeIds.length ? [...t.assigneeIds] : [null];
      for (const user of lanes) {
        if (wanted && (user === null || !wanted.has(user))) continue;
        const bar: Bar = {
          taskId: t.id,
          title: t.title,
          userId: user,
          start: dayString(start),
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
  const beyond: BeyondHorizon[] = [];
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
      hours += h;
      const due = t.dueDate !== null ? dayNumber(t.dueDate) : null;
      if (!(start <= horizon)) {
        // Hours only grow: every later task of this queue is beyond the horizon too.
        beyond.push({
          taskId: t.id,
          title: t.title,
          userId: user,
          dueDate: t.dueDate,
          late: due !== null && due <= horizon,
        });
        continue;
      }
      const end = clampDay(addWorkingDays(first, Math.ceil(hours / HOURS_PER_DAY) - 1));
      out.push({
        taskId: t.id,
        title: t.title,
        userId: user,
        start: dayString(start),
        end: dayString(end),
        kind: "ghost",
        dueDate: t.dueDate,
        late: due !== null && end > due,
      });
    }
  }
  return { bars: out, horizon: dayString(horizon), beyondHorizon: beyond };
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

/** Ids of the tasks the plan finishes after their due date (on any assignee's lane, or beyond the horizon). */
export function lateTaskIds(bars: readonly Bar[], beyond: readonly BeyondHorizon[] = []): Set<string> {
  const ids = new Set<string>();
  for (const b of bars) if (b.late) ids.add(b.taskId);
  for (const b of beyond) if (b.late) ids.add(b.taskId);
  return ids;
}
