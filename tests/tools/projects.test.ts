// Projects tools: happy path, bad input and not_found of each, in both variants.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, callTool, mcpApp, rpc, type Variant } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };
const both: Variant[] = ["A", "B"];
const key = f.keys.owner;
const MISSING = "00000000-0000-4000-8000-000000000000";

const [client] = await db.sql<{ id: string }[]>`
  insert into clients (workspace_id, company_id, name) values (${f.workspaceId}, ${f.companies.b}, 'Client B')
  returning id`;
const [offer] = await db.sql<{ id: string }[]>`
  insert into offers (workspace_id, company_id, client_id, title)
  values (${f.workspaceId}, ${f.companies.b}, ${client.id}, 'Offer') returning id`;

Deno.test("create_project: every field, answered as JSON text and structuredContent", async () => {
  for (const v of both) {
    const args: Record<string, unknown> = {
      name: `  Relaunch ${v}  `,
      clientId: client.id.toUpperCase(),
      description: "New site",
      startDate: "2026-01-01",
      endDate: "2026-03-31",
      budget: 12000.5,
      estimatedHours: 80.25,
      notes: "n",
      currency: "USD",
    };
    if (v === "A") Object.assign(args, { offerId: offer.id, taskPrefix: "REL" });
    const r = await callTool(apps[v], key, "create_project", args);
    assert.equal(r.isError, false, r.text);
    assert.deepEqual(r.structuredContent, r.data);
    const p = r.data;
    assert.match(p.id, /^[0-9a-f-]{36}$/);
    assert.equal(p.name, `Relaunch ${v}`, "trimmed");
    assert.equal(p.status, "in_progress");
    assert.equal(p.clientId, client.id);
    assert.equal(p.clientName, "Client B");
    assert.equal(p.companyId, f.companies.b, "inherits the client's company");
    assert.equal(p.startDate, "2026-01-01");
    assert.equal(p.endDate, "2026-03-31");
    assert.equal(p.budget, "12000.50", "money is a decimal string with 2 decimals");
    assert.equal(p.estimatedHours, 80.25);
    assert.equal(p.currency, "USD");
    assert.equal(p.offerId, v === "A" ? offer.id : null);
    assert.equal(p.taskPrefix, v === "A" ? "REL" : null);
    assert.equal(p.createdBy, f.users.owner);
    assert.match(p.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  }
  const min = await callOk(apps.A, key, "create_project", { name: "Minimal" });
  assert.equal(min.currency, "EUR");
  assert.equal(min.budget, null);
  assert.equal(min.companyId, null);
  assert.equal(min.description, "");
});

Deno.test("create_project: bad input names the rule", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{}, /^invalid_input: name: is required$/],
    [{ name: "" }, /name: must not be empty/],
    [{ name: "   " }, /name: must not be empty/],
    [{ name: "x".repeat(201) }, /name: must be at most 200/],
    [{ name: "x", clientId: "nope" }, /clientId: must be a UUID/],
    [{ name: "x", startDate: "2026-02-30" }, /startDate: must be a date YYYY-MM-DD/],
    [{ name: "x", startDate: "01/02/2026" }, /startDate: must be a date/],
    [{ name: "x", startDate: "2026-03-01", endDate: "2026-02-01" }, /endDate: must not be before startDate/],
    [{ name: "x", budget: -1 }, /budget: must be at least 0/],
    [{ name: "x", budget: 1.234 }, /budget: must have at most 2 decimals/],
    [{ name: "x", budget: "12,50" }, /budget: must be a decimal number like 12.50/],
    // 0.1 + 0.2 is refused, never stored as 0.30 nor as 0.30000000000000004
    [{ name: "x", budget: 0.1 + 0.2 }, /budget: must have at most 2 decimals/],
    [{ name: "x", estimatedHours: -0.5 }, /estimatedHours: must not be negative/],
    [{ name: "x", currency: "eur" }, /currency: must be a three-letter ISO 4217/],
    [{ name: "x", currency: "XYZ" }, /currency: is not an ISO 4217/],
    [{ name: "x", taskPrefix: "web" }, /taskPrefix: must be 2-10 capital letters/],
    [{ name: "x", taskPrefix: "1AB" }, /taskPrefix/],
    [{ name: "x", taskPrefix: "ABCDEFGHIJK" }, /taskPrefix/],
    [{ name: "x", projectName: "typo" }, /unknown field projectName/],
  ];
  for (const [args, re] of cases) {
    const msg = await callFails(apps.A, key, "create_project", args, "invalid_input");
    assert.match(msg, re, JSON.stringify(args));
  }
  // B has no offerId or taskPrefix
  await callFails(apps.B, key, "create_project", { name: "x", taskPrefix: "ABC" }, "invalid_input");
  await callFails(apps.B, key, "create_project", { name: "x", offerId: offer.id }, "invalid_input");
  // client and company must agree
  await callFails(
    apps.A,
    key,
    "create_project",
    { name: "x", clientId: client.id, companyId: f.companies.a },
    "invalid_input",
  );
});

