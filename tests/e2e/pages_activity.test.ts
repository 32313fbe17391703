// End to end, in Chromium (issue 30 "Done when"): a member connects an app (authorize → sign-in → consent in the
// browser, code exchanged for a token), the app calls tools through /mcp (one refused), and the member's
// /account/activity shows exactly those calls; another member sees none of them; a workspace admin sees them on the
// workspace's activity page and disconnects the app (confirmation page), after which /mcp refuses the app's token.
// axe-core at zero WCAG 2.2 AA violations and no sideways scroll on each page at 1280×800 and 390×844, light and dark.
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { createAuditLog } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import { silentLogger } from "../../lib/log.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import {
  assertPageCleanEverywhere,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture } from "../helpers/mcp.ts";
import { pkce } from "../oauth/helpers.ts";

warnIfMissing("tests/e2e/pages_activity.test.ts");

const PASSWORD = "test password 123"; // tests/helpers/mcp.ts buildFixture

/** The listed calls, newest first: "tool outcome". */
async function listed(page: Page): Promise<string[]> {
  return await page.locator("li[data-activity]").evaluateAll((els) =>
    els.map((e) => `${e.getAttribute("data-tool")} ${e.getAttribute("data-outcome")}`)
  );
}

Deno.test({
  name: "Chromium activity pages: an app's calls for the member, none for another, an admin disconnects it",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const f = await buildFixture(db.sql);
    const emailOf = async (id: string) =>
      (await db.sql<{ email: string }[]>`select email from users where id = ${id}`)[0].email;
    const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 1000 });

    // The app's loopback redirect target (RFC 8252): where the browser brings the code back.
    const arrivals: URL[] = [];
    const callback = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/callback") arrivals.push(url);
      return new Response("<!doctype html><title>done</title><p>You can close this window.</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    const redirectUri = `http://127.0.0.1:${callback.addr.port}/callback`;

    let handler: (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response> =
      () => new Response("starting", { status: 503 });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (req, info) => handler(req, info),
    );
    const issuer = `http://127.0.0.1:${server.addr.port}`;
    const app = createApp({
      config: parseConfig({ ISSUER: issuer, SECRET_KEY: TEST_SECRET }),
      sql: db.sql,
      log: silentLogger,
      secretKey: TEST_SECRET,
      audit,
    });
    handler = (req, info) => app.fetch(req, info);

    const { clientId } = await createClient(db.sql, {
      name: "Agent Desk",
      redirectUris: [redirectUri],
      confidential: false,
      scopes: ["openid", "profile", "workspace"],
      grantTypes: ["authorization_code", "refresh_token"],
      selfRegistered: false,
    });

    const mcp = async (token: string, name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${issuer}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: args },
        }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    const browser = await launchChromium();
    const contexts: BrowserContext[] = [];
    const signedInPage = async (userId: string, path: string) => {
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(`${issuer}${path}`);
      await page.getByLabel("Email").fill(await emailOf(userId));
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      return page;
    };

    try {
      let token = "";
      let project = "";
      await t.step(
        "the member connects the app in the browser; it calls three tools, one refused",
        async () => {
          const { verifier, challenge } = pkce();
          const q = new URLSearchParams({
            response_type: "code",
            client_id: clientId,
            redirect_uri: redirectUri,
            scope: "openid workspace",
            state: "s1",
            code_challenge: challenge,
            code_challenge_method: "S256",
            resource: `${issuer}/mcp`,
          });
          const page = await signedInPage(f.users.member, `/oauth/authorize?${q}`);
          await page.getByRole("heading", { name: /Allow Agent Desk/ }).waitFor();
          await page.getByRole("button", { name: "Allow" }).click();
          await page.waitForURL((u) => u.href.startsWith(redirectUri));
          const code = arrivals[arrivals.length - 1].searchParams.get("code");
          assert.ok(code);
          const res = await fetch(`${issuer}/oauth/token`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              grant_type: "authorization_code",
              code,
              redirect_uri: redirectUri,
              client_id: clientId,
              code_verifier: verifier,
              resource: `${issuer}/mcp`,
            }),
          });
          assert.equal(res.status, 200);
          token = (await res.json()).access_token;

          const created = await mcp(token, "create_project", { name: "Harbour refit" });
          assert.equal(created.body.result.isError, undefined, JSON.stringify(created.body));
          project = JSON.parse(created.body.result.content[0].text).id;
          assert.equal(
            (await mcp(token, "get_project", { projectId: project })).body.result.isError,
            undefined,
          );
          const refused = await mcp(token, "list_invoices", {});
          assert.equal(refused.body.result.isError, true);
          await audit.flush(); // the writer is off the response path; its flush is the deterministic wait

          await page.goto(`${issuer}/account/activity`);
          assert.deepEqual(await listed(page), [
            "list_invoices denied",
            "get_project ok",
            "create_project ok",
          ]);
          const refusedItem = page.locator('li[data-tool="list_invoices"]');
          assert.equal(
            await refusedItem.locator("[data-reason]").textContent(),
            "the member role may not use invoices tools in this workspace",
          );
          assert.equal(await refusedItem.locator("[data-by]").textContent(), "App: Agent Desk");
          assert.ok(
            (await page.locator('li[data-tool="get_project"] [data-records]').textContent())!.includes(
              project,
            ),
          );
          await assertPageCleanEverywhere(page, "/account/activity");
          // From Connected apps, the app's Activity link leads to the same calls, filtered to the app
          await page.goto(`${issuer}/account/apps`);
          await page.getByRole("link", { name: "Activity of Agent Desk" }).click();
          await page.waitForURL((u) => u.pathname === "/account/activity" && u.searchParams.has("source"));
          assert.equal((await listed(page)).length, 3);
          await assertPageCleanEverywhere(page, "/account/activity filtered by app");
        },
      );

      await t.step("another member sees none of them", async () => {
        const page = await signedInPage(f.users.manager, "/account/activity");
        await page.waitForURL((u) => u.pathname === "/account/activity");
        assert.deepEqual(await listed(page), []);
        assert.equal(await page.locator("[data-no-activity]").count(), 1);
        await page.goto(`${issuer}/account/workspaces/${f.workspaceId}/activity`);
        assert.equal(await page.getByRole("heading", { name: "Not allowed" }).count(), 1);
      });

      await t.step(
        "a workspace admin sees them and disconnects the app; /mcp refuses its token",
        async () => {
          const path = `/account/workspaces/${f.workspaceId}/activity`;
          const page = await signedInPage(f.users.admin, path);
          await page.waitForURL((u) => u.pathname === path);
          assert.deepEqual(await listed(page), [
            "list_invoices denied",
            "get_project ok",
            "create_project ok",
          ]);
          const memberEmail = await emailOf(f.users.member);
          assert.deepEqual(
            await page.locator("li[data-activity] [data-person]").allTextContents(),
            [memberEmail, memberEmail, memberEmail],
          );
          await assertPageCleanEverywhere(page, "workspace activity");
          await page.getByRole("button", { name: `Disconnect Agent Desk for ${memberEmail}` }).click();
          await page.getByRole("heading", { name: "Disconnect Agent Desk?" }).waitFor();
          assert.ok((await page.locator("main p").first().textContent())!.includes(`for ${memberEmail}`));
          await assertPageCleanEverywhere(page, "disconnect confirmation");
          assert.equal((await mcp(token, "list_projects", {})).status, 200, "nothing changed on the GET");
          await page.getByRole("button", { name: "Disconnect Agent Desk" }).click();
          await page.waitForURL((u) => u.pathname === path && u.searchParams.get("disconnected") === "1");
          assert.equal(
            await page.getByRole("status").textContent(),
            "The app was disconnected for that member.",
          );
          assert.equal(await page.locator("[data-member-app]").count(), 0);
          const after = await mcp(token, "list_projects", {});
          assert.equal(after.status, 401);
        },
      );
    } finally {
      for (const c of contexts) await c.close();
      await browser.close();
      await server.shutdown();
      await callback.shutdown();
      await audit.close();
      await db.close();
    }
  },
});
