// Task planning tools (variant A): concurrent numbering, queue placement, focus demotion and gantt_plan.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const owner = f.keys.owner;
const MISSING = "00000000-0000-4000-8000-000000000000";

const proj = await callOk(A, owner, "create_project", {
  name: "Plan",
  companyId: f.companies.a,
  taskPrefix: "PLN",
});
const projB = await callOk(A, owner, "create_project", {
  name: "Plan B",
  companyId: f.companies.b,
  taskPrefix: "PLB",
});

function task(title: string, extra: Record<string, unknown> = {}) {
  return callOk(A, owner, "create_task", { title, projectId: proj.id, ...extra });
}

/** A user's queue as the rules define it: undated todo/in_progress tasks, the focus task first, then sortOrder. */
async function queueOf(userId: string): Promise<string[]> {
  const rows = await db.sql<{ id: string; focus: boolean }[]>`
    select t.id, exists (select 1 from task_focus f where f.user_id = ${userId} and f.task_id = t.id) as focus
      from tasks t join task_assignees a on a.task_id = t.id and a.user_id = ${userId}
     where t.workspace_id = ${f.workspaceId} and t.status in ('todo', 'in_progress') and t.start_date is null
     order by t.sort_order, t.created_at, t.id`;
  return [...rows.filter((r) => r.focus), ...rows.filter((r) => !r.focus)].map((r) => r.id);
}

/** Every task of the workspace in the global order (sort_order, created_at, id), except `skip`. */
async function globalOrder(skip: string): Promise<string[]> {
  const rows = await db.sql<{ id: string }[]>`
    select id from tasks where workspace_id = ${f.workspaceId} and id <> ${skip}
     order by sort_order, created_at, id`;
  return rows.map((r) => r.id);
}

Deno.test("20 concurrent create_task calls on one project get numbers 1..20 without duplicates", async () => {
  // On PGlite (one connection) the calls queue up; on Postgres they race for the project's counter row.
  const p = await callOk(A, owner, "create_project", { name: "Race", taskPrefix: "RACE" });
  const made = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) => callOk(A, owner, "create_task", { title: `race ${i}`, projectId: p.id }),
    ),
  );
  const numbers = made.map((t) => t.number).sort((a, b) => a - b);
  assert.deepEqual(numbers, Array.from({ length: 20 }, (_, i) => i + 1));
  assert.deepEqual(new Set(made.map((t) => t.displayId)).size, 20);
  // Subtasks created concurrently draw from the same counter.
  const subs = await Promise.all(
    Array.from(
      { length: 5 },
      (_, i) => callOk(A, owner, "create_subtask", { parentTaskId: made[0].id, title: `sub ${i}` }),
    ),
  );
  assert.deepEqual(subs.map((s) => s.number).sort((a, b) => a - b), [21, 22, 23, 24, 25]);
});

Deno.test("set_task_queue_position: start, middle, past the end; others keep their order; dated tasks stay", async () => {
  const user = f.users.member;
  const q: string[] = [];
  for (let i = 0; i < 4; i++) q.push((await task(`q${i}`, { assigneeIds: [user] })).id);
  const dated = await task("dated", { assigneeIds: [user], startDate: "2030-01-07", dueDate: "2030-01-08" });
  const x = await task("x", { status: "in_progress", startDate: "2030-02-01", estimatedHours: 3 });
  assert.deepEqual(await queueOf(user), q);
  const before = await globalOrder(x.id);

  const first = await callOk(A, owner, "set_task_queue_position", {
    taskId: x.id,
    userId: user,
    slotIndex: 0,
  });
  assert.equal(first.slotIndex, 0);
  assert.equal(first.queueLength, 5);
  assert.equal(first.userId, user);
  assert.equal(first.task.status, "todo", "the task becomes todo");
  assert.equal(first.task.startDate, null, "a queued task has no start date");
  assert.deepEqual(first.task.assigneeIds, [user], "and is assigned to the user");
  assert.deepEqual(await queueOf(user), [x.id, ...q]);

  const middle = await callOk(A, owner, "set_task_queue_position", {
    taskId: x.id,
    userId: user,
    slotIndex: 2,
  });
  assert.equal(middle.slotIndex, 2);
  assert.deepEqual(await queueOf(user), [q[0], q[1], x.id, q[2], q[3]]);
  const again = await callOk(A, owner, "set_task_queue_position", {
    taskId: x.id,
    userId: user,
    slotIndex: 2,
  });
  assert.equal(again.task.sortOrder, middle.task.sortOrder, "idempotent: same slot, same place");

  const last = await callOk(A, owner, "set_task_queue_position", {
    taskId: x.id,
    userId: user,
    slotIndex: 99,
  });
  assert.equal(last.slotIndex, 4, "past the end means last");
  assert.deepEqual(await queueOf(user), [...q, x.id]);

  assert.deepEqual(await globalOrder(x.id), before, "no other task changed its relative order");
  const d = await callOk(A, owner, "get_task", { taskId: dated.id });
  assert.equal(d.startDate, "2030-01-07", "tasks with a start date keep their place on the timeline");

  // Another assignee is kept; a task already in done goes back to todo.
  const shared = await task("shared", { assigneeIds: [f.users.admin], status: "done" });
  const s = await callOk(A, owner, "set_task_queue_position", {
    taskId: shared.id,
    userId: user,
    slotIndex: 1,
  });
  assert.equal(s.task.status, "todo");
  assert.deepEqual(s.task.assigneeIds, [f.users.admin, user].sort());
  assert.equal((await queueOf(user))[1], shared.id);
});

