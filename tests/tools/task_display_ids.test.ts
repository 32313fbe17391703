// Display ids (WEB-42) wherever a task is named (issue 25 point 3): subtasks have them and are found by them, and
// every task id parameter of every tool takes one as well as a UUID, under the same visibility rules.
import assert from "node:assert/strict";
import { buildRegistry } from "../../lib/mcp/registry.ts";
import { resolvesTaskRefs, taskRefFieldsOf } from "../../lib/mcp/task_refs.ts";
import { TOOLS } from "../../tools/mod.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, mcpApp, type Variant } from "../helpers/mcp.ts";
import { MODULES } from "../../lib/workspace/modules.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };
/** A key of each variant that acts as the owner (creates and logs time). */
const owner = { A: f.keys.owner, B: f.keys.internal };
const REFUSED = /must be a UUID or a display id such as WEB-42/;

/** Every task id parameter, per variant: the tools/list contract this file pins. */
const TASK_REF_PARAMS: Record<Variant, string[]> = {
  A: [
    "create_subtask.parentTaskId",
    "create_time_log.taskId",
    "get_task.taskId",
    "list_subtasks.parentTaskId",
    "move_task_to_focus.taskId",
    "set_task_queue_position.taskId",
    "update_task.taskId",
    "update_task_status.taskId",
    "update_time_log.taskId",
  ],
  B: [
    "create_subtask.parentTaskId",
    "create_time_log.taskId",
    "get_task.taskId",
    "list_subtasks.parentTaskId",
    "update_task.taskId",
    "update_task_status.taskId",
    "update_time_log.taskId",
  ],
};

const web = await callOk(apps.A, f.keys.owner, "create_project", {
  name: "Web",
  companyId: f.companies.a,
  taskPrefix: "WEB",
});
const ops = await callOk(apps.A, f.keys.owner, "create_project", {
  name: "Ops",
  companyId: f.companies.b,
  taskPrefix: "OPS",
});
// The other workspace uses the same prefix: a display id is resolved in the caller's workspace only.
const foreignWeb = await callOk(apps.A, f.other.key, "create_project", {
  name: "Their web",
  taskPrefix: "WEB",
});
const foreignTask = await callOk(apps.A, f.other.key, "create_task", {
  title: "Theirs",
  projectId: foreignWeb.id,
});

async function taskCount(): Promise<number> {
  const [r] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from tasks where workspace_id = ${f.workspaceId}`;
  return r.n;
}
async function logCount(): Promise<number> {
  const [r] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from time_logs where workspace_id = ${f.workspaceId}`;
  return r.n;
}

Deno.test("every task id parameter takes a display id: a plain string described as such, resolved before run", () => {
  for (const variant of ["A", "B"] as const) {
    const found: string[] = [];
    for (const t of buildRegistry(TOOLS, variant).all.values()) {
      const props = t.listing.inputSchema.properties as Record<string, Record<string, unknown>>;
      const refs = taskRefFieldsOf(t.schema);
      for (const [name, p] of Object.entries(props)) {
        // a task id parameter is named …TaskId or taskId (aiTaskId is the agent platform's own label, free text)
        const isTaskParam = /^(taskId|parentTaskId|taskIds)$/.test(name);
        assert.equal(refs.includes(name), isTaskParam, `${t.name}.${name}`);
        if (!isTaskParam) continue;
        found.push(`${t.name}.${name}`);
        assert.equal(p.type, "string", `${t.name}.${name}: one type`);
        assert.equal(p.format, undefined, `${t.name}.${name}: no format uuid (clients would refuse WEB-42)`);
        assert.match(String(p.description), /UUID or display id[ (,]+WEB-42\)?/, `${t.name}.${name}`);
      }
      if (refs.length > 0) assert.ok(resolvesTaskRefs(t.def), `${t.name} resolves its task references`);
    }
    assert.deepEqual(found.sort(), TASK_REF_PARAMS[variant], variant);
  }
});

