// End to end, in Chromium with a virtual authenticator (DevTools protocol WebAuthn domain), under the pages' real
// CSP: register a passkey from /account/security/passkeys, sign out, sign in with the passkey alone (amr hwk user
// mfa), sign in with the password and use the passkey as the second factor (amr pwd hwk mfa), rename and remove
// it (then it no longer signs in). The flow is walked once, on the phone's screen (390×844). Every passkey page is
// checked with axe-core (zero WCAG 2.2 AA violations) and for sideways scrolling at 1280×800 and 390×844, in a
// second context (axe is injected as an inline script, so that context bypasses the CSP) given the flow's cookies
// before each check: the page is loaded there once and re-laid out at each size (assertPageCleanAtBothSizes).
import assert from "node:assert/strict";
import type { Hono } from "hono";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import {
  assertPageCleanAtBothSizes,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";

warnIfMissing("tests/e2e/pages_passkeys.test.ts");

const EMAIL = "rita@example.com";
const PASSWORD = "passkey pages 123";

/**
 * Like tests/helpers/serve.ts serveAtIssuer, but the issuer is http://localhost:<port>: WebAuthn refuses an IP
 * address as RP ID, and localhost is a secure context.
 */
function serveAtLocalhost(sql: Sql): { issuer: string; server: Deno.HttpServer<Deno.NetAddr> } {
  let app: Hono<AppEnv> | null = null;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req, info) => app ? app.fetch(req, info) : new Response("starting", { status: 503 }),
  );
  const issuer = `http://localhost:${server.addr.port}`;
  app = createApp({
    config: parseConfig({ ISSUER: issuer, SECRET_KEY: TEST_SECRET }),
    sql,
    log: silentLogger,
    secretKey: TEST_SECRET,
    scrypt: TEST_SCRYPT,
  });
  return { issuer, server };
}

/** A virtual platform authenticator with user verification, as a phone or laptop has. */
async function addAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

/**
 * Chromium's virtual authenticator answers a conditional (autofill) request at once, before any click: to drive
 * the button, the page is told the browser has no passkey autofill (an init script, outside the page's CSP).
 */
async function withoutAutofill(page: Page, off: boolean): Promise<void> {
  await page.evaluate((v) => localStorage.setItem("no-autofill", v), off ? "1" : "0");
}

const NO_AUTOFILL_INIT = () => {
  // deno-lint-ignore no-explicit-any
  const win = globalThis as any;
  if (win.localStorage.getItem("no-autofill") === "1") {
    win.PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
  }
};

async function amrOf(sql: Sql): Promise<string[][]> {
  const rows = await sql<{ amr: string[] }[]>`
    select a.amr from browser_session_accounts a join users u on u.id = a.user_id
    where u.email = ${EMAIL} order by a.auth_time`;
  return rows.map((r) => r.amr);
}