Deno.test("set_task_queue_position between equal sort orders shifts without reordering anything else", async () => {
  const user = f.users.guest;
  const ids: string[] = [];
  for (const so of [1000, 5000, 5000, 9000]) {
    const t = await task(`tie ${so}`, { assigneeIds: [user] });
    await callOk(A, owner, "update_task", { taskId: t.id, sortOrder: so });
    ids.push(t.id);
  }
  const x = await task("between the ties");
  const before = await globalOrder(x.id);
  const r = await callOk(A, owner, "set_task_queue_position", { taskId: x.id, userId: user, slotIndex: 2 });
  assert.equal(r.slotIndex, 2);
  assert.deepEqual(await queueOf(user), [ids[0], ids[1], x.id, ids[2], ids[3]]);
  assert.deepEqual(await globalOrder(x.id), before);
});

Deno.test("set_task_queue_position: refusals name the field", async () => {
  const t = await task("refusals");
  const args = { taskId: t.id, userId: f.users.member, slotIndex: 0 };
  for (
    const [bad, re] of [
      [{ slotIndex: -1 }, /slotIndex: must not be negative/],
      [{ slotIndex: 1.5 }, /slotIndex: must be an integer/],
      [{ userId: "x" }, /userId: must be a UUID/],
      [{ taskId: undefined }, /taskId/],
    ] as const
  ) {
    assert.match(
      await callFails(A, owner, "set_task_queue_position", { ...args, ...bad }, "invalid_input"),
      re,
    );
  }
  assert.match(
    await callFails(A, owner, "set_task_queue_position", { ...args, userId: MISSING }, "not_found"),
    /userId: no workspace member/,
  );
  assert.match(
    await callFails(A, owner, "set_task_queue_position", { ...args, taskId: MISSING }, "not_found"),
    /taskId/,
  );
  const inB = await callOk(A, owner, "create_task", { title: "in b", projectId: projB.id });
  assert.match(
    await callFails(
      A,
      owner,
      "set_task_queue_position",
      { ...args, taskId: inB.id, userId: f.users.limited },
      "invalid_input",
    ),
    /userId: .* may not see/,
  );
  await callFails(A, f.keys.limited, "set_task_queue_position", { ...args, taskId: inB.id }, "not_found");
  await callFails(A, f.other.key, "set_task_queue_position", args, "not_found");
});

