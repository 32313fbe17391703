// Task tools: create/get/list/subtasks/update/status in both variants — happy path, bad input, not_found,
// company scope, workspace isolation, privacy and the subtask rules.
import assert from "node:assert/strict";
import { createApiKey } from "../../lib/api_keys.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  buildFixture,
  callFails,
  callOk,
  callTool,
  listedTools,
  mcpApp,
  type Variant,
} from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };
const both: Variant[] = ["A", "B"];
/** A key that may create (user context) and read in each variant. */
const writer = { A: f.keys.owner, B: f.keys.internal };
const MISSING = "00000000-0000-4000-8000-000000000000";

const projA = await callOk(apps.A, f.keys.owner, "create_project", {
  name: "Web",
  companyId: f.companies.a,
  taskPrefix: "WEB",
});
const projB = await callOk(apps.A, f.keys.owner, "create_project", {
  name: "Ops",
  companyId: f.companies.b,
  taskPrefix: "OPS",
});
const projA2 = await callOk(apps.A, f.keys.owner, "create_project", {
  name: "Web 2",
  companyId: f.companies.a,
  taskPrefix: "WEBTWO",
});
const otherProject = await callOk(apps.A, f.other.key, "create_project", {
  name: "Elsewhere",
  taskPrefix: "ELS",
});

Deno.test("create_task: every field, numbered per project, A and B answer shapes", async () => {
  const a = await callTool(apps.A, writer.A, "create_task", {
    title: "  Homepage  ",
    description: "Hero and menu",
    status: "frozen",
    priority: "high",
    estimatedHours: 12.5,
    startDate: "2030-03-04",
    dueDate: "2030-03-08",
    projectId: projA.id.toUpperCase(),
    assigneeIds: [f.users.member, f.users.member, f.users.limited],
    isPrivate: false,
  });
  assert.equal(a.isError, false, a.text);
  assert.deepEqual(a.structuredContent, a.data);
  const t = a.data;
  assert.equal(t.title, "Homepage", "trimmed");
  assert.equal(t.status, "frozen");
  assert.equal(t.priority, "high");
  assert.equal(t.estimatedHours, 12.5);
  assert.equal(t.startDate, "2030-03-04");
  assert.equal(t.dueDate, "2030-03-08");
  assert.equal(t.projectId, projA.id);
  assert.equal(t.projectName, "Web");
  assert.equal(t.companyId, f.companies.a, "a project task takes its project's company");
  assert.equal(t.number, 1);
  assert.equal(t.displayId, "WEB-1");
  assert.equal(t.isOverdue, false);
  assert.equal(t.isForecastLate, false);
  assert.deepEqual(t.assigneeIds, [f.users.member, f.users.limited].sort(), "deduplicated");
  assert.deepEqual(t.assignees.map((x: { userId: string }) => x.userId).sort(), t.assigneeIds);
  assert.equal(t.createdBy, f.users.owner);
  assert.deepEqual(t.subtasks, []);
  assert.deepEqual(t.comments, []);

  const b = await callOk(apps.B, writer.B, "create_task", {
    title: "From B",
    projectId: projA.id,
    status: "done",
  });
  assert.equal(b.number, 2, "the next number of the same project");
  assert.equal(b.status, "done");
  assert.equal(b.priority, "medium");
  assert.equal(b.createdBy, f.users.owner, "the internal key acts as its user");
  for (const field of ["displayId", "isOverdue", "isForecastLate"]) assert.ok(!(field in b), field);

  const other = await callOk(apps.A, writer.A, "create_task", { title: "Ops 1", projectId: projB.id });
  assert.equal(other.number, 1, "numbering is per project");
  assert.equal(other.displayId, "OPS-1");

  const loose = await callOk(apps.A, writer.A, "create_task", { title: "No project" });
  assert.equal(loose.number, null);
  assert.equal(loose.displayId, null);
  assert.equal(loose.companyId, null, "an unlimited key creates a company-less task");
  const looseA = await callOk(apps.A, writer.A, "create_task", {
    title: "No project, A",
    companyId: f.companies.a,
  });
  assert.equal(looseA.companyId, f.companies.a);
  const byLimited = await callOk(apps.A, f.keys.limited, "create_task", { title: "Limited's own" });
  assert.equal(byLimited.companyId, f.companies.a, "a key limited to one company creates in it");
});

