// The operators' pages (issue 23 point 2): who may see them, CSRF, approve/deny with their audit rows, the 404 and
// 409 refusals that change nothing, untrusting an app and trusting or removing a metadata-document prefix, and the
// bounded list of pending requests.
import assert from "node:assert/strict";
import { askApproval, PENDING_LIST_MAX } from "../../lib/oauth/approvals.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { testApp } from "../helpers/app.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { Browser, type Ctx, field, registerPublic, setup, signInOnPage } from "./helpers.ts";

const DOC_CLIENT = "https://tools.example/oauth/client.json";

interface World {
  ws: string;
  company: string;
}

async function world(ctx: Ctx): Promise<World> {
  const ws = (await createWorkspace(ctx.db.sql, "Harbour Studio", [...MODULES])).id;
  const company = (await createCompany(ctx.db.sql, ws, "North Company")).id;
  await addMember(ctx.db.sql, ws, ctx.user.id, "owner", null);
  await addMember(ctx.db.sql, ws, ctx.other.id, "member", null);
  // Dana is the operator; Olly is not.
  await ctx.db.sql`update users set operator = true where id = ${ctx.user.id}`;
  return { ws, company };
}

/** A browser signed in as `email`, and its CSRF token (one per browser: the sign-in page's is every page's). */
async function signedIn(ctx: Ctx, email: string, app = ctx.app): Promise<{ b: Browser; csrf: string }> {
  const b = new Browser(app);
  const page = await b.get("/signin?return_to=%2Foperator%2Frequests");
  const html = await page.clone().text();
  const res = await signInOnPage(b, page, email);
  assert.equal(res.status, 303);
  return { b, csrf: field(html, "csrf")! };
}

async function ask(ctx: Ctx, w: World, clientId: string, userId: string, note = "") {
  const asked = await askApproval(ctx.db.sql, {
    clientId,
    userId,
    place: { workspaceId: w.ws, companyId: w.company },
    scopes: ["openid", "workspace"],
    note,
  });
  assert.equal(asked.kind, "asked");
  return asked.kind === "asked" ? asked.request.id : "";
}

async function statusOf(ctx: Ctx, requestId: string): Promise<string> {
  const [row] = await ctx.db.sql<{ status: string }[]>`
    select status from oauth_approval_requests where id = ${requestId}`;
  return row.status;
}

async function decisionCount(ctx: Ctx): Promise<number> {
  const [{ n }] = await ctx.db.sql<{ n: number }[]>`select count(*)::int as n from operator_decisions`;
  return n;
}

async function trusted(ctx: Ctx, clientId: string): Promise<boolean> {
  const [row] = await ctx.db.sql<{ trusted: boolean }[]>`
    select trusted from oauth_clients where client_id = ${clientId}`;
  return row.trusted;
}

async function docClient(ctx: Ctx, clientId = DOC_CLIENT): Promise<void> {
  await ctx.db.sql`
    insert into oauth_clients (client_id, name, redirect_uris, scopes, self_registered)
    values (${clientId}, 'Doc Tool', ${["https://tools.example/callback"]}, '{openid,workspace}', true)`;
}