Deno.test({
  name:
    "Chromium passkeys (virtual authenticator, one walk, checked at 1280×800 and 390×844): register, sign in " +
    "alone, second factor, rename, remove, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const db = await freshDatabase();
    await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Rita" }, { scrypt: TEST_SCRYPT });
    const { issuer, server } = serveAtLocalhost(db.sql);
    const browser: Browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: VIEWPORTS.phone });
      const page = await context.newPage();
      await page.addInitScript(NO_AUTOFILL_INIT);
      await addAuthenticator(context, page);
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });

      // The context the pages are checked in: it bypasses the CSP for axe, and holds the flow's cookies.
      const axeContext = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
      const axePage = await axeContext.newPage();
      /** axe and sideways scrolling for the page at `url`, at both sizes, with the flow's cookies as they are now. */
      const check = async (url: string, label: string) => {
        await axeContext.clearCookies();
        await axeContext.addCookies(await context.cookies());
        const res = await axePage.goto(url);
        assert.equal(res?.status(), 200, label);
        await assertPageCleanAtBothSizes(axePage, label);
      };

      // Password sign-in, then the account's passkeys page.
      await page.goto(`${issuer}/account/security/passkeys`);
      await page.waitForURL((u) => u.pathname === "/signin");
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/account/security/passkeys");
      assert.match(await page.locator("main").innerText(), /No passkeys yet/);
      await check(page.url(), "passkeys (none)");

      // Register: the name field starts with the browser's name.
      const name = page.getByLabel("Name", { exact: true });
      assert.match(await name.inputValue(), /^Passkey on Chrome/);
      await name.fill("Rita's laptop");
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.waitForURL((u) => u.search === "?done=added");
      assert.match(await page.locator("main").innerText(), /The passkey was added/);
      assert.match(await page.locator("li").first().innerText(), /Rita's laptop.*last used never/s);
      const [row] = await db.sql`select name, sign_count::int as n from user_passkeys`;
      assert.equal(row.name, "Rita's laptop");
      await check(page.url(), "passkeys (one)");

      // Sign out, then sign in with the passkey alone: with the button, in a browser without passkey autofill.
      await withoutAutofill(page, true);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((u) => u.pathname === "/signin");
      assert.deepEqual(await amrOf(db.sql), []);
      await check(page.url(), "sign-in with passkey button");
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await page.waitForURL((u) => u.pathname === "/account/security/passkeys");
      assert.deepEqual(await amrOf(db.sql), [["hwk", "user", "mfa"]]);
      assert.match(await page.locator("li").first().innerText(), /last used \d{4}-/);

      // And through the email field's autofill (conditional mediation), which the virtual authenticator answers
      // with its passkey as soon as the sign-in page asks, as a person picking it from the list would.
      await withoutAutofill(page, false);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((u) => u.pathname === "/account/security/passkeys");
      assert.deepEqual(await amrOf(db.sql), [["hwk", "user", "mfa"]]);
      const [{ signIns }] = await db.sql`
        select count(*)::int as "signIns" from security_events where kind = 'sign_in' and detail->>'amr' = 'hwk user mfa'`;
      assert.equal(signIns, 2);
      await withoutAutofill(page, true);

      // Password first, then the passkey as the second factor (part A's /signin/verify lists the ways; the
      // passkey way is /signin/verify/passkey with the same p).
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((u) => u.pathname === "/signin");
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/signin/verify");
      const p = new URL(page.url()).searchParams.get("p")!;
      assert.ok(p);
      const verify = `${issuer}/signin/verify/passkey?p=${encodeURIComponent(p)}`;
      await page.goto(verify);
      await check(verify, "second factor");
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await page.waitForURL((u) => u.pathname === "/account/security/passkeys");
      assert.deepEqual(await amrOf(db.sql), [["pwd", "hwk", "mfa"]]);

      // Rename, then remove after the confirmation page.
      await page.getByRole("link", { name: "Rename Rita's laptop" }).click();
      await page.waitForURL((u) => u.pathname === "/account/security/passkeys/rename");
      await check(page.url(), "rename");
      await page.getByLabel("New name").fill("Work laptop");
      await page.getByRole("button", { name: "Save" }).click();
      await page.waitForURL((u) => u.search === "?done=renamed");
      await page.getByRole("button", { name: "Remove Work laptop" }).click();
      await page.waitForURL((u) => u.pathname === "/account/security/passkeys/remove");
      await check(page.url(), "remove confirmation");
      await page.getByRole("button", { name: "Remove Work laptop" }).click();
      await page.waitForURL((u) => u.search === "?done=removed");
      assert.match(await page.locator("main").innerText(), /No passkeys yet/);
      const [{ n }] = await db.sql`select count(*)::int as n from user_passkeys`;
      assert.equal(n, 0);

      // The authenticator still holds the credential; this site no longer takes it.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((u) => u.pathname === "/signin");
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await page.getByText("That passkey was not accepted here").waitFor();
      assert.equal(new URL(page.url()).pathname, "/signin");
      assert.deepEqual(errors.filter((e) => /Content Security Policy/i.test(e)), []);
      await axeContext.close();
      await context.close();
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});