Deno.test("subtasks have display ids from the project's counter; list_tasks finds them by display id and number", async () => {
  const parent = await callOk(apps.A, f.keys.owner, "create_task", { title: "Launch", projectId: web.id });
  const sub = await callOk(apps.A, f.keys.owner, "create_subtask", {
    parentTaskId: parent.id,
    title: "Banner copy",
  });
  assert.equal(sub.number, parent.number + 1, "subtasks draw from the project's counter");
  assert.equal(sub.displayId, `WEB-${sub.number}`);
  assert.equal(sub.parentTaskId, parent.id);
  const ids = async (args: Record<string, unknown>) =>
    (await callOk(apps.A, f.keys.owner, "list_tasks", args)).items.map((t: { id: string }) => t.id);
  assert.deepEqual(await ids({ query: `WEB-${sub.number}` }), [sub.id], "a subtask's display id finds it");
  assert.deepEqual(
    await ids({ query: `web-0${sub.number}` }),
    [sub.id],
    "case and leading zeros do not matter",
  );
  assert.deepEqual(await ids({ projectPrefix: "WEB", taskNumber: sub.number }), [sub.id]);
  assert.deepEqual(await ids({ query: "Banner" }), [], "a text search still lists top-level tasks only");
  assert.deepEqual(await ids({ projectIds: [web.id] }), [parent.id], "so does the plain list");
  const row = (await callOk(apps.A, f.keys.owner, "list_tasks", { query: `WEB-${sub.number}` })).items[0];
  assert.equal(row.displayId, `WEB-${sub.number}`);
  // list_subtasks and get_task take the parent's display id
  const subs = await callOk(apps.A, f.keys.owner, "list_subtasks", { parentTaskId: `web-${parent.number}` });
  assert.deepEqual(subs.items.map((t: { displayId: string }) => t.displayId), [`WEB-${sub.number}`]);
  const got = await callOk(apps.A, f.keys.owner, "get_task", { taskId: `WEB-${sub.number}` });
  assert.equal(got.id, sub.id);
  assert.equal(got.parentTaskId, parent.id);
  // B: the same display ids work (B's answers just do not show them)
  const gotB = await callOk(apps.B, f.keys.workspace, "get_task", { taskId: `WEB-${parent.number}` });
  assert.equal(gotB.id, parent.id);
  assert.equal(gotB.displayId, undefined);
  assert.deepEqual(
    (await callOk(apps.B, f.keys.workspace, "list_subtasks", { parentTaskId: `WEB-${parent.number}` })).items
      .map((t: { id: string }) => t.id),
    [sub.id],
  );
});

