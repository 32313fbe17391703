// Pure rules of the personal-work domains: minutes and hours, time-log links, the summary, weekly hours, slugs.
import assert from "node:assert/strict";
import { AppError } from "../../lib/errors.ts";
import { hoursOf, minutesOf } from "../../lib/workspace/personal.ts";
import {
  EXCLUSIVE_LINK_RULE,
  logAmount,
  logMinutes,
  newLink,
  patchedLink,
  PROJECT_LINK_RULE,
  summarize,
  TIMES_RULE,
} from "../../lib/workspace/time_log_rules.ts";
import { normalizeWeeklyHours, slugBase } from "../../lib/workspace/booking.ts";
import { APPOINTMENT_TIMES_RULE, checkAppointmentTimes } from "../../lib/workspace/appointments.ts";

function refused(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, "invalid_input");
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

Deno.test("minutes and hours: exact minutes, hours rounded half-up to 2 decimals", () => {
  assert.equal(minutesOf("00:00"), 0);
  assert.equal(minutesOf("23:59"), 1439);
  assert.equal(logMinutes("09:00", "10:30"), 90);
  assert.equal(logMinutes("23:00", "23:59"), 59);
  assert.deepEqual([20, 30, 40, 45, 50, 59, 60, 90, 100, 200].map(hoursOf), [
    0.33,
    0.5,
    0.67,
    0.75,
    0.83,
    0.98,
    1,
    1.5,
    1.67,
    3.33,
  ]);
  refused(() => logMinutes("10:00", "10:00"), TIMES_RULE);
  refused(() => logMinutes("22:00", "01:00"), TIMES_RULE);
  refused(() => minutesOf("24:00"), /not a time HH:MM/);
  refused(() => minutesOf("9:00"), /not a time HH:MM/);
});

Deno.test("logAmount: billable logs with a rate, from exact minutes, rounded half away from zero", () => {
  assert.equal(logAmount(90, true, "80.00"), "120.00");
  assert.equal(logAmount(20, true, "100.00"), "33.33"); // 33.333…
  assert.equal(logAmount(50, true, "95.50"), "79.58"); // 50 × 95.5 / 60 = 79.5833…
  assert.equal(logAmount(40, true, "1.00"), "0.67", "0.666… rounds up, not down to 0.66");
  assert.equal(logAmount(30, true, "0.01"), "0.01", "0.005 rounds half away from zero");
  assert.equal(logAmount(1, true, "0.29"), "0.00", "0.00483… rounds down");
  assert.equal(logAmount(90, false, "80.00"), null);
  assert.equal(logAmount(90, true, null), null);
});

Deno.test("newLink: exactly one of task and category; project only beside a category", () => {
  const T = "t", C = "c", P = "p";
  assert.deepEqual(newLink({ taskId: T }), { taskId: T, categoryId: null, projectId: null });
  assert.deepEqual(newLink({ categoryId: C }), { taskId: null, categoryId: C, projectId: null });
  assert.deepEqual(newLink({ categoryId: C, projectId: P }), { taskId: null, categoryId: C, projectId: P });
  refused(() => newLink({}), EXCLUSIVE_LINK_RULE);
  refused(() => newLink({ taskId: T, categoryId: C }), EXCLUSIVE_LINK_RULE);
  refused(() => newLink({ projectId: P }), EXCLUSIVE_LINK_RULE);
  refused(() => newLink({ taskId: T, projectId: P }), PROJECT_LINK_RULE);
});

Deno.test("patchedLink: taskId clears category and project; categoryId clears task", () => {
  const taskLog = { taskId: "t1", categoryId: null, projectId: null };
  const catLog = { taskId: null, categoryId: "c1", projectId: "p1" };
  assert.deepEqual(patchedLink(catLog, { taskId: "t2" }), {
    taskId: "t2",
    categoryId: null,
    projectId: null,
  });
  assert.deepEqual(patchedLink(catLog, { taskId: "t2", projectId: null }), {
    taskId: "t2",
    categoryId: null,
    projectId: null,
  });
  assert.deepEqual(patchedLink(taskLog, { categoryId: "c2" }), {
    taskId: null,
    categoryId: "c2",
    projectId: null,
  });
  assert.deepEqual(patchedLink(taskLog, { categoryId: "c2", projectId: "p2" }), {
    taskId: null,
    categoryId: "c2",
    projectId: "p2",
  });
  // The seed: setting categoryId clears the old link and any direct projectId.
  assert.deepEqual(patchedLink(catLog, { categoryId: "c2" }), {
    taskId: null,
    categoryId: "c2",
    projectId: null,
  });
  assert.deepEqual(patchedLink(catLog, { categoryId: "c2", projectId: "p2" }), {
    taskId: null,
    categoryId: "c2",
    projectId: "p2",
  });
  assert.deepEqual(patchedLink(catLog, { projectId: "p9" }), { ...catLog, projectId: "p9" });
  assert.deepEqual(patchedLink(catLog, { projectId: null }), { ...catLog, projectId: null });
  assert.deepEqual(patchedLink(taskLog, { projectId: null }), taskLog);
  assert.deepEqual(patchedLink(taskLog, {}), taskLog);
  refused(() => patchedLink(taskLog, { taskId: "t2", categoryId: "c2" }), EXCLUSIVE_LINK_RULE);
  refused(() => patchedLink(taskLog, { projectId: "p2" }), PROJECT_LINK_RULE);
  refused(() => patchedLink(catLog, { taskId: "t2", projectId: "p2" }), PROJECT_LINK_RULE);
});

