// list_members: the member directory — who each caller may see, which fields each role gets, filters, paging,
// gating, isolation, both ways in and both variants.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { addMember } from "../../lib/workspace/workspaces.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, callTool, listedTools, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };

const emailOf = new Map<string, string>();
for (const u of await db.sql<{ id: string; email: string }[]>`select id, email from users`) {
  emailOf.set(u.id, u.email);
}

/** The fixture's seven members by name (names equal the role, plus "limited"). */
const NAMES = ["accounting", "admin", "guest", "limited", "manager", "member", "owner"] as const;

Deno.test("list_members for an owner: every member by name, with email, role and company limits", async () => {
  const r = await callTool(apps.A, f.keys.owner, "list_members");
  assert.equal(r.isError, false, r.text);
  const page = r.data;
  assert.deepEqual(page.items.map((m: { name: string }) => m.name), NAMES);
  assert.deepEqual(page.items.find((m: { name: string }) => m.name === "limited"), {
    userId: f.users.limited,
    name: "limited",
    email: emailOf.get(f.users.limited),
    role: "member",
    companyIds: [f.companies.a],
  });
  assert.deepEqual(page.items.find((m: { name: string }) => m.name === "manager"), {
    userId: f.users.manager,
    name: "manager",
    email: emailOf.get(f.users.manager),
    role: "manager",
    companyIds: null,
  });
  assert.deepEqual([page.total, page.hasMore, page.nextOffset, page.limit, page.offset], [
    7,
    false,
    null,
    50,
    0,
  ]);
  assert.deepEqual(r.structuredContent, page);
});

Deno.test("list_members: other roles see name, email and role; guests only the user id and name", async () => {
  for (const role of ["manager", "accounting", "member"] as const) {
    const page = await callOk(apps.A, f.keys[role], "list_members");
    assert.equal(page.total, 7, role);
    for (const m of page.items) assert.deepEqual(Object.keys(m), ["userId", "name", "email", "role"], role);
  }
  const guest = await callOk(apps.A, f.keys.guest, "list_members");
  assert.equal(guest.total, 7);
  for (const m of guest.items) assert.deepEqual(Object.keys(m), ["userId", "name"]);
  // a guest cannot find people by email either
  const byEmail = await callOk(apps.A, f.keys.guest, "list_members", { query: "@test.local" });
  assert.equal(byEmail.total, 0);
  const byName = await callOk(apps.A, f.keys.guest, "list_members", { query: "MANA" });
  assert.deepEqual(byName.items, [{ userId: f.users.manager, name: "manager" }]);
});

Deno.test("list_members: query by name or email, taken literally; limit and offset page through", async () => {
  const q = await callOk(apps.A, f.keys.member, "list_members", { query: "ADMIN" });
  assert.deepEqual(q.items.map((m: { userId: string }) => m.userId), [f.users.admin]);
  const mail = await callOk(apps.A, f.keys.member, "list_members", { query: emailOf.get(f.users.owner)! });
  assert.deepEqual(mail.items.map((m: { userId: string }) => m.userId), [f.users.owner]);
  assert.equal((await callOk(apps.A, f.keys.member, "list_members", { query: "%" })).total, 0);
  assert.equal((await callOk(apps.A, f.keys.member, "list_members", { query: "_" })).total, 0);
  const p1 = await callOk(apps.A, f.keys.member, "list_members", { limit: 3 });
  assert.deepEqual([p1.items.length, p1.total, p1.hasMore, p1.nextOffset], [3, 7, true, 3]);
  const p3 = await callOk(apps.A, f.keys.member, "list_members", { limit: 3, offset: 6 });
  assert.deepEqual(p3.items.map((m: { name: string }) => m.name), ["owner"]);
  assert.deepEqual([p3.hasMore, p3.nextOffset], [false, null]);
});

Deno.test("list_members: bad input is invalid_input naming the field", async () => {
  for (
    const [args, field] of [
      [{ limit: 0 }, "limit"],
      [{ limit: 201 }, "limit"],
      [{ offset: -1 }, "offset"],
      [{ query: "" }, "query"],
      [{ query: "x".repeat(201) }, "query"],
      [{ role: "owner" }, "role"],
    ] as const
  ) {
    const text = await callFails(apps.A, f.keys.owner, "list_members", args, "invalid_input");
    assert.match(text, new RegExp(field), text);
  }
});

