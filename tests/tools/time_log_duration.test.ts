// Time logs written as a start and a duration (issue 25 point 4): create_time_log and update_time_log take
// `hours` (the name their answers use) instead of endTime; the seed's start-and-end form is unchanged.
import assert from "node:assert/strict";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, mcpApp } from "../helpers/mcp.ts";
import { insertTimeCategory } from "../../lib/workspace/time_logs.ts";
import { MODULES } from "../../lib/workspace/modules.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };
/** The key of each variant that logs the owner's time. */
const owner = { A: f.keys.owner, B: f.keys.internal };

const web = await callOk(apps.A, f.keys.owner, "create_project", {
  name: "Web",
  companyId: f.companies.a,
  taskPrefix: "WEB",
});
const task = await callOk(apps.A, f.keys.owner, "create_task", { title: "Design", projectId: web.id });
const meeting = (await insertTimeCategory(db.sql, f.workspaceId, { name: "Meeting" })).id;
const foreignProject = await callOk(apps.A, f.other.key, "create_project", {
  name: "Theirs",
  taskPrefix: "THR",
});
const foreignTask = await callOk(apps.A, f.other.key, "create_task", {
  title: "Theirs",
  projectId: foreignProject.id,
});

async function logRows(): Promise<Array<{ id: string; start: string; end: string; date: string }>> {
  return [
    ...await db.sql<Array<{ id: string; start: string; end: string; date: string }>>`
    select id, to_char(start_time, 'HH24:MI') as start, to_char(end_time, 'HH24:MI') as "end", date::text as date
      from time_logs order by id`,
  ];
}

Deno.test("create_time_log: a start and hours store the end; answers round-trip every whole minute", async () => {
  for (const v of ["A", "B"] as const) {
    const cases: Array<[string, number, string, number]> = [
      ["09:00", 2, "11:00", 120],
      ["09:00", 1.5, "10:30", 90],
      ["13:10", 0.33, "13:30", 20],
      ["08:00", 0.01, "08:01", 1],
      ["00:00", 23.98, "23:59", 1439],
      ["22:00", 1.98, "23:59", 119],
    ];
    for (const [startTime, hours, endTime, minutes] of cases) {
      const log = await callOk(apps[v], owner[v], "create_time_log", {
        date: "2026-03-02",
        startTime,
        hours,
        taskId: task.id,
      });
      assert.equal(log.startTime, startTime, `${v} ${hours}`);
      assert.equal(log.endTime, endTime, `${v} ${hours}`);
      assert.equal(log.minutes, minutes, `${v} ${hours}`);
      const [row] = await db.sql<{ end: string }[]>`
        select to_char(end_time, 'HH24:MI') as "end" from time_logs where id = ${log.id}`;
      assert.equal(row.end, endTime);
      // the answer's hours, given back, make the same log
      const again = await callOk(apps[v], owner[v], "create_time_log", {
        date: "2026-03-02",
        startTime,
        hours: log.hours,
        taskId: task.id,
      });
      assert.equal(again.endTime, endTime, `${v}: hours ${log.hours} round-trips`);
    }
  }
  // A: a category log, and a task named by its display id
  const cat = await callOk(apps.A, f.keys.owner, "create_time_log", {
    date: "2026-03-03",
    startTime: "14:00",
    hours: 0.75,
    categoryId: meeting,
    description: "Standup and planning",
  });
  assert.equal(cat.endTime, "14:45");
  assert.equal(cat.hours, 0.75);
  assert.equal(cat.categoryId, meeting);
  const byDisplayId = await callOk(apps.A, f.keys.owner, "create_time_log", {
    date: "2026-03-03",
    startTime: "15:00",
    hours: 2,
    taskId: `web-${task.number}`,
  });
  assert.equal(byDisplayId.taskId, task.id);
  assert.equal(byDisplayId.endTime, "17:00");
});

Deno.test("create_time_log: the seed's start-and-end form is unchanged", async () => {
  for (const v of ["A", "B"] as const) {
    const log = await callOk(apps[v], owner[v], "create_time_log", {
      date: "2026-03-04",
      startTime: "09:00",
      endTime: "10:30",
      taskId: task.id,
    });
    assert.equal(log.endTime, "10:30");
    assert.equal(log.hours, 1.5);
    assert.equal(log.minutes, 90);
  }
});

