// The Gantt planner on worked examples, without a database: weekends, solid work, missing estimates, clipping.
import assert from "node:assert/strict";
import {
  addWorkingDays,
  clipBars,
  dayNumber,
  dayString,
  lateTaskIds,
  MAX_DAY,
  MIN_DAY,
  nextWorkingDay,
  PLAN_HORIZON_YEARS,
  planBars,
  type PlanTask,
  planWorkloads,
} from "../../lib/workspace/gantt.ts";

// 2026-11-20 is a Friday; 2026-11-23 the Monday after.
const FRIDAY = "2026-11-20";

let n = 0;
function task(p: Partial<PlanTask> & { assigneeIds?: string[] }): PlanTask {
  n++;
  return {
    id: p.id ?? `t${String(n).padStart(3, "0")}`,
    title: p.title ?? `Task ${n}`,
    status: p.status ?? "todo",
    startDate: p.startDate ?? null,
    dueDate: p.dueDate ?? null,
    estimatedHours: p.estimatedHours === undefined ? 8 : p.estimatedHours,
    sortOrder: p.sortOrder ?? n,
    assigneeIds: p.assigneeIds ?? ["u1"],
  };
}

function spans(bars: { taskId: string; start: string; end: string; kind: string }[]) {
  return bars.map((b) => `${b.taskId} ${b.kind} ${b.start}..${b.end}`);
}

Deno.test("working-day arithmetic skips weekends", () => {
  assert.equal(dayString(dayNumber("2026-11-20")), "2026-11-20");
  assert.equal(dayString(nextWorkingDay(dayNumber("2026-11-21"))), "2026-11-23"); // Saturday → Monday
  assert.equal(dayString(nextWorkingDay(dayNumber("2026-11-22"))), "2026-11-23"); // Sunday → Monday
  assert.equal(dayString(nextWorkingDay(dayNumber(FRIDAY))), FRIDAY);
  assert.equal(dayString(addWorkingDays(dayNumber(FRIDAY), 1)), "2026-11-23");
  assert.equal(dayString(addWorkingDays(dayNumber(FRIDAY), 5)), "2026-11-27");
  assert.equal(dayString(addWorkingDays(dayNumber("2026-11-23"), 4)), "2026-11-27");
  assert.equal(dayString(addWorkingDays(dayNumber("2026-11-23"), 10)), "2026-12-07");
  // Before 1970 (negative day numbers) the weekday stays right.
  assert.equal(dayString(nextWorkingDay(dayNumber("1969-12-27"))), "1969-12-29");
});

Deno.test("ghost bars pack from today across the weekend at 8 hours a day", () => {
  const bars = planBars([
    task({ id: "a", estimatedHours: 16, sortOrder: 1 }),
    task({ id: "b", estimatedHours: 4, sortOrder: 2 }),
    task({ id: "c", estimatedHours: 6, sortOrder: 3 }),
  ], { today: FRIDAY });
  // a: hours 0-16 → Fri + Mon; b: 16-20 → Tue; c: 20-26 → Tue (4h) and Wed (2h).
  assert.deepEqual(spans(bars), [
    "a ghost 2026-11-20..2026-11-23",
    "b ghost 2026-11-24..2026-11-24",
    "c ghost 2026-11-24..2026-11-25",
  ]);
  assert.ok(bars.every((b) => b.userId === "u1" && !b.late));
});

Deno.test("planning on a Saturday starts on Monday", () => {
  const bars = planBars([task({ id: "a", estimatedHours: 8 })], { today: "2026-11-21" });
  assert.deepEqual(spans(bars), ["a ghost 2026-11-23..2026-11-23"]);
});

