// /account/keys: sign in, create a key (shown once) that works on /mcp, company limits, toolsets and read-only,
// revoke, admin view, CSRF.
import assert from "node:assert/strict";
import { Browser, field, signInOnPage } from "../oauth/helpers.ts";
import { testApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callOk, callTool, listedTools, rpc } from "../helpers/mcp.ts";
import { inToolsets, TOOLSETS } from "../../lib/mcp/toolsets.ts";
import { TOOLS } from "../../tools/mod.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const app = testApp(db.sql);
Deno.test.afterAll(() => db.close());

const KEY = /pak_[A-Za-z0-9_-]{43}/g;

async function emailOf(userId: string): Promise<string> {
  return (await db.sql<{ email: string }[]>`select email from users where id = ${userId}`)[0].email;
}

async function signedIn(userId: string, target = app): Promise<Browser> {
  const b = new Browser(target);
  const first = await b.get("/account/keys");
  assert.equal(first.status, 303);
  const to = new URL(first.headers.get("location")!, "http://localhost:8000");
  assert.equal(to.pathname, "/signin");
  const page = await b.get(to.pathname + to.search);
  assert.equal(page.status, 200);
  const res = await signInOnPage(b, page, await emailOf(userId), "test password 123");
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/account/keys");
  return b;
}

async function page(b: Browser): Promise<string> {
  const res = await b.get("/account/keys");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  return await res.text();
}

async function create(
  b: Browser,
  fields: Record<string, string>,
): Promise<{ status: number; location: string }> {
  const html = await page(b);
  const res = await b.post("/account/keys", { csrf: field(html, "csrf")!, ...fields });
  return { status: res.status, location: res.headers.get("location") ?? "" };
}

async function keyId(value: string): Promise<string> {
  return (await db.sql<{ id: string }[]>`select id from api_keys where key_prefix = ${value.slice(0, 10)}`)[0]
    .id;
}

Deno.test("create a key: 303, shown once on the next page, works on /mcp as its creator", async () => {
  const b = await signedIn(f.users.member);
  const r = await create(b, { workspace_id: f.workspaceId, name: "Claude", company_id: "" });
  assert.equal(r.status, 303);
  assert.equal(r.location, "/account/keys");
  const html = await page(b);
  const shown = html.match(KEY) ?? [];
  assert.equal(shown.length, 1, "the new value, once");
  const value = shown[0];
  assert.match(html, /shown only this once/);
  assert.equal((await page(b)).match(KEY), null, "gone on reload");
  const made = await callOk(app, value, "create_project", { name: "via page key" });
  assert.equal(made.createdBy, f.users.member);
  const row = (await db.sql<{ kind: string; name: string }[]>`
    select kind, name from api_keys where key_prefix = ${value.slice(0, 10)}`)[0];
  assert.deepEqual({ ...row }, { kind: "user", name: "Claude" });
  assert.match(html, /Claude/);
});

Deno.test("a company limit: only companies the person may see; the key is limited to it", async () => {
  const b = await signedIn(f.users.limited);
  const html = await page(b);
  assert.ok(html.includes(f.companies.a) && !html.includes(f.companies.b), "only company a offered");
  const refused = await create(b, { workspace_id: f.workspaceId, name: "sneaky", company_id: f.companies.b });
  assert.equal(refused.location, "/account/keys?error=not_found");
  assert.match(await (await b.get(refused.location)).text(), /not available to you/);
  const ok = await create(b, { workspace_id: f.workspaceId, name: "scoped", company_id: f.companies.a });
  assert.equal(ok.location, "/account/keys");
  const value = (await page(b)).match(KEY)![0];
  const row = (await db.sql<{ company_id: string }[]>`
    select company_id from api_keys where key_prefix = ${value.slice(0, 10)}`)[0];
  assert.equal(row.company_id, f.companies.a);
  const other = await create(b, { workspace_id: f.other.workspaceId, name: "x", company_id: "" });
  assert.equal(other.location, "/account/keys?error=not_found", "not a member there");
  const empty = await create(b, { workspace_id: f.workspaceId, name: "  ", company_id: "" });
  assert.equal(empty.location, "/account/keys?error=invalid_input");
});

Deno.test("revoke an own key: it stops working on the next request", async () => {
  const b = await signedIn(f.users.manager);
  await create(b, { workspace_id: f.workspaceId, name: "short-lived", company_id: "" });
  const value = (await page(b)).match(KEY)![0];
  assert.ok((await listedTools(app, value)).includes("list_projects"));
  const html = await page(b);
  const res = await b.post("/account/keys/revoke", {
    csrf: field(html, "csrf")!,
    key_id: await keyId(value),
  });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/account/keys?revoked=1");
  assert.equal((await rpc(app, value, "tools/list")).status, 403);
  assert.match(await page(b), /revoked/);
});

