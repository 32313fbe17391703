// Time-log tools through /mcp: link rules (A and B), hours, updates that switch links, deletes, summary arithmetic,
// own-records-only, company scope, workspace isolation and the user-context rules of both variants.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, type Fixture, listedTools, mcpApp, rpc } from "../helpers/mcp.ts";
import { createProject } from "../../lib/workspace/projects.ts";
import { insertTimeCategory } from "../../lib/workspace/time_logs.ts";
import { EXCLUSIVE_LINK_RULE, PROJECT_LINK_RULE } from "../../lib/workspace/time_log_rules.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { TOTAL_COUNT_WINDOW } from "../../lib/workspace/page.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const MISSING = "00000000-0000-4000-8000-000000000000";

Deno.test.afterAll(() => db.close());

async function project(fx: Fixture, name: string, companyId?: string): Promise<string> {
  return (await createProject(db.sql, { workspaceId: fx.workspaceId, userId: fx.users.owner }, {
    name,
    companyId,
  })).id;
}

async function task(
  workspaceId: string,
  title: string,
  opts: { projectId?: string; companyId?: string | null; isPrivate?: boolean; createdBy?: string } = {},
): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`
    insert into tasks (workspace_id, company_id, project_id, title, is_private, created_by)
    values (${workspaceId}, ${opts.companyId ?? null}, ${opts.projectId ?? null}, ${title},
            ${opts.isPrivate ?? false}, ${opts.createdBy ?? null})
    returning id`;
  return row.id;
}

// The world: projects in company a, company b and none; tasks on each; categories active and inactive.
const projA = await project(f, "Project A", f.companies.a);
const projB = await project(f, "Project B", f.companies.b);
const projNone = await project(f, "Project none");
const taskA = await task(f.workspaceId, "Task A", { projectId: projA, companyId: f.companies.a });
const taskB = await task(f.workspaceId, "Task B", { projectId: projB, companyId: f.companies.b });
const taskLoose = await task(f.workspaceId, "Task without project");
const taskPrivate = await task(f.workspaceId, "Admin's private task", {
  isPrivate: true,
  createdBy: f.users.admin,
});
const meeting = (await insertTimeCategory(db.sql, f.workspaceId, { name: "Meeting", sortOrder: 1 })).id;
const admin = (await insertTimeCategory(db.sql, f.workspaceId, { name: "Admin", sortOrder: 2 })).id;
const old = (await insertTimeCategory(db.sql, f.workspaceId, { name: "Old reason", isActive: false })).id;
const otherCategory = (await insertTimeCategory(db.sql, f.other.workspaceId, { name: "Foreign" })).id;
const otherProject =
  (await createProject(db.sql, { workspaceId: f.other.workspaceId }, { name: "Foreign" })).id;
const otherTask = await task(f.other.workspaceId, "Foreign task", { projectId: otherProject });

const day = { date: "2026-03-02", startTime: "09:00", endTime: "10:30" };

Deno.test("list_time_categories: active categories of the workspace, in order, as a page", async () => {
  const cats = await callOk(appA, f.keys.owner, "list_time_categories");
  assert.deepEqual(cats, {
    items: [
      { id: meeting, name: "Meeting", description: "" },
      { id: admin, name: "Admin", description: "" },
    ],
    total: 2,
    limit: 100,
    offset: 0,
    hasMore: false,
    nextOffset: null,
  });
  const first = await callOk(appA, f.keys.owner, "list_time_categories", { limit: 1 });
  assert.deepEqual(first, {
    items: [{ id: meeting, name: "Meeting", description: "" }],
    total: 2,
    limit: 1,
    offset: 0,
    hasMore: true,
    nextOffset: 1,
  });
  const second = await callOk(appA, f.keys.owner, "list_time_categories", { limit: 1, offset: 1 });
  assert.deepEqual(second.items, [{ id: admin, name: "Admin", description: "" }]);
  assert.deepEqual([second.hasMore, second.nextOffset], [false, null]);
  await callFails(appA, f.keys.owner, "list_time_categories", { extra: 1 }, "invalid_input");
  await callFails(appA, f.keys.owner, "list_time_categories", { limit: 0 }, "invalid_input");
  await callFails(appA, f.keys.owner, "list_time_categories", { limit: 501 }, "invalid_input");
  await callFails(appA, f.keys.owner, "list_time_categories", { offset: -1 }, "invalid_input");
  const foreign = (await callOk(appA, f.other.key, "list_time_categories")).items;
  assert.deepEqual(foreign.map((c: { name: string }) => c.name), ["Foreign"]);
});

