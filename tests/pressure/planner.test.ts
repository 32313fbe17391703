// A planner no member can break: the attack shape of issue 13 (thousands of huge queued tasks on a colleague,
// inserted in SQL past every bound), extreme values already in the database, and writes that never report
// failure after their commit.
import assert from "node:assert/strict";
import { PLAN_HORIZON_YEARS } from "../../lib/workspace/gantt.ts";
import { MAX_TASK_ESTIMATE_HOURS } from "../../lib/workspace/task_rows.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, callTool, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const B = mcpApp(db.sql, "B");
const today = new Date().toISOString().slice(0, 10);
const horizon = `${Number(today.slice(0, 4)) + PLAN_HORIZON_YEARS}${today.slice(4)}`.replace(
  "-02-29",
  "-03-01",
);

const ATTACK_TASKS = 5_700;

/** The guest's queued tasks for the member, inserted in SQL: 100,000 h each, plus values no tool accepts. */
async function attack(): Promise<void> {
  const seed = await callOk(A, f.keys.guest, "create_task", {
    title: "guest seed",
    estimatedHours: MAX_TASK_ESTIMATE_HOURS,
    assigneeIds: [f.users.member],
    companyId: f.companies.a,
  });
  await db.sql`
    insert into tasks (workspace_id, company_id, title, status, estimated_hours, sort_order, created_by)
    select ${f.workspaceId}, ${f.companies.a}, 'flood ' || g, 'todo', 100000, 1e6 + g, ${f.users.guest}
      from generate_series(1, ${ATTACK_TASKS}) g`;
  // Values only SQL can write: the largest numeric(10,2), NaN estimates and sort orders, infinite sort orders,
  // dates before year 1, after 9999, and infinity.
  await db.sql`
    insert into tasks (workspace_id, company_id, title, status, estimated_hours, sort_order, start_date, due_date,
                       created_by)
    values (${f.workspaceId}, ${f.companies.a}, 'max estimate', 'todo', 99999999.99, 'Infinity', null, null,
            ${f.users.guest}),
           (${f.workspaceId}, ${f.companies.a}, 'nan', 'in_progress', 'NaN', 'NaN', null, '0044-03-15 BC',
            ${f.users.guest}),
           (${f.workspaceId}, ${f.companies.a}, 'bc start', 'todo', 99999999.99, '-Infinity', '0044-03-15 BC',
            null, ${f.users.guest}),
           (${f.workspaceId}, ${f.companies.a}, 'far start', 'todo', null, 0, '12345-06-01', 'infinity',
            ${f.users.guest})`;
  await db.sql`
    insert into task_assignees (workspace_id, task_id, user_id)
    select workspace_id, id, ${f.users.member} from tasks
     where workspace_id = ${f.workspaceId} and created_by = ${f.users.guest} and id <> ${seed.id}`;
}

await attack();

Deno.test("estimatedHours above the documented maximum is invalid_input naming it", async () => {
  for (
    const [tool, args] of [
      ["create_task", { title: "too big", estimatedHours: MAX_TASK_ESTIMATE_HOURS + 0.01 }],
      ["create_task", { title: "too big", estimatedHours: 100_000 }],
    ] as const
  ) {
    const text = await callFails(A, f.keys.guest, tool, args, "invalid_input");
    assert.equal(text, `invalid_input: estimatedHours: must be at most ${MAX_TASK_ESTIMATE_HOURS}`);
  }
  const [t] = ((await callOk(A, f.keys.owner, "list_tasks", { limit: 1 })).items) as { id: string }[];
  const text = await callFails(A, f.keys.owner, "update_task", {
    taskId: t.id,
    estimatedHours: 1e6,
  }, "invalid_input");
  assert.equal(text, `invalid_input: estimatedHours: must be at most ${MAX_TASK_ESTIMATE_HOURS}`);
  const listed = await db.sql`select 1 from tasks where title = 'too big'`;
  assert.equal(listed.length, 0);
});