Deno.test("move_task_to_focus: focus first, the previous focus back to todo at slot 1", async () => {
  const user = f.users.admin;
  const a: string[] = [];
  for (let i = 0; i < 3; i++) a.push((await task(`a${i}`, { assigneeIds: [user] })).id);
  const base = (await queueOf(user)).filter((id) => !a.includes(id));

  const one = await callOk(A, owner, "move_task_to_focus", { taskId: a[2], userId: user });
  assert.equal(one.task.status, "in_progress");
  assert.equal(one.demotedTaskId, null);
  assert.deepEqual((await queueOf(user)).slice(0, 1), [a[2]], "the focus task leads the queue");

  const n = await task("new focus", { status: "frozen" });
  const two = await callOk(A, owner, "move_task_to_focus", { taskId: n.id, userId: user });
  assert.equal(two.task.status, "in_progress");
  assert.deepEqual(two.task.assigneeIds, [user]);
  assert.equal(two.demotedTaskId, a[2]);
  const demoted = await callOk(A, owner, "get_task", { taskId: a[2] });
  assert.equal(demoted.status, "todo", "the previous focus goes back to todo");
  const queue = await queueOf(user);
  assert.deepEqual(queue.slice(0, 2), [n.id, a[2]], "at slot 1, right after the new focus");
  assert.deepEqual(
    queue.filter((id) => id !== n.id && id !== a[2]),
    [...base, a[0], a[1]].filter((id) => queue.includes(id)),
  );

  const same = await callOk(A, owner, "move_task_to_focus", { taskId: n.id, userId: user });
  assert.equal(same.demotedTaskId, null, "focusing the focus task again changes nothing");
  assert.deepEqual(await queueOf(user), queue);

  // Slot 0 is the focus task's while it is in focus.
  const put = await callOk(A, owner, "set_task_queue_position", { taskId: a[1], userId: user, slotIndex: 0 });
  assert.equal(put.slotIndex, 1);
  assert.deepEqual((await queueOf(user)).slice(0, 3), [n.id, a[1], a[2]]);
  // Queueing the focus task itself ends the focus.
  await callOk(A, owner, "set_task_queue_position", { taskId: n.id, userId: user, slotIndex: 1 });
  const [{ count }] = await db.sql`select count(*)::int from task_focus where user_id = ${user}`;
  assert.equal(count, 0);
  assert.deepEqual((await queueOf(user)).slice(0, 3), [a[1], n.id, a[2]]);

  // A focus task that is finished stops being a focus; the next focus demotes nothing.
  await callOk(A, owner, "move_task_to_focus", { taskId: a[0], userId: user });
  await callOk(A, owner, "update_task_status", { taskId: a[0], status: "done" });
  const after = await callOk(A, owner, "move_task_to_focus", { taskId: a[1], userId: user });
  assert.equal(after.demotedTaskId, null);
  assert.equal((await callOk(A, owner, "get_task", { taskId: a[0] })).status, "done");
});

Deno.test("move_task_to_focus: refusals", async () => {
  const t = await task("focus refusals");
  await callFails(A, owner, "move_task_to_focus", { taskId: t.id }, "invalid_input");
  await callFails(A, owner, "move_task_to_focus", { taskId: "x", userId: f.users.member }, "invalid_input");
  await callFails(A, owner, "move_task_to_focus", { taskId: MISSING, userId: f.users.member }, "not_found");
  await callFails(A, owner, "move_task_to_focus", { taskId: t.id, userId: f.other.ownerId }, "not_found");
  const inB = await callOk(A, owner, "create_task", { title: "in b", projectId: projB.id });
  await callFails(
    A,
    owner,
    "move_task_to_focus",
    { taskId: inB.id, userId: f.users.limited },
    "invalid_input",
  );
  await callFails(
    A,
    f.keys.ownerCompanyA,
    "move_task_to_focus",
    { taskId: inB.id, userId: f.users.owner },
    "not_found",
  );
  await callFails(
    A,
    f.other.key,
    "move_task_to_focus",
    { taskId: t.id, userId: f.other.ownerId },
    "not_found",
  );
});

