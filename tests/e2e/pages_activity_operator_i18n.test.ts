// The activity and operator pages in German and French, in a real Chromium, light and dark, at 1280×800 and
// 390×844: axe-clean (WCAG 2.2 AA) and no sideways scrolling with the longer words — the person's activity with
// a refused call and the Older link, the workspace page with a member's app, Disconnect's confirmation, the
// approval requests and the trusted apps with a prefix and decisions. The browser asks for the language with
// Accept-Language after signing in; what the pages say is tested in tests/i18n/{activity,operator}_pages.test.ts.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { askApproval, setTrust, trustPrefix } from "../../lib/oauth/approvals.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import {
  assertPageClean,
  haveChromium,
  launchChromium,
  signInWithPassword,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

warnIfMissing("tests/e2e/pages_activity_operator_i18n.test.ts");

const PASSWORD = "a long enough password";

Deno.test({
  name:
    "Chromium: activity and operator pages in German and French, light and dark, 1280×800 and 390×844, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    try {
      const ws = (await createWorkspace(db.sql, "Harbour Studio", ["projects"])).id;
      const dana = await createUser(db.sql, { email: "dana@example.com", password: PASSWORD, name: "Dana" });
      const olly = await createUser(db.sql, { email: "olly@example.com", password: PASSWORD, name: "Olly" });
      await addMember(db.sql, ws, dana.id, "owner", null);
      await addMember(db.sql, ws, olly.id, "member", null);
      await db.sql`update users set operator = true where id = ${dana.id}`;
      const newApp = (name: string) =>
        createClient(db.sql, {
          name,
          redirectUris: ["https://agent.example/callback"],
          confidential: false,
          scopes: ["openid", "workspace"],
          grantTypes: ["authorization_code"],
          selfRegistered: true,
        });
      const desk = (await newApp("Agent Desk")).clientId;
      const cursor = (await newApp("Cursor")).clientId;
      // Olly's app in the workspace (the admin's Disconnect), Agent Desk trusted, a prefix, a pending request.
      await db.sql`insert into oauth_grants (client_id, user_id, scopes, resource, workspace_id)
                   values (${desk}, ${olly.id}, ${["openid", "workspace"]}, ${`${issuer}/mcp`}, ${ws})`;
      assert.equal(await setTrust(db.sql, desk, true, { via: "cli" }), true);
      assert.equal(await trustPrefix(db.sql, "https://tools.example/oauth/", { via: "cli" }), true);
      const asked = await askApproval(db.sql, {
        clientId: cursor,
        userId: olly.id,
        place: { workspaceId: ws, companyId: null },
        scopes: ["openid", "workspace"],
        note: "Für den Wochenbericht",
      });
      assert.equal(asked.kind, "asked");
      // Dana's calls: a refused one with its reason, a confirmed one with a record, and enough for a second page.
      await db.sql`
        insert into audit_log (at, workspace_id, client_id, user_id, tool, outcome, duration_ms, request_id, reason,
                               records, confirmed)
        values (now(), ${ws}, ${desk}, ${dana.id}, 'list_invoices', 'denied', 1, 'r-denied',
                'access_denied: the member role may not use invoices tools in this workspace', null, false),
               (now() - interval '1 minute', ${ws}, ${desk}, ${dana.id}, 'update_project_status', 'ok', 1, 'r-ok',
                null, ${[`projectId:${crypto.randomUUID()}`]}, true)`;
      await db.sql`
        insert into audit_log (at, workspace_id, user_id, tool, outcome, duration_ms, request_id)
        select now() - make_interval(mins => 1 + i), ${ws}, ${dana.id}, 'list_projects', 'ok', 1, 'r' || i
          from generate_series(1, 60) i`;
      const pages = [
        "/account/activity",
        `/account/workspaces/${ws}/activity`,
        `/account/workspaces/${ws}/activity/disconnect?user_id=${olly.id}&client_id=${
          encodeURIComponent(desk)
        }`,
        "/operator/requests",
        "/operator/clients",
      ];

      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        for (const colorScheme of ["light", "dark"] as const) {
          for (const lang of ["de", "fr"] as const) {
            const label = `${size} ${colorScheme} ${lang}`;
            await t.step(label, async () => {
              const context = await browser.newContext({ viewport, colorScheme, bypassCSP: true });
              try {
                const page = await context.newPage();
                await signInWithPassword(page, issuer, "dana@example.com", PASSWORD);
                await page.waitForURL((u) => u.pathname === "/account/apps");
                await context.setExtraHTTPHeaders({ "accept-language": lang });
                for (const path of pages) {
                  const res = await page.goto(`${issuer}${path}`);
                  assert.equal(res?.status(), 200, path);
                  assert.equal(await page.getAttribute("html", "lang"), lang, path);
                  await assertPageClean(page, `${label} ${path}`);
                }
              } finally {
                await context.close();
              }
            });
          }
        }
      }
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});
