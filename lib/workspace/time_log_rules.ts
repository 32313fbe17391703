// Time logs: the pure rules — link choice (task or category), minutes, the billed amount and the summary's sums.
import { invalidInput } from "../errors.ts";
import { divRound, formatMoney, parseMoney } from "../money.ts";
import { hoursOf, minutesOf } from "./personal.ts";

export const EXCLUSIVE_LINK_RULE =
  "taskId: exactly one of taskId and categoryId is required (exclusive choice: a time " +
  "log is for a task or for a timesheet category, never both or neither)";
export const PROJECT_LINK_RULE =
  "projectId: allowed only on category-linked time logs (a task log counts its " +
  "task's project)";
export const TIMES_RULE = "endTime: must be after startTime (a time log does not cross midnight)";
export const END_OR_HOURS_RULE = "hours: give endTime or hours (the duration from startTime), not both";
export const END_REQUIRED_RULE = "endTime: is required (or hours: the duration from startTime)";
export const START_REQUIRED_RULE =
  "startTime: is required with endTime (with hours alone, the log follows your last one that day)";

/** Fields to change; undefined = unchanged, null = cleared. */
export interface TimeLogPatch {
  date?: string;
  startTime?: string;
  endTime?: string;
  /** a duration instead of endTime: the end becomes the (new or stored) start plus this */
  hours?: number;
  description?: string;
  taskId?: string;
  categoryId?: string;
  projectId?: string | null;
  isBillable?: boolean;
  hourlyRate?: string | number | null;
}

/** What a log points to: exactly one of task and category, and a direct project only beside a category. */
export interface Link {
  taskId: string | null;
  categoryId: string | null;
  projectId: string | null;
}

/** An hourly rate as the exact decimal string stored in numeric(14,2); null stays null. */
export function storedRate(value: string | number | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const cents = parseMoney(value, "hourlyRate");
  if (cents < 0n) throw invalidInput("hourlyRate: must not be negative");
  return formatMoney(cents);
}

/** Whole minutes of a log; refuses an end that is not after the start. */
export function logMinutes(startTime: string, endTime: string): number {
  const m = minutesOf(endTime, "endTime") - minutesOf(startTime, "startTime");
  if (m <= 0) throw invalidInput(TIMES_RULE);
  return m;
}

/**
 * The end time of a log given as a start and a duration (`hours`, the name the answer uses): hours × 60 rounded
 * to the whole minute (0.33 → 20 minutes; every whole number of minutes survives the round trip through the
 * answer's 2-decimal hours). The log stays on its day: an end after 23:59 is refused naming `hours`, as is a
 * duration of less than a minute (the schema already refuses 0 and negatives).
 */
export function endFromHours(startTime: string, hours: number): string {
  const minutes = Math.round(hours * 60);
  if (!(minutes >= 1)) throw invalidInput("hours: must be at least one minute (0.02)");
  const end = minutesOf(startTime, "startTime") + minutes;
  if (end > 23 * 60 + 59) {
    throw invalidInput(
      `hours: ${startTime} plus ${hours} h ends after midnight (a time log does not cross midnight; end it by ` +
        "23:59 and log the rest on the next day)",
    );
  }
  return `${String(Math.floor(end / 60)).padStart(2, "0")}:${String(end % 60).padStart(2, "0")}`;
}

/**
 * The end time of a log written either way: the seed's endTime, or hours from the start. Both at once is refused
 * (they could disagree); `required` (a new log) refuses neither.
 */
export function endTimeOf(
  startTime: string,
  given: { endTime?: string; hours?: number },
  required: boolean,
): string | undefined {
  if (given.endTime !== undefined && given.hours !== undefined) throw invalidInput(END_OR_HOURS_RULE);
  if (given.hours !== undefined) return endFromHours(startTime, given.hours);
  if (given.endTime === undefined && required) throw invalidInput(END_REQUIRED_RULE);
  return given.endTime;
}

/** The link of a new log (variant A rules; variant B's schema only offers taskId, which is required there). */
export function newLink(input: { taskId?: string; categoryId?: string; projectId?: string }): Link {
  const hasTask = input.taskId !== undefined;
  const hasCategory = input.categoryId !== undefined;
  if (hasTask === hasCategory) throw invalidInput(EXCLUSIVE_LINK_RULE);
  if (input.projectId !== undefined && !hasCategory) throw invalidInput(PROJECT_LINK_RULE);
  return {
    taskId: input.taskId ?? null,
    categoryId: input.categoryId ?? null,
    projectId: input.projectId ?? null,
  };
}

