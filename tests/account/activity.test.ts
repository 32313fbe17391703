// /account/activity and /account/workspaces/<id>/activity over HTTP: a person's own calls (apps and keys, exact
// rows, records, refusal reasons), filters, keyset pages, the bounded CSV, never another person's activity; the
// workspace page for owners and admins only; an admin disconnects a member's app and /mcp refuses its token.
import assert from "node:assert/strict";
import { ACTIVITY_CSV_MAX, ACTIVITY_PAGE_SIZE } from "../../lib/activity.ts";
import { createAuditLog } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import { silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callOk, callTool, rpc } from "../helpers/mcp.ts";
import { Browser, field, signInOnPage } from "../oauth/helpers.ts";

const FIXTURE_PASSWORD = "test password 123";

/** The rows of an activity page, newest first: [tool, outcome] with the record and reason texts. */
function rowsOf(html: string): Array<{ id: string; tool: string; outcome: string }> {
  return [...html.matchAll(/<li data-activity="(\d+)" data-tool="([^"]*)" data-outcome="([^"]*)"/g)].map((
    m,
  ) => ({
    id: m[1],
    tool: m[2],
    outcome: m[3],
  }));
}

async function world() {
  const db = await freshDatabase();
  const f = await buildFixture(db.sql);
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 1000 });
  const config = parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    ...TEST_RATE_LIMITS,
  });
  const app = createApp({
    config,
    sql: db.sql,
    log: silentLogger,
    secretKey: TEST_SECRET,
    scrypt: TEST_SCRYPT,
    audit,
  });
  const emailOf = async (id: string) =>
    (await db.sql<{ email: string }[]>`select email from users where id = ${id}`)[0].email;
  const signedIn = async (userId: string) => {
    const b = new Browser(app);
    const res = await signInOnPage(b, await b.get("/signin"), await emailOf(userId), FIXTURE_PASSWORD);
    assert.equal(res.status, 303);
    return b;
  };
  return {
    db,
    f,
    app,
    audit,
    signedIn,
    close: async () => {
      await audit.close();
      await db.close();
    },
  };
}

Deno.test("activity: a person sees exactly their own apps' and keys' calls, with records, reasons and filters", async (t) => {
  const w = await world();
  const { f, app, db } = w;
  try {
    const member = f.users.member;
    const grant = await bearerFor(db.sql, { userId: member, workspaceId: f.workspaceId });
    await db.sql`insert into oauth_consents (user_id, client_id, scopes, workspace_id)
                 values (${member}, ${grant.clientId}, ${["openid", "workspace"]}, ${f.workspaceId})`;
    // the member's key: a project created, then read by the app; a refused call; an invalid one
    const project = await callOk(app, f.keys.member, "create_project", { name: "Quokka launch" });
    await callOk(app, grant.auth, "get_project", { projectId: project.id });
    const refused = await callTool(app, grant.auth, "list_invoices", {});
    assert.equal(refused.isError, true);
    const invalid = await callTool(app, f.keys.member, "get_project", { projectId: "not an id" });
    assert.equal(invalid.isError, true);
    // another person's call, in the same workspace
    await callOk(app, f.keys.manager, "list_projects", {});
    await w.audit.flush(); // the writer is off the response path: its flush is the deterministic wait

    const [stored] = await db.sql`
      select grant_id, client_id, reason, records, confirmed from audit_log
       where user_id = ${member} and tool = 'list_invoices'`;
    assert.deepEqual({ ...stored }, {
      grant_id: grant.grantId,
      client_id: grant.clientId,
      reason: "access_denied: the member role may not use invoices tools in this workspace",
      records: null,
      confirmed: false,
    });
    const [created] = await db.sql`
      select records, reason from audit_log where user_id = ${member} and tool = 'create_project'`;
    assert.deepEqual(created.records, [`id:${project.id}`]);
    assert.equal(created.reason, null);
    const [bad] = await db.sql`select reason, records from audit_log where outcome = 'invalid'`;
    assert.deepEqual({ ...bad }, { reason: "invalid_input", records: null }); // never the argument's text

    const b = await w.signedIn(member);
    await t.step("the page lists the four calls newest first, never the manager's", async () => {
      const res = await b.get("/account/activity");
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.deepEqual(rowsOf(html).map((r) => [r.tool, r.outcome]), [
        ["get_project", "invalid"],
        ["list_invoices", "denied"],
        ["get_project", "ok"],
        ["create_project", "ok"],
      ]);
      assert.ok(html.includes(`projectId <code>${project.id}</code>`));
      assert.ok(html.includes("the member role may not use invoices tools in this workspace"));
      assert.ok(html.includes("Create project") && html.includes("List invoices")); // tool titles
      assert.ok(html.includes(`App: Operator MCP Client`));
      assert.ok(!html.includes("not an id"));
      assert.ok(html.includes('href="/account/activity" aria-current="page"'));
    });
    await t.step("filters: app, key, tool, outcome, dates", async () => {
      const tools = async (q: string) =>
        rowsOf(await (await b.get(`/account/activity?${q}`)).text()).map((r) => r.tool);
      assert.deepEqual(await tools(`source=${encodeURIComponent(`app:${grant.clientId}`)}`), [
        "list_invoices",
        "get_project",
      ]);
      const [key] = await db.sql<{ id: string }[]>`
        select key_id as id from audit_log where tool = 'create_project'`;
      assert.deepEqual(await tools(`source=key:${key.id}`), ["get_project", "create_project"]);
      assert.deepEqual(await tools("tool=get_project"), ["get_project", "get_project"]);
      assert.deepEqual(await tools("outcome=denied"), ["list_invoices"]);
      const today = new Date().toISOString().slice(0, 10);
      assert.equal((await tools(`from=${today}&to=${today}`)).length, 4);
      assert.deepEqual(await tools("to=2020-01-01"), []);
      // another person's key as a filter shows nothing of theirs
      const [mk] = await db.sql<
        { id: string }[]
      >`select key_id as id from audit_log where user_id = ${f.users.manager}`;
      assert.deepEqual(await tools(`source=key:${mk.id}`), []);
    });
    await t.step(
      "the manager sees none of the member's calls, and the member's page links from apps and keys",
      async () => {
        const m = await w.signedIn(f.users.manager);
        assert.deepEqual(rowsOf(await (await m.get("/account/activity")).text()).map((r) => r.tool), [
          "list_projects",
        ]);
        const csv = await (await m.get("/account/activity.csv")).text();
        assert.equal(csv.trim().split("\r\n").length, 2); // header and the one call
        const apps = await (await b.get("/account/apps")).text();
        assert.ok(apps.includes(`/account/activity?source=${encodeURIComponent(`app:${grant.clientId}`)}`));
        const keys = await (await b.get("/account/keys")).text();
        assert.ok(keys.includes("Activity of"));
      },
    );
  } finally {
    await w.close();
  }
});

