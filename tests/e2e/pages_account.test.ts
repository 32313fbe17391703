// End to end, in Chromium: the account pages — Connected apps telling re-registered clients apart (client id, last
// use, scopes, who registered it), Disconnect and Revoke behind confirmation pages that work without JavaScript,
// an owner's keys listed once, the copy button (under the pages' real CSP) and client configurations on
// /account/keys, a PNG logo — and axe-core at zero WCAG 2.2 AA violations. The owner's flow is walked once, on the
// phone's screen (390×844), and each of its pages is checked at 1280×800 and 390×844 (assertPageCleanAtBothSizes).
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createUser } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
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

warnIfMissing("tests/e2e/pages_account.test.ts");

const PASSWORD = "account pages 123";
// The smallest valid PNG (1×1, one grey pixel).
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==",
  ),
  (ch) => ch.charCodeAt(0),
);

async function signIn(page: Page, issuer: string, path: string, email: string): Promise<void> {
  await page.goto(`${issuer}${path}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname === path);
}

Deno.test({
  name:
    "Chromium account pages (one walk, checked at 1280×800 and 390×844): connected apps, confirmations, keys once, " +
    "copy, configs, axe",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const dir = await Deno.makeTempDir();
    await Deno.writeFile(`${dir}/logo.png`, PNG);
    const owner = await createUser(db.sql, {
      email: "owner@example.com",
      password: PASSWORD,
      name: "Olga Owner",
    }, { scrypt: TEST_SCRYPT });
    const member = await createUser(
      db.sql,
      { email: "member@example.com", password: PASSWORD, name: "Max" },
      { scrypt: TEST_SCRYPT },
    );
    const ws = (await createWorkspace(db.sql, "Studio", [...MODULES])).id;
    const company = (await createCompany(db.sql, ws, "North Company")).id;
    await createCompany(db.sql, ws, "South Company");
    await addMember(db.sql, ws, owner.id, "owner", null);
    await addMember(db.sql, ws, member.id, "member", null);

    const { issuer, server } = serveAtIssuer(db.sql, {
      BRAND_NAME: "Studio Login",
      BRAND_LOGO: `${dir}/logo.png`,
    });

    /** One app registered twice under the same name (a client that lost its registration), both approved. */
    async function connectTwice(): Promise<{ older: string; newer: string }> {
      const register = async (self: boolean) =>
        (await createClient(db.sql, {
          name: "Claude",
          redirectUris: ["https://claude.example/api/callback"],
          confidential: false,
          scopes: ["openid", "profile", "workspace"],
          grantTypes: ["authorization_code", "refresh_token"],
          selfRegistered: self,
        })).clientId;
      const older = await register(true);
      const newer = await register(false);
      await db.sql`
        insert into oauth_consents (user_id, client_id, scopes, workspace_id, company_id, granted_at)
        values (${owner.id}, ${older}, '{openid,profile}', null, null, '2026-01-02 10:00Z'),
               (${owner.id}, ${newer}, '{openid,workspace}', ${ws}, ${company}, '2026-03-04 11:00Z')`;
      await db.sql`
        insert into oauth_grants (client_id, user_id, scopes, workspace_id, company_id, last_used_at)
        values (${older}, ${owner.id}, '{openid,profile}', null, null, null),
               (${newer}, ${owner.id}, '{openid,workspace}', ${ws}, ${company}, '2026-03-05 09:30Z'),
               (${newer}, ${owner.id}, '{openid,workspace}', ${ws}, ${company}, '2026-03-01 08:00Z')`;
      return { older, newer };
    }

    const browser: Browser = await launchChromium();
    try {
      // One walk, on the phone's screen; each page is checked at both sizes (assertPageCleanAtBothSizes).
      await t.step("connected apps, disconnect, keys, revoke", async () => {
        const { older, newer } = await connectTwice();
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        const page = await context.newPage();
        try {
          await signIn(page, issuer, "/account/apps", "owner@example.com");
          assert.equal(await page.locator("header.brand span").textContent(), "Studio Login");
          const logo = await page.request.get(
            `${issuer}${await page.locator("header.brand img").getAttribute("src")}`,
          );
          assert.equal(logo.headers()["content-type"], "image/png");
          assert.deepEqual(new Uint8Array(await logo.body()), PNG);

          // Two rows named Claude, told apart.
          const rows = page.locator("ul.apps > li");
          assert.equal(await rows.count(), 2);
          const newerRow = page.locator(`li[data-client-id="${newer}"]`);
          const olderRow = page.locator(`li[data-client-id="${older}"]`);
          assert.equal(
            await newerRow.locator("dl code").textContent(),
            `${newer.slice(0, 10)}…${newer.slice(-4)}`,
          );
          assert.equal(
            await olderRow.locator("dl code").textContent(),
            `${older.slice(0, 10)}…${older.slice(-4)}`,
          );
          assert.equal(await newerRow.locator("[data-last-used]").textContent(), "2026-03-05 09:30 UTC");
          assert.equal(await olderRow.locator("[data-last-used]").textContent(), "never");
          assert.equal(
            await newerRow.locator("[data-registered-by]").getAttribute("data-registered-by"),
            "operator",
          );
          assert.equal(
            await olderRow.locator("[data-registered-by]").getAttribute("data-registered-by"),
            "itself",
          );
          assert.deepEqual(
            await newerRow.locator("li[data-scope]").evaluateAll((els) =>
              els.map((e) => (e as unknown as { dataset: { scope: string } }).dataset.scope)
            ),
            ["openid", "workspace"],
          );
          // Nothing to choose on this page: the workspace was chosen on consent and is shown under "Acts in".
          assert.equal(
            await newerRow.locator('li[data-scope="workspace"]').textContent(),
            "Use your workspace tools as you: read and change projects, tasks, clients, invoices and more " +
              "in the workspace you chose when you allowed it",
          );
          await newerRow.getByText("Studio, only North Company").waitFor();
          await assertPageCleanAtBothSizes(page, "connected apps");

          // Disconnect: a confirmation page first; the app stays connected until it is confirmed.
          await olderRow.getByRole("button", { name: "Disconnect Claude" }).click();
          await page.getByRole("heading", { name: "Disconnect Claude?" }).waitFor();
          assert.equal(new URL(page.url()).pathname, "/account/apps/disconnect");
          const [stillThere] = await db.sql`select 1 from oauth_consents where client_id = ${older}`;
          assert.ok(stillThere, "nothing happens on the GET");
          await assertPageCleanAtBothSizes(page, "disconnect confirmation");
          await page.getByRole("link", { name: "Cancel" }).click();
          await page.getByRole("heading", { name: "Connected apps" }).waitFor();
          await olderRow.getByRole("button", { name: "Disconnect Claude" }).click();
          await page.getByRole("button", { name: "Disconnect Claude" }).click();
          await page.getByRole("status").filter({ hasText: "The application was disconnected." }).waitFor();
          assert.equal(await rows.count(), 1);
          assert.equal(
            await page.locator(`li[data-client-id="${newer}"]`).count(),
            1,
            "the other one stays",
          );

          // Keys: the owner creates a key; it is listed once (not under "your keys" and "every key" both).
          await page.goto(`${issuer}/account/keys`);
          const keyName = "Laptop";
          await page.getByLabel("Key name").fill(keyName);
          await page.getByLabel("Limit to a company (optional)").selectOption({ label: "South Company" });
          await page.getByRole("button", { name: "Create key" }).click();
          await page.locator("#new-key").waitFor();
          const key = (await page.locator("#new-key").textContent())!.trim();
          assert.match(key, /^pak_/);
          const [{ id: keyId }] = await db.sql<{ id: string }[]>`
            select id from api_keys where name = ${keyName}`;
          assert.equal(await page.locator(`li[data-key-id="${keyId}"]`).count(), 1, "listed once");
          assert.equal(await page.getByRole("heading", { name: "Every key of Studio" }).count(), 1);
          assert.equal(await page.getByRole("heading", { name: "Your keys" }).count(), 0);
          // Which configurations keep the key out of their files, and the one that cannot.
          assert.equal(
            (await page.locator("[data-configs-note]").textContent())!.replace(/\s+/g, " ").trim(),
            "Cursor, Claude Code and curl read the key from PORTICO_KEY (export PORTICO_KEY=…) and VS Code " +
              "asks for it, so their files hold no secret. The mcp-remote configuration holds the key itself, " +
              "in its env: Claude Desktop does not pass your shell's variables on, so keep that file to yourself.",
          );
          assert.equal(
            await page.locator('[data-config="mcp-remote"] p.muted').first().textContent(),
            "the client's MCP servers file; put the key in env (the file then holds it: keep it private)",
          );
          // Ready configurations with this server's real /mcp address.
          for (const id of ["cursor", "vscode", "claude-code", "mcp-remote", "curl"]) {
            const text = await page.locator(`[data-config="${id}"] pre code`).textContent();
            assert.ok(text!.includes(`${issuer}/mcp`), id);
            assert.ok(!text!.includes(key), `${id} holds no key`);
          }
          // The styled company choice is a real select, with our arrow and no native look.
          assert.equal(
            await page.locator("select[name=company_id]").evaluate((el) =>
              // deno-lint-ignore no-explicit-any
              (globalThis as any).getComputedStyle(el).appearance
            ),
            "none",
          );
          await assertPageCleanAtBothSizes(page, "keys with a new key");

          // Revoke: a confirmation page first.
          await page.reload();
          await page.getByRole("button", { name: `Revoke ${keyName}` }).click();
          await page.getByRole("heading", { name: `Revoke ${keyName}?` }).waitFor();
          const [live] = await db.sql`select 1 from api_keys where id = ${keyId} and revoked_at is null`;
          assert.ok(live, "nothing happens on the GET");
          await assertPageCleanAtBothSizes(page, "revoke confirmation");
          await page.getByRole("button", { name: `Revoke ${keyName}` }).click();
          await page.getByRole("status").filter({ hasText: "revoked" }).waitFor();
          const [gone] = await db
            .sql`select 1 from api_keys where id = ${keyId} and revoked_at is not null`;
          assert.ok(gone);
          await assertPageCleanAtBothSizes(page, "keys");
        } finally {
          await context.close();
        }
      });

      await t.step(
        "copy button: works under the pages' real CSP; without JavaScript the key is plain text",
        async () => {
          const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
          await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: issuer });
          const page = await context.newPage();
          const noJs = await browser.newContext({ viewport: VIEWPORTS.phone, javaScriptEnabled: false });
          const plain = await noJs.newPage();
          try {
            await signIn(page, issuer, "/account/keys", "member@example.com");
            await page.getByLabel("Key name").fill("Copied key");
            await page.getByRole("button", { name: "Create key" }).click();
            const key = (await page.locator("#new-key").textContent())!.trim();
            await page.getByRole("button", { name: "Copy key" }).click();
            await page.getByText("Copied to the clipboard.").waitFor();
            // deno-lint-ignore no-explicit-any
            assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText()), key);
            // A member sees their own keys, under "Your keys".
            assert.equal(await page.getByRole("heading", { name: "Your keys" }).count(), 1);

            await signIn(plain, issuer, "/account/keys", "member@example.com");
            await plain.getByLabel("Key name").fill("Plain key");
            await plain.getByRole("button", { name: "Create key" }).click();
            await plain.locator("#new-key").waitFor();
            assert.equal(
              await plain.getByRole("button", { name: "Copy key" }).count(),
              0,
              "hidden without JS",
            );
            assert.equal(
              await plain.locator("#new-key").evaluate((el) =>
                // deno-lint-ignore no-explicit-any
                (globalThis as any).getComputedStyle(el).userSelect
              ),
              "all",
            );
            // Revoke's confirmation works without JavaScript too.
            await plain.getByRole("button", { name: "Revoke Plain key" }).click();
            await plain.getByRole("button", { name: "Revoke Plain key" }).click();
            await plain.getByRole("status").filter({ hasText: "revoked" }).waitFor();
          } finally {
            await context.close();
            await noJs.close();
          }
        },
      );
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