Deno.test("create_task: bad input names the field", async () => {
  const cases: [Variant, Record<string, unknown>, RegExp][] = [
    ["A", {}, /title/],
    ["A", { title: "   " }, /title: must not be empty/],
    ["A", { title: "x".repeat(501) }, /title: must be at most 500/],
    ["A", { title: "t", status: "blocked" }, /status/],
    ["B", { title: "t", status: "frozen" }, /status/],
    ["B", { title: "t", startDate: "2030-01-01" }, /unknown field startDate/],
    ["A", { title: "t", priority: "critical" }, /priority/],
    ["A", { title: "t", dueDate: "2026-02-30" }, /dueDate: must be a date/],
    [
      "A",
      { title: "t", startDate: "2030-01-02", dueDate: "2030-01-01" },
      /dueDate: must not be before startDate/,
    ],
    ["A", { title: "t", estimatedHours: -1 }, /estimatedHours: must not be negative/],
    ["A", { title: "t", projectId: "nope" }, /projectId: must be a UUID/],
    ["A", { title: "t", assigneeIds: ["nope"] }, /assigneeIds.0: must be a UUID/],
    ["A", { title: "t", bogus: 1 }, /unknown field bogus/],
    ["A", { title: "t", projectId: projB.id, companyId: f.companies.a }, /companyId/],
  ];
  for (const [v, args, re] of cases) {
    const text = await callFails(apps[v], writer[v], "create_task", args, "invalid_input");
    assert.match(text, re, JSON.stringify(args));
  }
});

Deno.test("create_task: unknown project, company or assignee → not_found naming the field", async () => {
  for (const v of both) {
    assert.match(
      await callFails(apps[v], writer[v], "create_task", { title: "t", projectId: MISSING }, "not_found"),
      /projectId/,
    );
    assert.match(
      await callFails(
        apps[v],
        writer[v],
        "create_task",
        { title: "t", projectId: otherProject.id },
        "not_found",
      ),
      /projectId/,
      "a project of another workspace is unknown here",
    );
    assert.match(
      await callFails(apps[v], writer[v], "create_task", { title: "t", assigneeIds: [MISSING] }, "not_found"),
      /assigneeIds: no workspace member/,
    );
    assert.match(
      await callFails(
        apps[v],
        writer[v],
        "create_task",
        { title: "t", assigneeIds: [f.other.ownerId] },
        "not_found",
      ),
      /assigneeIds/,
      "a member of another workspace is not a member here",
    );
  }
  assert.match(
    await callFails(
      apps.A,
      writer.A,
      "create_task",
      { title: "t", companyId: f.other.companyId },
      "not_found",
    ),
    /company/,
  );
});

Deno.test("assignees must be able to see the task's company", async () => {
  // limited is a member of company a only.
  assert.match(
    await callFails(
      apps.A,
      writer.A,
      "create_task",
      { title: "t", projectId: projB.id, assigneeIds: [f.users.limited] },
      "invalid_input",
    ),
    /assigneeIds: user .* may not see the task's company/,
  );
  assert.match(
    await callFails(
      apps.A,
      writer.A,
      "create_task",
      { title: "t", assigneeIds: [f.users.limited] },
      "invalid_input",
    ),
    /assigneeIds: .*without a company/,
  );
  // A key limited to company a may not even name a member limited to company b.
  const bOnly = (await db.sql<{ id: string }[]>`
    insert into users (email, name, password_hash) values ('bonly@test.local', 'B only', 'x') returning id`)[
    0
  ].id;
  await db.sql`insert into workspace_members (workspace_id, user_id, role, company_ids)
               values (${f.workspaceId}, ${bOnly}, 'member', ${[f.companies.b]})`;
  await callFails(
    apps.A,
    f.keys.ownerCompanyA,
    "create_task",
    { title: "t", assigneeIds: [bOnly] },
    "not_found",
  );
  const ok = await callOk(apps.A, writer.A, "create_task", {
    title: "t",
    projectId: projB.id,
    assigneeIds: [bOnly],
  });
  assert.deepEqual(ok.assigneeIds, [bOnly]);
});