Deno.test("create_time_log A: task log takes the task's project and company; hours from exact minutes", async () => {
  const log = await callOk(appA, f.keys.owner, "create_time_log", {
    ...day,
    taskId: taskA,
    description: "wireframes",
    isBillable: true,
    hourlyRate: 80,
  });
  assert.match(log.id, /^[0-9a-f-]{36}$/);
  assert.equal(log.date, "2026-03-02");
  assert.equal(log.startTime, "09:00");
  assert.equal(log.endTime, "10:30");
  assert.equal(log.minutes, 90);
  assert.equal(log.hours, 1.5);
  assert.equal(log.hourlyRate, "80.00");
  assert.equal(log.amount, "120.00");
  assert.equal(log.taskId, taskA);
  assert.equal(log.taskTitle, "Task A");
  assert.equal(log.categoryId, null);
  assert.equal(log.projectId, projA);
  assert.equal(log.projectName, "Project A");
  assert.equal(log.companyId, f.companies.a);
  const [row] = await db.sql`
    select user_id, task_id, category_id, project_id, workspace_id from time_logs where id = ${log.id}`;
  assert.deepEqual({ ...row }, {
    user_id: f.users.owner,
    task_id: taskA,
    category_id: null,
    project_id: null,
    workspace_id: f.workspaceId,
  });

  const odd = await callOk(appA, f.keys.owner, "create_time_log", {
    date: "2026-03-02",
    startTime: "11:00",
    endTime: "11:20",
    taskId: taskLoose,
  });
  assert.equal(odd.minutes, 20);
  assert.equal(odd.hours, 0.33);
  assert.equal(odd.projectId, null);
  assert.equal(odd.companyId, null);
  assert.equal(odd.amount, null, "not billable: no amount");
  assert.equal(odd.isBillable, false);
});

Deno.test("create_time_log A: category logs, with and without a project", async () => {
  const withProject = await callOk(appA, f.keys.owner, "create_time_log", {
    ...day,
    categoryId: meeting,
    projectId: projB,
  });
  assert.equal(withProject.categoryId, meeting);
  assert.equal(withProject.categoryName, "Meeting");
  assert.equal(withProject.taskId, null);
  assert.equal(withProject.projectId, projB);
  assert.equal(withProject.companyId, f.companies.b);

  const bare = await callOk(appA, f.keys.owner, "create_time_log", { ...day, categoryId: admin });
  assert.equal(bare.projectId, null);
  assert.equal(bare.companyId, null);

  const limited = await callOk(appA, f.keys.limited, "create_time_log", { ...day, categoryId: admin });
  assert.equal(limited.companyId, f.companies.a, "a key limited to one company logs into it");
});

Deno.test("create_time_log A: the exclusive-choice and project link rules", async () => {
  const both = await callFails(appA, f.keys.owner, "create_time_log", {
    ...day,
    taskId: taskA,
    categoryId: meeting,
  }, "invalid_input");
  assert.equal(both, `invalid_input: ${EXCLUSIVE_LINK_RULE}`);
  const neither = await callFails(appA, f.keys.owner, "create_time_log", day, "invalid_input");
  assert.equal(neither, `invalid_input: ${EXCLUSIVE_LINK_RULE}`);
  const projectWithTask = await callFails(appA, f.keys.owner, "create_time_log", {
    ...day,
    taskId: taskA,
    projectId: projA,
  }, "invalid_input");
  assert.equal(projectWithTask, `invalid_input: ${PROJECT_LINK_RULE}`);
  const projectAlone = await callFails(
    appA,
    f.keys.owner,
    "create_time_log",
    { ...day, projectId: projA },
    "invalid_input",
  );
  assert.equal(projectAlone, `invalid_input: ${EXCLUSIVE_LINK_RULE}`);
  const [{ n }] = await db.sql`select count(*)::int as n from time_logs where description = 'never'`;
  assert.equal(n, 0);
});

