// End to end, in Chromium (the pages load no script): "Forgot password?" from the sign-in page, the one answer
// page, the link from the dev mailbox (the `deno task dev` way: no SMTP_URL, embedded database), a new password,
// sign-in with it; the page of a spent link. Walked once, on the phone's screen (390×844); each page checked at
// 1280×800 and 390×844 (assertPageCleanAtBothSizes): axe-core at zero WCAG 2.2 AA violations, no sideways scroll.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  assertPageCleanAtBothSizes,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/pages_password_reset.test.ts");

Deno.test({
  name:
    "Chromium password reset pages (walked at 390×844, checked at both sizes): forgot, sent, mailbox, reset, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    await createUser(db.sql, { email: "rita@example.com", password: "the first password" }, {
      scrypt: TEST_SCRYPT,
    });
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    try {
      await t.step("forgot, sent, mailbox, reset, sign-in, spent link", async () => {
        // bypassCSP only so axe can be injected; the pages themselves load no script.
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        try {
          const page = await context.newPage();
          await page.goto(`${issuer}/signin`);
          await page.getByRole("link", { name: "Forgot password?" }).click();
          await page.waitForURL((u) => u.pathname === "/signin/forgot");
          await assertPageCleanAtBothSizes(page, "forgot");
          await page.getByLabel("Email").fill("rita@example.com");
          await page.getByRole("button", { name: "Send link" }).click();
          await page.waitForURL((u) => u.pathname === "/signin/forgot/sent");
          assert.match(await page.locator("main").innerText(), /If an account exists for that address/);
          await assertPageCleanAtBothSizes(page, "sent");

          await page.goto(`${issuer}/dev/mailbox`);
          await assertPageCleanAtBothSizes(page, "mailbox");
          const link = page.getByRole("link", { name: /\/signin\/reset\?token=/ }).first();
          const href = (await link.getAttribute("href"))!;
          await link.click();
          await page.waitForURL((u) => u.pathname === "/signin/reset");
          await assertPageCleanAtBothSizes(page, "reset");
          const password = "new password round 1";
          await page.getByLabel("New password (at least 12 characters)").fill(password);
          await page.getByLabel("New password again").fill(password);
          await page.getByRole("button", { name: "Set password" }).click();
          await page.waitForURL((u) => u.pathname === "/signin");
          assert.match(await page.locator("main").innerText(), /Your password was changed/);
          await assertPageCleanAtBothSizes(page, "sign-in after reset");
          await page.getByLabel("Email").fill("rita@example.com");
          await page.getByLabel("Password", { exact: true }).fill(password);
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.waitForURL((u) => u.pathname === "/account/apps");

          const spent = await page.goto(href);
          assert.equal(spent?.status(), 400);
          assert.match(await page.locator("main").innerText(), /This link does not work any more/);
          await assertPageCleanAtBothSizes(page, "spent link");
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
