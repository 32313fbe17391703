// End to end, in Chromium at 1280×800 and 390×844 (the pages load no script): "Forgot password?" from the sign-in page,
// the one answer page, the link from the dev mailbox (the `deno task dev` way: no SMTP_URL, embedded database),
// a new password, sign-in with it; the page of a spent link — and axe-core at zero WCAG 2.2 AA violations.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  assertNoAxeViolations,
  assertNoSidewaysScroll,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

warnIfMissing("tests/e2e/pages_password_reset.test.ts");

Deno.test({
  name: "Chromium password reset pages (1280×800, 390×844): forgot, sent, mailbox, reset, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    await createUser(db.sql, { email: "rita@example.com", password: "the first password" });
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    try {
      let round = 0;
      for (const [label, viewport] of Object.entries(VIEWPORTS)) {
        await t.step(label, async () => {
          round++;
          // bypassCSP only so axe can be injected; the pages themselves load no script.
          const context = await browser.newContext({ viewport, bypassCSP: true });
          try {
            const page = await context.newPage();
            await page.goto(`${issuer}/signin`);
            await page.getByRole("link", { name: "Forgot password?" }).click();
            await page.waitForURL((u) => u.pathname === "/signin/forgot");
            await assertNoAxeViolations(page, `${label} forgot`);
            await assertNoSidewaysScroll(page, `${label} forgot`);
            await page.getByLabel("Email").fill("rita@example.com");
            await page.getByRole("button", { name: "Send link" }).click();
            await page.waitForURL((u) => u.pathname === "/signin/forgot/sent");
            assert.match(await page.locator("main").innerText(), /If an account exists for that address/);
            await assertNoAxeViolations(page, `${label} sent`);
            await assertNoSidewaysScroll(page, `${label} sent`);

            await page.goto(`${issuer}/dev/mailbox`);
            await assertNoAxeViolations(page, `${label} mailbox`);
            const link = page.getByRole("link", { name: /\/signin\/reset\?token=/ }).first();
            const href = (await link.getAttribute("href"))!;
            await link.click();
            await page.waitForURL((u) => u.pathname === "/signin/reset");
            await assertNoAxeViolations(page, `${label} reset`);
            await assertNoSidewaysScroll(page, `${label} reset`);
            const password = `new password round ${round}`;
            await page.getByLabel("New password (at least 12 characters)").fill(password);
            await page.getByLabel("New password again").fill(password);
            await page.getByRole("button", { name: "Set password" }).click();
            await page.waitForURL((u) => u.pathname === "/signin");
            assert.match(await page.locator("main").innerText(), /Your password was changed/);
            await assertNoAxeViolations(page, `${label} sign-in after reset`);
            await page.getByLabel("Email").fill("rita@example.com");
            await page.getByLabel("Password", { exact: true }).fill(password);
            await page.getByRole("button", { name: "Sign in" }).click();
            await page.waitForURL((u) => u.pathname === "/account/apps");

            const spent = await page.goto(href);
            assert.equal(spent?.status(), 400);
            assert.match(await page.locator("main").innerText(), /This link does not work any more/);
            await assertNoAxeViolations(page, `${label} spent link`);
            await assertNoSidewaysScroll(page, `${label} spent link`);
          } finally {
            await context.close();
          }
        });
      }
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});