Deno.test("get_task: subtasks, comments and assignees; not_found for unknown, other workspace, other company", async () => {
  const parent = await callOk(apps.A, writer.A, "create_task", {
    title: "Parent",
    projectId: projA.id,
    assigneeIds: [f.users.admin],
  });
  const sub = await callOk(apps.A, writer.A, "create_subtask", { parentTaskId: parent.id, title: "Child" });
  await db.sql`insert into task_comments (workspace_id, task_id, author_id, body)
               values (${f.workspaceId}, ${parent.id}, ${f.users.admin}, 'Looks good')`;
  for (const v of both) {
    const t = await callOk(apps[v], v === "A" ? f.keys.owner : f.keys.workspace, "get_task", {
      taskId: parent.id,
    });
    assert.equal(t.title, "Parent");
    assert.deepEqual(t.subtasks.map((s: { id: string }) => s.id), [sub.id]);
    assert.equal(t.childTaskCount, 1);
    assert.equal(t.comments.length, 1);
    assert.equal(t.comments[0].body, "Looks good");
    assert.equal(t.comments[0].authorId, f.users.admin);
    assert.equal(t.comments[0].authorName, "admin");
    assert.deepEqual(t.assignees.map((a: { userId: string; name: string }) => [a.userId, a.name]), [
      [f.users.admin, "admin"],
    ]);
    await callFails(
      apps[v],
      v === "A" ? f.keys.owner : f.keys.workspace,
      "get_task",
      { taskId: MISSING },
      "not_found",
    );
    assert.match(
      await callFails(
        apps[v],
        v === "A" ? f.keys.owner : f.keys.workspace,
        "get_task",
        { taskId: "x" },
        "invalid_input",
      ),
      /taskId: must be a UUID/,
    );
  }
  await callFails(apps.A, f.other.key, "get_task", { taskId: parent.id }, "not_found");
  const inB = await callOk(apps.A, writer.A, "create_task", { title: "B's", projectId: projB.id });
  await callFails(apps.A, f.keys.limited, "get_task", { taskId: inB.id }, "not_found");
  await callFails(apps.A, f.keys.ownerCompanyA, "get_task", { taskId: inB.id }, "not_found");
  await callFails(apps.B, f.keys.workspaceCompanyA, "get_task", { taskId: inB.id }, "not_found");
  assert.equal((await callOk(apps.A, f.keys.limited, "get_task", { taskId: parent.id })).id, parent.id);
});

Deno.test("subtasks: inherit the project, one level only, listed by list_subtasks, not by list_tasks", async () => {
  for (const v of both) {
    const parent = await callOk(apps[v], writer[v], "create_task", {
      title: `Epic ${v}`,
      projectId: projA2.id,
    });
    const s1 = await callOk(apps[v], writer[v], "create_subtask", {
      parentTaskId: parent.id,
      title: "Step 1",
      estimatedHours: 3,
      status: "in_progress",
      assigneeIds: [f.users.member],
    });
    assert.equal(s1.parentTaskId, parent.id);
    assert.equal(s1.projectId, projA2.id, "inherits the parent's project");
    assert.equal(s1.companyId, f.companies.a);
    assert.equal(s1.number, parent.number + 1, "subtasks number in the project like tasks");
    const s2 = await callOk(apps[v], writer[v], "create_subtask", {
      parentTaskId: parent.id,
      title: "Step 2",
    });
    assert.match(
      await callFails(
        apps[v],
        writer[v],
        "create_subtask",
        { parentTaskId: s1.id, title: "Too deep" },
        "invalid_input",
      ),
      /parentTaskId: .* is itself a subtask/,
    );
    await callFails(apps[v], writer[v], "create_subtask", { parentTaskId: MISSING, title: "x" }, "not_found");
    await callFails(apps[v], writer[v], "create_subtask", { parentTaskId: parent.id }, "invalid_input");
    if (v === "B") {
      await callFails(
        apps.B,
        writer.B,
        "create_subtask",
        { parentTaskId: parent.id, title: "x", status: "frozen" },
        "invalid_input",
      );
    }
    const subs = await callOk(apps[v], writer[v], "list_subtasks", { parentTaskId: parent.id });
    // The page shape, and short rows: what picks a subtask; get_task has the rest.
    const row1 = {
      id: s1.id,
      ...(v === "A" ? { displayId: `WEBTWO-${s1.number}` } : {}),
      title: "Step 1",
      status: "in_progress",
      priority: "medium",
      startDate: null,
      dueDate: null,
      projectId: projA2.id,
      projectName: "Web 2",
      assigneeIds: [f.users.member],
      childTaskCount: 0,
      ...(v === "A" ? { isOverdue: false, isForecastLate: false } : {}),
    };
    assert.deepEqual(subs, {
      items: [row1, {
        ...row1,
        id: s2.id,
        title: "Step 2",
        status: "todo",
        assigneeIds: [],
        ...(v === "A" ? { displayId: `WEBTWO-${s2.number}` } : {}),
      }],
      total: 2,
      limit: 100,
      offset: 0,
      hasMore: false,
      nextOffset: null,
    });
    const first = await callOk(apps[v], writer[v], "list_subtasks", { parentTaskId: parent.id, limit: 1 });
    assert.deepEqual([
      first.items.map((s: { id: string }) => s.id),
      first.total,
      first.hasMore,
      first.nextOffset,
    ], [[s1.id], 2, true, 1]);
    const next = await callOk(apps[v], writer[v], "list_subtasks", {
      parentTaskId: parent.id,
      limit: 1,
      offset: 1,
    });
    assert.deepEqual([next.items.map((s: { id: string }) => s.id), next.hasMore, next.nextOffset], [
      [s2.id],
      false,
      null,
    ]);
    await callFails(
      apps[v],
      writer[v],
      "list_subtasks",
      { parentTaskId: parent.id, limit: 501 },
      "invalid_input",
    );
    await callFails(apps[v], writer[v], "list_subtasks", { parentTaskId: MISSING }, "not_found");
    await callFails(apps[v], writer[v], "list_subtasks", { parentTaskId: "nope" }, "invalid_input");
    const listed = (await callOk(
      apps[v],
      writer[v],
      "list_tasks",
      v === "A" ? { projectIds: [projA2.id] } : {
        projectId: projA2.id,
      },
    )).items;
    assert.ok(!listed.some((t: { id: string }) => t.id === s1.id || t.id === s2.id), "top-level only");
    const row = listed.find((t: { id: string }) => t.id === parent.id);
    assert.deepEqual(row, {
      id: parent.id,
      ...(v === "A" ? { displayId: `WEBTWO-${parent.number}` } : {}),
      title: `Epic ${v}`,
      status: "todo",
      priority: "medium",
      startDate: null,
      dueDate: null,
      projectId: projA2.id,
      projectName: "Web 2",
      assigneeIds: [],
      childTaskCount: 2,
      ...(v === "A" ? { isOverdue: false, isForecastLate: false } : {}),
    });
  }
  await callFails(apps.A, f.other.key, "list_subtasks", { parentTaskId: MISSING }, "not_found");
});