Deno.test("every task tool of both variants acts on the task a display id names", async () => {
  for (const v of ["A", "B"] as const) {
    const k = owner[v];
    const t = await callOk(apps[v], k, "create_task", { title: `Target ${v}`, projectId: web.id });
    const did = `WEB-${t.number}`;
    assert.equal((await callOk(apps[v], k, "get_task", { taskId: did })).id, t.id);
    const upd = await callOk(apps[v], k, "update_task", { taskId: did.toLowerCase(), title: `Renamed ${v}` });
    assert.equal(upd.id, t.id);
    assert.equal(upd.title, `Renamed ${v}`);
    const st = await callOk(apps[v], k, "update_task_status", { taskId: did, status: "in_progress" });
    assert.equal(st.id, t.id);
    assert.equal(st.status, "in_progress");
    const sub = await callOk(apps[v], k, "create_subtask", { parentTaskId: did, title: `Sub ${v}` });
    assert.equal(sub.parentTaskId, t.id);
    const listed = await callOk(apps[v], k, "list_subtasks", { parentTaskId: did });
    assert.deepEqual(listed.items.map((x: { id: string }) => x.id), [sub.id]);
    const log = await callOk(apps[v], k, "create_time_log", {
      date: "2026-03-02",
      startTime: "09:00",
      endTime: "10:00",
      taskId: did,
    });
    assert.equal(log.taskId, t.id, "stored and answered as the UUID");
    const relinked = await callOk(apps[v], k, "update_time_log", {
      timeLogId: log.id,
      taskId: `WEB-${sub.number}`,
    });
    assert.equal(relinked.taskId, sub.id);
    const [row] = await db.sql<
      { taskId: string }[]
    >`select task_id as "taskId" from time_logs where id = ${log.id}`;
    assert.equal(row.taskId, sub.id);
  }
  // A only: the queue and the focus
  const q = await callOk(apps.A, f.keys.owner, "create_task", { title: "Queued", projectId: web.id });
  const placed = await callOk(apps.A, f.keys.owner, "set_task_queue_position", {
    taskId: `WEB-${q.number}`,
    userId: f.users.member,
    slotIndex: 0,
  });
  assert.equal(placed.task.id, q.id);
  assert.deepEqual(placed.task.assigneeIds, [f.users.member]);
  const focused = await callOk(apps.A, f.keys.owner, "move_task_to_focus", {
    taskId: `WEB-${q.number}`,
    userId: f.users.member,
  });
  assert.equal(focused.task.id, q.id);
  assert.equal(focused.task.status, "in_progress");
  // A UUID keeps working exactly as before (upper case too)
  assert.equal((await callOk(apps.A, f.keys.owner, "get_task", { taskId: q.id.toUpperCase() })).id, q.id);
});

Deno.test("malformed task ids: invalid_input naming the field, nothing stored", async () => {
  const before = { tasks: await taskCount(), logs: await logCount() };
  for (
    const bad of ["WEB42", "W-1", "WEB-0", "WEB-", "-5", "WEB-1-2", "WEB 5", "1WEB-5", "WEB-1234567890", ""]
  ) {
    for (const v of ["A", "B"] as const) {
      assert.match(
        await callFails(apps[v], owner[v], "get_task", { taskId: bad }, "invalid_input"),
        new RegExp(`^invalid_input: taskId: ${REFUSED.source}`),
        `${v} ${JSON.stringify(bad)}`,
      );
    }
  }
  assert.match(
    await callFails(
      apps.A,
      f.keys.owner,
      "create_subtask",
      { parentTaskId: "WEB_1", title: "x" },
      "invalid_input",
    ),
    /parentTaskId: must be a UUID or a display id/,
  );
  assert.match(
    await callFails(
      apps.B,
      f.keys.internal,
      "create_time_log",
      { date: "2026-03-02", startTime: "09:00", endTime: "10:00", taskId: "task 5" },
      "invalid_input",
    ),
    /taskId: must be a UUID or a display id/,
  );
  assert.match(
    await callFails(
      apps.A,
      f.keys.owner,
      "update_task_status",
      { taskId: 42, status: "done" },
      "invalid_input",
    ),
    /taskId: must be a UUID or a display id/,
  );
  assert.deepEqual({ tasks: await taskCount(), logs: await logCount() }, before);
});