Deno.test("create_time_log: bad input names the field", async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ ...day, endTime: "09:00", taskId: taskA }, /endTime: must be after startTime/],
    [{ ...day, endTime: "08:00", taskId: taskA }, /does not cross midnight/],
    [{ ...day, startTime: "9:00", taskId: taskA }, /startTime: must be a time HH:MM/],
    [{ ...day, endTime: "24:00", taskId: taskA }, /endTime: must be a time HH:MM/],
    [{ ...day, date: "2026-02-30", taskId: taskA }, /date: must be a date YYYY-MM-DD/],
    [{ ...day, taskId: "not-a-uuid" }, /taskId: must be a UUID/],
    [{ ...day, taskId: taskA, hourlyRate: -1 }, /hourlyRate: must be at least 0/],
    [{ ...day, taskId: taskA, hourlyRate: 1.234 }, /hourlyRate: must have at most 2 decimals/],
    [{ ...day, taskId: taskA, description: "x".repeat(2001) }, /description: must be at most 2000/],
    [{ ...day, taskId: taskA, isBillable: "yes" }, /isBillable: must be true or false/],
    [{ ...day, taskId: taskA, colour: "red" }, /unknown field colour/],
    [{ startTime: "09:00", endTime: "10:00", taskId: taskA }, /date/],
    [{ ...day, categoryId: old }, /categoryId: time category .* is no longer active/],
  ];
  for (const [args, re] of cases) {
    const text = await callFails(appA, f.keys.owner, "create_time_log", args, "invalid_input");
    assert.match(text, re, JSON.stringify(args));
  }
});

Deno.test("create_time_log: unknown, foreign, private and out-of-scope links are not_found", async () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [f.keys.owner, { taskId: MISSING }, /no task/],
    [f.keys.owner, { taskId: otherTask }, /no task/],
    [f.keys.owner, { taskId: taskPrivate }, /no task/],
    [f.keys.owner, { categoryId: MISSING }, /no time category/],
    [f.keys.owner, { categoryId: otherCategory }, /no time category/],
    [f.keys.owner, { categoryId: meeting, projectId: MISSING }, /no project/],
    [f.keys.owner, { categoryId: meeting, projectId: otherProject }, /no project/],
    [f.keys.limited, { taskId: taskB }, /no task/],
    [f.keys.limited, { taskId: taskLoose }, /no task/],
    [f.keys.limited, { categoryId: meeting, projectId: projB }, /no project/],
    [f.keys.ownerCompanyA, { taskId: taskB }, /no task/],
  ];
  for (const [key, link, re] of cases) {
    const text = await callFails(appA, key, "create_time_log", { ...day, ...link }, "not_found");
    assert.match(text, re, JSON.stringify(link));
  }
  // The private task's creator may log time on it.
  const own = await callOk(appA, f.keys.admin, "create_time_log", { ...day, taskId: taskPrivate });
  assert.equal(own.taskId, taskPrivate);
});