Deno.test("private tasks: only their creator and assignees see them (and their subtask counts)", async () => {
  const key = await f.key({ user: f.users.manager });
  const priv = await callOk(apps.A, key, "create_task", {
    title: "Secret",
    projectId: projA.id,
    isPrivate: true,
    assigneeIds: [f.users.member],
  });
  const parent = await callOk(apps.A, writer.A, "create_task", { title: "Open parent", projectId: projA.id });
  await callOk(apps.A, key, "create_subtask", {
    parentTaskId: parent.id,
    title: "Private child",
    isPrivate: true,
  });
  for (
    const [k, sees] of [[key, true], [f.keys.member, true], [f.keys.owner, false], [
      f.keys.admin,
      false,
    ]] as const
  ) {
    const list = (await callOk(apps.A, k, "list_tasks", { projectIds: [projA.id] })).items;
    assert.equal(list.some((t: { id: string }) => t.id === priv.id), sees);
    const r = await callTool(apps.A, k, "get_task", { taskId: priv.id });
    assert.equal(r.isError, !sees, r.text);
    const p = list.find((t: { id: string }) => t.id === parent.id);
    assert.equal(p.childTaskCount, k === key ? 1 : 0);
  }
  // Workspace keys (variant B) act for nobody: they see no private task.
  const bList = (await callOk(apps.B, f.keys.workspace, "list_tasks", { projectId: projA.id })).items;
  assert.ok(!bList.some((t: { id: string }) => t.id === priv.id));
  await callFails(apps.A, f.keys.owner, "update_task", { taskId: priv.id, title: "x" }, "not_found");

  // A subtask of a private task is private unless asked otherwise; making a task private hides it again.
  const inherited = await callOk(apps.A, key, "create_subtask", {
    parentTaskId: priv.id,
    title: "Secret step",
  });
  assert.equal(inherited.isPrivate, true);
  await callFails(apps.A, f.keys.owner, "get_task", { taskId: inherited.id }, "not_found");
  const open = await callOk(apps.A, key, "create_subtask", {
    parentTaskId: priv.id,
    title: "Open",
    isPrivate: false,
  });
  assert.equal(open.isPrivate, false);
  assert.equal((await callOk(apps.A, f.keys.owner, "get_task", { taskId: open.id })).id, open.id);
  await callOk(apps.A, key, "update_task", { taskId: open.id, isPrivate: true });
  await callFails(apps.A, f.keys.owner, "get_task", { taskId: open.id }, "not_found");
  // Nobody hides a task from themselves by accident: the change is refused and nothing changes.
  const mine = await callOk(apps.A, key, "create_task", { title: "Shared", projectId: projA.id });
  assert.match(
    await callFails(
      apps.A,
      f.keys.owner,
      "update_task",
      { taskId: mine.id, isPrivate: true },
      "invalid_input",
    ),
    /isPrivate: the task would be private and hidden from you/,
  );
  assert.equal((await callOk(apps.A, f.keys.owner, "get_task", { taskId: mine.id })).isPrivate, false);
  const ownersPrivate = await callOk(apps.A, f.keys.owner, "update_task", {
    taskId: mine.id,
    isPrivate: true,
    assigneeIds: [f.users.owner],
  });
  assert.equal(ownersPrivate.isPrivate, true);
  assert.match(
    await callFails(
      apps.A,
      f.keys.owner,
      "update_task",
      { taskId: mine.id, assigneeIds: [] },
      "invalid_input",
    ),
    /assigneeIds: the task would be private/,
  );
});