Deno.test("create_project: unknown client, offer or company → not_found; duplicate taskPrefix → conflict", async () => {
  for (const v of both) {
    await callFails(apps[v], key, "create_project", { name: "x", clientId: MISSING }, "not_found");
    await callFails(apps[v], key, "create_project", { name: "x", companyId: MISSING }, "not_found");
  }
  await callFails(apps.A, key, "create_project", { name: "x", offerId: MISSING }, "not_found");
  await callOk(apps.A, key, "create_project", { name: "p1", taskPrefix: "DUP" });
  const msg = await callFails(apps.A, key, "create_project", { name: "p2", taskPrefix: "DUP" }, "conflict");
  assert.match(msg, /^conflict: taskPrefix: DUP is already used/);
});

Deno.test("list_projects: summaries as a JSON array, status filter, paging", async () => {
  const ws = await buildFixture(db.sql);
  for (const v of both) {
    const app = apps[v];
    assert.deepEqual(await callOk(app, ws.keys.owner, "list_projects"), []);
  }
  const made = [];
  for (const name of ["one", "two", "three"]) {
    made.push(await callOk(apps.A, ws.keys.owner, "create_project", { name }));
  }
  await callOk(apps.A, ws.keys.owner, "update_project_status", {
    projectId: made[1].id,
    status: "completed",
  });
  for (const v of both) {
    const app = apps[v];
    const r = await callTool(app, ws.keys.owner, "list_projects");
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent, undefined, "arrays are text only");
    assert.deepEqual(r.data.map((p: { name: string }) => p.name), ["three", "two", "one"]);
    assert.deepEqual(Object.keys(r.data[0]).sort(), [
      "budget",
      "clientId",
      "clientName",
      "companyId",
      "currency",
      "endDate",
      "estimatedHours",
      "id",
      "name",
      "startDate",
      "status",
      "taskPrefix",
    ]);
    const done = await callOk(app, ws.keys.owner, "list_projects", { status: "completed" });
    assert.deepEqual(done.map((p: { id: string }) => p.id), [made[1].id]);
    const page = await callOk(app, ws.keys.owner, "list_projects", { limit: 1, offset: 1 });
    assert.deepEqual(page.map((p: { name: string }) => p.name), ["two"]);
    await callFails(app, ws.keys.owner, "list_projects", { status: "archived" }, "invalid_input");
    await callFails(app, ws.keys.owner, "list_projects", { limit: 0 }, "invalid_input");
    await callFails(app, ws.keys.owner, "list_projects", { limit: 501 }, "invalid_input");
    await callFails(app, ws.keys.owner, "list_projects", { offset: -1 }, "invalid_input");
  }
});

Deno.test("get_project: the full project; bad id → invalid_input; unknown → not_found", async () => {
  const p = await callOk(apps.A, key, "create_project", { name: "Get me", budget: 5 });
  for (const v of both) {
    const got = await callOk(apps[v], key, "get_project", { projectId: p.id });
    assert.deepEqual(got, p);
    await callFails(apps[v], key, "get_project", { projectId: "123" }, "invalid_input");
    assert.equal(
      await callFails(apps[v], key, "get_project", {}, "invalid_input"),
      "invalid_input: projectId: is required",
    );
    const msg = await callFails(apps[v], key, "get_project", { projectId: MISSING }, "not_found");
    assert.equal(msg, `not_found: projectId: no project ${MISSING}`);
  }
});

Deno.test("update_project: changes given fields only, clears with null, keeps the date rule", async () => {
  for (const v of both) {
    const p = await callOk(apps[v], key, "create_project", {
      name: `Upd ${v}`,
      description: "keep me",
      startDate: "2026-01-01",
      endDate: "2026-01-31",
      budget: 100,
    });
    const u = await callOk(apps[v], key, "update_project", {
      projectId: p.id,
      name: "Renamed",
      budget: 250.75,
      estimatedHours: 12,
      notes: "note",
      status: "completed",
      taskPrefix: `U${v}X`,
    });
    assert.equal(u.name, "Renamed");
    assert.equal(u.description, "keep me");
    assert.equal(u.budget, "250.75");
    assert.equal(u.estimatedHours, 12);
    assert.equal(u.status, "completed");
    assert.equal(u.taskPrefix, `U${v}X`);
    assert.ok(u.updatedAt >= p.updatedAt);
    const cleared = await callOk(apps[v], key, "update_project", {
      projectId: p.id,
      budget: null,
      endDate: null,
    });
    assert.equal(cleared.budget, null);
    assert.equal(cleared.endDate, null);
    assert.equal(cleared.startDate, "2026-01-01");
    // endDate before the stored startDate
    const msg = await callFails(
      apps[v],
      key,
      "update_project",
      { projectId: p.id, endDate: "2025-12-31" },
      "invalid_input",
    );
    assert.match(msg, /endDate: must not be before startDate/);
    await callFails(apps[v], key, "update_project", { projectId: p.id }, "invalid_input");
    await callFails(apps[v], key, "update_project", { projectId: p.id, budget: -5 }, "invalid_input");
    await callFails(apps[v], key, "update_project", { projectId: p.id, status: "done" }, "invalid_input");
    await callFails(apps[v], key, "update_project", { projectId: p.id, taskPrefix: "x" }, "invalid_input");
    await callFails(apps[v], key, "update_project", { projectId: p.id, name: "" }, "invalid_input");
    await callFails(apps[v], key, "update_project", { projectId: "x", name: "y" }, "invalid_input");
    await callFails(apps[v], key, "update_project", { projectId: MISSING, name: "y" }, "not_found");
  }
  await callOk(apps.A, key, "create_project", { name: "holder", taskPrefix: "HOLD" });
  const other = await callOk(apps.A, key, "create_project", { name: "other" });
  await callFails(apps.A, key, "update_project", { projectId: other.id, taskPrefix: "HOLD" }, "conflict");
});