Deno.test("a display id the caller cannot see is not_found, exactly like an unknown one; nothing stored", async () => {
  const inB = await callOk(apps.A, f.keys.owner, "create_task", {
    title: "Company B work",
    projectId: ops.id,
  });
  const priv = await callOk(apps.A, f.keys.admin, "create_task", {
    title: "Admin's own",
    projectId: web.id,
    isPrivate: true,
  });
  const before = { tasks: await taskCount(), logs: await logCount() };
  const cases: Array<[Variant, string, string, string]> = [
    // [variant, key, display id, why]
    ["A", f.keys.owner, `WEB-999999`, "unknown number"],
    ["A", f.keys.owner, `ZZZ-1`, "unknown prefix"],
    ["A", f.keys.owner, `WEB-${priv.number}`, "another person's private task"],
    ["A", f.keys.limited, `OPS-${inB.number}`, "a company the member may not see"],
    ["A", f.keys.ownerCompanyA, `OPS-${inB.number}`, "a company outside the key's scope"],
    ["B", f.keys.workspaceCompanyA, `OPS-${inB.number}`, "B: a company outside the key's scope"],
    ["B", f.keys.workspace, `WEB-${priv.number}`, "B: workspace keys see no private task"],
    ["A", f.other.key, `OPS-${inB.number}`, "another workspace's task (no OPS there)"],
  ];
  for (const [v, key, did, why] of cases) {
    const text = await callFails(apps[v], key, "get_task", { taskId: did }, "not_found");
    assert.equal(text, `not_found: taskId: no task ${did}`, why);
    await callFails(apps[v], key, "update_task_status", { taskId: did, status: "done" }, "not_found");
  }
  // The other workspace's WEB-1 is not ours: our WEB-1 (or nothing) is what our keys get, and theirs resolves
  // only for them.
  assert.equal(foreignTask.number, 1);
  const ours = await callOk(apps.A, f.keys.owner, "get_task", { taskId: "WEB-1" });
  assert.notEqual(ours.id, foreignTask.id);
  assert.equal(ours.projectId, web.id);
  assert.equal((await callOk(apps.A, f.other.key, "get_task", { taskId: "WEB-1" })).id, foreignTask.id);
  // Writes that name an invisible task store nothing
  assert.equal(
    await callFails(
      apps.A,
      f.keys.limited,
      "create_subtask",
      { parentTaskId: `OPS-${inB.number}`, title: "x" },
      "not_found",
    ),
    `not_found: parentTaskId: no task OPS-${inB.number}`,
  );
  assert.equal(
    await callFails(
      apps.A,
      f.keys.owner,
      "create_time_log",
      { date: "2026-03-02", startTime: "09:00", endTime: "10:00", taskId: `WEB-${priv.number}` },
      "not_found",
    ),
    `not_found: taskId: no task WEB-${priv.number}`,
  );
  await callFails(
    apps.B,
    f.keys.internal,
    "create_time_log",
    { date: "2026-03-02", startTime: "09:00", endTime: "10:00", taskId: "ZZZ-1" },
    "not_found",
  );
  await callFails(
    apps.A,
    f.keys.owner,
    "set_task_queue_position",
    { taskId: `WEB-${priv.number}`, userId: f.users.owner, slotIndex: 0 },
    "not_found",
  );
  await callFails(
    apps.A,
    f.keys.owner,
    "move_task_to_focus",
    { taskId: `WEB-${priv.number}`, userId: f.users.owner },
    "not_found",
  );
  assert.deepEqual({ tasks: await taskCount(), logs: await logCount() }, before);
  // the admin, who created it, resolves it
  assert.equal(
    (await callOk(apps.A, f.keys.admin, "get_task", { taskId: `WEB-${priv.number}` })).id,
    priv.id,
  );
});

