// End to end, in Chromium: an operator signs in, sees a person's pending approval request and approves it; on
// Trusted apps refuses a malformed prefix (the reason beside what was typed), trusts one, untrusts an app — one
// walk, on the phone's screen (390×844), each page checked at 1280×800 and 390×844; with JavaScript off the same
// forms deny a request and remove a prefix; a non-operator meets the 403 page. axe-core at zero WCAG 2.2 AA
// violations on every page, and no page is wider than the phone.
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { askApproval } from "../../lib/oauth/approvals.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { createCompany } from "../../lib/workspace/workspaces.ts";
import {
  assertNoAxeViolations,
  assertPageCleanAtBothSizes,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { approvalWorld } from "../helpers/approval_world.ts";

warnIfMissing("tests/e2e/pages_operator.test.ts");

const PASSWORD = "operator pages 123";

async function signIn(page: Page, issuer: string, path: string, email: string): Promise<void> {
  await page.goto(`${issuer}${path}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname === path);
}

Deno.test({
  name: "Chromium operator pages (one walk, checked at 1280×800 and 390×844): approve, prefixes, untrust, " +
    "no JavaScript, 403, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { person, operator, ws } = await approvalWorld(db.sql, PASSWORD);
    const company = (await createCompany(db.sql, ws, "North Company")).id;
    const { issuer, server } = serveAtIssuer(db.sql, {
      TRUSTED_CLIENT_ID_PREFIXES: "https://claude.ai/oauth/",
    });

    /** A self-registered app (Cursor's three redirect URIs) and Pia's pending request for it. */
    async function pending(name: string): Promise<{ clientId: string; requestId: string }> {
      const { clientId } = await createClient(db.sql, {
        name,
        redirectUris: [
          "cursor://anysphere.cursor-mcp/oauth/callback",
          "http://127.0.0.1:33418/callback",
          "https://cursor.example/oauth/callback",
        ],
        confidential: false,
        scopes: ["openid", "profile"],
        grantTypes: ["authorization_code", "refresh_token"],
        selfRegistered: true,
      });
      const asked = await askApproval(db.sql, {
        clientId,
        userId: person.id,
        place: { workspaceId: ws, companyId: company },
        scopes: ["openid", "workspace"],
        note: "For the weekly report, please",
      });
      assert.equal(asked.kind, "asked");
      return { clientId, requestId: asked.kind === "asked" ? asked.request.id : "" };
    }

    const browser: Browser = await launchChromium();
    try {
      // One walk, on the phone's screen; each page is checked at both sizes (assertPageCleanAtBothSizes).
      await t.step("approve a request, refuse and trust a prefix, untrust an app", async () => {
        const app = await pending("Cursor");
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        const page = await context.newPage();
        try {
          await signIn(page, issuer, "/operator/requests", "ops@example.com");
          const row = page.locator(`li[data-request-id="${app.requestId}"]`);
          await row.getByText("Cursor", { exact: true }).waitFor();
          assert.equal(await row.locator("[data-asked-by]").textContent(), "Pia Person <pia@example.com>");
          assert.equal(
            await row.locator("[data-workspace]").textContent(),
            "Harbour Studio, only North Company",
          );
          assert.deepEqual(await row.locator("[data-redirect-host]").allTextContents(), [
            "cursor://anysphere.cursor-mcp",
            "127.0.0.1:33418",
            "cursor.example",
          ]);
          assert.equal(await row.locator("[data-origin]").textContent(), "registered itself");
          assert.equal(await row.locator("[data-note]").textContent(), "For the weekly report, please");
          await assertPageCleanAtBothSizes(page, "approval requests");

          await row.getByRole("button", { name: "Approve Cursor" }).click();
          await page.getByRole("status").filter({ hasText: "trusted for everyone" }).waitFor();
          assert.equal(new URL(page.url()).search, "?done=approved");
          const [approved] = await db.sql<{ status: string; trusted: boolean }[]>`
            select r.status, c.trusted from oauth_approval_requests r
              join oauth_clients c using (client_id) where r.id = ${app.requestId}`;
          assert.deepEqual({ ...approved }, { status: "approved", trusted: true });
          const [decision] = await db.sql`
            select via, operator_id, action from operator_decisions where request_id = ${app.requestId}`;
          assert.deepEqual({ ...decision }, { via: "page", operator_id: operator.id, action: "approve" });
          await assertPageCleanAtBothSizes(page, "approval requests after approving");

          // Trusted apps: the app just approved, the configuration's prefix, a refused and an accepted prefix.
          await page.getByRole("navigation", { name: "Operator pages" }).getByRole("link", {
            name: "Trusted apps",
          })
            .click();
          await page.getByRole("heading", { name: "Trusted apps", level: 1 }).waitFor();
          await page.locator(`li[data-client-id="${app.clientId}"]`).waitFor();
          await page.locator('[data-config-prefix="https://claude.ai/oauth/"]').waitFor();
          await assertPageCleanAtBothSizes(page, "trusted apps");

          await page.getByLabel("Trust a prefix").fill("http://tools.example/oauth/");
          await page.getByRole("button", { name: "Trust prefix" }).click();
          await page.getByRole("alert").filter({ hasText: "A prefix is an https URL" }).waitFor();
          assert.equal(await page.getByLabel("Trust a prefix").inputValue(), "http://tools.example/oauth/");
          await assertPageCleanAtBothSizes(page, "trusted apps with a refused prefix");
          await page.getByLabel("Trust a prefix").fill("https://tools.example/oauth/");
          await page.getByRole("button", { name: "Trust prefix" }).click();
          await page.getByRole("status").filter({ hasText: "Prefix trusted." }).waitFor();
          await page.locator('[data-prefix="https://tools.example/oauth/"]').waitFor();

          await page.getByRole("button", { name: "Untrust Cursor" }).click();
          await page.getByRole("status").filter({ hasText: "Untrusted." }).waitFor();
          assert.equal(await page.locator(`li[data-client-id="${app.clientId}"]`).count(), 0);
          const [after] = await db.sql<{ trusted: boolean }[]>`
            select trusted from oauth_clients where client_id = ${app.clientId}`;
          assert.equal(after.trusted, false);
          assert.equal(await page.locator('[data-decisions] li[data-action="untrust"]').count() >= 1, true);
          await assertPageCleanAtBothSizes(page, "trusted apps after untrusting");
        } finally {
          await context.close();
        }
      });

      await t.step("without JavaScript: deny a request, remove a prefix", async () => {
        await db.sql`delete from oauth_approval_requests`;
        const app = await pending("Plain App");
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, javaScriptEnabled: false });
        const page = await context.newPage();
        try {
          await signIn(page, issuer, "/operator/requests", "ops@example.com");
          await page.getByRole("button", { name: "Deny Plain App" }).click();
          await page.getByRole("status").filter({ hasText: "Denied." }).waitFor();
          const [denied] = await db.sql<{ status: string }[]>`
            select status from oauth_approval_requests where id = ${app.requestId}`;
          assert.equal(denied.status, "denied");
          await page.goto(`${issuer}/operator/clients`);
          await page.getByRole("button", { name: "Remove https://tools.example/oauth/" }).click();
          await page.getByRole("status").filter({ hasText: "Prefix removed." }).waitFor();
          assert.equal((await db.sql`select 1 from oauth_trusted_prefixes`).length, 0);
        } finally {
          await context.close();
        }
      });

      await t.step("a person who is not an operator gets the 403 page", async () => {
        const context = await browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
        const page = await context.newPage();
        try {
          await page.goto(`${issuer}/operator/requests`);
          await page.getByLabel("Email").fill("pia@example.com");
          await page.getByLabel("Password").fill(PASSWORD);
          const answer = page.waitForResponse((r) => new URL(r.url()).pathname === "/operator/requests");
          await page.getByRole("button", { name: "Sign in" }).click();
          assert.equal((await answer).status(), 403);
          await page.getByRole("heading", { name: "Operators only" }).waitFor();
          await assertNoAxeViolations(page, "operators only");
        } finally {
          await context.close();
        }
      });
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});
