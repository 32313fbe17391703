// End to end, in Chromium: the person's side of an approval request. A self-registered app asks for `workspace`;
// the person signs in, asks with a note, waits; once approved the waiting page goes on by itself (its script) to
// consent — one walk, on the phone's screen (390×844), the ask and waiting pages checked at 1280×800 and 390×844.
// Without JavaScript, "Check again" shows a denial and its way back to the app. An operator sees "Approve … and
// continue". axe-core at zero WCAG 2.2 AA violations on every page.
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { decideRequest } from "../../lib/oauth/approvals.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { s256 } from "../../lib/oauth/pkce.ts";
import {
  assertNoAxeViolations,
  assertNoSidewaysScroll,
  assertPageCleanAtBothSizes,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { approvalWorld } from "../helpers/approval_world.ts";

warnIfMissing("tests/e2e/pages_approval.test.ts");

const PASSWORD = "approval pages 123";
const REDIRECT = "http://127.0.0.1:9/callback";

Deno.test({
  name:
    "Chromium approval pages (one walk, checked at 1280×800 and 390×844): ask, wait, continue by itself, " +
    "denied without JS, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { operator } = await approvalWorld(db.sql, PASSWORD);
    const { issuer, server } = serveAtIssuer(db.sql);

    async function app(name: string): Promise<string> {
      return (await createClient(db.sql, {
        name,
        redirectUris: [REDIRECT],
        confidential: false,
        scopes: ["openid", "profile"],
        grantTypes: ["authorization_code"],
        selfRegistered: true,
      })).clientId;
    }

    async function openAndSignIn(page: Page, clientId: string, email: string): Promise<void> {
      const q = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: s256("v".repeat(43)),
        code_challenge_method: "S256",
        scope: "openid workspace",
        state: "st-e2e",
      });
      await page.goto(`${issuer}/oauth/authorize?${q}`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
    }

    const requestOf = async (clientId: string) =>
      (await db.sql<{ id: string; note: string }[]>`
        select id, note from oauth_approval_requests where client_id = ${clientId}`)[0];

    const browser: Browser = await launchChromium();
    try {
      // One walk, on the phone's screen; the ask and waiting pages are checked at both sizes.
      await t.step("ask, wait, approved elsewhere → consent by itself", async () => {
        const clientId = await app("Notes App");
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        const page = await context.newPage();
        try {
          await openAndSignIn(page, clientId, "pia@example.com");
          await page.getByRole("heading", { name: "Notes App needs an operator's approval" }).waitFor();
          await assertPageCleanAtBothSizes(page, "ask page");
          await page.getByLabel("Note to the operators (optional)").fill("For the weekly report");
          await page.getByRole("button", { name: "Ask for approval" }).click();
          await page.getByRole("heading", { name: "Waiting for an operator" }).waitFor();
          await assertPageCleanAtBothSizes(page, "waiting page");
          const request = await requestOf(clientId);
          assert.equal(request.note, "For the weekly report");

          const decided = await decideRequest(db.sql, request.id, true, {
            via: "page",
            operatorId: operator.id,
          });
          assert.equal(decided.kind, "decided");
          // No click: the page's script notices and goes on to the consent page.
          await page.getByRole("heading", { name: "Allow Notes App to use your account?" }).waitFor();
          assert.equal(await page.getByLabel(/Harbour Studio/).first().isChecked(), true);
        } finally {
          await context.close();
        }
      });

      await t.step(
        "without JavaScript: Check again shows the denial and the way back to the app",
        async () => {
          const clientId = await app("Plain App");
          const context = await browser.newContext({
            viewport: VIEWPORTS.phone,
            javaScriptEnabled: false,
            bypassCSP: true,
          });
          const page = await context.newPage();
          try {
            await openAndSignIn(page, clientId, "pia@example.com");
            await page.getByRole("button", { name: "Ask for approval" }).click();
            await page.getByRole("heading", { name: "Waiting for an operator" }).waitFor();
            const request = await requestOf(clientId);
            assert.equal((await decideRequest(db.sql, request.id, false, { via: "cli" })).kind, "decided");
            const answer = page.waitForResponse((r) => new URL(r.url()).pathname === "/oauth/authorize/wait");
            await page.getByRole("link", { name: "Check again" }).click();
            assert.equal((await answer).status(), 403);
            await page.getByRole("heading", { name: "Not approved" }).waitFor();
            const back = new URL(
              await page.getByRole("link", { name: "Return to Plain App" }).getAttribute("href") ?? "",
            );
            assert.equal(back.origin + back.pathname, REDIRECT);
            assert.equal(back.searchParams.get("error"), "access_denied");
            assert.equal(back.searchParams.get("state"), "st-e2e");
          } finally {
            await context.close();
          }
          const context2 = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
          const page2 = await context2.newPage();
          try {
            await openAndSignIn(page2, clientId, "pia@example.com");
            await page2.getByRole("heading", { name: "Not approved" }).waitFor();
            await assertNoAxeViolations(page2, "denied page");
            await assertNoSidewaysScroll(page2, "denied page");
          } finally {
            await context2.close();
          }
        },
      );

      await t.step("an operator: Approve … and continue, one click to consent", async () => {
        const clientId = await app("Laptop App");
        const context = await browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
        const page = await context.newPage();
        try {
          await openAndSignIn(page, clientId, "ops@example.com");
          await page.getByRole("heading", { name: "Laptop App needs an operator's approval" }).waitFor();
          assert.equal(await page.getByRole("button", { name: "Ask for approval" }).count(), 0);
          await assertNoAxeViolations(page, "ask page for an operator");
          await page.getByRole("button", { name: "Approve Laptop App and continue" }).click();
          await page.getByRole("heading", { name: "Allow Laptop App to use your account?" }).waitFor();
          const [row] = await db.sql`select trusted from oauth_clients where client_id = ${clientId}`;
          assert.equal(row.trusted, true);
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