Deno.test("a member cannot revoke someone else's key; an admin sees and revokes every key", async () => {
  const victim = f.keys.accounting;
  const victimId = await keyId(victim);
  const member = await signedIn(f.users.member);
  const mhtml = await page(member);
  assert.ok(!mhtml.includes(victimId), "members see only their own keys");
  assert.doesNotMatch(mhtml, /Every key of/);
  const res = await member.post("/account/keys/revoke", { csrf: field(mhtml, "csrf")!, key_id: victimId });
  assert.equal(res.headers.get("location"), "/account/keys?error=no_key");
  assert.equal((await rpc(app, victim, "ping")).status, 200, "still works");

  const admin = await signedIn(f.users.admin);
  const ahtml = await page(admin);
  assert.match(ahtml, /Every key of Test Workspace/);
  assert.ok(ahtml.includes(victimId) && ahtml.includes(await keyId(f.keys.workspace)), "every key listed");
  assert.ok(!ahtml.includes(await keyId(f.other.key)), "not another workspace's");
  const r2 = await admin.post("/account/keys/revoke", { csrf: field(ahtml, "csrf")!, key_id: victimId });
  assert.equal(r2.headers.get("location"), "/account/keys?revoked=1");
  assert.equal((await rpc(app, victim, "ping")).status, 403);
  // nor across workspaces, even for an admin
  const r3 = await admin.post("/account/keys/revoke", {
    csrf: field(ahtml, "csrf")!,
    key_id: await keyId(f.other.key),
  });
  assert.equal(r3.headers.get("location"), "/account/keys?error=no_key");
  assert.equal((await rpc(app, f.other.key, "ping")).status, 200);
});

Deno.test("forms without a valid CSRF token → 403; signed out → sign-in", async () => {
  const b = await signedIn(f.users.owner);
  const res = await b.post("/account/keys", { csrf: "forged", workspace_id: f.workspaceId, name: "x" });
  assert.equal(res.status, 403);
  const rev = await b.post("/account/keys/revoke", { key_id: await keyId(f.keys.owner) });
  assert.equal(rev.status, 403);
  assert.equal((await rpc(app, f.keys.owner, "ping")).status, 200);
  const anon = new Browser(app);
  const r = await anon.get("/account/keys");
  assert.equal(r.status, 303);
  assert.match(r.headers.get("location")!, /^\/signin\?return_to=%2Faccount%2Fkeys$/);
});

Deno.test("the page is framed by nothing and carries no third-party content", async () => {
  const b = await signedIn(f.users.owner);
  const res = await b.get("/account/keys");
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  assert.match(res.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  const html = await res.text();
  assert.doesNotMatch(html, /https?:\/\/(?!localhost:8000)[a-z]/i);
});

Deno.test("variant B: owners and admins may create workspace keys; members may not; A offers none", async () => {
  const appB = testApp(db.sql, { MCP_VARIANT: "B" });
  const admin = await signedIn(f.users.admin, appB);
  assert.match(await page(admin), /name="acts_for"/);
  const r = await create(admin, { workspace_id: f.workspaceId, name: "integration", acts_for: "workspace" });
  assert.equal(r.location, "/account/keys");
  const value = (await page(admin)).match(KEY)![0];
  const row = (await db.sql<{ kind: string; user_id: string | null }[]>`
    select kind, user_id from api_keys where key_prefix = ${value.slice(0, 10)}`)[0];
  assert.deepEqual({ ...row }, { kind: "workspace", user_id: null });
  assert.equal((await callOk(appB, value, "create_project", { name: "by integration" })).createdBy, null);

  const member = await signedIn(f.users.member, appB);
  assert.doesNotMatch(await page(member), /name="acts_for"/);
  const denied = await create(member, { workspace_id: f.workspaceId, name: "x", acts_for: "workspace" });
  assert.equal(denied.location, "/account/keys?error=access_denied");

  const adminA = await signedIn(f.users.admin);
  assert.doesNotMatch(await page(adminA), /name="acts_for"/);
  await create(adminA, { workspace_id: f.workspaceId, name: "in A", acts_for: "workspace" });
  const inA = (await page(adminA)).match(KEY)![0];
  const kindA =
    (await db.sql<{ kind: string }[]>`select kind from api_keys where key_prefix = ${inA.slice(0, 10)}`)[0];
  assert.equal(kindA.kind, "user", "variant A makes user keys only");
});

/** Posts the creation form with repeated fields (one `toolset` per checked box), as a browser sends it. */
async function createWith(b: Browser, pairs: Array<[string, string]>, csrf?: string) {
  const html = await page(b);
  const res = await b.request("/account/keys", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([["csrf", csrf ?? field(html, "csrf")!], ...pairs]).toString(),
  });
  await res.body?.cancel();
  return { status: res.status, location: res.headers.get("location") ?? "" };
}

