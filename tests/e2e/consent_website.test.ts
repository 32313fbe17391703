// End to end, in Chromium at 375 and 1280 px: the client's website on the consent page wraps on a narrow screen
// without breaking inside its scheme — `scheme://host` stays on one line — while the long path still wraps
// inside the card; axe-core at zero WCAG 2.2 AA violations.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { freshDatabase } from "../helpers/db.ts";
import { assertNoAxeViolations, haveChromium, launchChromium, warnIfMissing } from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/consent_website.test.ts");

const PASSWORD = "website password 123";
const ORIGIN = "https://portico-client.example.com";
const WEBSITE = `${ORIGIN}/products/assistant/for-teams/overview?utm_source=portico&utm_medium=consent`;

/**
 * The distinct line tops of characters [start, end) of the element's text, whatever elements split it: one
 * rectangle per character, so a line holding only part of a text node counts too.
 */
function lineTops(page: Page, selector: string, start: number, end: number): Promise<number[]> {
  return page.locator(selector).evaluate((el, [from, to]) => {
    // deno-lint-ignore no-explicit-any
    const doc = (globalThis as any).document;
    const chars: Array<[unknown, number]> = [];
    const walker = doc.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.textContent.length; i++) chars.push([node, i]);
    }
    const tops = new Set<number>();
    for (const [node, i] of chars.slice(from, to)) {
      const range = doc.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
    }
    return [...tops].sort((a, b) => a - b);
  }, [start, end]);
}

Deno.test({
  name: "Chromium consent (375 px, 1280 px): the client's website never breaks inside its scheme",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    await createUser(db.sql, { email: "wendy@example.com", password: PASSWORD, name: "Wendy Website" }, {
      scrypt: TEST_SCRYPT,
    });
    const redirectUri = "http://127.0.0.1:9/callback";
    const clientId = (await createClient(db.sql, {
      name: "Team Assistant for Portico",
      redirectUris: [redirectUri],
      confidential: false,
      scopes: ["openid", "profile"],
      grantTypes: ["authorization_code"],
      selfRegistered: false,
      clientUri: WEBSITE,
    })).clientId;
    const { issuer, server } = serveAtIssuer(db.sql, {});
    const browser = await launchChromium();
    try {
      for (const viewport of [{ width: 375, height: 667 }, { width: 1280, height: 800 }]) {
        await t.step(`${viewport.width}×${viewport.height}`, async () => {
          const context = await browser.newContext({ viewport, bypassCSP: true });
          const page = await context.newPage();
          try {
            await page.goto(
              `${issuer}/oauth/authorize?${new URLSearchParams({
                response_type: "code",
                client_id: clientId,
                redirect_uri: redirectUri,
                scope: "openid profile",
                state: "s",
                code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                code_challenge_method: "S256",
              })}`,
            );
            await page.getByLabel("Email").fill("wendy@example.com");
            await page.getByLabel("Password").fill(PASSWORD);
            await page.getByRole("button", { name: "Sign in" }).click();
            await page.getByRole("heading", { name: /Allow Team Assistant for Portico/ }).waitFor();

            const website = "p code";
            assert.equal(await page.locator(website).textContent(), WEBSITE);
            // scheme://host on one line (so "https" is never split), and the scheme itself too
            assert.equal((await lineTops(page, website, 0, ORIGIN.length)).length, 1, "origin on one line");
            assert.equal(
              (await lineTops(page, website, 0, "https://".length)).length,
              1,
              "scheme on one line",
            );
            // the path still wraps: nothing sticks out of the card, and on a phone the URL takes several lines
            const card = (await page.locator(".card").boundingBox())!;
            const code = (await page.locator(website).boundingBox())!;
            assert.ok(code.x + code.width <= card.x + card.width, "the URL stays inside the card");
            const lines = await lineTops(page, website, 0, WEBSITE.length);
            if (viewport.width < 400) assert.ok(lines.length >= 2, `the URL wraps (${lines.length} line)`);
            await assertNoAxeViolations(page, `consent ${viewport.width}`);
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