Deno.test("create_time_log: bad durations are invalid_input naming the field; nothing stored", async () => {
  const base = { date: "2026-03-05", startTime: "09:00", taskId: task.id };
  const cases: Array<[Record<string, unknown>, string | RegExp]> = [
    [{ hours: 0 }, "invalid_input: hours: must be more than 0"],
    [{ hours: -1 }, "invalid_input: hours: must be more than 0"],
    [{ hours: 1.234 }, "invalid_input: hours: must have at most 2 decimals"],
    [{ hours: 25 }, "invalid_input: hours: must be at most 24"],
    [{ hours: "2" }, "invalid_input: hours: must be a number"],
    [{ hours: null }, "invalid_input: hours: must be a number"],
    [
      { startTime: "23:00", hours: 2 },
      "invalid_input: hours: 23:00 plus 2 h ends after midnight (a time log does not cross midnight; end it by " +
      "23:59 and log the rest on the next day)",
    ],
    [{ startTime: "22:00", hours: 2 }, /^invalid_input: hours: 22:00 plus 2 h ends after midnight/],
    [{ startTime: "00:00", hours: 24 }, /^invalid_input: hours: 00:00 plus 24 h ends after midnight/],
    [
      { endTime: "11:00", hours: 2 },
      "invalid_input: hours: give endTime or hours (the duration from startTime), not both",
    ],
    [
      { endTime: "10:00", hours: 1 },
      "invalid_input: hours: give endTime or hours (the duration from startTime), not both",
    ],
    [{}, "invalid_input: endTime: is required (or hours: the duration from startTime)"],
    // hours alone follow the day's last log (below); an end without a start cannot be placed
    [{ startTime: undefined, endTime: "10:00" }, /^invalid_input: startTime: is required with endTime/],
  ];
  const before = await logRows();
  for (const v of ["A", "B"] as const) {
    for (const [extra, want] of cases) {
      const text = await callFails(
        apps[v],
        owner[v],
        "create_time_log",
        { ...base, ...extra },
        "invalid_input",
      );
      if (typeof want === "string") assert.equal(text, want, `${v} ${JSON.stringify(extra)}`);
      else assert.match(text, want, `${v} ${JSON.stringify(extra)}`);
    }
  }
  assert.deepEqual(await logRows(), before, "nothing stored");
});

Deno.test("update_time_log: hours move the end from the stored or the new start; refusals change nothing", async () => {
  for (const v of ["A", "B"] as const) {
    const log = await callOk(apps[v], owner[v], "create_time_log", {
      date: "2026-03-06",
      startTime: "09:00",
      endTime: "10:00",
      taskId: task.id,
    });
    const longer = await callOk(apps[v], owner[v], "update_time_log", { timeLogId: log.id, hours: 2.5 });
    assert.equal(longer.startTime, "09:00");
    assert.equal(longer.endTime, "11:30");
    assert.equal(longer.hours, 2.5);
    const moved = await callOk(apps[v], owner[v], "update_time_log", {
      timeLogId: log.id,
      startTime: "13:00",
      hours: 1,
    });
    assert.equal(moved.startTime, "13:00");
    assert.equal(moved.endTime, "14:00");
    // the seed's form still works: a new end alone
    const seed = await callOk(apps[v], owner[v], "update_time_log", { timeLogId: log.id, endTime: "15:00" });
    assert.equal(seed.endTime, "15:00");
    assert.equal(seed.minutes, 120);

    const stored = await logRows();
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ hours: 11.5 }, /^invalid_input: hours: 13:00 plus 11.5 h ends after midnight/],
      [{ startTime: "23:30", hours: 1 }, /^invalid_input: hours: 23:30 plus 1 h ends after midnight/],
      [{ endTime: "16:00", hours: 3 }, /^invalid_input: hours: give endTime or hours/],
      [{ hours: 0 }, /^invalid_input: hours: must be more than 0/],
      [{ hours: -2 }, /^invalid_input: hours: must be more than 0/],
      [{ hours: 0.001 }, /^invalid_input: hours: must have at most 2 decimals/],
      [{ startTime: "16:00" }, /^invalid_input: endTime: must be after startTime/],
    ];
    for (const [patch, re] of refusals) {
      assert.match(
        await callFails(
          apps[v],
          owner[v],
          "update_time_log",
          { timeLogId: log.id, ...patch },
          "invalid_input",
        ),
        re,
        `${v} ${JSON.stringify(patch)}`,
      );
    }
    assert.deepEqual(await logRows(), stored, "nothing changed");
  }
});