Deno.test("list_time_logs: own logs only, in scope, filtered by dates, newest day first", async () => {
  const u = f.users.manager;
  const key = f.keys.manager;
  const mk = (date: string, startTime: string, endTime: string, link: Record<string, unknown>) =>
    callOk(appA, key, "create_time_log", { date, startTime, endTime, ...link });
  const l1 = await mk("2026-04-01", "09:00", "10:00", { taskId: taskA });
  const l2 = await mk("2026-04-02", "13:00", "14:00", { categoryId: meeting, projectId: projB });
  const l3 = await mk("2026-04-02", "08:00", "08:45", { categoryId: admin });
  const l4 = await mk("2026-04-05", "10:00", "11:00", { taskId: taskB });

  const all = (await callOk(appA, key, "list_time_logs")).items;
  assert.deepEqual(all.map((l: { id: string }) => l.id), [l4.id, l3.id, l2.id, l1.id]);
  // A list row is the short form: no minutes, company or audit times (create and update answer those).
  assert.deepEqual(all[2], {
    id: l2.id,
    date: "2026-04-02",
    startTime: "13:00",
    endTime: "14:00",
    hours: 1,
    description: "",
    taskId: null,
    taskTitle: null,
    categoryId: meeting,
    categoryName: "Meeting",
    projectId: projB,
    projectName: "Project B",
    isBillable: false,
    hourlyRate: null,
    amount: null,
  });
  const billable = await mk("2026-04-06", "09:00", "09:40", {
    taskId: taskA,
    description: "review",
    isBillable: true,
    hourlyRate: "1.00",
  });
  const [row] = (await callOk(appA, key, "list_time_logs", { startDate: "2026-04-06" })).items;
  assert.deepEqual(row, {
    id: billable.id,
    date: "2026-04-06",
    startTime: "09:00",
    endTime: "09:40",
    hours: 0.67,
    description: "review",
    taskId: taskA,
    taskTitle: "Task A",
    categoryId: null,
    categoryName: null,
    projectId: projA,
    projectName: "Project A",
    isBillable: true,
    hourlyRate: "1.00",
    amount: "0.67",
  });
  // The full log (create's answer) is the list row plus the minutes, company and audit times.
  const { minutes, companyId, createdAt, updatedAt, ...short } = billable;
  assert.deepEqual(short, row);
  assert.deepEqual([minutes, companyId], [40, f.companies.a]);
  assert.match(createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(updatedAt, createdAt);
  await callOk(appA, key, "delete_time_log", { timeLogId: billable.id });
  const range =
    (await callOk(appA, key, "list_time_logs", { startDate: "2026-04-02", endDate: "2026-04-04" })).items;
  assert.deepEqual(range.map((l: { id: string }) => l.id), [l3.id, l2.id]);
  const from = (await callOk(appA, key, "list_time_logs", { startDate: "2026-04-03" })).items;
  assert.deepEqual(from.map((l: { id: string }) => l.id), [l4.id]);
  const paged = (await callOk(appA, key, "list_time_logs", { limit: 2, offset: 1 })).items;
  assert.deepEqual(paged.map((l: { id: string }) => l.id), [l3.id, l2.id]);

  await callFails(
    appA,
    key,
    "list_time_logs",
    { startDate: "2026-04-05", endDate: "2026-04-01" },
    "invalid_input",
  );
  await callFails(appA, key, "list_time_logs", { startDate: "April" }, "invalid_input");
  await callFails(appA, key, "list_time_logs", { limit: 501 }, "invalid_input");

  // Other people see none of them; a key scoped to company a sees only company a's logs of its own user.
  const ownerLogs = (await callOk(appA, f.keys.owner, "list_time_logs", { startDate: "2026-04-01" })).items;
  assert.deepEqual(ownerLogs, []);
  const managerScopedKey = await f.key({ user: u, companyId: f.companies.a });
  const scoped = (await callOk(appA, managerScopedKey, "list_time_logs")).items;
  assert.deepEqual(scoped.map((l: { id: string }) => l.id), [l1.id]);
  const foreign = (await callOk(appA, f.other.key, "list_time_logs")).items;
  assert.deepEqual(foreign, []);
});

Deno.test("update_time_log A: switching links clears the other side; the project rule on updates", async () => {
  const key = f.keys.owner;
  const cat = await callOk(appA, key, "create_time_log", { ...day, categoryId: meeting, projectId: projB });

  // Setting taskId clears categoryId and the direct projectId; the log now counts the task's project.
  const toTask = await callOk(appA, key, "update_time_log", { timeLogId: cat.id, taskId: taskA });
  assert.equal(toTask.taskId, taskA);
  assert.equal(toTask.categoryId, null);
  assert.equal(toTask.projectId, projA);
  assert.equal(toTask.companyId, f.companies.a);
  const [r1] = await db.sql`select task_id, category_id, project_id from time_logs where id = ${cat.id}`;
  assert.deepEqual({ ...r1 }, { task_id: taskA, category_id: null, project_id: null });

  // A task log takes no direct project.
  const refused = await callFails(
    appA,
    key,
    "update_time_log",
    { timeLogId: cat.id, projectId: projB },
    "invalid_input",
  );
  assert.equal(refused, `invalid_input: ${PROJECT_LINK_RULE}`);
  const refused2 = await callFails(appA, key, "update_time_log", {
    timeLogId: cat.id,
    taskId: taskLoose,
    projectId: projB,
  }, "invalid_input");
  assert.equal(refused2, `invalid_input: ${PROJECT_LINK_RULE}`);
  const both = await callFails(appA, key, "update_time_log", {
    timeLogId: cat.id,
    taskId: taskA,
    categoryId: meeting,
  }, "invalid_input");
  assert.equal(both, `invalid_input: ${EXCLUSIVE_LINK_RULE}`);

  // Setting categoryId clears taskId; a project may come with it.
  const toCategory = await callOk(appA, key, "update_time_log", {
    timeLogId: cat.id,
    categoryId: admin,
    projectId: projNone,
  });
  assert.equal(toCategory.taskId, null);
  assert.equal(toCategory.categoryId, admin);
  assert.equal(toCategory.projectId, projNone);
  assert.equal(toCategory.companyId, f.companies.a, "a company-less project keeps the log's company");

  // On a category log the project can change or be cleared.
  const moved = await callOk(appA, key, "update_time_log", { timeLogId: cat.id, projectId: projB });
  assert.equal(moved.projectId, projB);
  assert.equal(moved.companyId, f.companies.b);
  const cleared = await callOk(appA, key, "update_time_log", { timeLogId: cat.id, projectId: null });
  assert.equal(cleared.projectId, null);
  assert.equal(cleared.categoryId, admin);

  // Setting categoryId replaces the link and clears the old direct project (the seed: "clears the old one and
  // any direct projectId"); a project given in the same call is kept.
  await callOk(appA, key, "update_time_log", { timeLogId: cat.id, projectId: projA });
  const recat = await callOk(appA, key, "update_time_log", { timeLogId: cat.id, categoryId: meeting });
  assert.equal(recat.categoryId, meeting);
  assert.equal(recat.projectId, null, "the old direct project is cleared");
  assert.equal(recat.projectName, null);
  const [stored] = await db.sql`select project_id from time_logs where id = ${cat.id}`;
  assert.equal(stored.project_id, null);
  const withProject = await callOk(appA, key, "update_time_log", {
    timeLogId: cat.id,
    categoryId: admin,
    projectId: projA,
  });
  assert.equal(withProject.categoryId, admin);
  assert.equal(withProject.projectId, projA);
});

Deno.test("update_time_log: times, fields, bad input and not_found", async () => {
  const key = f.keys.owner;
  const log = await callOk(appA, key, "create_time_log", { ...day, taskId: taskA });
  const changed = await callOk(appA, key, "update_time_log", {
    timeLogId: log.id,
    date: "2026-03-03",
    endTime: "12:15",
    description: "more",
    isBillable: true,
    hourlyRate: 100,
  });
  assert.equal(changed.date, "2026-03-03");
  assert.equal(changed.startTime, "09:00");
  assert.equal(changed.endTime, "12:15");
  assert.equal(changed.hours, 3.25);
  assert.equal(changed.amount, "325.00");
  assert.equal(changed.description, "more");
  // Amounts are exact and rounded half away from zero, never floored: 40 min at 1.00 is 0.666… → 0.67.
  const rounded = await callOk(appA, key, "update_time_log", {
    timeLogId: log.id,
    startTime: "09:00",
    endTime: "09:40",
    hourlyRate: "1.00",
  });
  assert.equal(rounded.minutes, 40);
  assert.equal(rounded.hourlyRate, "1.00");
  assert.equal(rounded.amount, "0.67");
  const cent = await callOk(appA, key, "update_time_log", {
    timeLogId: log.id,
    endTime: "09:01",
    hourlyRate: 0.5,
  });
  assert.equal(cent.amount, "0.01", "1 min at 0.50 is 0.00833… → 0.01");
  const noRate = await callOk(appA, key, "update_time_log", { timeLogId: log.id, hourlyRate: null });
  assert.equal(noRate.hourlyRate, null);
  assert.equal(noRate.amount, null);

  // The new start is checked against the stored end, and the other way round.
  const late = await callFails(
    appA,
    key,
    "update_time_log",
    { timeLogId: log.id, startTime: "13:00" },
    "invalid_input",
  );
  assert.match(late, /endTime: must be after startTime/);
  await callFails(appA, key, "update_time_log", { timeLogId: log.id, endTime: "08:59" }, "invalid_input");
  await callFails(appA, key, "update_time_log", { timeLogId: log.id }, "invalid_input");
  await callFails(appA, key, "update_time_log", { timeLogId: "x" }, "invalid_input");
  await callFails(appA, key, "update_time_log", { timeLogId: log.id, taskId: MISSING }, "not_found");
  await callFails(appA, key, "update_time_log", { timeLogId: log.id, categoryId: old }, "invalid_input");
  await callFails(appA, key, "update_time_log", { timeLogId: MISSING, description: "x" }, "not_found");

  // Another person's log, another workspace's key, a key of another company: not_found, and nothing changes.
  await callFails(
    appA,
    f.keys.admin,
    "update_time_log",
    { timeLogId: log.id, description: "hijack" },
    "not_found",
  );
  await callFails(
    appA,
    f.other.key,
    "update_time_log",
    { timeLogId: log.id, description: "hijack" },
    "not_found",
  );
  const ownerB = await f.key({ user: f.users.owner, companyId: f.companies.b });
  await callFails(appA, ownerB, "update_time_log", { timeLogId: log.id, description: "hijack" }, "not_found");
  const [row] = await db.sql`select description from time_logs where id = ${log.id}`;
  assert.equal(row.description, "more");
});

Deno.test("delete_time_log: own log only; another person's → not_found", async () => {
  const log = await callOk(appA, f.keys.owner, "create_time_log", { ...day, taskId: taskA });
  await callFails(appA, f.keys.admin, "delete_time_log", { timeLogId: log.id }, "not_found");
  await callFails(appA, f.other.key, "delete_time_log", { timeLogId: log.id }, "not_found");
  await callFails(appB, f.keys.workspace, "delete_time_log", { timeLogId: log.id }, "access_denied");
  await callFails(appA, f.keys.owner, "delete_time_log", { timeLogId: "nope" }, "invalid_input");
  const [still] = await db.sql`select 1 as one from time_logs where id = ${log.id}`;
  assert.equal(still.one, 1);
  assert.deepEqual(await callOk(appA, f.keys.owner, "delete_time_log", { timeLogId: log.id }), {
    deleted: true,
    id: log.id,
  });
  await callFails(appA, f.keys.owner, "delete_time_log", { timeLogId: log.id }, "not_found");
  const gone = await db.sql`select 1 from time_logs where id = ${log.id}`;
  assert.equal(gone.length, 0);
});

Deno.test("time_log_summary: totals, byProject, byCategory and rounding on a worked example", async () => {
  // Accounting member: a clean slate. Minutes: 20 + 20 + 20 + 90 + 50 = 200.
  const key = f.keys.accounting;
  const mk = (startTime: string, endTime: string, link: Record<string, unknown>, extra = {}) =>
    callOk(appA, key, "create_time_log", { date: "2026-05-04", startTime, endTime, ...link, ...extra });
  await mk("09:00", "09:20", { taskId: taskA }); // project A, 20 min
  await mk("10:00", "10:20", { categoryId: meeting, projectId: projA }); // project A + Meeting, 20 min
  await mk("11:00", "11:20", { categoryId: meeting }, { isBillable: true }); // Meeting, no project, 20 min
  await mk("13:00", "14:30", { taskId: taskLoose }); // no project, 90 min
  await callOk(appA, key, "create_time_log", {
    date: "2026-05-06",
    startTime: "15:00",
    endTime: "15:50",
    categoryId: admin,
    projectId: projB,
    isBillable: true,
  }); // project B + Admin, 50 min

  const s = await callOk(appA, key, "time_log_summary");
  assert.deepEqual(s, {
    startDate: null,
    endDate: null,
    projectIds: null,
    totalHours: 3.33, // 200 / 60
    entryCount: 5,
    billableHours: 1.17, // 70 / 60
    byProject: [
      { projectId: projB, projectName: "Project B", hours: 0.83, entryCount: 1 }, // 50 min
      { projectId: projA, projectName: "Project A", hours: 0.67, entryCount: 2 }, // 40 min
    ],
    byCategory: [
      { categoryId: admin, categoryName: "Admin", hours: 0.83, entryCount: 1 },
      { categoryId: meeting, categoryName: "Meeting", hours: 0.67, entryCount: 2 },
    ],
    withoutProject: { hours: 1.83, entryCount: 2 }, // 110 min
  });

  // Three 20-minute logs make 1 hour, not 3 × 0.33.
  const firstThree = await callOk(appA, key, "time_log_summary", {
    startDate: "2026-05-04",
    endDate: "2026-05-04",
    projectIds: [projA, projB],
  });
  assert.equal(firstThree.totalHours, 0.67);
  assert.equal(firstThree.entryCount, 2);
  const day1 = await callOk(appA, key, "time_log_summary", { endDate: "2026-05-04" });
  assert.equal(day1.entryCount, 4);
  assert.equal(day1.totalHours, 2.5); // 150 / 60
  const threeTwenties = await callOk(appA, key, "time_log_summary", {
    startDate: "2026-05-04",
    endDate: "2026-05-04",
  });
  assert.equal(threeTwenties.withoutProject.hours, 1.83);
  const onlyB = await callOk(appA, key, "time_log_summary", { projectIds: [projB] });
  assert.equal(onlyB.totalHours, 0.83);
  assert.deepEqual(onlyB.byCategory.map((c: { categoryId: string }) => c.categoryId), [admin]);
  const none = await callOk(appA, key, "time_log_summary", { projectIds: [otherProject] });
  assert.equal(none.entryCount, 0);
  assert.equal(none.totalHours, 0);

  // Scope: a key of the same person limited to company a sums only company a's logs (the project A ones).
  const scoped = await f.key({ user: f.users.accounting, companyId: f.companies.a });
  const inA = await callOk(appA, scoped, "time_log_summary");
  assert.equal(inA.entryCount, 2);
  assert.equal(inA.totalHours, 0.67);

  await callFails(
    appA,
    key,
    "time_log_summary",
    { startDate: "2026-05-06", endDate: "2026-05-01" },
    "invalid_input",
  );
  await callFails(appA, key, "time_log_summary", { projectIds: ["x"] }, "invalid_input");
  await callFails(appA, key, "time_log_summary", { projectIds: projA }, "invalid_input");
});

Deno.test("three 20-minute logs sum to exactly 1 hour", async () => {
  const key = f.keys.admin;
  for (const [s, e] of [["07:00", "07:20"], ["07:20", "07:40"], ["07:40", "08:00"]]) {
    await callOk(appA, key, "create_time_log", {
      date: "2026-06-01",
      startTime: s,
      endTime: e,
      categoryId: admin,
    });
  }
  const sum = await callOk(appA, key, "time_log_summary", { startDate: "2026-06-01", endDate: "2026-06-01" });
  assert.equal(sum.totalHours, 1);
  assert.deepEqual(sum.byCategory, [{ categoryId: admin, categoryName: "Admin", hours: 1, entryCount: 3 }]);
});

Deno.test("variant B: taskId required, no categories; only internal keys; A-only tools absent", async () => {
  const log = await callOk(appB, f.keys.internal, "create_time_log", { ...day, taskId: taskA });
  assert.equal(log.projectId, projA);
  assert.equal(log.hours, 1.5);
  const missing = await callFails(appB, f.keys.internal, "create_time_log", day, "invalid_input");
  assert.match(missing, /taskId/);
  const cat = await callFails(
    appB,
    f.keys.internal,
    "create_time_log",
    { ...day, categoryId: meeting },
    "invalid_input",
  );
  assert.match(cat, /unknown field categoryId/);
  await callFails(
    appB,
    f.keys.internal,
    "update_time_log",
    { timeLogId: log.id, categoryId: meeting },
    "invalid_input",
  );
  const moved = await callOk(appB, f.keys.internal, "update_time_log", {
    timeLogId: log.id,
    taskId: taskLoose,
  });
  assert.equal(moved.projectId, null);
  const listed = (await callOk(appB, f.keys.internal, "list_time_logs", {
    startDate: "2026-03-02",
    endDate: "2026-03-02",
  })).items;
  assert.ok(
    listed.some((l: { id: string }) => l.id === log.id),
    "the internal key acts as its user (the owner)",
  );

  // Workspace keys (external) and user keys are refused in B, with the reason; the tools are not listed.
  for (const k of [f.keys.workspace, f.keys.workspaceCompanyA, f.keys.owner]) {
    for (
      const [name, args] of [
        ["create_time_log", { ...day, taskId: taskA }],
        ["list_time_logs", {}],
        ["update_time_log", { timeLogId: log.id, description: "x" }],
        ["delete_time_log", { timeLogId: log.id }],
      ] as const
    ) {
      const text = await callFails(appB, k, name, args, "access_denied");
      assert.match(text, /only available to the workspace assistant \(internal key\)/);
    }
  }
  const names = await listedTools(appB, f.keys.workspace);
  for (const n of ["create_time_log", "list_time_logs", "update_time_log", "delete_time_log"]) {
    assert.ok(!names.includes(n), `${n} listed for a workspace key`);
  }
  const internal = await listedTools(appB, f.keys.internal);
  for (const n of ["create_time_log", "list_time_logs", "update_time_log", "delete_time_log"]) {
    assert.ok(internal.includes(n), `${n} missing for the internal key`);
  }
  for (const n of ["time_log_summary", "list_time_categories"]) {
    assert.ok(!internal.includes(n), `${n} is variant A only`);
    const r = await rpc(appB, f.keys.internal, "tools/call", { name: n, arguments: {} });
    assert.equal(r.body.error.code, -32602);
  }
});

Deno.test("variant A: role and module gating of the time tools", async () => {
  // guest has no time_tracking area by default
  const text = await callFails(appA, f.keys.guest, "list_time_logs", {}, "access_denied");
  assert.match(text, /guest role may not use time_tracking tools/);
  const names = await listedTools(appA, f.keys.owner);
  for (const n of ["list_time_logs", "time_log_summary", "list_time_categories", "create_time_log"]) {
    assert.ok(names.includes(n), n);
  }
  const fx = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "time_tracking") });
  const off = await callFails(
    appA,
    fx.keys.owner,
    "create_time_log",
    { ...day, taskId: MISSING },
    "unavailable",
  );
  assert.match(off, /time_tracking module is disabled/);
});

