// End to end, in Chromium: the authorization pages (sign-in, consent, account chooser, error page) — Allow and
// Deny visible without scrolling at 1280×800 and on a phone (390×844) with a long scope and workspace list,
// "Not you? Use another account", focus on the email field, error code + request id + the redirect URI sent
// beside the registered ones, operator branding on every page, and axe-core at zero WCAG 2.2 AA violations and no
// sideways scroll at both sizes. The flow is walked once, on the phone's screen; each page is checked at both sizes
// by re-laying it out (assertPageCleanAtBothSizes, atEachSize).
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createAgent, createUser, unlockAgent } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  assertDecisionInView,
  assertPageCleanAtBothSizes,
  atEachSize,
  haveChromium,
  inViewport,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/pages_authorize.test.ts");

const PASSWORD = "pages password 123";
const BRAND = "Acme Access";
const ACCENT = "#0b6e4f";
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">` +
  `<rect width="40" height="40" rx="8" fill="${ACCENT}"/></svg>`;

async function pkceChallenge(): Promise<string> {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(digest))).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Branding is on the page: the product name in the title and header, our logo loaded from our own server. */
async function assertBranded(page: Page, issuer: string): Promise<void> {
  assert.match(await page.title(), new RegExp(` · ${BRAND}$`));
  assert.equal((await page.locator("header.brand span").textContent())?.trim(), BRAND);
  const logo = page.locator("header.brand img");
  const src = await logo.getAttribute("src");
  assert.match(src!, /^\/assets\/logo\?v=[0-9a-f]{12}$/);
  assert.ok(await logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0));
  const accent = await page.evaluate(() =>
    // deno-lint-ignore no-explicit-any
    (globalThis as any).getComputedStyle((globalThis as any).document.documentElement)
      .getPropertyValue("--accent").trim()
  );
  assert.equal(accent, ACCENT);
  // nothing on the page comes from anywhere but Portico
  const foreign = await page.evaluate((origin) =>
    // deno-lint-ignore no-explicit-any
    [...(globalThis as any).document.querySelectorAll("[src], link[href]")]
      // deno-lint-ignore no-explicit-any
      .map((el: any) => new URL(el.getAttribute("src") ?? el.getAttribute("href"), origin).origin)
      .filter((o: string) => o !== origin), issuer);
  assert.deepEqual(foreign, []);
}