async function keysNamed(name: string): Promise<number> {
  const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from api_keys where name = ${name}`;
  return n;
}

const toolByName = new Map(TOOLS.map((t) => [t.name, t]));

Deno.test("the form offers every toolset (checked) and read-only (unchecked), collapsed", async () => {
  const html = await page(await signedIn(f.users.member));
  for (const t of TOOLSETS) {
    assert.ok(html.includes(`name="toolset" value="${t}" checked>`), t);
  }
  assert.match(html, /name="read_only" value="1" >/);
  assert.match(html, /name="toolset_choice" value="1"/);
  assert.match(html, /<details class="limits" ><summary>Limit its tools \(optional\)<\/summary>/);
});

Deno.test("toolsets and read-only chosen on the form: stored, listed, and the key reaches only them", async () => {
  const b = await signedIn(f.users.manager);
  const r = await createWith(b, [
    ["workspace_id", f.workspaceId],
    ["name", "Tasks reader"],
    ["company_id", ""],
    ["toolset_choice", "1"],
    ["toolset", "time"],
    ["toolset", "tasks"],
    ["read_only", "1"],
  ]);
  assert.deepEqual(r, { status: 303, location: "/account/keys" });
  const html = await page(b);
  const value = html.match(KEY)![0];
  const [row] = await db.sql`select toolsets, read_only from api_keys where key_prefix = ${
    value.slice(0, 10)
  }`;
  assert.deepEqual({ ...row }, { toolsets: ["tasks", "time"], read_only: true });
  const item = html.match(new RegExp(`data-key-id="${await keyId(value)}"[^]*?</li>`))![0];
  assert.match(item, /<span data-limits>only Tasks, Time tracking; read-only<\/span>/);

  const names = await listedTools(app, value);
  const manager = await listedTools(app, f.keys.manager);
  assert.deepEqual(
    names,
    manager.filter((n) => {
      const t = toolByName.get(n)!;
      return inToolsets(t, ["tasks", "time"]) && t.annotations.readOnlyHint;
    }),
  );
  assert.ok(names.includes("list_tasks") && names.includes("list_time_logs"));
  const write = await callTool(app, value, "create_task", { title: "must not exist" });
  assert.equal(write.text, "unavailable: create_task changes data and this connection is read-only");
  const outside = await callTool(app, value, "list_projects", {});
  assert.equal(
    outside.text,
    "unavailable: list_projects is in the projects toolset, outside this connection's toolsets (tasks, time)",
  );
});

Deno.test("every toolset checked and read-only unchecked: a key without limits, listed as such", async () => {
  const b = await signedIn(f.users.member);
  const r = await createWith(b, [
    ["workspace_id", f.workspaceId],
    ["name", "Everything"],
    ["toolset_choice", "1"],
    ...TOOLSETS.map((t): [string, string] => ["toolset", t]),
  ]);
  assert.equal(r.location, "/account/keys");
  const html = await page(b);
  const value = html.match(KEY)![0];
  const [row] = await db.sql`select toolsets, read_only from api_keys where key_prefix = ${
    value.slice(0, 10)
  }`;
  assert.deepEqual({ ...row }, { toolsets: null, read_only: false });
  const item = html.match(new RegExp(`data-key-id="${await keyId(value)}"[^]*?</li>`))![0];
  assert.match(item, /<span data-limits>every toolset<\/span>/);
  assert.deepEqual(await listedTools(app, value), await listedTools(app, f.keys.member));
});

Deno.test("an unknown toolset, no toolset or a bad read-only value: the form again with the reason, nothing stored", async () => {
  const b = await signedIn(f.users.member);
  const base: Array<[string, string]> = [["workspace_id", f.workspaceId], ["toolset_choice", "1"]];
  const cases: Array<[string, Array<[string, string]>, string, RegExp]> = [
    [
      "bogus set",
      [["toolset", "tasks"], ["toolset", "bogus"]],
      "unknown_toolset",
      /Choose toolsets from the list: Projects and ideas, Tasks, /,
    ],
    [
      "no set",
      [],
      "no_toolset",
      /Choose at least one toolset \(all of them: the key is not limited\)\. No key was created\./,
    ],
    [
      "bad ro",
      [["toolset", "tasks"], ["read_only", "maybe"]],
      "invalid_read_only",
      /Read-only is either checked or not\./,
    ],
  ];
  for (const [name, pairs, code, text] of cases) {
    const r = await createWith(b, [...base, ["name", name], ...pairs]);
    assert.deepEqual(r, { status: 303, location: `/account/keys?error=${code}` }, name);
    const shown = await (await b.get(r.location)).text();
    assert.match(shown, /<p class="error" role="alert">/);
    assert.match(shown, text, name);
    assert.match(shown, /action="\/account\/keys"/, "the form is there again");
    assert.equal(await keysNamed(name), 0, `${name}: nothing stored`);
  }
});

Deno.test("the toolset form without a valid CSRF token → 403, nothing stored", async () => {
  const b = await signedIn(f.users.member);
  const r = await createWith(b, [
    ["workspace_id", f.workspaceId],
    ["name", "forged limits"],
    ["toolset_choice", "1"],
    ["toolset", "tasks"],
  ], "forged");
  assert.equal(r.status, 403);
  assert.equal(await keysNamed("forged limits"), 0);
});