Deno.test("list_tasks (A): scope me / my_team / all, targetUserId, query, number, prefix, overdue", async () => {
  const p = await callOk(apps.A, f.keys.owner, "create_project", { name: "Filters", taskPrefix: "FLT" });
  const mk = (title: string, extra: Record<string, unknown> = {}) =>
    callOk(apps.A, writer.A, "create_task", { title, projectId: p.id, ...extra });
  const mine = await mk("Mine: invoice layout", { assigneeIds: [f.users.owner] });
  const mates = await mk("Teammate's", { assigneeIds: [f.users.admin], description: "about the CSV export" });
  const stranger = await mk("Stranger's", { assigneeIds: [f.users.guest], dueDate: "2020-01-01" });
  const doneLate = await mk("Done long ago", { dueDate: "2020-01-01", status: "done" });
  const [team] = await db.sql<{ id: string }[]>`
    insert into teams (workspace_id, name) values (${f.workspaceId}, 'Core') returning id`;
  await db.sql`insert into team_members (workspace_id, team_id, user_id)
               values (${f.workspaceId}, ${team.id}, ${f.users.owner}), (${f.workspaceId}, ${team.id}, ${f.users.admin})`;
  const ids = async (args: Record<string, unknown>) =>
    (await callOk(apps.A, f.keys.owner, "list_tasks", { projectIds: [p.id], ...args })).items
      .map((t: { id: string }) => t.id).sort();
  assert.deepEqual(await ids({ taskScope: "me" }), [mine.id]);
  assert.deepEqual(await ids({ taskScope: "my_team" }), [mine.id, mates.id].sort());
  assert.deepEqual(await ids({ taskScope: "all" }), [mine.id, mates.id, stranger.id, doneLate.id].sort());
  assert.deepEqual(await ids({}), await ids({ taskScope: "all" }), "default all");
  assert.deepEqual(await ids({ targetUserId: f.users.guest }), [stranger.id]);
  assert.deepEqual(await ids({ query: "INVOICE" }), [mine.id], "case-insensitive title search");
  assert.deepEqual(await ids({ query: "csv" }), [mates.id], "description search");
  assert.deepEqual(await ids({ query: "100%" }), [], "LIKE wildcards are literal");
  assert.deepEqual(await ids({ query: `flt-${stranger.number}` }), [stranger.id], "display id in the query");
  assert.deepEqual(await ids({ taskNumber: mates.number }), [mates.id]);
  assert.deepEqual(
    (await callOk(apps.A, f.keys.owner, "list_tasks", { projectPrefix: "flt", taskNumber: mine.number }))
      .items
      .map((t: { id: string }) => t.id),
    [mine.id],
  );
  assert.deepEqual(await ids({ overdue: true }), [stranger.id], "done tasks are never overdue");
  assert.equal((await ids({ overdue: false })).length, 3);
  const row = (await callOk(apps.A, f.keys.owner, "list_tasks", { projectIds: [p.id] })).items
    .find((t: { id: string }) => t.id === stranger.id);
  assert.equal(row.isOverdue, true);
  assert.equal(row.displayId, `FLT-${stranger.number}`);
  assert.equal(row.isForecastLate, true, "queued for the guest, due in 2020");

  for (
    const [args, re] of [
      [{ taskScope: "mine" }, /taskScope/],
      [{ projectIds: [] }, /projectIds: must not be empty/],
      [{ projectIds: ["x"] }, /projectIds.0: must be a UUID/],
      [{ taskNumber: 0 }, /taskNumber: must be at least 1/],
      [{ projectPrefix: "W" }, /projectPrefix/],
      [{ overdue: "yes" }, /overdue/],
      [{ limit: 501 }, /limit: must be at most 500/],
      [{ projectId: p.id }, /unknown field projectId/],
    ] as const
  ) {
    assert.match(await callFails(apps.A, f.keys.owner, "list_tasks", args, "invalid_input"), re);
  }
  assert.match(
    await callFails(apps.A, f.keys.owner, "list_tasks", { targetUserId: MISSING }, "not_found"),
    /targetUserId/,
  );
  assert.match(
    await callFails(apps.A, f.keys.owner, "list_tasks", { targetUserId: f.other.ownerId }, "not_found"),
    /targetUserId/,
  );
});