Deno.test("after the attack every task tool answers, for every role, in both variants", async () => {
  const [{ n }] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from task_assignees where user_id = ${f.users.member}`;
  assert.equal(n, ATTACK_TASKS + 5);
  const callers = [
    ["A", A, f.keys.owner],
    ["A", A, f.keys.member],
    ["A", A, f.keys.guest],
    ["A", A, f.keys.limited],
    ["B", B, f.keys.internal],
  ] as const;
  for (const [variant, app, key] of callers) {
    const what = `${variant} ${key === f.keys.owner ? "owner" : key.slice(0, 8)}`;
    const listed = (await callOk(app, key, "list_tasks", { limit: 50 })).items;
    assert.equal(listed.length, 50, what);
    const target = listed.find((t: { title: string }) => t.title.startsWith("flood"));
    assert.ok(target, what);
    if (variant === "A") {
      // Forecast late is computed over the whole flooded lane.
      assert.equal(typeof target.isForecastLate, "boolean", what);
    }
    const got = await callOk(app, key, "get_task", { taskId: target.id });
    assert.equal(got.id, target.id, what);
    assert.deepEqual((await callOk(app, key, "list_subtasks", { parentTaskId: target.id })).items, [], what);

    // A write answers success exactly once and stores exactly one row.
    const title = `after attack ${crypto.randomUUID()}`;
    const made = await callOk(app, key, "create_task", {
      title,
      assigneeIds: [f.users.member],
      ...(key === f.keys.limited ? {} : { companyId: f.companies.a }),
      estimatedHours: 8,
    });
    assert.equal(made.title, title, what);
    assert.equal(made.saved, undefined, what);
    const rows = await db.sql`select id from tasks where title = ${title}`;
    assert.deepEqual(rows.map((r) => r.id), [made.id], what);

    const sub = await callOk(app, key, "create_subtask", { parentTaskId: made.id, title: "sub" });
    assert.equal(sub.parentTaskId, made.id, what);
    const upd = await callOk(app, key, "update_task", {
      taskId: made.id,
      estimatedHours: 16,
      dueDate: "2030-01-01",
    });
    assert.equal(upd.estimatedHours, 16, what);
    const st = await callOk(app, key, "update_task_status", { taskId: made.id, status: "in_progress" });
    assert.equal(st.status, "in_progress", what);
    if (variant === "A") {
      const q = await callOk(app, key, "set_task_queue_position", {
        taskId: made.id,
        userId: f.users.member,
        slotIndex: 3,
      });
      assert.equal(q.slotIndex, 3, what);
      assert.equal(q.task.id, made.id, what);
      const focus = await callOk(app, key, "move_task_to_focus", { taskId: made.id, userId: f.users.member });
      assert.equal(focus.task.status, "in_progress", what);

      const plan = await callOk(app, key, "gantt_plan", {
        from: today,
        to: `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`.replace("-02-29", "-02-28"),
        targetUserId: f.users.member,
        limit: 5000,
      });
      assert.equal(plan.horizon, horizon, what);
      // The focus task and the solid work up to 9999 are planned; the flood waits beyond the horizon.
      assert.ok(plan.beyondHorizonTotal >= ATTACK_TASKS, `${what}: ${plan.beyondHorizonTotal}`);
      assert.equal(plan.beyondHorizon.length, 100, what);
      assert.equal(plan.beyondHorizon[0].userId, f.users.member, what);
      assert.equal(plan.beyondHorizon[0].userName, "member", what);
      for (const b of plan.bars) {
        assert.ok(b.start <= b.end && b.end <= plan.to, `${what}: ${JSON.stringify(b)}`);
      }
    }
  }
});

Deno.test("gantt_plan over the whole workspace and windows at the ends of the calendar answer", async () => {
  for (const [from, to] of [["0001-01-01", "0001-12-31"], ["9999-01-01", "9999-12-31"], [today, today]]) {
    const plan = await callOk(A, f.keys.owner, "gantt_plan", { from, to, limit: 10 });
    assert.equal(plan.from, from);
    assert.ok(plan.bars.length <= 10);
    assert.ok(plan.beyondHorizonTotal >= ATTACK_TASKS);
  }
  const far = await callOk(A, f.keys.owner, "gantt_plan", {
    from: "9999-01-01",
    to: "9999-12-31",
    limit: 10,
  });
  // Solid work of the far-start and BC-start tasks reaches 9999-12-31; ghosts never get there.
  assert.ok(far.bars.every((b: { kind: string }) => b.kind === "solid"), JSON.stringify(far.bars));
  assert.ok(far.bars.some((b: { title: string }) => b.title === "far start"));
});

Deno.test("a write whose read-back fails after the commit answers success with what is known, once", async () => {
  // Reading a task back reads its comments, which no task write touches: without that table the writes still
  // commit, and only the read-back fails.
  await db.sql`alter table task_comments rename to task_comments_away`;
  try {
    for (const [variant, app, key] of [["A", A, f.keys.owner], ["B", B, f.keys.internal]] as const) {
      const title = `read-back ${variant}`;
      const r = await callTool(app, key, "create_task", { title, estimatedHours: 4 });
      assert.equal(r.isError, false, r.text);
      const rows = await db.sql<{ id: string }[]>`select id from tasks where title = ${title}`;
      assert.equal(rows.length, 1);
      assert.equal(r.data.id, rows[0].id);
      assert.equal(r.data.saved, true);
      assert.equal(r.data.title, title);
      assert.equal(r.data.estimatedHours, 4);
      assert.match(r.data.note, /was saved.*get_task/);

      const u = await callTool(app, key, "update_task", { taskId: rows[0].id, priority: "high" });
      assert.equal(u.isError, false, u.text);
      assert.deepEqual({ id: u.data.id, saved: u.data.saved, priority: u.data.priority }, {
        id: rows[0].id,
        saved: true,
        priority: "high",
      });
      const [stored] = await db.sql`select priority from tasks where id = ${rows[0].id}`;
      assert.equal(stored.priority, "high");

      const s = await callTool(app, key, "update_task_status", { taskId: rows[0].id, status: "done" });
      assert.equal(s.isError, false, s.text);
      assert.equal(s.data.status, "done");
    }
  } finally {
    await db.sql`alter table task_comments_away rename to task_comments`;
  }
  // Reads work again once the table is back.
  const [row] = await db.sql<{ id: string }[]>`select id from tasks where title = 'read-back A'`;
  const read = await callOk(A, f.keys.owner, "get_task", { taskId: row.id });
  assert.equal(read.status, "done");
});
