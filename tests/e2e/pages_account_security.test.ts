// End to end, in Chromium at 1280×800 and 390×844, light and dark (the pages load no script): a sign-in with a
// password below today's policy lands on "Choose a new password", the change goes on to where the sign-in was
// going (the security overview, with its account navigation and security log), then the plain change-password
// page refusing a wrong current password — and axe-core at zero WCAG 2.2 AA violations (contrast included, in
// both colour schemes) and no sideways scrolling on each page.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  assertPageCleanEverywhere,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/pages_account_security.test.ts");

const OLD = "short pw 1"; // 10 characters: accepted before issue 29

Deno.test({
  name: "Chromium account security pages (1280×800, 390×844, light and dark): required change, overview, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    try {
      // One walk; each page is checked at both sizes in light and dark (assertPageCleanEverywhere). The walk runs on
      // the phone's screen: every button it presses is reachable there.
      await t.step("required change, refusal, overview, plain change", async () => {
        const email = "rita@example.com";
        await createUser(db.sql, { email, password: OLD, name: "Rita" }, { scrypt: TEST_SCRYPT });
        // bypassCSP only so axe can be injected; the pages themselves load no script.
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        try {
          const page = await context.newPage();
          await page.goto(`${issuer}/signin?return_to=%2Faccount%2Fsecurity`);
          await page.getByLabel("Email").fill(email);
          await page.getByLabel("Password", { exact: true }).fill(OLD);
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.waitForURL((u) =>
            u.pathname === "/account/security/password" && u.searchParams.get("required") === "1"
          );
          assert.match(await page.locator("main").innerText(), /falls short of our password rules/);
          assert.equal(await page.getByRole("link", { name: "Cancel" }).count(), 0);
          await assertPageCleanEverywhere(page, "required change");

          // The policy's answer, in words.
          await page.getByLabel("Current password").fill(OLD);
          await page.getByLabel("New password", { exact: true }).fill("password1234");
          await page.getByLabel("New password again").fill("password1234");
          await page.getByRole("button", { name: "Change password" }).click();
          await page.getByRole("alert").filter({ hasText: "common passwords" }).waitFor();
          await assertPageCleanEverywhere(page, "refused");

          const fresh = "lantern orbit pebble 1";
          await page.getByLabel("Current password").fill(OLD);
          await page.getByLabel("New password", { exact: true }).fill(fresh);
          await page.getByLabel("New password again").fill(fresh);
          await page.getByRole("button", { name: "Change password" }).click();
          await page.waitForURL((u) => u.pathname === "/account/security" && u.search === "");
          const main = await page.locator("main").innerText();
          assert.match(main, /Last changed \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
          assert.match(main, /Password changed/);
          assert.match(main, /Signed in/);
          const current = page.getByRole("navigation", { name: "Your account" }).getByRole("link", {
            name: "Security",
          });
          assert.equal(await current.getAttribute("aria-current"), "page");
          await assertPageCleanEverywhere(page, "overview");

          await page.getByRole("link", { name: "Change password" }).click();
          await page.waitForURL((u) => u.pathname === "/account/security/password");
          await assertPageCleanEverywhere(page, "change");
          await page.getByLabel("Current password").fill("not the password");
          await page.getByLabel("New password", { exact: true }).fill("river candle orbit maple");
          await page.getByLabel("New password again").fill("river candle orbit maple");
          await page.getByRole("button", { name: "Change password" }).click();
          await page.getByRole("alert").filter({ hasText: "The current password is not right." })
            .waitFor();
          await assertPageCleanEverywhere(page, "wrong current");
          await page.getByRole("link", { name: "Cancel" }).click();
          await page.waitForURL((u) => u.pathname === "/account/security");
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