Deno.test({
  name:
    "Chromium pages (walked at 390×844, checked at both sizes): sign-in, consent, Not you?, chooser, error page — branded, axe clean",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const dir = await Deno.makeTempDir();
    const logoPath = `${dir}/logo.svg`;
    await Deno.writeTextFile(logoPath, LOGO_SVG);

    const ada = await createUser(
      db.sql,
      { email: "ada@example.com", password: PASSWORD, name: "Ada Pages" },
      { scrypt: TEST_SCRYPT },
    );
    const bob = await createUser(
      db.sql,
      { email: "bob@example.com", password: PASSWORD, name: "Bob Other" },
      { scrypt: TEST_SCRYPT },
    );
    // A long consent page: twelve workspaces, ten agents.
    for (let i = 1; i <= 12; i++) {
      const ws = (await createWorkspace(db.sql, `Workspace number ${i} with a longer name`, [...MODULES])).id;
      await addMember(db.sql, ws, ada.id, "admin", null);
      if (i <= 2) await addMember(db.sql, ws, bob.id, "member", null);
      if (i === 1) await createCompany(db.sql, ws, "Only Company");
    }
    const agentScopes: string[] = [];
    for (let i = 1; i <= 10; i++) {
      const agent = (await createAgent(db.sql, `Research assistant number ${i}`)).id;
      await unlockAgent(db.sql, ada.id, agent);
      await unlockAgent(db.sql, bob.id, agent);
      agentScopes.push(`agent.chat:${agent}`);
    }

    const { issuer, server } = serveAtIssuer(db.sql, {
      BRAND_NAME: BRAND,
      BRAND_ACCENT: ACCENT,
      BRAND_LOGO: logoPath,
    });

    // The client's loopback redirect target (page.route does not see requests reached through a redirect).
    const arrivals: URL[] = [];
    const callback = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/callback") arrivals.push(url);
      return new Response("<!doctype html><title>done</title><p>back at the client</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    const redirectUri = `http://127.0.0.1:${callback.addr.port}/callback`;
    const clientId = (await createClient(db.sql, {
      name: "Operator App",
      redirectUris: [redirectUri, "https://app.example/oauth/done"],
      confidential: false,
      scopes: ["openid", "profile", "offline_access", "agent.purchase", "workspace"],
      grantTypes: ["authorization_code", "refresh_token"],
      selfRegistered: false,
    })).clientId;
    const scope = ["openid", "profile", "offline_access", "agent.purchase", "workspace", ...agentScopes].join(
      " ",
    );
    const authorizeUrl = async (state: string, extra: Record<string, string> = {}) =>
      `${issuer}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        scope,
        state,
        code_challenge: await pkceChallenge(),
        code_challenge_method: "S256",
        // consent is remembered per person: the consent page whatever was allowed before
        prompt: "consent",
        ...extra,
      })}`;

    const browser = await launchChromium();
    try {
      await t.step("sign-in, consent, Not you?, chooser, error page", async () => {
        // bypassCSP: axe is injected as an inline script, which the pages' CSP (rightly) refuses.
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        const page = await context.newPage();
        try {
          const state = "state-phone";
          await page.goto(await authorizeUrl(state));

          // Sign-in: focus starts in the email field; branded; axe clean.
          await page.getByRole("heading", { name: "Sign in" }).waitFor();
          assert.equal(
            // deno-lint-ignore no-explicit-any
            await page.evaluate(() => (globalThis as any).document.activeElement?.id),
            "email",
          );
          await assertBranded(page, issuer);
          await assertPageCleanAtBothSizes(page, "sign-in");
          await page.keyboard.type("ada@example.com");
          await page.getByLabel("Password").fill(PASSWORD);
          await page.getByRole("button", { name: "Sign in" }).click();

          // Consent: long (14 scopes — offline_access is not one to approve — and 13 places), yet Allow and
          // Deny are on screen without scrolling.
          await page.getByRole("heading", { name: /Allow Operator App/ }).waitFor();
          assert.equal(await page.locator("ul.scopes li").count(), 14);
          assert.equal(await page.locator("fieldset.places input[type=radio]").count(), 13);
          await atEachSize(page, async (size, viewport) => {
            const scrollHeight = await page.evaluate(() =>
              // deno-lint-ignore no-explicit-any
              (globalThis as any).document.documentElement.scrollHeight as number
            );
            assert.ok(
              scrollHeight > viewport.height,
              `${size}: the page is longer than the screen (${scrollHeight})`,
            );
            await assertDecisionInView(page, size);
          });
          await assertBranded(page, issuer);
          await assertPageCleanAtBothSizes(page, "consent");

          // "Not you? Use another account": Ada is signed out; the same request's sign-in comes next.
          await page.getByRole("button", { name: "Not you? Use another account" }).click();
          await page.getByRole("heading", { name: "Sign in" }).waitFor();
          assert.equal(new URL(page.url()).pathname, "/oauth/authorize/resume");
          await page.getByText("to continue to Operator App").waitFor();
          assert.equal(await page.locator("#email").inputValue(), "");
          await page.getByLabel("Email").fill("bob@example.com");
          await page.getByLabel("Password").fill(PASSWORD);
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.getByRole("heading", { name: /Allow Operator App/ }).waitFor();
          await page.getByText("Signed in as Bob Other (bob@example.com)").waitFor();
          // Bob's two workspaces (one with a company: three places); Allow still on screen.
          assert.equal(await page.locator("fieldset.places input[type=radio]").count(), 3);
          await atEachSize(page, async (size) => {
            assert.equal(await inViewport(page, "button[name=decision][value=allow]"), true, size);
          });
          const before = arrivals.length;
          await page.getByRole("button", { name: "Allow" }).click();
          await page.waitForURL((u) => u.href.startsWith(redirectUri));
          assert.equal(arrivals.length, before + 1);
          const back = arrivals[arrivals.length - 1];
          assert.equal(back.searchParams.get("state"), state, "the same request went on");
          assert.match(back.searchParams.get("code") ?? "", /.+/);
          // Only Bob is signed in now: Ada's account left this browser.
          const [{ count }] = await db.sql<{ count: number }[]>`
              select count(*)::int as count from browser_session_accounts where user_id = ${ada.id}`;
          assert.equal(count, 0);

          // The account chooser (prompt=select_account), branded and axe clean.
          await page.goto(await authorizeUrl(`${state}-2`, { prompt: "select_account" }));
          await page.getByRole("heading", { name: "Choose an account" }).waitFor();
          await assertBranded(page, issuer);
          await assertPageCleanAtBothSizes(page, "chooser");

          // An unregistered redirect URI: error page with code, request id, the address sent as text.
          const sent = `https://evil.example/cb?x=<b>"bold"</b>&label=phone`;
          const res = await page.goto(
            `${issuer}/oauth/authorize?${new URLSearchParams({
              response_type: "code",
              client_id: clientId,
              redirect_uri: sent,
              state: "s",
              code_challenge: await pkceChallenge(),
              code_challenge_method: "S256",
            })}`,
          );
          assert.equal(res!.status(), 400);
          await page.getByRole("heading", { name: "Invalid redirect" }).waitFor();
          assert.equal(
            await page.locator("[data-error-code] dd code").first().textContent(),
            "invalid_redirect_uri",
          );
          assert.equal(
            await page.locator("[data-request-id]").textContent(),
            res!.headers()["x-request-id"],
          );
          assert.equal(await page.locator("[data-redirect-sent]").textContent(), sent);
          assert.deepEqual(await page.locator("[data-redirect-registered]").allTextContents(), [
            redirectUri,
            "https://app.example/oauth/done",
          ]);
          assert.equal(await page.locator("b").count(), 0, "the address is text, not markup");
          assert.equal(await page.locator("a").count(), 0, "and never a link");
          assert.equal(page.url().startsWith(issuer), true, "no redirect");
          await assertBranded(page, issuer);
          await assertPageCleanAtBothSizes(page, "error page");
        } finally {
          await context.close();
        }
      });
    } finally {
      await browser.close();
      await callback.shutdown();
      await server.shutdown();
      await db.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