Deno.test("display ids follow moves; a prefix is unique in a workspace, so a display id is never ambiguous", async () => {
  const t = await callOk(apps.A, f.keys.owner, "create_task", { title: "Mover", projectId: web.id });
  const sub = await callOk(apps.A, f.keys.owner, "create_subtask", {
    parentTaskId: t.id,
    title: "Mover's part",
  });
  const site = await callOk(apps.A, f.keys.owner, "create_project", {
    name: "Site",
    companyId: f.companies.a,
    taskPrefix: "SITE",
  });
  const moved = await callOk(apps.A, f.keys.owner, "update_task", {
    taskId: `WEB-${t.number}`,
    projectId: site.id,
  });
  assert.equal(moved.displayId, "SITE-1");
  await callFails(apps.A, f.keys.owner, "get_task", { taskId: `WEB-${t.number}` }, "not_found");
  await callFails(apps.A, f.keys.owner, "get_task", { taskId: `WEB-${sub.number}` }, "not_found");
  assert.equal((await callOk(apps.A, f.keys.owner, "get_task", { taskId: "SITE-2" })).id, sub.id);
  // Project-less: no number, no display id (its UUID names it)
  const loose = await callOk(apps.A, f.keys.owner, "update_task", { taskId: "SITE-1", projectId: null });
  assert.equal(loose.displayId, null);
  assert.equal(loose.number, null);
  await callFails(apps.A, f.keys.owner, "get_task", { taskId: "SITE-1" }, "not_found");
  // A second project with the same prefix is refused, and prefixes are capitals only (web-1 reads as WEB-1):
  // WEB-1 can name one task of a workspace only.
  assert.match(
    await callFails(
      apps.A,
      f.keys.owner,
      "create_project",
      { name: "Web again", companyId: f.companies.b, taskPrefix: "WEB" },
      "conflict",
    ),
    /taskPrefix: WEB is already used/,
  );
  assert.match(
    await callFails(
      apps.A,
      f.keys.owner,
      "create_project",
      { name: "Web lower", taskPrefix: "web" },
      "invalid_input",
    ),
    /taskPrefix: must be 2-10 capital letters/,
  );
  const [{ n }] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from projects where workspace_id = ${f.workspaceId} and upper(task_prefix) = 'WEB'`;
  assert.equal(n, 1);
});

Deno.test("gating comes first: roles, modules and user context refuse before any display id is looked up", async () => {
  const t = await callOk(apps.A, f.keys.owner, "create_task", { title: "Gated", projectId: web.id });
  const did = `WEB-${t.number}`;
  assert.match(
    await callFails(apps.A, f.keys.accounting, "get_task", { taskId: did }, "access_denied"),
    /accounting role may not use tasks tools/,
  );
  await callFails(apps.A, f.keys.guest, "create_time_log", {
    date: "2026-03-02",
    startTime: "09:00",
    endTime: "10:00",
    taskId: did,
  }, "access_denied");
  await callFails(
    apps.B,
    f.keys.workspace,
    "create_subtask",
    { parentTaskId: did, title: "x" },
    "access_denied",
  );
  const fx = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "tasks") });
  await callFails(apps.A, fx.keys.owner, "get_task", { taskId: "WEB-1" }, "unavailable");
  // guests use the tasks area: they resolve display ids of what they may see
  assert.equal((await callOk(apps.A, f.keys.guest, "get_task", { taskId: did })).id, t.id);
});

Deno.test("both ways in: an OAuth access token resolves display ids with its person's visibility", async () => {
  const t = await callOk(apps.A, f.keys.owner, "create_task", { title: "Via Bearer", projectId: web.id });
  const inB = await callOk(apps.A, f.keys.owner, "create_task", { title: "B via Bearer", projectId: ops.id });
  const bearer = await bearerFor(db.sql, { userId: f.users.member, workspaceId: f.workspaceId });
  const got = await callOk(apps.A, bearer.auth, "get_task", { taskId: `web-${t.number}` });
  assert.equal(got.id, t.id);
  const st = await callOk(apps.A, bearer.auth, "update_task_status", {
    taskId: `WEB-${t.number}`,
    status: "done",
  });
  assert.equal(st.status, "done");
  const limited = await bearerFor(db.sql, { userId: f.users.limited, workspaceId: f.workspaceId });
  assert.equal(
    await callFails(apps.A, limited.auth, "get_task", { taskId: `OPS-${inB.number}` }, "not_found"),
    `not_found: taskId: no task OPS-${inB.number}`,
  );
  const scoped = await bearerFor(db.sql, {
    userId: f.users.owner,
    workspaceId: f.workspaceId,
    companyId: f.companies.a,
  });
  await callFails(apps.A, scoped.auth, "get_task", { taskId: `OPS-${inB.number}` }, "not_found");
  assert.equal((await callOk(apps.A, scoped.auth, "get_task", { taskId: `WEB-${t.number}` })).id, t.id);
});