Deno.test("variant B (internal key): bad input, not_found, another person's log, scope, delete", async () => {
  const k = f.keys.internal; // acts as the owner
  await callFails(appB, k, "create_time_log", { ...day, taskId: MISSING }, "not_found");
  await callFails(appB, k, "create_time_log", { ...day, taskId: otherTask }, "not_found");
  await callFails(appB, k, "create_time_log", { ...day, taskId: taskPrivate }, "not_found");
  await callFails(appB, k, "create_time_log", { ...day, endTime: "08:00", taskId: taskA }, "invalid_input");
  await callFails(appB, k, "create_time_log", { ...day, taskId: "t" }, "invalid_input");
  await callFails(appB, k, "list_time_logs", { startDate: "2026-13-01" }, "invalid_input");
  await callFails(
    appB,
    k,
    "list_time_logs",
    { startDate: "2026-05-02", endDate: "2026-05-01" },
    "invalid_input",
  );

  // The admin's log is not the owner's: the internal key (bound to the owner) cannot see, change or delete it.
  const adminLog = await callOk(appA, f.keys.admin, "create_time_log", { ...day, taskId: taskA });
  await callFails(appB, k, "update_time_log", { timeLogId: adminLog.id, description: "x" }, "not_found");
  await callFails(appB, k, "delete_time_log", { timeLogId: adminLog.id }, "not_found");
  await callFails(appB, k, "update_time_log", { timeLogId: MISSING, description: "x" }, "not_found");
  const listed = (await callOk(appB, k, "list_time_logs")).items;
  assert.ok(listed.every((l: { id: string }) => l.id !== adminLog.id));

  // An internal key scoped to company a sees only company a's logs and cannot reach company b's tasks.
  const scopedInternal = await f.key({ kind: "internal", user: f.users.owner, companyId: f.companies.a });
  await callFails(appB, scopedInternal, "create_time_log", { ...day, taskId: taskB }, "not_found");
  const inA = (await callOk(appB, scopedInternal, "list_time_logs")).items;
  assert.ok(inA.length > 0);
  // List rows carry no company: the stored rows say each listed log is company a's, and every one is listed.
  const listedIds = inA.map((l: { id: string }) => l.id).sort();
  const ownA = await db.sql<{ id: string }[]>`
    select id from time_logs
     where workspace_id = ${f.workspaceId} and user_id = ${f.users.owner} and company_id = ${f.companies.a}`;
  assert.deepEqual(listedIds, ownA.map((r) => r.id).sort());
  const bLog = await callOk(appB, k, "create_time_log", { ...day, taskId: taskB });
  await callFails(appB, scopedInternal, "delete_time_log", { timeLogId: bLog.id }, "not_found");

  assert.deepEqual(await callOk(appB, k, "delete_time_log", { timeLogId: bLog.id }), {
    deleted: true,
    id: bLog.id,
  });
  await callFails(appB, k, "delete_time_log", { timeLogId: bLog.id }, "not_found");
});