Deno.test("gantt_plan: solid work, ghosts after it, missing estimate, late forecast, clipping, filters", async () => {
  // 2030-01-07 is a Monday. The manager's solid work ends Wednesday 9th, so ghosts start Thursday 10th
  // whatever today is (before 2030).
  const user = f.users.manager;
  const solid = await task("solid", {
    assigneeIds: [user],
    startDate: "2030-01-07",
    dueDate: "2030-01-09",
    status: "in_progress",
  });
  const a = await task("ghost a", { assigneeIds: [user], estimatedHours: 12 });
  const b = await callOk(A, owner, "create_task", { title: "ghost b", assigneeIds: [user] }); // no project, no estimate
  const c = await task("ghost c", { assigneeIds: [user], estimatedHours: 4, dueDate: "2030-01-10" });
  const unassigned = await task("nobody's", { startDate: "2030-01-08", estimatedHours: 20 });

  const plan = await callOk(A, owner, "gantt_plan", {
    from: "2030-01-01",
    to: "2030-01-31",
    targetUserId: user,
  });
  assert.equal(plan.from, "2030-01-01");
  assert.equal(plan.to, "2030-01-31");
  assert.match(plan.today, /^\d{4}-\d\d-\d\d$/);
  assert.deepEqual(
    plan.bars.map((x: Record<string, unknown>) => [x.taskId, x.kind, x.start, x.end, x.endsAfterDueDate]),
    [
      [solid.id, "solid", "2030-01-07", "2030-01-09", false],
      [a.id, "ghost", "2030-01-10", "2030-01-11", false], // 12h: Thu + half of Fri
      [b.id, "ghost", "2030-01-11", "2030-01-14", false], // 8h: rest of Fri + half of Mon
      [c.id, "ghost", "2030-01-14", "2030-01-14", true], // due the 10th: late
    ],
  );
  const bar = plan.bars[0];
  assert.equal(bar.displayId, solid.displayId);
  assert.equal(bar.userId, user);
  assert.equal(bar.userName, "manager");
  assert.equal(bar.status, "in_progress");
  assert.equal(bar.projectId, proj.id);
  assert.equal(plan.total, 4);
  assert.equal(plan.truncated, false);
  assert.ok(!plan.bars.some((x: { taskId: string }) => x.taskId === unassigned.id), "one user's lane only");

  const clipped = await callOk(A, owner, "gantt_plan", {
    from: "2030-01-08",
    to: "2030-01-11",
    targetUserId: user,
  });
  assert.deepEqual(
    clipped.bars.map((
      x: Record<string, unknown>,
    ) => [x.taskId, x.start, x.end, x.clippedStart, x.clippedEnd]),
    [
      [solid.id, "2030-01-08", "2030-01-09", true, false],
      [a.id, "2030-01-10", "2030-01-11", false, false],
      [b.id, "2030-01-11", "2030-01-11", false, true],
    ],
  );

  // Filters choose bars; the plan itself does not move.
  const todo = await callOk(A, owner, "gantt_plan", {
    from: "2030-01-01",
    to: "2030-01-31",
    targetUserId: user,
    statuses: ["todo"],
  });
  assert.deepEqual(todo.bars.map((x: { taskId: string; start: string }) => [x.taskId, x.start]), [
    [a.id, "2030-01-10"],
    [b.id, "2030-01-11"],
    [c.id, "2030-01-14"],
  ]);
  const inProject = await callOk(A, owner, "gantt_plan", {
    from: "2030-01-01",
    to: "2030-01-31",
    targetUserId: user,
    projectIds: [proj.id],
  });
  assert.ok(!inProject.bars.some((x: { taskId: string }) => x.taskId === b.id));
  assert.equal(inProject.bars.at(-1).start, "2030-01-14", "c keeps its place although b is hidden");
  const search = await callOk(A, owner, "gantt_plan", {
    from: "2030-01-01",
    to: "2030-01-31",
    targetUserId: user,
    search: "GHOST C",
  });
  assert.deepEqual(search.bars.map((x: { taskId: string }) => x.taskId), [c.id]);
  const limited = await callOk(A, owner, "gantt_plan", {
    from: "2030-01-01",
    to: "2030-01-31",
    targetUserId: user,
    limit: 2,
  });
  assert.equal(limited.bars.length, 2);
  assert.equal(limited.total, 4);
  assert.equal(limited.truncated, true);

  // Scopes: me is the caller's lane; all includes dated tasks nobody is assigned to (userId null).
  const mine = await callOk(A, await f.key({ user }), "gantt_plan", {
    from: "2030-01-01",
    to: "2030-01-31",
    taskScope: "me",
  });
  assert.deepEqual(
    mine.bars.map((x: { taskId: string }) => x.taskId),
    plan.bars.map((x: { taskId: string }) => x.taskId),
  );
  const all = await callOk(A, owner, "gantt_plan", { from: "2030-01-01", to: "2030-01-31" });
  const nobody = all.bars.find((x: { taskId: string }) => x.taskId === unassigned.id);
  assert.deepEqual([nobody.userId, nobody.kind, nobody.start, nobody.end], [
    null,
    "solid",
    "2030-01-08",
    "2030-01-10",
  ]);

  // The list tools show the same forecast.
  const listed = (await callOk(A, owner, "list_tasks", { targetUserId: user })).items;
  const late = Object.fromEntries(
    listed.map((t: { id: string; isForecastLate: boolean }) => [t.id, t.isForecastLate]),
  );
  assert.equal(late[c.id], true);
  assert.equal(late[a.id], false);
  assert.equal((await callOk(A, owner, "get_task", { taskId: c.id })).isForecastLate, true);
});