Deno.test("activity: keyset pages of 50 and a CSV bounded at 10,000 rows with the way on", async () => {
  const w = await world();
  const { f, db } = w;
  try {
    const member = f.users.member;
    const n = ACTIVITY_CSV_MAX + 5;
    // one call a second going back; equal times for a pair to test the id tie-break
    await db.sql`
      insert into audit_log (at, workspace_id, key_id, user_id, tool, outcome, duration_ms, request_id)
      select timestamptz '2026-06-01 12:00:00+00' - make_interval(secs => i / 2), ${f.workspaceId},
             gen_random_uuid(), ${member}, 'list_projects', 'ok', 1, 'r' || i
        from generate_series(1, ${n}) i`;
    const b = await w.signedIn(member);
    const seen: string[] = [];
    let url: string | null = "/account/activity";
    for (let page = 0; page < 3 && url; page++) {
      const html: string = await (await b.get(url)).text();
      const rows = rowsOf(html);
      assert.equal(rows.length, ACTIVITY_PAGE_SIZE);
      seen.push(...rows.map((r) => r.id));
      const next: RegExpMatchArray | null = html.match(/<a href="([^"]+)" rel="next"/);
      url = next ? next[1].replaceAll("&amp;", "&") : null;
    }
    const expected = await db.sql<{ id: string }[]>`
      select id::text from audit_log where user_id = ${member} order by at desc, id desc limit 150`;
    assert.deepEqual(seen, expected.map((r) => r.id));

    const res = await b.get("/account/activity.csv");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
    assert.equal(res.headers.get("activity-row-limit"), String(ACTIVITY_CSV_MAX));
    assert.equal(res.headers.get("cache-control"), "no-store");
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]); // the BOM (text() would drop it)
    const lines = new TextDecoder().decode(bytes).split("\r\n").filter((l) => l !== "");
    assert.ok(lines[0].startsWith("time_utc,tool,tool_title,outcome,"), lines[0]);
    assert.equal(lines.length, 1 + ACTIVITY_CSV_MAX + 1);
    const trailer = lines[lines.length - 1];
    assert.match(trailer, /^# cut at 10000 rows; the rest: \/account\/activity\.csv\?before=/);
    const rest = await (await b.get(trailer.slice(trailer.indexOf("/account")))).text();
    const restLines = rest.split("\r\n").filter((l) => l !== "");
    assert.equal(restLines.length, 1 + 5); // header and the 5 left
    assert.ok(!restLines.some((l) => l.startsWith("#")));
  } finally {
    await w.close();
  }
});

