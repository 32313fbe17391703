// The plan view's model: gantt_plan's bars read defensively, grouped into people's lanes, their text
// alternatives, and the window's date ticks. Pure functions, no DOM.
import { dayStr, obj, shortDate, str } from "./shared.tsx";

export interface Bar {
  taskId: string;
  displayId: string | null;
  title: string;
  status: string;
  userId: string | null;
  userName: string | null;
  start: string;
  end: string;
  kind: "solid" | "ghost";
  dueDate: string | null;
  late: boolean;
  clippedStart: boolean;
  clippedEnd: boolean;
}

export interface Lane {
  userId: string | null;
  name: string;
  bars: Bar[];
  /** the lane's ghost bars in queue order */
  ghosts: Bar[];
}

export function readBar(v: unknown): Bar | null {
  const b = obj(v);
  const taskId = str(b.taskId), start = str(b.start), end = str(b.end);
  if (!taskId || !start || !end) return null;
  return {
    taskId,
    displayId: str(b.displayId),
    title: str(b.title) ?? "",
    status: str(b.status) ?? "",
    userId: str(b.userId),
    userName: str(b.userName),
    start,
    end,
    kind: b.kind === "ghost" ? "ghost" : "solid",
    dueDate: str(b.dueDate),
    late: b.endsAfterDueDate === true,
    clippedStart: b.clippedStart === true,
    clippedEnd: b.clippedEnd === true,
  };
}

/** Lanes by person name (unassigned last); ghost bars in the order the planner queued them (by start). */
export function lanesOf(bars: Bar[]): Lane[] {
  const byUser = new Map<string, Lane>();
  for (const b of bars) {
    const k = b.userId ?? "";
    let lane = byUser.get(k);
    if (!lane) {
      lane = {
        userId: b.userId,
        name: b.userId ? b.userName ?? "Unnamed person" : "Unassigned",
        bars: [],
        ghosts: [],
      };
      byUser.set(k, lane);
    }
    lane.bars.push(b);
  }
  const lanes = [...byUser.values()];
  for (const l of lanes) {
    l.bars.sort((a, b) => a.start.localeCompare(b.start) || a.end.localeCompare(b.end));
    l.ghosts = l.bars.filter((b) => b.kind === "ghost");
  }
  return lanes.sort((a, b) =>
    (a.userId === null ? 1 : 0) - (b.userId === null ? 1 : 0) || a.name.localeCompare(b.name)
  );
}

export const label = (b: Bar) => (b.displayId ? `${b.displayId} ` : "") + (b.title || "Untitled task");
export const isOverdue = (b: Bar, today: string) =>
  b.dueDate !== null && b.dueDate < today && b.status !== "done";

export function barText(b: Bar, lane: Lane, today: string, locale?: string): string {
  const parts = [
    label(b),
    lane.name,
    `${b.kind === "ghost" ? "auto-planned" : "scheduled"} ${shortDate(b.start, locale)} to ${
      shortDate(b.end, locale)
    }`,
    `status ${b.status.replace("_", " ")}`,
  ];
  if (b.clippedStart) parts.push("starts before the window");
  if (b.clippedEnd) parts.push("continues after the window");
  if (b.dueDate) parts.push(`due ${shortDate(b.dueDate, locale)}`);
  if (isOverdue(b, today)) parts.push("overdue");
  if (b.late) parts.push("forecast to finish after its due date");
  return parts.join(", ");
}

/**
 * The window's dates between its first and last day: Mondays (at most six labels, none crowding the ends), and the
 * weeks as faint lines in every track (a background, so a plan of hundreds of bars adds no elements for them).
 */
export function ticksOf(first: number, days: number): { labels: string[]; lines: Record<string, string> } {
  const monday = first + ((8 - ((first % 7) + 7 + 4) % 7) % 7); // 1970-01-01 was a Thursday (weekday 4)
  const mondays: number[] = [];
  for (let d = monday; d < first + days; d += 7) mondays.push(d);
  const step = Math.max(1, Math.ceil(mondays.length / 6));
  const labels = mondays.filter((d, i) =>
    i % step === 0 && (d - first) / days > 0.1 && (d - first) / days < 0.88
  )
    .map(dayStr);
  const k = 7 / days, at = (monday - first) / days;
  const lines: Record<string, string> = k < 1 && mondays.length
    ? {
      backgroundImage: "linear-gradient(to right, var(--line) 1px, transparent 1px)",
      backgroundSize: `${k * 100}% 100%`,
      backgroundPositionX: `${(at / (1 - k)) * 100}%`,
      backgroundRepeat: "repeat-x",
    }
    : {};
  return { labels, lines };
}