/**
 * The link after an update (the seed's rule): setting taskId or categoryId replaces the old link and clears any
 * direct projectId — a category log keeps a project only when projectId comes in the same call; both at once is
 * the exclusive-choice error. Without either, projectId alone changes the project of a category log.
 */
export function patchedLink(
  current: Link,
  patch: Pick<TimeLogPatch, "taskId" | "categoryId" | "projectId">,
): Link {
  if (patch.taskId !== undefined && patch.categoryId !== undefined) throw invalidInput(EXCLUSIVE_LINK_RULE);
  if (patch.taskId !== undefined) {
    if (patch.projectId !== undefined && patch.projectId !== null) throw invalidInput(PROJECT_LINK_RULE);
    return { taskId: patch.taskId, categoryId: null, projectId: null };
  }
  if (patch.categoryId !== undefined) {
    return {
      taskId: null,
      categoryId: patch.categoryId,
      projectId: patch.projectId ?? null,
    };
  }
  if (patch.projectId !== undefined) {
    if (patch.projectId !== null && current.categoryId === null) throw invalidInput(PROJECT_LINK_RULE);
    return { ...current, projectId: patch.projectId };
  }
  return current;
}

/**
 * Amount of a billable log with a rate: minutes × rate / 60, exact, rounded once half away from zero to the cent
 * (40 minutes at 1.00 is 0.67, not 0.66). `hourlyRate` is a decimal string as stored.
 */
export function logAmount(minutes: number, isBillable: boolean, hourlyRate: string | null): string | null {
  if (!isBillable || hourlyRate === null) return null;
  return formatMoney(divRound(BigInt(minutes) * parseMoney(hourlyRate, "hourlyRate"), 60n));
}

export interface SummaryEntry {
  minutes: number;
  isBillable: boolean;
  projectId: string | null;
  projectName: string | null;
  categoryId: string | null;
  categoryName: string | null;
}

export interface Bucket {
  hours: number;
  entryCount: number;
}

export interface TimeLogSummary {
  totalHours: number;
  entryCount: number;
  billableHours: number;
  /** projectName is null where the caller may not read the project (see columns) */
  byProject: Array<{ projectId: string; projectName: string | null } & Bucket>;
  byCategory: Array<{ categoryId: string; categoryName: string } & Bucket>;
  /** logs that count towards no project (category logs without a project, tasks outside any project) */
  withoutProject: Bucket;
}

/**
 * Sums minutes first and rounds once per figure, so three 20-minute logs make 1 hour (not 3 × 0.33 = 0.99).
 * byProject: the task's project of a task log, the direct project of a category log. byCategory: category logs.
 * Buckets are ordered by hours, then name.
 */
export function summarize(entries: readonly SummaryEntry[]): TimeLogSummary {
  let total = 0, billable = 0, noProjectMinutes = 0, noProjectCount = 0;
  const projects = new Map<string, { name: string | null; minutes: number; count: number }>();
  const categories = new Map<string, { name: string | null; minutes: number; count: number }>();
  const add = (m: typeof projects, id: string, name: string | null, minutes: number) => {
    const b = m.get(id) ?? { name, minutes: 0, count: 0 };
    b.minutes += minutes;
    b.count += 1;
    m.set(id, b);
  };
  for (const e of entries) {
    total += e.minutes;
    if (e.isBillable) billable += e.minutes;
    if (e.projectId) add(projects, e.projectId, e.projectName, e.minutes);
    else {
      noProjectMinutes += e.minutes;
      noProjectCount += 1;
    }
    if (e.categoryId) add(categories, e.categoryId, e.categoryName ?? "", e.minutes);
  }
  const order = (a: { minutes: number; name: string | null }, b: { minutes: number; name: string | null }) =>
    b.minutes - a.minutes || (a.name ?? "").localeCompare(b.name ?? "");
  return {
    totalHours: hoursOf(total),
    entryCount: entries.length,
    billableHours: hoursOf(billable),
    byProject: [...projects].map(([id, b]) => ({ id, ...b })).sort(order).map((b) => ({
      projectId: b.id,
      projectName: b.name,
      hours: hoursOf(b.minutes),
      entryCount: b.count,
    })),
    byCategory: [...categories].map(([id, b]) => ({ id, ...b })).sort(order).map((b) => ({
      categoryId: b.id,
      categoryName: b.name ?? "",
      hours: hoursOf(b.minutes),
      entryCount: b.count,
    })),
    withoutProject: { hours: hoursOf(noProjectMinutes), entryCount: noProjectCount },
  };
}