Deno.test("summarize: minutes summed before rounding; byProject and byCategory ordered by hours", () => {
  const e = (minutes: number, project: string | null, category: string | null, isBillable = false) => ({
    minutes,
    isBillable,
    projectId: project,
    projectName: project ? `Project ${project}` : null,
    categoryId: category,
    categoryName: category ? `Cat ${category}` : null,
  });
  const s = summarize([
    e(20, "A", null),
    e(20, "A", "M"),
    e(20, null, "M", true),
    e(90, null, null),
    e(50, "B", "X", true),
  ]);
  assert.deepEqual(s, {
    totalHours: 3.33,
    entryCount: 5,
    billableHours: 1.17,
    byProject: [
      { projectId: "B", projectName: "Project B", hours: 0.83, entryCount: 1 },
      { projectId: "A", projectName: "Project A", hours: 0.67, entryCount: 2 },
    ],
    byCategory: [
      { categoryId: "X", categoryName: "Cat X", hours: 0.83, entryCount: 1 },
      { categoryId: "M", categoryName: "Cat M", hours: 0.67, entryCount: 2 },
    ],
    withoutProject: { hours: 1.83, entryCount: 2 },
  });
  // 3 × 20 minutes = 60 minutes = 1 h (rounding each first would give 0.99)
  assert.equal(summarize([e(20, "A", null), e(20, "A", null), e(20, "A", null)]).totalHours, 1);
  // equal hours: by name
  const tie = summarize([e(30, "Z", null), e(30, "A", null)]);
  assert.deepEqual(tie.byProject.map((p) => p.projectId), ["A", "Z"]);
  assert.deepEqual(summarize([]), {
    totalHours: 0,
    entryCount: 0,
    billableHours: 0,
    byProject: [],
    byCategory: [],
    withoutProject: { hours: 0, entryCount: 0 },
  });
});

Deno.test("normalizeWeeklyHours: seven days, sorted, validated", () => {
  const w = normalizeWeeklyHours({
    "1": [{ start: "13:00", end: "17:00" }, { start: "09:00", end: "12:00" }],
    "5": [{ start: "09:00", end: "12:00" }, { start: "12:00", end: "13:00" }],
  });
  assert.deepEqual(w, {
    "1": [{ start: "09:00", end: "12:00" }, { start: "13:00", end: "17:00" }],
    "2": [],
    "3": [],
    "4": [],
    "5": [{ start: "09:00", end: "12:00" }, { start: "12:00", end: "13:00" }],
    "6": [],
    "7": [],
  });
  refused(() => normalizeWeeklyHours({ "0": [] }), /unknown day "0"/);
  refused(() => normalizeWeeklyHours({ "8": [] }), /unknown day "8"/);
  refused(() => normalizeWeeklyHours({ monday: [] }), /unknown day "monday"/);
  refused(
    () => normalizeWeeklyHours({ "2": [{ start: "12:00", end: "09:00" }] }),
    "weeklyHours.2[0]: start 12:00 must be before end 09:00",
  );
  refused(() => normalizeWeeklyHours({ "2": [{ start: "09:00", end: "09:00" }] }), /must be before end/);
  refused(
    () => normalizeWeeklyHours({ "3": [{ start: "09:00", end: "12:00" }, { start: "11:30", end: "14:00" }] }),
    "weeklyHours.3: intervals 09:00-12:00 and 11:30-14:00 overlap",
  );
  refused(
    () => normalizeWeeklyHours({ "3": [{ start: "10:00", end: "11:00" }, { start: "09:00", end: "17:00" }] }),
    /overlap/,
  );
  refused(() => normalizeWeeklyHours({ "4": [{ start: "9:00", end: "10:00" }] }), /must be times HH:MM/);
});

Deno.test("slugBase: ASCII words from the name, else the e-mail, else booking", () => {
  assert.equal(slugBase("Dana Demo", "d@x.test"), "dana-demo");
  assert.equal(slugBase("  Zoë  Åström-Müller ", "z@x.test"), "zoe-astrom-muller");
  assert.equal(slugBase("李", "jo.smith@x.test"), "jo-smith");
  assert.equal(slugBase("", "a@x.test"), "booking");
  assert.equal(slugBase("x".repeat(60), "a@x.test").length, 40);
});

Deno.test("checkAppointmentTimes: end after start unless all-day", () => {
  checkAppointmentTimes("09:00", "10:00", false);
  checkAppointmentTimes("00:00", "00:00", true);
  checkAppointmentTimes("10:00", "09:00", true);
  refused(() => checkAppointmentTimes("10:00", "10:00", false), APPOINTMENT_TIMES_RULE);
  refused(() => checkAppointmentTimes("10:00", "09:00", false), APPOINTMENT_TIMES_RULE);
});