Deno.test("a task without an estimate (or 0 hours) counts as one day", () => {
  const bars = planBars([
    task({ id: "a", estimatedHours: null, sortOrder: 1 }),
    task({ id: "b", estimatedHours: 0, sortOrder: 2 }),
    task({ id: "c", estimatedHours: 2, sortOrder: 3 }),
  ], { today: "2026-11-23" });
  assert.deepEqual(spans(bars), [
    "a ghost 2026-11-23..2026-11-23",
    "b ghost 2026-11-24..2026-11-24",
    "c ghost 2026-11-25..2026-11-25",
  ]);
});

Deno.test("a user with solid work: ghosts start the working day after it ends", () => {
  const bars = planBars([
    task({ id: "s", startDate: "2026-11-23", dueDate: "2026-11-25", sortOrder: 50 }),
    task({ id: "a", estimatedHours: 4, sortOrder: 1 }),
    task({ id: "b", estimatedHours: 4, sortOrder: 2 }),
    task({ id: "c", estimatedHours: 12, sortOrder: 3 }),
  ], { today: FRIDAY });
  assert.deepEqual(spans(bars), [
    "s solid 2026-11-23..2026-11-25",
    "a ghost 2026-11-26..2026-11-26",
    "b ghost 2026-11-26..2026-11-26",
    "c ghost 2026-11-27..2026-11-30",
  ]);
});

Deno.test("solid work in the past does not hold ghosts back; done solid work never does", () => {
  const past = planBars([
    task({ id: "s", startDate: "2026-11-02", dueDate: "2026-11-04" }),
    task({ id: "a" }),
  ], { today: FRIDAY });
  assert.deepEqual(spans(past), ["s solid 2026-11-02..2026-11-04", "a ghost 2026-11-20..2026-11-20"]);
  const done = planBars([
    task({ id: "s", startDate: "2026-11-23", dueDate: "2026-12-04", status: "done" }),
    task({ id: "a" }),
  ], { today: FRIDAY });
  assert.deepEqual(spans(done), ["s solid 2026-11-23..2026-12-04", "a ghost 2026-11-20..2026-11-20"]);
});

Deno.test("a solid bar without a due date lasts as long as its estimate, on working days", () => {
  const bars = planBars([
    task({ id: "s", startDate: FRIDAY, estimatedHours: 20 }),
    task({ id: "w", startDate: "2026-11-21", estimatedHours: null }), // starts on a Saturday
    task({ id: "q", estimatedHours: 8 }),
  ], { today: "2026-11-16" });
  // s: 20h = 3 days Fri, Mon, Tue; w: one day, the first working day is Monday.
  assert.deepEqual(spans(bars), [
    "s solid 2026-11-20..2026-11-24",
    "w solid 2026-11-21..2026-11-23",
    "q ghost 2026-11-25..2026-11-25",
  ]);
});

Deno.test("the focus task goes first, then sortOrder; other statuses and dated tasks are not queued", () => {
  const bars = planBars([
    task({ id: "a", sortOrder: 1 }),
    task({ id: "f", sortOrder: 9, status: "in_progress" }),
    task({ id: "b", sortOrder: 2, status: "in_progress" }),
    task({ id: "x", sortOrder: 0, status: "frozen" }),
    task({ id: "y", sortOrder: 0, status: "done" }),
  ], { today: "2026-11-23", focus: new Map([["u1", "f"]]) });
  assert.deepEqual(spans(bars), [
    "f ghost 2026-11-23..2026-11-23",
    "a ghost 2026-11-24..2026-11-24",
    "b ghost 2026-11-25..2026-11-25",
  ]);
});

Deno.test("late forecast: a ghost ending after its due date is late", () => {
  const bars = planBars([
    task({ id: "a", estimatedHours: 16, dueDate: "2026-11-23" }),
    task({ id: "b", estimatedHours: 8, dueDate: "2026-11-23" }),
    task({ id: "c", estimatedHours: 8, dueDate: "2026-11-24" }),
  ], { today: FRIDAY });
  assert.deepEqual(bars.map((b) => [b.taskId, b.end, b.late]), [
    ["a", "2026-11-23", false],
    ["b", "2026-11-24", true],
    ["c", "2026-11-25", true],
  ]);
  assert.deepEqual([...lateTaskIds(bars)].sort(), ["b", "c"]);
});