Deno.test("gantt_plan: my_team lanes, company scope and isolation", async () => {
  const [team] = await db.sql<{ id: string }[]>`
    insert into teams (workspace_id, name) values (${f.workspaceId}, 'Planners') returning id`;
  await db.sql`insert into team_members (workspace_id, team_id, user_id)
               values (${f.workspaceId}, ${team.id}, ${f.users.limited}), (${f.workspaceId}, ${team.id}, ${f.users.accounting})`;
  const forLimited = await task("limited's", { assigneeIds: [f.users.limited], startDate: "2031-03-03" });
  const forAccounting = await callOk(A, owner, "create_task", {
    title: "accounting's in b",
    projectId: projB.id,
    assigneeIds: [f.users.accounting],
    startDate: "2031-03-03",
  });
  const window = { from: "2031-03-01", to: "2031-03-31" };
  const ownerView = await callOk(A, owner, "gantt_plan", { ...window, taskScope: "all" });
  const ids = (p: { bars: { taskId: string }[] }) => p.bars.map((x) => x.taskId).sort();
  assert.deepEqual(ids(ownerView), [forLimited.id, forAccounting.id].sort());
  // limited shares a team with accounting, but may not see company b: only its own bar.
  const team1 = await callOk(A, f.keys.limited, "gantt_plan", { ...window, taskScope: "my_team" });
  assert.deepEqual(ids(team1), [forLimited.id]);
  const team2 = await callOk(A, owner, "gantt_plan", { ...window, taskScope: "my_team" });
  assert.deepEqual(ids(team2), [], "the owner is in no team: a team of one, with nothing planned");
  const other = await callOk(A, f.other.key, "gantt_plan", window);
  assert.deepEqual(other.bars, []);
});

Deno.test("gantt_plan: bad windows, statuses and users are refused naming the field", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ from: "2030-01-10", to: "2030-01-09" }, /to: must not be before from/],
    [{ from: "2030-02-30", to: "2030-03-01" }, /from: must be a date/],
    [{ from: "2030-01-01" }, /to/],
    [{ from: "2030-01-01", to: "2031-06-01" }, /to: the window may span at most 366 days/],
    [{ from: "2030-01-01", to: "2030-02-01", statuses: ["blocked"] }, /statuses.0/],
    [{ from: "2030-01-01", to: "2030-02-01", taskScope: "team" }, /taskScope/],
    [{ from: "2030-01-01", to: "2030-02-01", projectIds: ["x"] }, /projectIds.0: must be a UUID/],
    [{ from: "2030-01-01", to: "2030-02-01", limit: 0 }, /limit: must be at least 1/],
  ];
  for (const [args, re] of cases) {
    assert.match(await callFails(A, owner, "gantt_plan", args, "invalid_input"), re, JSON.stringify(args));
  }
  assert.match(
    await callFails(
      A,
      owner,
      "gantt_plan",
      { from: "2030-01-01", to: "2030-02-01", targetUserId: MISSING },
      "not_found",
    ),
    /targetUserId/,
  );
  await callFails(A, owner, "gantt_plan", {
    from: "2030-01-01",
    to: "2030-02-01",
    targetUserId: f.other.ownerId,
  }, "not_found");
  await callFails(
    A,
    f.keys.accounting,
    "gantt_plan",
    { from: "2030-01-01", to: "2030-02-01" },
    "access_denied",
  );
});