Deno.test("list_members: company-limited callers see members who share a company or reach every one", async () => {
  const onlyB = (await createUser(db.sql, {
    email: `onlyb.${f.workspaceId}@test.local`,
    password: "test password 123",
    name: "onlyb",
  }, {
    scrypt: TEST_SCRYPT,
  })).id;
  await addMember(db.sql, f.workspaceId, onlyB, "member", [f.companies.b]);
  const both = (await createUser(db.sql, {
    email: `both.${f.workspaceId}@test.local`,
    password: "test password 123",
    name: "both",
  }, {
    scrypt: TEST_SCRYPT,
  })).id;
  await addMember(db.sql, f.workspaceId, both, "member", [f.companies.a, f.companies.b]);
  try {
    const limited = await callOk(apps.A, f.keys.limited, "list_members");
    const seen = limited.items.map((m: { userId: string }) => m.userId);
    assert.ok(seen.includes(both) && seen.includes(f.users.owner) && seen.includes(f.users.limited));
    assert.equal(seen.includes(onlyB), false);
    assert.equal(limited.total, 8);
    // an admin-view caller scoped to company a learns no company of b
    const admin = await f.key({ user: f.users.admin, companyId: f.companies.a });
    const scoped = await callOk(apps.A, admin, "list_members", { query: "both" });
    assert.deepEqual(scoped.items[0].companyIds, [f.companies.a]);
    const full = await callOk(apps.A, f.keys.admin, "list_members", { query: "both" });
    assert.deepEqual(full.items[0].companyIds, [f.companies.a, f.companies.b]);
    assert.equal((await callOk(apps.A, f.keys.owner, "list_members")).total, 9);
    // a disabled person is left out
    await db.sql`update users set disabled_at = now() where id = ${both}`;
    assert.equal((await callOk(apps.A, f.keys.owner, "list_members", { query: "both" })).total, 0);
  } finally {
    await db.sql`delete from workspace_members where user_id in ${db.sql([onlyB, both])}`;
  }
});

Deno.test("list_members: the role setting gates it; every module state leaves it", async () => {
  await db
    .sql`insert into role_permissions (workspace_id, area, roles) values (${f.workspaceId}, 'members', ${[
    "admin",
    "manager",
  ]})`;
  try {
    assert.equal((await listedTools(apps.A, f.keys.guest)).includes("list_members"), false);
    const text = await callFails(apps.A, f.keys.guest, "list_members", {}, "access_denied");
    assert.equal(text, "access_denied: the guest role may not use members tools in this workspace");
    assert.equal((await callOk(apps.A, f.keys.manager, "list_members")).total, 7);
    assert.equal((await callOk(apps.A, f.keys.owner, "list_members")).total, 7);
  } finally {
    await db.sql`delete from role_permissions where workspace_id = ${f.workspaceId}`;
  }
  const bare = await buildFixture(db.sql, { modules: [] });
  assert.equal((await callOk(apps.A, bare.keys.accounting, "list_members")).total, 7);
});

Deno.test("list_members: another workspace's members stay out of reach", async () => {
  const other = await callOk(apps.A, f.other.key, "list_members");
  assert.deepEqual(other.items.map((m: { userId: string }) => m.userId), [f.other.ownerId]);
  const mine = await callOk(apps.A, f.keys.owner, "list_members", { limit: 200 });
  assert.equal(mine.items.some((m: { userId: string }) => m.userId === f.other.ownerId), false);
});

Deno.test("list_members through an OAuth access token answers as the person's key does", async () => {
  const g = await bearerFor(db.sql, { userId: f.users.limited, workspaceId: f.workspaceId });
  assert.deepEqual(
    await callOk(apps.A, g.auth, "list_members"),
    await callOk(apps.A, f.keys.limited, "list_members"),
  );
  const guest = await bearerFor(db.sql, { userId: f.users.guest, workspaceId: f.workspaceId });
  const page = await callOk(apps.B, guest.auth, "list_members");
  for (const m of page.items) assert.deepEqual(Object.keys(m), ["userId", "name"]);
});

Deno.test("list_members in B: a workspace key sees name, email and role; a company-scoped one its company's", async () => {
  const ws = await callOk(apps.B, f.keys.workspace, "list_members");
  assert.equal(ws.total, 7);
  for (const m of ws.items) assert.deepEqual(Object.keys(m), ["userId", "name", "email", "role"]);
  const scoped = await callOk(apps.B, f.keys.workspaceCompanyA, "list_members");
  assert.equal(scoped.total, 7, "every fixture member reaches company a");
  const internal = await callOk(apps.B, f.keys.internal, "list_members");
  assert.ok("companyIds" in internal.items[0], "the assistant acts as the owner");
  assert.ok((await listedTools(apps.B, f.keys.workspace)).includes("list_members"));
});