Deno.test("each assignee gets a lane; unassigned dated tasks get a lane without a user", () => {
  const bars = planBars([
    task({ id: "a", assigneeIds: ["u1", "u2"] }),
    task({ id: "b", assigneeIds: ["u2"], sortOrder: 0 }),
    task({ id: "s", startDate: "2026-11-24", dueDate: "2026-11-24", assigneeIds: [] }),
    task({ id: "q", assigneeIds: [] }), // queued but nobody's: no bar
  ], { today: "2026-11-23" });
  assert.deepEqual(bars.map((b) => `${b.userId} ${b.taskId} ${b.start}`), [
    "u1 a 2026-11-23",
    "u2 b 2026-11-23",
    "u2 a 2026-11-24",
    "null s 2026-11-24",
  ]);
  const onlyU2 = planBars([task({ id: "a", assigneeIds: ["u1", "u2"] })], {
    today: "2026-11-23",
    users: new Set(["u2"]),
  });
  assert.deepEqual(onlyU2.map((b) => b.userId), ["u2"]);
});

Deno.test("clipping keeps bars touching the window and cuts them to it", () => {
  const bars = planBars([
    task({ id: "a", estimatedHours: 24 }), // Mon 23 - Wed 25
    task({ id: "b", estimatedHours: 8 }), // Thu 26
    task({ id: "c", estimatedHours: 16 }), // Fri 27 - Mon 30
    task({ id: "d", estimatedHours: 8 }), // Tue Dec 1
  ], { today: "2026-11-23" });
  const clipped = clipBars(bars, "2026-11-24", "2026-11-28");
  assert.deepEqual(clipped.map((b) => [b.taskId, b.start, b.end, b.clippedStart, b.clippedEnd]), [
    ["a", "2026-11-24", "2026-11-25", true, false],
    ["b", "2026-11-26", "2026-11-26", false, false],
    ["c", "2026-11-27", "2026-11-28", false, true],
  ]);
});

Deno.test("day numbers: years 1-99 are not read as 19xx; Postgres' BC, five-digit years and infinity are clamped", () => {
  assert.equal(dayString(dayNumber("0050-06-15")), "0050-06-15");
  assert.equal(dayString(dayNumber("0001-01-01")), "0001-01-01");
  assert.equal(dayString(dayNumber("9999-12-31")), "9999-12-31");
  assert.equal(dayNumber("0001-01-01"), MIN_DAY);
  assert.equal(dayNumber("9999-12-31"), MAX_DAY);
  assert.equal(dayNumber("2026-11-20"), Date.UTC(2026, 10, 20) / 86_400_000);
  assert.equal(dayNumber("0044-03-15 BC"), MIN_DAY);
  assert.equal(dayNumber("12345-01-01"), MAX_DAY);
  assert.equal(dayNumber("infinity"), MAX_DAY);
  assert.equal(dayNumber("-infinity"), MIN_DAY);
  // Far outside JavaScript's date range: still a string, never a RangeError.
  assert.equal(dayString(1e12), "9999-12-31");
  assert.equal(dayString(-1e12), "0001-01-01");
  assert.equal(dayString(NaN), "9999-12-31");
});