Deno.test("workspace activity: owners and admins only; an admin disconnects a member's app and /mcp refuses it", async () => {
  const w = await world();
  const { f, app, db } = w;
  try {
    const member = f.users.member;
    const grant = await bearerFor(db.sql, { userId: member, workspaceId: f.workspaceId });
    await db.sql`insert into oauth_consents (user_id, client_id, scopes, workspace_id)
                 values (${member}, ${grant.clientId}, ${["openid", "workspace"]}, ${f.workspaceId})`;
    // the same app for the member in another workspace stays connected
    await db
      .sql`insert into workspace_members (workspace_id, user_id, role) values (${f.other.workspaceId}, ${member}, 'member')`;
    const elsewhere = await bearerFor(db.sql, { userId: member, workspaceId: f.other.workspaceId });
    await callOk(app, grant.auth, "list_projects", {});
    await callOk(app, f.keys.manager, "list_projects", {});
    await callOk(app, f.other.key, "list_projects", {});
    await w.audit.flush();
    const path = `/account/workspaces/${f.workspaceId}/activity`;

    const manager = await w.signedIn(f.users.manager);
    assert.equal((await manager.get(path)).status, 403);
    assert.equal((await manager.get(`${path}.csv`)).status, 403);
    const otherOwner = await w.signedIn(f.other.ownerId);
    assert.equal((await otherOwner.get(path)).status, 403);

    const admin = await w.signedIn(f.users.admin);
    const page = await admin.get(path);
    assert.equal(page.status, 200);
    const html = await page.text();
    // both members' calls of this workspace, not the other workspace's
    assert.deepEqual(rowsOf(html).map((r) => r.tool), ["list_projects", "list_projects"]);
    assert.equal((html.match(/data-person>/g) ?? []).length, 2);
    assert.ok(html.includes(`data-member-app="${member} ${grant.clientId}"`));

    // Disconnect: a confirmation page first (GET changes nothing), then the POST with CSRF
    const confirmUrl = `${path}/disconnect?user_id=${member}&client_id=${encodeURIComponent(grant.clientId)}`;
    const confirm = await admin.get(confirmUrl);
    assert.equal(confirm.status, 200);
    const confirmHtml = await confirm.text();
    assert.equal((await rpc(app, grant.auth, "tools/list")).status, 200);
    const noCsrf = await admin.post(`${path}/disconnect`, {
      csrf: "wrong",
      user_id: member,
      client_id: grant.clientId,
    });
    assert.equal(noCsrf.status, 403);
    // another workspace's owner cannot disconnect it
    const otherHtml = await (await otherOwner.get("/account/activity")).text();
    const otherTry = await otherOwner.post(`${path}/disconnect`, {
      csrf: field(otherHtml, "csrf") ?? field(confirmHtml, "csrf")!,
      user_id: member,
      client_id: grant.clientId,
    });
    assert.ok(otherTry.status === 403, `other owner: ${otherTry.status}`);
    assert.equal((await rpc(app, grant.auth, "tools/list")).status, 200);

    const done = await admin.post(`${path}/disconnect`, {
      csrf: field(confirmHtml, "csrf")!,
      user_id: member,
      client_id: grant.clientId,
    });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get("location"), `${path}?disconnected=1`);
    const refusedAfter = await rpc(app, grant.auth, "tools/list");
    assert.equal(refusedAfter.status, 401);
    assert.equal((await rpc(app, elsewhere.auth, "tools/list")).status, 200);
    assert.equal((await rpc(app, f.keys.member, "tools/list")).status, 200);
    const [g] = await db
      .sql`select revoked_at is not null as revoked from oauth_grants where id = ${grant.grantId}`;
    assert.equal(g.revoked, true);
    // the consent that remembered this workspace is gone: the app must ask the member again
    assert.equal((await db.sql`select 1 from oauth_consents where user_id = ${member}`).length, 0);
    const after = await (await admin.get(`${path}?disconnected=1`)).text();
    assert.ok(after.includes("The app was disconnected for that member."));
    assert.ok(!after.includes(`data-member-app="${member} ${grant.clientId}"`));
  } finally {
    await w.close();
  }
});