Deno.test("gating: roles, the module and user context come before the duration rules", async () => {
  const log = { date: "2026-03-07", startTime: "09:00", hours: 1, taskId: task.id };
  const before = await logRows();
  assert.match(
    await callFails(apps.A, f.keys.guest, "create_time_log", log, "access_denied"),
    /guest role may not use time_tracking tools/,
  );
  await callFails(apps.B, f.keys.workspace, "create_time_log", log, "access_denied");
  const fx = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "time_tracking") });
  await callFails(apps.A, fx.keys.owner, "create_time_log", { ...log, hours: 30 }, "unavailable");
  assert.deepEqual(await logRows(), before);
});

Deno.test("isolation: another workspace's logs and tasks stay not_found, by UUID or display id", async () => {
  const theirs = await callOk(apps.A, f.other.key, "create_time_log", {
    date: "2026-03-08",
    startTime: "09:00",
    hours: 1,
    taskId: "THR-1",
  });
  assert.equal(theirs.taskId, foreignTask.id);
  const before = await logRows();
  for (const v of ["A", "B"] as const) {
    await callFails(apps[v], owner[v], "update_time_log", { timeLogId: theirs.id, hours: 2 }, "not_found");
    const cases = [foreignTask.id, "THR-1"];
    for (const taskId of cases) {
      assert.equal(
        await callFails(apps[v], owner[v], "create_time_log", {
          date: "2026-03-08",
          startTime: "09:00",
          hours: 1,
          taskId,
        }, "not_found"),
        `not_found: taskId: no task ${taskId}`,
        `${v} ${taskId}`,
      );
    }
  }
  // the admin's own log is not the owner's
  const adminLog = await callOk(apps.A, f.keys.admin, "create_time_log", {
    date: "2026-03-08",
    startTime: "09:00",
    hours: 1,
    taskId: task.id,
  });
  await callFails(apps.A, f.keys.owner, "update_time_log", { timeLogId: adminLog.id, hours: 3 }, "not_found");
  const rows = await logRows();
  assert.deepEqual(rows.filter((r) => r.id !== adminLog.id), before);
});

Deno.test("both ways in: an OAuth access token logs a duration as its person", async () => {
  const bearer = await bearerFor(db.sql, { userId: f.users.member, workspaceId: f.workspaceId });
  const log = await callOk(apps.A, bearer.auth, "create_time_log", {
    date: "2026-03-09",
    startTime: "10:00",
    hours: 1.25,
    taskId: `WEB-${task.number}`,
  });
  assert.equal(log.endTime, "11:15");
  const [row] = await db.sql<
    { userId: string }[]
  >`select user_id as "userId" from time_logs where id = ${log.id}`;
  assert.equal(row.userId, f.users.member);
  const updated = await callOk(apps.A, bearer.auth, "update_time_log", { timeLogId: log.id, hours: 0.5 });
  assert.equal(updated.endTime, "10:30");
  await callFails(apps.A, bearer.auth, "create_time_log", {
    date: "2026-03-09",
    startTime: "23:45",
    hours: 0.5,
    taskId: task.id,
  }, "invalid_input");
});

Deno.test("create_time_log: hours without a start follow the day's last log (09:00 on an empty day); no start and no hours is refused", async () => {
  for (const v of ["A", "B"] as const) {
    const date = v === "A" ? "2026-05-04" : "2026-05-05";
    const first = await callOk(apps[v], owner[v], "create_time_log", { date, hours: 2, taskId: task.id });
    assert.deepEqual([first.startTime, first.endTime], ["09:00", "11:00"], v);
    await callOk(apps[v], owner[v], "create_time_log", {
      date,
      startTime: "13:00",
      endTime: "14:15",
      taskId: task.id,
    });
    const next = await callOk(apps[v], owner[v], "create_time_log", { date, hours: 0.5, taskId: task.id });
    assert.deepEqual([next.startTime, next.endTime], ["14:15", "14:45"], v);
    const before = (await logRows()).length;
    const refused = await callFails(
      apps[v],
      owner[v],
      "create_time_log",
      { date, taskId: task.id },
      "invalid_input",
    );
    assert.match(refused, /^invalid_input: startTime: is required with endTime/);
    const late = await callFails(
      apps[v],
      owner[v],
      "create_time_log",
      { date, hours: 10, taskId: task.id },
      "invalid_input",
    );
    assert.match(late, /^invalid_input: hours: 14:45 plus 10 h ends after midnight/);
    assert.equal((await logRows()).length, before, "nothing stored");
  }
});