Deno.test("the attack shape: 5,700 queued tasks of 100,000 h are planned up to the horizon, the rest listed", () => {
  const today = "2026-11-23";
  const tasks = Array.from(
    { length: 5_700 },
    (_, i) =>
      task({
        id: `h${String(i).padStart(5, "0")}`,
        estimatedHours: 100_000,
        sortOrder: i,
        assigneeIds: ["victim"],
      }),
  );
  tasks.push(task({ id: "mine", estimatedHours: 8, dueDate: "2026-11-30", assigneeIds: ["other"] }));
  const plan = planWorkloads(tasks, { today });
  // 100,000 h = 12,500 working days ≈ 48 years: the first task starts today and runs past the horizon; every
  // other one would start after it.
  assert.equal(plan.horizon, `${2026 + PLAN_HORIZON_YEARS}-11-23`);
  const victim = plan.bars.filter((b) => b.userId === "victim");
  assert.deepEqual(victim.map((b) => [b.taskId, b.start]), [["h00000", today]]);
  assert.ok(victim[0].end > plan.horizon && victim[0].end <= "9999-12-31", victim[0].end);
  assert.equal(plan.beyondHorizon.length, 5_699);
  assert.deepEqual(plan.beyondHorizon[0], {
    taskId: "h00001",
    title: tasks[1].title,
    userId: "victim",
    dueDate: null,
    late: false,
  });
  // The other lane is planned as always.
  assert.deepEqual(spans(plan.bars.filter((b) => b.userId === "other")), [
    "mine ghost 2026-11-23..2026-11-23",
  ]);
});

Deno.test("beyond the horizon: late when the due date is on or before the horizon, unknown (false) after it", () => {
  const plan = planWorkloads([
    task({ id: "big", estimatedHours: 8 * 5 * 52 * 11, sortOrder: 1 }), // eleven years of work
    task({ id: "due-soon", sortOrder: 2, dueDate: "2027-01-01" }),
    task({ id: "due-at-horizon", sortOrder: 3, dueDate: "2036-11-23" }),
    task({ id: "due-later", sortOrder: 4, dueDate: "2040-01-01" }),
  ], { today: "2026-11-23" });
  assert.deepEqual(plan.bars.map((b) => b.taskId), ["big"]);
  assert.deepEqual(plan.beyondHorizon.map((b) => [b.taskId, b.late]), [
    ["due-soon", true],
    ["due-at-horizon", true],
    ["due-later", false],
  ]);
  assert.deepEqual([...lateTaskIds(plan.bars, plan.beyondHorizon)].sort(), ["due-at-horizon", "due-soon"]);
});

Deno.test("the planner is total: extreme estimates, sort orders and dates never throw", () => {
  const extremes: PlanTask[] = [
    task({ id: "inf", estimatedHours: Infinity, sortOrder: -Infinity }),
    task({ id: "nan", estimatedHours: NaN, sortOrder: NaN }),
    task({ id: "neg", estimatedHours: -5, sortOrder: Infinity }),
    task({ id: "huge", estimatedHours: 99_999_999.99, sortOrder: 1e308 }),
    task({ id: "bc", startDate: "0044-03-15 BC", estimatedHours: 1e12 }),
    task({ id: "far", startDate: "12345-01-01", dueDate: "infinity" }),
    task({ id: "end", startDate: "9999-12-31", estimatedHours: 1e9 }),
    task({ id: "garbage", startDate: "soon", dueDate: "later" }),
  ];
  const plan = planWorkloads(extremes, { today: "2026-11-23" });
  for (const b of plan.bars) {
    assert.match(b.start, /^\d{4}-\d{2}-\d{2}$/, JSON.stringify(b));
    assert.match(b.end, /^\d{4}-\d{2}-\d{2}$/, JSON.stringify(b));
    assert.ok(b.start <= b.end, JSON.stringify(b));
  }
  // Solid work up to 9999-12-31 holds every ghost of the lane back: all are beyond the horizon.
  assert.deepEqual(plan.bars.filter((b) => b.kind === "ghost"), []);
  assert.deepEqual(plan.beyondHorizon.map((b) => b.taskId).sort(), ["huge", "inf", "nan", "neg"]);
  assert.deepEqual(
    plan.bars.map((b) => [b.taskId, b.start, b.end]),
    [
      ["bc", "0001-01-01", "9999-12-31"],
      ["garbage", "0001-01-01", "0001-01-01"],
      ["far", "9999-12-31", "9999-12-31"],
      ["end", "9999-12-31", "9999-12-31"],
    ],
  );
});