Deno.test("concurrent focus moves and placements for one person stay consistent", async () => {
  // On Postgres these run in parallel and serialise on the person's queue lock; on PGlite they queue up.
  const user = f.users.owner;
  const made: string[] = [];
  for (let i = 0; i < 10; i++) made.push((await task(`parallel ${i}`, { assigneeIds: [user] })).id);
  const moves = await Promise.all(
    made.map((id) => callOk(A, owner, "move_task_to_focus", { taskId: id, userId: user })),
  );
  const demoted = moves.map((m) => m.demotedTaskId).filter((id) => id !== null);
  assert.equal(demoted.length, 9, "every move but the first demoted the previous focus");
  const [{ n }] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from tasks where id = any(${made}::uuid[]) and status = 'in_progress'`;
  assert.equal(n, 1, "exactly one of them is still in progress: the focus");
  let focus = (await queueOf(user))[0];
  assert.ok(made.includes(focus));
  // Re-focusing the current focus while others move: the focus row is locked by both sides.
  const others = made.filter((id) => id !== focus).slice(0, 4);
  await Promise.all(
    [focus, ...others, focus].map((id) =>
      callOk(A, owner, "move_task_to_focus", { taskId: id, userId: user })
    ),
  );
  focus = (await queueOf(user))[0];
  const [{ m }] = await db.sql<{ m: number }[]>`
    select count(*)::int as m from tasks where id = any(${made}::uuid[]) and status = 'in_progress'`;
  assert.equal(m, 1);

  const placed = await Promise.all(
    made.filter((id) => id !== focus).map((id, i) =>
      callOk(A, owner, "set_task_queue_position", { taskId: id, userId: user, slotIndex: i % 3 })
    ),
  );
  assert.equal(placed.length, 9);
  const queue = await queueOf(user);
  assert.equal(queue[0], focus, "the focus keeps slot 0");
  for (const id of made) assert.ok(queue.includes(id));
  const sorts = await db.sql<
    { sort_order: number }[]
  >`select sort_order from tasks where id = any(${made}::uuid[])`;
  assert.equal(new Set(sorts.map((r) => r.sort_order)).size, 10, "no two placements picked the same gap");
});

Deno.test("a placement never takes the focus task's sortOrder (the focus shows first but keeps its own)", async () => {
  // A fresh person's tasks a, b, c, x, one sortOrder step apart; b in focus → queue b, a, c, x. Slot 2 lies
  // between a and c, whose midpoint is b's sortOrder: the gap must be taken in sortOrder terms, next to b.
  const [{ id: user }] = await db.sql<{ id: string }[]>`
    insert into users (email, name, password_hash) values ('gap@test.local', 'Gap', 'x') returning id`;
  await db.sql`insert into workspace_members (workspace_id, user_id, role)
               values (${f.workspaceId}, ${user}, 'member')`;
  const ids: string[] = [];
  for (const title of ["gap a", "gap b", "gap c", "gap x"]) {
    ids.push((await task(title, { assigneeIds: [user] })).id);
  }
  await callOk(A, owner, "move_task_to_focus", { taskId: ids[1], userId: user });
  const r = await callOk(A, owner, "set_task_queue_position", { taskId: ids[3], userId: user, slotIndex: 2 });
  assert.equal(r.slotIndex, 2);
  assert.deepEqual(await queueOf(user), [ids[1], ids[0], ids[3], ids[2]]);
  const sorts = await db.sql<
    { sort_order: number }[]
  >`select sort_order from tasks where id = any(${ids}::uuid[])`;
  assert.equal(new Set(sorts.map((s) => s.sort_order)).size, 4);
  // When the focus ends, b returns to where its own sortOrder puts it — between a and x, not tied with x.
  await callOk(A, owner, "update_task_status", { taskId: ids[1], status: "todo" });
  assert.deepEqual(await queueOf(user), [ids[0], ids[1], ids[3], ids[2]]);
});

Deno.test("two people swapping shared focus tasks at the same time do not deadlock", async () => {
  const [u1, u2] = [f.users.owner, f.users.guest];
  for (let round = 0; round < 5; round++) {
    const x = await task(`swap x ${round}`, { assigneeIds: [u1, u2] });
    const y = await task(`swap y ${round}`, { assigneeIds: [u1, u2] });
    await callOk(A, owner, "move_task_to_focus", { taskId: x.id, userId: u2 });
    await callOk(A, owner, "move_task_to_focus", { taskId: y.id, userId: u1 });
    // u1 takes x (u2's focus), u2 takes y (u1's focus): each demotes the other's new focus row.
    const [r1, r2] = await Promise.all([
      callOk(A, owner, "move_task_to_focus", { taskId: x.id, userId: u1 }),
      callOk(A, owner, "move_task_to_focus", { taskId: y.id, userId: u2 }),
    ]);
    assert.equal(r1.userId, u1);
    assert.equal(r2.userId, u2);
  }
});

Deno.test("a slot means the person's real queue, including tasks the caller cannot see", async () => {
  // A fresh person limited to company a, with nothing planned yet.
  const [{ id: user }] = await db.sql<{ id: string }[]>`
    insert into users (email, name, password_hash) values ('fresh@test.local', 'Fresh', 'x') returning id`;
  await db.sql`insert into workspace_members (workspace_id, user_id, role, company_ids)
               values (${f.workspaceId}, ${user}, 'member', ${[f.companies.a]})`;
  const key = await f.key({ user });
  const hidden = await callOk(A, key, "create_task", {
    title: "a private errand",
    isPrivate: true,
    assigneeIds: [user],
  });
  const visibleOne = await task("visible one", { assigneeIds: [user] });
  await callFails(A, owner, "get_task", { taskId: hidden.id }, "not_found");
  assert.deepEqual(await queueOf(user), [hidden.id, visibleOne.id]);
  const x = await task("owner's request");
  const r = await callOk(A, owner, "set_task_queue_position", { taskId: x.id, userId: user, slotIndex: 0 });
  assert.equal(r.slotIndex, 0);
  assert.equal(r.queueLength, 3);
  assert.deepEqual(await queueOf(user), [x.id, hidden.id, visibleOne.id], "first in the person's own queue");
  // The person's own plan shows it first; the owner's view of that lane simply lacks the private task.
  const from = new Date().toISOString().slice(0, 10);
  const to = new Date(Date.now() + 300 * 86_400_000).toISOString().slice(0, 10);
  const mine = await callOk(A, key, "gantt_plan", { from, to, taskScope: "me" });
  assert.deepEqual(mine.bars.map((b: { taskId: string }) => b.taskId), [x.id, hidden.id, visibleOne.id]);
  const theirs = await callOk(A, owner, "gantt_plan", { from, to, targetUserId: user });
  assert.deepEqual(theirs.bars.map((b: { taskId: string }) => b.taskId), [x.id, visibleOne.id]);
});

Deno.test("move_task_to_focus: a dated focus task is demoted to slot 1 of the queue, without its start date", async () => {
  const user = f.users.manager;
  const queued = (await task("queued", { assigneeIds: [user] })).id;
  const dated =
    (await task("dated focus", { assigneeIds: [user], startDate: "2026-05-04", dueDate: "2026-05-08" }))
      .id;
  await callOk(A, owner, "move_task_to_focus", { taskId: dated, userId: user });
  const next = (await task("next focus", { assigneeIds: [user] })).id;
  const r = await callOk(A, owner, "move_task_to_focus", { taskId: next, userId: user });
  assert.equal(r.demotedTaskId, dated);
  const demoted = await callOk(A, owner, "get_task", { taskId: dated });
  assert.equal(demoted.status, "todo");
  assert.equal(demoted.startDate, null, "a queued task is undated, so it leaves the timeline");
  assert.equal(demoted.dueDate, "2026-05-08", "the due date stays");
  const queue = await queueOf(user);
  assert.deepEqual(queue.slice(0, 2), [next, dated], "slot 1, right after the new focus");
  assert.ok(queue.indexOf(queued) > 1);
  const plan = await callOk(A, owner, "gantt_plan", {
    from: "2026-01-01",
    to: "2026-12-31",
    targetUserId: user,
  });
  const bars = plan.bars.filter((b: { taskId: string }) => b.taskId === dated);
  assert.ok(bars.every((b: { kind: string }) => b.kind === "ghost"), "no solid bar for the demoted task");
});