Deno.test("operator pages", async (t) => {
  const ctx = await setup();
  try {
    const w = await world(ctx);
    const app = ctx.app;
    const operator = await signedIn(ctx, ctx.user.email);
    const person = await signedIn(ctx, ctx.other.email);

    await t.step(
      "not signed in: every page and form answers 303 to sign-in; /operator leads to requests",
      async () => {
        const anon = new Browser(app);
        for (const path of ["/operator/requests", "/operator/clients"]) {
          const res = await anon.get(path);
          assert.equal(res.status, 303, path);
          assert.equal(res.headers.get("location"), `/signin?return_to=${encodeURIComponent(path)}`);
        }
        const root = await anon.get("/operator");
        assert.equal(root.status, 303);
        assert.equal(root.headers.get("location"), "/operator/requests");
        const client = await registerPublic(app, { client_name: "Anon Target" });
        const id = await ask(ctx, w, client.client_id, ctx.other.id);
        const csrf = field(await (await anon.get("/signin")).text(), "csrf")!;
        const res = await anon.post("/operator/requests/approve", { csrf, request_id: id });
        assert.equal(res.status, 303);
        assert.match(res.headers.get("location")!, /^\/signin\?return_to=/);
        assert.equal(await statusOf(ctx, id), "pending");
        assert.equal(await trusted(ctx, client.client_id), false);
        assert.equal(await decisionCount(ctx), 0);
      },
    );

    await t.step(
      "a signed-in account without the operator flag gets 403 on every page and form, nothing changed",
      async () => {
        const client = await registerPublic(app, { client_name: "Olly Target" });
        const id = await ask(ctx, w, client.client_id, ctx.other.id);
        await ctx.db.sql`update oauth_clients set trusted = true where client_id = ${client.client_id}`;
        for (const path of ["/operator/requests", "/operator/clients"]) {
          const res = await person.b.get(path);
          assert.equal(res.status, 403, path);
          const html = await res.text();
          assert.match(html, /<h1>Operators only<\/h1>/);
          assert.match(html, /This page is for operators of this service, and olly@example.com is not one/);
          assert.match(html, /data-error-code="not_operator"/);
          assert.doesNotMatch(html, /Olly Target/, "no request is shown");
        }
        const csrf = person.csrf;
        const posts: Array<[string, Record<string, string>]> = [
          ["/operator/requests/approve", { csrf, request_id: id }],
          ["/operator/requests/deny", { csrf, request_id: id }],
          ["/operator/clients/untrust", { csrf, client_id: client.client_id }],
          ["/operator/prefixes/trust", { csrf, prefix: "https://olly.example/" }],
          ["/operator/prefixes/untrust", { csrf, prefix: "https://olly.example/" }],
        ];
        for (const [path, fields] of posts) {
          const res = await person.b.post(path, fields);
          assert.equal(res.status, 403, path);
          assert.match(await res.text(), /Operators only/, path);
        }
        assert.equal(await statusOf(ctx, id), "pending");
        assert.equal(await trusted(ctx, client.client_id), true);
        assert.equal((await ctx.db.sql`select 1 from oauth_trusted_prefixes`).length, 0);
        assert.equal(await decisionCount(ctx), 0);
        // The account pages link to the operator pages only for operators.
        assert.doesNotMatch(
          await (await person.b.get("/account/apps")).text(),
          /href="\/operator\/requests"/,
        );
        assert.match(await (await operator.b.get("/account/apps")).text(), /href="\/operator\/requests"/);
        assert.match(await (await operator.b.get("/account/keys")).text(), /href="\/operator\/requests"/);
        assert.doesNotMatch(
          await (await person.b.get("/account/keys")).text(),
          /href="\/operator\/requests"/,
        );
      },
    );

    await t.step("CSRF missing, wrong or from another browser → 403, nothing changed", async () => {
      const client = await registerPublic(app, { client_name: "Csrf Target" });
      const id = await ask(ctx, w, client.client_id, ctx.other.id);
      for (const csrf of [undefined, "forged", person.csrf]) {
        const fields: Record<string, string> = { request_id: id };
        if (csrf !== undefined) fields.csrf = csrf;
        const res = await operator.b.post("/operator/requests/approve", fields);
        assert.equal(res.status, 403, String(csrf));
        assert.match(await res.text(), /data-error-code="invalid_csrf"/);
        const prefix = await operator.b.post("/operator/prefixes/trust", {
          ...fields,
          prefix: "https://x.example/",
        });
        assert.equal(prefix.status, 403);
      }
      assert.equal(await statusOf(ctx, id), "pending");
      assert.equal(await trusted(ctx, client.client_id), false);
      assert.equal((await ctx.db.sql`select 1 from oauth_trusted_prefixes`).length, 0);
      assert.equal(await decisionCount(ctx), 0);
    });

    await t.step(
      "the list says who asked, where, for which app, how it registered, its use, scopes and note",
      async () => {
        await ctx.db.sql`delete from oauth_approval_requests`;
        const client = await registerPublic(app, {
          client_name: "Cursor",
          redirect_uris: ["cursor://anysphere.cursor-mcp/oauth/callback", "http://127.0.0.1:8976/callback"],
        });
        await ctx.db.sql`
        update oauth_clients set created_at = '2026-02-03 04:05Z', last_used_at = '2026-02-04 06:07Z'
         where client_id = ${client.client_id}`;
        const id = await ask(ctx, w, client.client_id, ctx.other.id, "For the <weekly> report");
        await docClient(ctx);
        const docId = await ask(ctx, w, DOC_CLIENT, ctx.other.id);
        const res = await operator.b.get("/operator/requests");
        assert.equal(res.status, 200);
        const html = await res.text();
        const row = html.slice(
          html.indexOf(`data-request-id="${id}"`),
          html.indexOf("</li>", html.indexOf(id)),
        );
        assert.match(row, /<strong>Cursor<\/strong>/);
        assert.match(row, /data-origin="registered">registered itself</);
        assert.match(row, /data-asked-by>Olly &lt;olly@example.com&gt;</);
        assert.match(row, /data-workspace>Harbour Studio, only North Company</);
        assert.match(
          row,
          /<dd><code class="url" data-redirect-host>cursor:\/\/anysphere.cursor-mcp<\/code>, <code class="url" data-redirect-host>127.0.0.1:8976<\/code><\/dd>/,
        );
        assert.match(row, /<dd>2026-02-03 04:05 UTC<\/dd>/, "first seen");
        assert.match(row, /<dd>2026-02-04 06:07 UTC<\/dd>/, "last used");
        assert.match(row, /<code>openid<\/code> <code>workspace<\/code>/);
        assert.match(row, /data-note>For the &lt;weekly> report</);
        assert.match(row, /name="request_id" value="[^"]+"/);
        assert.match(row, /action="\/operator\/requests\/approve"/);
        assert.match(row, /action="\/operator\/requests\/deny"/);
        const docRow = html.slice(html.indexOf(`data-request-id="${docId}"`));
        assert.match(docRow, /data-origin="metadata_document">metadata document from tools.example</);
        assert.match(html, /trusts the app for everyone on this server/);
        assert.match(html, /<a href="\/operator\/requests" aria-current="page">/);
        assert.match(html, /<a href="\/operator\/clients"\s*>Trusted apps<\/a>/);
        assert.doesNotMatch(html, /data-more/);
        assert.equal(res.headers.get("cache-control"), "no-store");
        assert.equal(res.headers.get("x-frame-options"), "DENY");
      },
    );

    await t.step(
      "approve: 303 with a notice; the app trusted for everyone, each pending request audited",
      async () => {
        await ctx.db.sql`delete from oauth_approval_requests`;
        await ctx.db.sql`delete from operator_decisions`;
        const client = await registerPublic(app, { client_name: "Claude Code" });
        const olly = await ask(ctx, w, client.client_id, ctx.other.id);
        const dana = await ask(ctx, w, client.client_id, ctx.user.id);
        const res = await operator.b.post("/operator/requests/approve", {
          csrf: operator.csrf,
          request_id: olly,
        });
        assert.equal(res.status, 303);
        assert.equal(res.headers.get("location"), "/operator/requests?done=approved");
        assert.equal(await trusted(ctx, client.client_id), true);
        assert.equal(await statusOf(ctx, olly), "approved");
        assert.equal(
          await statusOf(ctx, dana),
          "approved",
          "the other person's request for the app went with it",
        );
        const [decided] = await ctx.db.sql<{ decided_by: string }[]>`
        select decided_by from oauth_approval_requests where id = ${olly}`;
        assert.equal(decided.decided_by, ctx.user.id);
        const rows = await ctx.db.sql<
          { via: string; operator_id: string; action: string; request_id: string }[]
        >`
        select via, operator_id, action, request_id, client_id from operator_decisions order by request_id`;
        assert.deepEqual(
          rows.map((r) => ({ ...r })),
          [olly, dana].sort().map((id) => ({
            via: "page",
            operator_id: ctx.user.id,
            action: "approve",
            request_id: id,
            client_id: client.client_id,
          })),
        );
        const page = await (await operator.b.get("/operator/requests?done=approved")).text();
        assert.match(page, /role="status">Approved. The app is now trusted for everyone on this server/);
        assert.match(page, /data-empty>No requests are waiting/);

        // Approving (or denying) again: 409 naming the status; nothing changed, no second decision.
        for (const path of ["/operator/requests/approve", "/operator/requests/deny"]) {
          const again = await operator.b.post(path, { csrf: operator.csrf, request_id: olly });
          assert.equal(again.status, 409, path);
          const html = await again.text();
          assert.match(html, /This request was already approved. Nothing changed./);
          assert.match(html, /data-error-code="already_decided"/);
        }
        assert.equal(await decisionCount(ctx), 2);
        const [{ n }] = await ctx.db.sql<{ n: number }[]>`
        select count(*)::int as n from operator_decisions where request_id = ${olly}`;
        assert.equal(n, 1);
        assert.equal(await statusOf(ctx, olly), "approved");
      },
    );

    await t.step(
      "deny: 303 with a notice; that request denied and audited, the app still untrusted",
      async () => {
        await ctx.db.sql`delete from operator_decisions`;
        const client = await registerPublic(app, { client_name: "Denied App" });
        const id = await ask(ctx, w, client.client_id, ctx.other.id);
        const res = await operator.b.post("/operator/requests/deny", { csrf: operator.csrf, request_id: id });
        assert.equal(res.status, 303);
        assert.equal(res.headers.get("location"), "/operator/requests?done=denied");
        assert.equal(await statusOf(ctx, id), "denied");
        assert.equal(await trusted(ctx, client.client_id), false);
        const rows = await ctx.db.sql`select via, operator_id, action, request_id from operator_decisions`;
        assert.deepEqual(rows.map((r) => ({ ...r })), [
          { via: "page", operator_id: ctx.user.id, action: "deny", request_id: id },
        ]);
        assert.match(
          await (await operator.b.get("/operator/requests?done=denied")).text(),
          /role="status">Denied. That person's request ended; the app stays untrusted./,
        );
        const again = await operator.b.post("/operator/requests/approve", {
          csrf: operator.csrf,
          request_id: id,
        });
        assert.equal(again.status, 409);
        assert.match(await again.text(), /already denied/);
        assert.equal(await trusted(ctx, client.client_id), false);
        assert.equal(await decisionCount(ctx), 1);
      },
    );

    await t.step("an unknown or malformed request id → 404, nothing changed", async () => {
      const before = await decisionCount(ctx);
      for (const id of [crypto.randomUUID(), "not-a-uuid", "", "1; drop table users"]) {
        for (const path of ["/operator/requests/approve", "/operator/requests/deny"]) {
          const res = await operator.b.post(path, { csrf: operator.csrf, request_id: id });
          assert.equal(res.status, 404, `${path} ${id}`);
          const html = await res.text();
          assert.match(html, /<h1>No such request<\/h1>/);
          assert.match(html, /data-error-code="not_found"/);
        }
      }
      assert.equal(await decisionCount(ctx), before);
    });

    await t.step("untrust an app: its grants with workspace end, audited; an unknown app → 404", async () => {
      await ctx.db.sql`delete from operator_decisions`;
      const client = await registerPublic(app, { client_name: "Trusted Tool" });
      await ctx.db.sql`update oauth_clients set trusted = true where client_id = ${client.client_id}`;
      const grant = await bearerFor(ctx.db.sql, {
        userId: ctx.other.id,
        workspaceId: w.ws,
        clientId: client.client_id,
      });
      const listed = await (await operator.b.get("/operator/clients")).text();
      const row = listed.slice(listed.indexOf(`data-client-id="${client.client_id}"`));
      assert.match(row, /<strong>Trusted Tool<\/strong>/);
      assert.match(row, /data-people="1">1 person uses it</);
      assert.match(row, /Untrust Trusted Tool<\/button>/);

      const res = await operator.b.post("/operator/clients/untrust", {
        csrf: operator.csrf,
        client_id: client.client_id,
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/operator/clients?done=untrusted");
      assert.equal(await trusted(ctx, client.client_id), false);
      const [g] = await ctx.db.sql<{ revoked: boolean }[]>`
        select revoked_at is not null as revoked from oauth_grants where id = ${grant.grantId}`;
      assert.equal(g.revoked, true);
      const rows = await ctx.db.sql`select via, operator_id, action, client_id from operator_decisions`;
      assert.deepEqual(rows.map((r) => ({ ...r })), [
        { via: "page", operator_id: ctx.user.id, action: "untrust", client_id: client.client_id },
      ]);
      const after = await (await operator.b.get("/operator/clients?done=untrusted")).text();
      assert.doesNotMatch(after, new RegExp(`data-client-id="${client.client_id}"`));
      assert.match(after, /role="status">Untrusted./);
      assert.match(after, /data-action="untrust"/, "the recent decisions list it");

      const unknown = await operator.b.post("/operator/clients/untrust", {
        csrf: operator.csrf,
        client_id: "pcl_nobody",
      });
      assert.equal(unknown.status, 404);
      assert.match(await unknown.text(), /<h1>No such app<\/h1>/);
      assert.equal(await decisionCount(ctx), 1);
    });

    await t.step(
      "trust a prefix: good, duplicate, configured, bad (400, the reason, what was typed)",
      async () => {
        await ctx.db.sql`delete from operator_decisions`;
        const good = await operator.b.post("/operator/prefixes/trust", {
          csrf: operator.csrf,
          prefix: " https://tools.example/oauth/ ",
        });
        assert.equal(good.status, 303);
        assert.equal(good.headers.get("location"), "/operator/clients?done=prefix_trusted");
        const stored = await ctx.db.sql`select prefix, created_by from oauth_trusted_prefixes`;
        assert.deepEqual(stored.map((r) => ({ ...r })), [{
          prefix: "https://tools.example/oauth/",
          created_by: ctx.user.id,
        }]);
        const dup = await operator.b.post("/operator/prefixes/trust", {
          csrf: operator.csrf,
          prefix: "https://tools.example/oauth/",
        });
        assert.equal(dup.status, 303);
        assert.equal(dup.headers.get("location"), "/operator/clients?done=prefix_known");
        assert.match(
          await (await operator.b.get("/operator/clients?done=prefix_known")).text(),
          /role="status">That prefix was already trusted. Nothing changed./,
        );
        const rows = await ctx.db.sql`select via, operator_id, action, subject from operator_decisions`;
        assert.deepEqual(rows.map((r) => ({ ...r })), [
          {
            via: "page",
            operator_id: ctx.user.id,
            action: "trust_prefix",
            subject: "https://tools.example/oauth/",
          },
        ]);
        const page = await (await operator.b.get("/operator/clients")).text();
        assert.match(page, /data-prefix="https:\/\/tools.example\/oauth\/"/);
        assert.match(page, /Remove https:\/\/tools.example\/oauth\/<\/button>/);
        assert.match(page, /A prefix trusts every install of an app whose metadata document/);

        for (
          const bad of [
            "http://evil.example/",
            "https://claude.ai",
            "https://a.example/?x=1",
            "x".repeat(600),
          ]
        ) {
          const res = await operator.b.post("/operator/prefixes/trust", { csrf: operator.csrf, prefix: bad });
          assert.equal(res.status, 400, bad);
          const html = await res.text();
          assert.match(html, /role="alert">A prefix is an https URL with at least the host and a slash/);
          assert.ok(html.includes(`value="${bad.replaceAll("&", "&amp;")}"`), `keeps ${bad}`);
          assert.match(html, /aria-invalid="true"/);
        }
        assert.equal((await ctx.db.sql`select 1 from oauth_trusted_prefixes`).length, 1);
        assert.equal(await decisionCount(ctx), 1);

        // The configuration's prefixes are shown read-only and count as trusted already.
        const configured = testApp(ctx.db.sql, { TRUSTED_CLIENT_ID_PREFIXES: "https://claude.ai/oauth/" });
        const b = new Browser(configured);
        b.cookies = new Map(operator.b.cookies);
        const html = await (await b.get("/operator/clients")).text();
        assert.match(html, /data-config-prefix="https:\/\/claude.ai\/oauth\/"/);
        assert.match(html, /set in TRUSTED_CLIENT_ID_PREFIXES/);
        assert.doesNotMatch(html, /Remove https:\/\/claude.ai\/oauth\//);
        const known = await b.post("/operator/prefixes/trust", {
          csrf: operator.csrf,
          prefix: "https://claude.ai/oauth/",
        });
        assert.equal(known.headers.get("location"), "/operator/clients?done=prefix_known");
        const remove = await b.post("/operator/prefixes/untrust", {
          csrf: operator.csrf,
          prefix: "https://claude.ai/oauth/",
        });
        assert.equal(remove.status, 409);
        assert.match(await remove.text(), /remove it there and restart/);
        assert.equal((await ctx.db.sql`select 1 from oauth_trusted_prefixes`).length, 1);
        assert.equal(await decisionCount(ctx), 1);
      },
    );

    await t.step(
      "remove a prefix: the grants with workspace of apps under it end, audited; unknown → 404",
      async () => {
        await ctx.db.sql`delete from operator_decisions`;
        await ctx.db.sql`delete from oauth_clients where client_id = ${DOC_CLIENT}`;
        await docClient(ctx);
        const grant = await bearerFor(ctx.db.sql, {
          userId: ctx.other.id,
          workspaceId: w.ws,
          clientId: DOC_CLIENT,
        });
        const revoked = async () =>
          (await ctx.db.sql<{ revoked: boolean }[]>`
            select revoked_at is not null as revoked from oauth_grants where id = ${grant.grantId}`)[0]
            .revoked;
        // Where the configuration's prefixes still cover the app, removing the database's keeps its grants.
        const configured = new Browser(
          testApp(ctx.db.sql, { TRUSTED_CLIENT_ID_PREFIXES: "https://tools.example/" }),
        );
        configured.cookies = new Map(operator.b.cookies);
        const covered = await configured.post("/operator/prefixes/untrust", {
          csrf: operator.csrf,
          prefix: "https://tools.example/oauth/",
        });
        assert.equal(covered.status, 303);
        assert.equal((await ctx.db.sql`select 1 from oauth_trusted_prefixes`).length, 0);
        assert.equal(await revoked(), false, "still trusted by TRUSTED_CLIENT_ID_PREFIXES");
        await ctx.db.sql`delete from operator_decisions`;
        await ctx.db.sql`insert into oauth_trusted_prefixes (prefix) values ('https://tools.example/oauth/')`;

        const res = await operator.b.post("/operator/prefixes/untrust", {
          csrf: operator.csrf,
          prefix: "https://tools.example/oauth/",
        });
        assert.equal(res.status, 303);
        assert.equal(res.headers.get("location"), "/operator/clients?done=prefix_removed");
        assert.equal((await ctx.db.sql`select 1 from oauth_trusted_prefixes`).length, 0);
        assert.equal(await revoked(), true);
        const rows = await ctx.db.sql`select via, operator_id, action, subject from operator_decisions`;
        assert.deepEqual(rows.map((r) => ({ ...r })), [
          {
            via: "page",
            operator_id: ctx.user.id,
            action: "untrust_prefix",
            subject: "https://tools.example/oauth/",
          },
        ]);
        const again = await operator.b.post("/operator/prefixes/untrust", {
          csrf: operator.csrf,
          prefix: "https://tools.example/oauth/",
        });
        assert.equal(again.status, 404);
        assert.match(await again.text(), /<h1>No such prefix<\/h1>/);
        assert.equal(await decisionCount(ctx), 1);
      },
    );

    await t.step(`the list is bounded: ${PENDING_LIST_MAX} shown, the rest counted`, async () => {
      await ctx.db.sql`delete from oauth_approval_requests`;
      const extra = 7;
      await ctx.db.sql`
        insert into oauth_clients (client_id, name, redirect_uris, scopes, self_registered)
        select 'pcl_bulk_' || i, 'Bulk ' || i, ${["https://bulk.example/cb"]}, '{openid}', true
          from generate_series(1, ${PENDING_LIST_MAX + extra}) i`;
      await ctx.db.sql`
        insert into oauth_approval_requests (client_id, user_id, workspace_id, scopes)
        select 'pcl_bulk_' || i, ${ctx.other.id}, ${w.ws}, '{openid,workspace}'
          from generate_series(1, ${PENDING_LIST_MAX + extra}) i`;
      const html = await (await operator.b.get("/operator/requests")).text();
      assert.equal(html.match(/<li data-request-id=/g)?.length, PENDING_LIST_MAX);
      assert.match(
        html,
        new RegExp(
          `data-more="${extra}">${extra} more not shown \\(newest ${PENDING_LIST_MAX} of ${
            PENDING_LIST_MAX + extra
          }\\)`,
        ),
      );
    });
  } finally {
    await ctx.close();
  }
});
