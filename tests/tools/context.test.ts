// get_context: who and where the caller is, for every role, module state, variant and way in.
import assert from "node:assert/strict";
import { createApiKey } from "../../lib/api_keys.ts";
import { todayUtc } from "../../lib/dates.ts";
import { TOOLSETS } from "../../lib/mcp/toolsets.ts";
import { ROLES } from "../../lib/workspace/modules.ts";
import { createCompany } from "../../lib/workspace/workspaces.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  buildFixture,
  callFails,
  callOk,
  callTool,
  listedTools,
  MCP_URL,
  mcpApp,
  mcpHeaders,
  type RequestTarget,
} from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };

const A_AND_B = [{ id: f.companies.a, name: "Company A" }, { id: f.companies.b, name: "Company B" }];

/** get_context through /mcp?query (a connection's own toolset selection). */
async function contextAt(app: RequestTarget, query: string, key: string) {
  const res = await app.request(`${MCP_URL}?${query}`, {
    method: "POST",
    headers: mcpHeaders(key),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_context", arguments: {} },
    }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.notEqual(body.result.isError, true, body.result.content[0].text);
  return JSON.parse(body.result.content[0].text);
}

Deno.test("get_context for an owner's key in A: person, key, role, workspace, companies, modules, date, toolsets", async () => {
  const r = await callTool(apps.A, f.keys.owner, "get_context");
  assert.equal(r.isError, false, r.text);
  const c = r.data;
  const [owner] = await db.sql`select name, email from users where id = ${f.users.owner}`;
  assert.deepEqual(c.user, { id: f.users.owner, name: owner.name, email: owner.email });
  assert.deepEqual(c.credential, { via: "api_key", name: "test", kind: "user" });
  assert.equal(c.role, "owner");
  assert.deepEqual(c.workspace, { id: f.workspaceId, name: "Test Workspace" });
  assert.equal(c.allCompanies, true);
  assert.deepEqual(c.companies, A_AND_B);
  assert.equal(c.companiesTotal, 2);
  const [{ modules }] = await db.sql`select modules from workspaces where id = ${f.workspaceId}`;
  assert.deepEqual(c.modules, modules);
  assert.equal(c.variant, "A");
  // today's date is the UTC date every tool reads (a test running across midnight may see the next day)
  assert.ok(
    [todayUtc(), new Date(Date.now() - 60_000).toISOString().slice(0, 10)].includes(c.today),
    c.today,
  );
  assert.equal(c.timeZone, "UTC");
  assert.equal(
    c.weekday,
    new Date(`${c.today}T12:00:00Z`).toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" }),
  );
  assert.equal(c.now.slice(0, 10), c.today);
  assert.deepEqual(c.toolsets, [...TOOLSETS]);
  assert.equal(c.readOnly, false);
  assert.deepEqual(r.structuredContent, c);
  // nothing secret: not the key, its hash or its id
  const [key] = await db.sql`select id, key_hash from api_keys where workspace_id = ${f.workspaceId}
                              and user_id = ${f.users.owner} and kind = 'user' and company_id is null
                              and revoked_at is null`;
  for (const secret of [f.keys.owner, key.key_hash, key.id]) assert.equal(r.text.includes(secret), false);
});

Deno.test("get_context: every role and every module state may call it (role settings cannot hide it)", async () => {
  await db
    .sql`insert into role_permissions (workspace_id, area, roles) values (${f.workspaceId}, 'context', ${[
    "owner",
  ]})`;
  try {
    for (const role of ROLES) {
      assert.ok((await listedTools(apps.A, f.keys[role])).includes("get_context"), role);
      const c = await callOk(apps.A, f.keys[role], "get_context");
      assert.equal(c.role, role);
      assert.equal(c.user.id, f.users[role]);
    }
  } finally {
    await db.sql`delete from role_permissions where workspace_id = ${f.workspaceId}`;
  }
  const bare = await buildFixture(db.sql, { modules: [] });
  const c = await callOk(apps.A, bare.keys.guest, "get_context");
  assert.deepEqual(c.modules, []);
  assert.deepEqual(await listedTools(apps.A, bare.keys.guest), ["get_context", "list_members"]);
});

Deno.test("get_context: company limits of the member and of the key", async () => {
  const limited = await callOk(apps.A, f.keys.limited, "get_context");
  assert.equal(limited.allCompanies, false);
  assert.deepEqual(limited.companies, [{ id: f.companies.a, name: "Company A" }]);
  assert.equal(limited.companiesTotal, 1);
  const scoped = await callOk(apps.A, f.keys.ownerCompanyA, "get_context");
  assert.equal(scoped.allCompanies, false);
  assert.deepEqual(scoped.companies, [{ id: f.companies.a, name: "Company A" }]);
  // a key scoped to a company its member may not see reaches none
  const none = await f.key({ user: f.users.limited, companyId: f.companies.b });
  const c = await callOk(apps.A, none, "get_context");
  assert.deepEqual([c.allCompanies, c.companies, c.companiesTotal], [false, [], 0]);
});

Deno.test("get_context lists at most 100 companies and says how many there are", async () => {
  const big = await buildFixture(db.sql);
  for (let i = 0; i < 101; i++) {
    await createCompany(db.sql, big.workspaceId, `Co ${String(i).padStart(3, "0")}`);
  }
  const c = await callOk(apps.A, big.keys.owner, "get_context");
  assert.equal(c.companies.length, 100);
  assert.equal(c.companiesTotal, 103);
  assert.equal(c.allCompanies, true);
});

Deno.test("get_context reports the toolsets in force: the URL's selection narrowed by the key's limits", async () => {
  const url = await contextAt(apps.A, "toolsets=time,tasks&readonly=1", f.keys.member);
  assert.deepEqual([url.toolsets, url.readOnly], [["tasks", "time"], true]);
  const key = (await createApiKey(db.sql, {
    workspaceId: f.workspaceId,
    userId: f.users.member,
    toolsets: ["tasks", "crm"],
    readOnly: true,
    name: "narrow",
  })).key;
  const own = await callOk(apps.A, key, "get_context");
  assert.deepEqual([own.toolsets, own.readOnly, own.credential.name], [["tasks", "crm"], true, "narrow"]);
  const both = await contextAt(apps.A, "toolsets=tasks,time&readonly=0", key);
  assert.deepEqual([both.toolsets, both.readOnly], [["tasks"], true]);
  const none = await contextAt(apps.A, "toolsets=finance", key);
  assert.deepEqual(none.toolsets, []);
});

Deno.test("get_context through an OAuth access token: the person, and the app by its client name", async () => {
  const g = await bearerFor(db.sql, {
    userId: f.users.manager,
    workspaceId: f.workspaceId,
    companyId: f.companies.b,
  });
  const r = await callTool(apps.A, g.auth, "get_context");
  assert.equal(r.isError, false, r.text);
  assert.deepEqual(r.data.credential, {
    via: "oauth",
    clientId: g.clientId,
    clientName: "Operator MCP Client",
  });
  assert.equal(r.data.user.id, f.users.manager);
  assert.equal(r.data.role, "manager");
  assert.deepEqual(r.data.companies, [{ id: f.companies.b, name: "Company B" }]);
  assert.equal(r.text.includes(g.token), false);
  assert.equal(r.text.includes(g.grantId), false);
  const b = await callOk(apps.B, g.auth, "get_context");
  assert.deepEqual([b.variant, b.user.id, b.credential.via], ["B", f.users.manager, "oauth"]);
});

Deno.test("get_context in B: a workspace key has no person and no role; the assistant acts as its user", async () => {
  const ws = await callOk(apps.B, f.keys.workspace, "get_context");
  assert.equal(ws.user, null);
  assert.equal(ws.role, null);
  assert.deepEqual(ws.credential, { via: "api_key", name: "test", kind: "workspace" });
  assert.deepEqual([ws.allCompanies, ws.companies, ws.variant], [true, A_AND_B, "B"]);
  const scoped = await callOk(apps.B, f.keys.workspaceCompanyA, "get_context");
  assert.deepEqual(scoped.companies, [{ id: f.companies.a, name: "Company A" }]);
  const internal = await callOk(apps.B, f.keys.internal, "get_context");
  assert.deepEqual([internal.user.id, internal.role, internal.credential.kind], [
    f.users.owner,
    "owner",
    "internal",
  ]);
  assert.ok((await listedTools(apps.B, f.keys.workspace)).includes("get_context"));
});

Deno.test("get_context: another workspace's key sees only its own workspace; arguments are refused", async () => {
  const c = await callOk(apps.A, f.other.key, "get_context");
  assert.deepEqual(c.workspace, { id: f.other.workspaceId, name: "Other Workspace" });
  assert.deepEqual(c.companies, [{ id: f.other.companyId, name: "Other Co" }]);
  assert.equal(c.user.id, f.other.ownerId);
  const text = await callFails(
    apps.A,
    f.keys.owner,
    "get_context",
    { workspaceId: f.other.workspaceId },
    "invalid_input",
  );
  assert.match(text, /workspaceId/);
});
