// End to end, in Chromium: an authenticator app set up from the account page (the manual key read off the page,
// codes computed here), sign-out, sign-in with password then code, a recovery code that works once, the brake's
// page; and the walk a workspace's policy starts for a member without a second factor. Each flow is walked once, on
// the phone's screen (390×844); each page is checked axe-clean (WCAG 2.2 AA) and without sideways scrolling at
// 1280×800 and 390×844 (assertPageCleanAtBothSizes).
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "../../lib/accounts.ts";
import { SECOND_FACTOR_BRAKE } from "../../lib/security/second_factor_brake.ts";
import { currentStep, totpCode } from "../../lib/security/totp.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import {
  assertPageCleanAtBothSizes,
  haveChromium,
  launchChromium,
  signInWithPassword,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase, type TestDb } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/pages_two_step.test.ts");

const PASSWORD = "a long enough password";

async function signOut(page: Page, issuer: string): Promise<void> {
  await page.goto(`${issuer}/account/apps`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL((u) => u.pathname === "/signin");
}

/** A code the app would show now that the server has not seen used. */
async function freshCode(db: TestDb, userId: string, secret: string): Promise<string> {
  const [{ last }] = await db.sql<{ last: number }[]>`
    select last_step::float8 as last from user_totp where user_id = ${userId}`;
  const step = Math.max(last + 1, currentStep() - 1);
  assert.ok(step <= currentStep() + 1, "a fresh code exists in the window");
  return totpCode(secret, step);
}

async function amrOf(db: TestDb, userId: string): Promise<string[][]> {
  const rows = await db.sql<{ amr: string[] }[]>`
    select amr from browser_session_accounts where user_id = ${userId} order by auth_time`;
  return rows.map((r) => r.amr);
}

/** On a set-up page: the key read off the page, a code typed; answers the secret. */
async function setUpOnPage(page: Page, label: string): Promise<string> {
  await assertPageCleanAtBothSizes(page, `${label} set-up`);
  await assert.doesNotReject(page.locator(".qr svg").waitFor());
  const secret = (await page.locator("[data-manual-key]").innerText()).replaceAll(" ", "");
  assert.match(secret, /^[A-Z2-7]{32}$/);
  await page.getByLabel("Code from the app").fill(totpCode(secret, currentStep()));
  await page.getByRole("button", { name: "Turn on two-step sign-in" }).click();
  return secret;
}

Deno.test({
  name:
    "Chromium two-step sign-in (walked at 390×844, checked at both sizes): set up, sign in with a code, a recovery code once, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    try {
      await t.step("set up, code, recovery code, brake", async () => {
        const email = "rita@example.com";
        const user = await createUser(db.sql, { email, password: PASSWORD }, { scrypt: TEST_SCRYPT });
        // bypassCSP only so axe can be injected; the pages themselves load no script.
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        try {
          const page = await context.newPage();
          await signInWithPassword(page, issuer, email, PASSWORD);
          await page.waitForURL((u) => u.pathname === "/account/apps");
          await page.goto(`${issuer}/account/security/two-step`);
          await assertPageCleanAtBothSizes(page, "two-step off");
          await page.getByRole("link", { name: "Set up an authenticator app" }).click();
          await page.waitForURL((u) => u.pathname === "/account/security/two-step/setup");
          const secret = await setUpOnPage(page, "account");
          await page.waitForURL((u) => u.pathname === "/account/security/two-step");
          assert.match(await page.locator("main").innerText(), /Two-step sign-in is on/);
          const codes = await page.locator("[data-recovery-codes] code").allInnerTexts();
          assert.equal(codes.length, 10);
          await assertPageCleanAtBothSizes(page, "two-step on, codes shown");

          // Password, then a code from the "app".
          await signOut(page, issuer);
          await signInWithPassword(page, issuer, email, PASSWORD);
          await page.waitForURL((u) => u.pathname === "/signin/verify");
          await assertPageCleanAtBothSizes(page, "verify");
          await page.getByLabel("Code", { exact: true }).fill(await freshCode(db, user.id, secret));
          await page.getByRole("button", { name: "Verify" }).click();
          await page.waitForURL((u) => u.pathname === "/account/apps");
          assert.deepEqual((await amrOf(db, user.id)).at(-1), ["pwd", "otp", "mfa"]);

          // A recovery code works once.
          const signInWithRecoveryCode = async (code: string) => {
            await signOut(page, issuer);
            await signInWithPassword(page, issuer, email, PASSWORD);
            await page.waitForURL((u) => u.pathname === "/signin/verify");
            await page.getByText("Use a recovery code").click();
            await page.getByLabel("Recovery code").fill(code);
            await page.getByRole("button", { name: "Use recovery code" }).click();
          };
          await signInWithRecoveryCode(codes[0]);
          await page.waitForURL((u) => u.pathname === "/account/apps");
          await signInWithRecoveryCode(codes[0]);
          await page.getByRole("alert").filter({ hasText: "That recovery code is not right" }).waitFor();
          await assertPageCleanAtBothSizes(page, "recovery code refused");

          // Wrong codes until the brake: its page says when to try again.
          let status = 0;
          for (let i = 1; i <= SECOND_FACTOR_BRAKE.free && status !== 429; i++) {
            await page.getByLabel("Code", { exact: true }).fill("000000");
            const [answer] = await Promise.all([
              page.waitForResponse((r) => r.url().endsWith("/signin/verify/totp")),
              page.getByRole("button", { name: "Verify" }).click(),
            ]);
            status = answer.status();
            await page.waitForLoadState();
          }
          assert.equal(status, 429);
          assert.match(await page.locator("main").innerText(), /Too many wrong codes\. Try again in/);
          await assertPageCleanAtBothSizes(page, "braked");
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

Deno.test({
  name:
    "Chromium policy walk (walked at 390×844, checked at both sizes): a workspace requires two-step, set-up inside the sign-in, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    const ws = await createWorkspace(db.sql, "Acme Books", ["projects"]);
    await db.sql`update workspaces set require_two_factor = true where id = ${ws.id}`;
    try {
      await t.step("intro, set-up, codes, continue", async () => {
        const email = "max@example.com";
        const user = await createUser(db.sql, { email, password: PASSWORD }, { scrypt: TEST_SCRYPT });
        await addMember(db.sql, ws.id, user.id, "member", null);
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        try {
          const page = await context.newPage();
          await signInWithPassword(page, issuer, email, PASSWORD);
          await page.waitForURL((u) => u.pathname === "/signin/verify");
          assert.match(await page.locator("main").innerText(), /Acme Books requires two-step sign-in/);
          await assertPageCleanAtBothSizes(page, "policy intro");
          await page.getByRole("link", { name: "Set up now" }).click();
          await page.waitForURL((u) => u.pathname === "/signin/setup");
          await setUpOnPage(page, "policy");
          await page.waitForURL((u) => u.pathname === "/signin/setup/codes");
          assert.equal(await page.locator("[data-recovery-codes] code").count(), 10);
          await assertPageCleanAtBothSizes(page, "policy codes");
          assert.deepEqual(await amrOf(db, user.id), [], "not signed in before Continue");
          await page.getByRole("button", { name: "I saved them, continue" }).click();
          await page.waitForURL((u) => u.pathname === "/account/apps");
          assert.deepEqual(await amrOf(db, user.id), [["pwd", "otp", "mfa"]]);
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