Deno.test("update_project_status: each status; bad status → invalid_input; unknown → not_found", async () => {
  const p = await callOk(apps.A, key, "create_project", { name: "Status" });
  for (const v of both) {
    for (const status of ["completed", "invoiced", "in_progress"]) {
      const r = await callTool(apps[v], key, "update_project_status", { projectId: p.id, status });
      assert.equal(r.isError, false, r.text);
      assert.equal(r.structuredContent?.status, status);
    }
    await callFails(
      apps[v],
      key,
      "update_project_status",
      { projectId: p.id, status: "cancelled" },
      "invalid_input",
    );
    await callFails(apps[v], key, "update_project_status", { projectId: p.id }, "invalid_input");
    await callFails(
      apps[v],
      key,
      "update_project_status",
      { projectId: MISSING, status: "completed" },
      "not_found",
    );
  }
});

Deno.test("list_projects: the array stays the first block; a cut page adds a note with the next offset", async () => {
  const page = async (args: Record<string, unknown>) => {
    const r = await rpc(apps.A, key, "tools/call", { name: "list_projects", arguments: args });
    return r.body.result as { content: { type: string; text: string }[]; structuredContent?: unknown };
  };
  const all = JSON.parse((await page({ limit: 500 })).content[0].text);
  assert.ok(all.length >= 3);
  const whole = await page({ limit: 500 });
  assert.equal(whole.content.length, 1, "an uncut list is the array alone");
  assert.equal(whole.structuredContent, undefined);
  const cut = await page({ limit: 2, offset: 1 });
  assert.equal(cut.content.length, 2);
  const items = JSON.parse(cut.content[0].text);
  assert.ok(Array.isArray(items), "the first block is still the seed's JSON array");
  assert.deepEqual(items.map((p: { id: string }) => p.id), all.slice(1, 3).map((p: { id: string }) => p.id));
  assert.equal(
    cut.content[1].text,
    `More projects: 2 of ${all.length} shown (offset 1). Call list_projects again with offset 3 for the next page.`,
  );
  const last = await page({ limit: 2, offset: all.length - 2 });
  assert.equal(last.content.length, 1, "the last page has no note");
});

Deno.test("list_clients and list_tasks: one page shape; nextOffset leads to the next page", async () => {
  for (let i = 0; i < 3; i++) await callOk(apps.A, key, "create_task", { title: `paged ${i}` });
  const first = await callOk(apps.A, key, "list_tasks", { limit: 2 });
  // list_tasks pages by keyset too (tests/tools/keyset.test.ts): nextCursor beside nextOffset
  assert.deepEqual(Object.keys(first).sort(), [
    "hasMore",
    "items",
    "limit",
    "nextCursor",
    "nextOffset",
    "offset",
    "total",
  ]);
  assert.equal(first.items.length, 2);
  assert.equal(first.hasMore, true);
  assert.equal(first.nextOffset, 2);
  assert.match(first.nextCursor, /^k1\./);
  const rest = await callOk(apps.A, key, "list_tasks", { limit: 500, offset: first.nextOffset });
  assert.equal(rest.total, first.total);
  assert.equal(rest.items.length, first.total - 2);
  assert.equal(rest.hasMore, false);
  assert.equal(rest.nextOffset, null);
  assert.equal(rest.nextCursor, null);
  const beyond = await callOk(apps.A, key, "list_tasks", { limit: 5, offset: 10_000 });
  assert.deepEqual([beyond.items.length, beyond.total, beyond.hasMore], [0, first.total, false]);
  const clients = await callOk(apps.A, key, "list_clients", { limit: 1 });
  assert.equal(clients.items.length, 1);
  assert.equal(clients.hasMore, clients.total > 1);
  assert.equal(clients.nextOffset, clients.total > 1 ? 1 : null);
});