Deno.test("list_tasks (B): projectId filter, limits, and the B shape", async () => {
  const list = (await callOk(apps.B, f.keys.workspace, "list_tasks", { projectId: projB.id })).items;
  assert.ok(list.length >= 1);
  assert.ok(list.every((t: { projectId: string }) => t.projectId === projB.id));
  assert.ok(list.every((t: Record<string, unknown>) => !("displayId" in t) && !("isForecastLate" in t)));
  assert.equal((await callOk(apps.B, f.keys.workspace, "list_tasks", { limit: 1 })).items.length, 1);
  await callFails(apps.B, f.keys.workspace, "list_tasks", { taskScope: "me" }, "invalid_input");
  await callFails(apps.B, f.keys.workspace, "list_tasks", { projectId: "x" }, "invalid_input");
  assert.deepEqual((await callOk(apps.B, f.keys.workspace, "list_tasks", { projectId: MISSING })).items, []);
});

Deno.test("list_tasks: company scope and workspace isolation", async () => {
  const inB = await callOk(apps.A, writer.A, "create_task", { title: "Only B sees", projectId: projB.id });
  const inA = await callOk(apps.A, writer.A, "create_task", { title: "A sees", projectId: projA.id });
  for (
    const [v, key] of [["A", f.keys.limited], ["A", f.keys.ownerCompanyA], [
      "B",
      f.keys.workspaceCompanyA,
    ]] as const
  ) {
    const list = (await callOk(apps[v], key, "list_tasks", { limit: 500 })).items;
    assert.ok(
      !list.some((t: { id: string }) => t.id === inB.id),
      `${v} ${key.slice(0, 8)} must not see company b`,
    );
    assert.ok(list.some((t: { id: string }) => t.id === inA.id));
    // List rows carry no companyId (get_task has it): every listed task is company a's in the database.
    const ids = list.map((t: { id: string }) => t.id);
    const [{ n }] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from tasks where id = any(${ids}::uuid[]) and company_id = ${f.companies.a}`;
    assert.equal(n, ids.length);
  }
  const others = (await callOk(apps.A, f.other.key, "list_tasks", {})).items;
  assert.deepEqual(others, [], "another workspace sees none of these");
});

Deno.test("update_task: fields, moving with subtasks, and its refusals", async () => {
  for (const v of both) {
    const key = writer[v];
    const t = await callOk(apps[v], key, "create_task", {
      title: "Movable",
      projectId: projA.id,
      description: "d",
      estimatedHours: 5,
      dueDate: "2030-05-01",
    });
    const sub = await callOk(apps[v], key, "create_subtask", { parentTaskId: t.id, title: "Comes along" });
    const u = await callOk(apps[v], key, "update_task", {
      taskId: t.id,
      title: "Moved",
      description: "",
      priority: "urgent",
      status: "in_progress",
      estimatedHours: null,
      actualHours: 2.5,
      dueDate: null,
      sortOrder: -5,
      isPrivate: false,
      assigneeIds: [f.users.admin],
      projectId: projB.id,
    });
    assert.equal(u.title, "Moved");
    assert.equal(u.description, "");
    assert.equal(u.priority, "urgent");
    assert.equal(u.status, "in_progress");
    assert.equal(u.estimatedHours, null);
    assert.equal(u.actualHours, 2.5);
    assert.equal(u.dueDate, null);
    assert.equal(u.sortOrder, -5);
    assert.deepEqual(u.assigneeIds, [f.users.admin]);
    assert.equal(u.projectId, projB.id);
    assert.equal(u.companyId, f.companies.b, "takes the new project's company");
    assert.equal(u.subtasks[0].id, sub.id);
    assert.equal(u.subtasks[0].projectId, projB.id, "the subtask moved along");
    assert.equal(u.subtasks[0].companyId, f.companies.b);
    assert.equal(u.subtasks[0].number, u.number + 1, "new numbers in the target project");
    const numbers = await db.sql<{ n: number }[]>`
      select count(*)::int as n from (select number from tasks where project_id = ${projB.id}
       group by number having count(*) > 1) d`;
    assert.equal(numbers[0].n, 0, "no duplicate numbers after the move");

    assert.match(
      await callFails(apps[v], key, "update_task", { taskId: sub.id, projectId: projA.id }, "invalid_input"),
      /projectId: a subtask stays in its parent's project/,
    );
    assert.match(
      await callFails(apps[v], key, "update_task", { taskId: t.id }, "invalid_input"),
      /nothing to change/,
    );
    await callFails(apps[v], key, "update_task", { taskId: MISSING, title: "x" }, "not_found");
    assert.match(
      await callFails(apps[v], key, "update_task", { taskId: t.id, projectId: MISSING }, "not_found"),
      /projectId/,
    );
    assert.match(
      await callFails(apps[v], key, "update_task", { taskId: t.id, assigneeIds: [MISSING] }, "not_found"),
      /assigneeIds/,
    );
    await callFails(apps[v], key, "update_task", { taskId: t.id, title: "" }, "invalid_input");
    await callFails(apps[v], key, "update_task", { taskId: t.id, sortOrder: "first" }, "invalid_input");
    if (v === "B") {
      await callFails(apps.B, key, "update_task", { taskId: t.id, status: "frozen" }, "invalid_input");
      await callFails(apps.B, key, "update_task", { taskId: t.id, startDate: "2030-01-01" }, "invalid_input");
    } else {
      await callOk(apps.A, key, "update_task", { taskId: t.id, startDate: "2030-06-01" });
      assert.match(
        await callFails(apps.A, key, "update_task", { taskId: t.id, dueDate: "2030-05-31" }, "invalid_input"),
        /dueDate: must not be before startDate/,
        "checked against the stored start date",
      );
      const loose = await callOk(apps.A, key, "update_task", { taskId: t.id, projectId: null });
      assert.equal(loose.projectId, null);
      assert.equal(loose.number, null);
      assert.equal(loose.subtasks[0].projectId, null);
    }
  }
  // Moving into a company an assignee cannot see is refused; so is reaching a project out of scope.
  const t = await callOk(apps.A, writer.A, "create_task", {
    title: "Limited works here",
    projectId: projA.id,
    assigneeIds: [f.users.limited],
  });
  assert.match(
    await callFails(apps.A, writer.A, "update_task", { taskId: t.id, projectId: projB.id }, "invalid_input"),
    /may not see/,
  );
  await callFails(apps.A, f.keys.limited, "update_task", { taskId: t.id, projectId: projB.id }, "not_found");
  await callFails(apps.A, f.other.key, "update_task", { taskId: t.id, title: "x" }, "not_found");
});

Deno.test("update_task_status: A's four statuses, B's three; not_found across companies", async () => {
  const t = await callOk(apps.A, writer.A, "create_task", { title: "Status", projectId: projB.id });
  for (const s of ["in_progress", "frozen", "done", "todo"]) {
    assert.equal(
      (await callOk(apps.A, f.keys.owner, "update_task_status", { taskId: t.id, status: s })).status,
      s,
    );
  }
  for (const s of ["in_progress", "done", "todo"]) {
    assert.equal(
      (await callOk(apps.B, f.keys.workspace, "update_task_status", { taskId: t.id, status: s })).status,
      s,
    );
  }
  assert.match(
    await callFails(
      apps.B,
      f.keys.workspace,
      "update_task_status",
      { taskId: t.id, status: "frozen" },
      "invalid_input",
    ),
    /status/,
  );
  await callFails(
    apps.A,
    f.keys.owner,
    "update_task_status",
    { taskId: t.id, status: "closed" },
    "invalid_input",
  );
  await callFails(apps.A, f.keys.owner, "update_task_status", { taskId: t.id }, "invalid_input");
  for (const v of both) {
    await callFails(
      apps[v],
      writer[v],
      "update_task_status",
      { taskId: MISSING, status: "done" },
      "not_found",
    );
  }
  await callFails(
    apps.A,
    f.keys.limited,
    "update_task_status",
    { taskId: t.id, status: "done" },
    "not_found",
  );
  await callFails(
    apps.B,
    f.keys.workspaceCompanyA,
    "update_task_status",
    { taskId: t.id, status: "done" },
    "not_found",
  );
  await callFails(apps.A, f.other.key, "update_task_status", { taskId: t.id, status: "done" }, "not_found");
});

Deno.test("permissions: user-context creation, role areas, the tasks module, variant lists", async () => {
  // B: only the internal key acts as a person.
  await callFails(apps.B, f.keys.workspace, "create_task", { title: "t" }, "access_denied");
  await callFails(
    apps.B,
    f.keys.workspace,
    "create_subtask",
    { parentTaskId: MISSING, title: "t" },
    "access_denied",
  );
  // A: accounting may not use the tasks area by default; guests may.
  await callFails(apps.A, f.keys.accounting, "list_tasks", {}, "access_denied");
  (await callOk(apps.A, f.keys.guest, "list_tasks", {})).items;
  const b = await listedTools(apps.B, f.keys.workspace);
  for (const name of ["list_tasks", "get_task", "list_subtasks", "update_task", "update_task_status"]) {
    assert.ok(b.includes(name), name);
  }
  for (const name of ["set_task_queue_position", "move_task_to_focus", "gantt_plan"]) {
    assert.ok(!b.includes(name));
  }
  const a = await listedTools(apps.A, f.keys.owner);
  for (
    const name of [
      "list_tasks",
      "get_task",
      "create_task",
      "create_subtask",
      "list_subtasks",
      "update_task",
      "update_task_status",
      "set_task_queue_position",
      "move_task_to_focus",
      "gantt_plan",
    ]
  ) assert.ok(a.includes(name), name);
});

Deno.test("the tasks module switched off: the tools are unavailable in A", async () => {
  const off = await buildFixture(db.sql, { modules: ["projects"] });
  for (const name of ["list_tasks", "create_task", "gantt_plan"]) {
    assert.match(await callFails(apps.A, off.keys.owner, name, {}, "unavailable"), /tasks module/);
  }
  (await callOk(apps.B, off.keys.workspace, "list_tasks", {})).items;
});

Deno.test("every task tool in both variants: other companies and other workspaces answer not_found", async () => {
  // Keys that reach company a only, and keys of another workspace, per variant (creating needs user context).
  const scoped = {
    A: { read: f.keys.limited, write: f.keys.limited },
    B: {
      read: f.keys.workspaceCompanyA,
      write: await f.key({ kind: "internal", user: f.users.owner, companyId: f.companies.a }),
    },
  };
  const otherInternal = (await createApiKey(db.sql, {
    workspaceId: f.other.workspaceId,
    userId: f.other.ownerId,
    kind: "internal",
    name: "other internal",
  })).key;
  const foreign = {
    A: { read: f.other.key, write: f.other.key },
    B: { read: f.other.key, write: otherInternal },
  };
  const inB = await callOk(apps.A, writer.A, "create_task", { title: "company b", projectId: projB.id });
  const subB = await callOk(apps.A, writer.A, "create_subtask", {
    parentTaskId: inB.id,
    title: "company b child",
  });
  const inA = await callOk(apps.A, writer.A, "create_task", { title: "company a", projectId: projA.id });

  for (const v of both) {
    for (const [who, keys, target] of [["scoped", scoped[v], inB], ["foreign", foreign[v], inA]] as const) {
      const label = `${v} ${who}`;
      const fails = async (name: string, key: string, args: Record<string, unknown>) =>
        await callFails(apps[v], key, name, args, "not_found").catch((e) => {
          throw new Error(`${label} ${name}: ${e.message}`);
        });
      await fails("get_task", keys.read, { taskId: target.id });
      await fails("list_subtasks", keys.read, { parentTaskId: target.id });
      await fails("update_task", keys.read, { taskId: target.id, title: "x" });
      await fails("update_task_status", keys.read, { taskId: target.id, status: "done" });
      await fails("create_subtask", keys.write, { parentTaskId: target.id, title: "x" });
      await fails("create_task", keys.write, { title: "x", projectId: target.projectId });
      const list = (await callOk(apps[v], keys.read, "list_tasks", {})).items;
      assert.ok(!list.some((t: { id: string }) => t.id === target.id), `${label} list_tasks`);
      if (v === "A") {
        await fails("set_task_queue_position", keys.read, {
          taskId: target.id,
          userId: f.users.owner,
          slotIndex: 0,
        });
        await fails("move_task_to_focus", keys.read, { taskId: target.id, userId: f.users.owner });
      }
    }
    // The subtask of company b is just as invisible on its own.
    await callFails(apps[v], scoped[v].read, "get_task", { taskId: subB.id }, "not_found");
  }
  const unchanged = await callOk(apps.A, writer.A, "get_task", { taskId: inB.id });
  assert.equal(unchanged.title, "company b");
  assert.equal(unchanged.status, "todo");
  assert.equal(unchanged.subtasks.length, 1);
});
