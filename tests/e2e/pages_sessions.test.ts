// End to end, in Chromium: /account/sessions with the same person signed in to two browsers (two contexts) — the
// list shows both, "Sign out everywhere else" ends the other (its next page goes to sign-in) — and the RP-initiated
// logout pages (the question, then back to the application's registered address with state). Walked once, on the
// phone's screen (390×844); each page checked at 1280×800 and 390×844 (assertPageCleanAtBothSizes): axe-core at
// zero WCAG 2.2 AA violations and no sideways scroll.
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createUser } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
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

warnIfMissing("tests/e2e/pages_sessions.test.ts");

const EMAIL = "sessions@example.com";
const PASSWORD = "session pages 123";

async function signIn(page: Page, issuer: string, path: string): Promise<void> {
  await page.goto(`${issuer}${path}`);
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname === path);
}

Deno.test({
  name:
    "Chromium session pages (walked at 390×844, checked at both sizes): two browsers, sign out everywhere else, logout, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Sam Sessions" }, {
      scrypt: TEST_SCRYPT,
    });
    const { issuer, server } = serveAtIssuer(db.sql);

    // The application's page after sign-out: records where the browser arrived.
    const arrivals: URL[] = [];
    const rp = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/bye") arrivals.push(url);
      return new Response("<!doctype html><title>bye</title><p>back at the app</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    const bye = `http://127.0.0.1:${rp.addr.port}/bye`;
    const { clientId } = await createClient(db.sql, {
      name: "Notes App",
      redirectUris: ["https://notes.example/cb"],
      postLogoutRedirectUris: [bye],
      confidential: false,
      scopes: ["openid", "profile"],
      grantTypes: ["authorization_code"],
      selfRegistered: false,
    });

    const browser: Browser = await launchChromium();
    try {
      await t.step("two browsers, sign out everywhere else, logout", async () => {
        const first = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        const second = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        try {
          const a = await first.newPage();
          const b = await second.newPage();
          await signIn(a, issuer, "/account/sessions");
          await signIn(b, issuer, "/account/apps");
          await a.reload();

          const rows = a.locator("ul[data-sessions] > li");
          assert.equal(await rows.count(), 2, "two browsers");
          assert.equal(await a.locator("[data-this-browser]").count(), 1);
          assert.match(await rows.first().textContent() ?? "", /Chrome on Linux|Chrome/);
          await assertPageCleanAtBothSizes(a, "sessions");

          await a.getByRole("button", { name: "Sign out everywhere else" }).click();
          await a.getByRole("status").filter({ hasText: "signed out everywhere else" }).waitFor();
          assert.equal(await rows.count(), 1);
          await assertPageCleanAtBothSizes(a, "sessions after");

          // The other browser's next page load goes to sign-in.
          await b.goto(`${issuer}/account/apps`);
          await b.waitForURL((u) => u.pathname === "/signin");
          assert.equal(await b.getByLabel("Password").count(), 1);

          // RP-initiated logout: the question, then the app's registered address with state.
          const before = arrivals.length;
          await a.goto(
            `${issuer}/oauth/logout?${new URLSearchParams({
              client_id: clientId,
              post_logout_redirect_uri: bye,
              state: "s-phone",
            })}`,
          );
          assert.equal(await a.getByRole("heading", { name: "Sign out of Portico?" }).count(), 1);
          assert.equal(await a.getByText(EMAIL).count(), 1);
          await assertPageCleanAtBothSizes(a, "logout question");
          await a.getByRole("button", { name: "Sign out", exact: true }).click();
          await a.waitForURL((u) => u.href.startsWith(bye));
          assert.equal(arrivals.length, before + 1);
          assert.equal(arrivals[arrivals.length - 1].searchParams.get("state"), "s-phone");
          const [left] = await db.sql<{ n: number }[]>`select count(*)::int as n from browser_sessions`;
          assert.equal(left.n, 0);

          // Signed in again, a logout without an application ends on our own page.
          await signIn(a, issuer, "/account/apps");
          await a.goto(`${issuer}/oauth/logout`);
          await a.getByRole("button", { name: "Sign out", exact: true }).click();
          await a.waitForURL((u) => u.pathname === "/oauth/logout/done");
          assert.equal(await a.getByRole("heading", { name: "You are signed out" }).count(), 1);
          await assertPageCleanAtBothSizes(a, "signed out");
        } finally {
          await first.close();
          await second.close();
        }
      });
    } finally {
      await browser.close();
      await server.shutdown();
      await rp.shutdown();
      await db.close();
    }
  },
});