Deno.test("list_time_logs: totals counted up to the window past the page; paging stays exact", async () => {
  const fx = await buildFixture(db.sql);
  const cat = (await insertTimeCategory(db.sql, fx.workspaceId, { name: "Bulk" })).id;
  const n = 10 + TOTAL_COUNT_WINDOW + 5;
  await db.sql`
    insert into time_logs (workspace_id, user_id, date, start_time, end_time, category_id)
    select ${fx.workspaceId}, ${fx.users.owner}, date '2026-01-01' + (g % 300), '09:00', '10:00', ${cat}
      from generate_series(1, ${n}) g`;
  const first = await callOk(appA, fx.keys.owner, "list_time_logs", { limit: 10 });
  assert.equal(first.items.length, 10);
  assert.equal(first.total, null);
  assert.equal(first.totalAtLeast, 10 + TOTAL_COUNT_WINDOW);
  assert.deepEqual([first.hasMore, first.nextOffset], [true, 10]);
  const last = await callOk(appA, fx.keys.owner, "list_time_logs", { limit: 10, offset: n - 4 });
  assert.equal(last.items.length, 4);
  assert.equal(last.total, n);
  assert.equal("totalAtLeast" in last, false);
  assert.deepEqual([last.hasMore, last.nextOffset], [false, null]);
});
