// End to end, in Chromium: toolsets and read-only chosen on the consent page (collapsed by default, Allow and Deny
// still on screen without scrolling at 1280×800 and 390×844, opened and narrowed by the person) and on
// /account/keys; the choice is stored, shown on Connected apps and in the keys list; axe-core at zero WCAG 2.2 AA
// violations and no sideways scroll at both sizes with the choice closed and open. The flow is walked once, on the
// phone's screen; each page is checked at both sizes by re-laying it out (assertPageCleanAtBothSizes, atEachSize).
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { TOOLSET_LABELS, TOOLSETS } from "../../lib/mcp/toolsets.ts";
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

warnIfMissing("tests/e2e/toolset_choice.test.ts");

const PASSWORD = "toolsets password 123";
const KEEP = ["tasks", "time"] as const;

async function pkceChallenge(): Promise<string> {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(digest))).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

Deno.test({
  name:
    "Chromium (walked at 390×844, checked at both sizes): toolsets and read-only chosen on consent and on /account/keys, axe clean",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const workspaceId = (await createWorkspace(db.sql, "Toolset Studio", [...MODULES])).id;
    await createCompany(db.sql, workspaceId, "Toolset Co");

    const { issuer, server } = serveAtIssuer(db.sql);

    const callback = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () =>
        new Response("<!doctype html><title>done</title><p>back at the client</p>", {
          headers: { "content-type": "text/html" },
        }),
    );
    const redirectUri = `http://127.0.0.1:${callback.addr.port}/callback`;
    const clientId = (await createClient(db.sql, {
      name: "Toolset App",
      redirectUris: [redirectUri],
      confidential: false,
      scopes: ["openid", "profile", "workspace"],
      grantTypes: ["authorization_code", "refresh_token"],
      selfRegistered: false,
    })).clientId;

    const browser = await launchChromium();
    try {
      await t.step("consent, Connected apps, /account/keys", async () => {
        // A person who has allowed nothing yet: consent is remembered per person.
        const email = "phone@example.com";
        const user = await createUser(db.sql, { email, password: PASSWORD, name: "Tess phone" }, {
          scrypt: TEST_SCRYPT,
        });
        await addMember(db.sql, workspaceId, user.id, "manager", null);
        const context = await browser.newContext({ viewport: VIEWPORTS.phone, bypassCSP: true });
        const page = await context.newPage();
        try {
          await page.goto(`${issuer}/oauth/authorize?${new URLSearchParams({
            response_type: "code",
            client_id: clientId,
            redirect_uri: redirectUri,
            scope: "openid profile workspace",
            state: "state-phone",
            code_challenge: await pkceChallenge(),
            code_challenge_method: "S256",
          })}`);
          await page.getByLabel("Email").fill(email);
          await page.getByLabel("Password").fill(PASSWORD);
          await page.getByRole("button", { name: "Sign in" }).click();

          // Consent: the choice is collapsed, so the common path is unchanged; Allow and Deny on screen.
          await page.getByRole("heading", { name: /Allow Toolset App/ }).waitFor();
          const summary = page.getByText("Limit the tools it may use (optional)");
          await summary.waitFor();
          const box = (name: string) => page.getByRole("checkbox", { name, exact: true });
          assert.equal(await box(TOOLSET_LABELS.tasks).isVisible(), false, "collapsed");
          await atEachSize(page, async (size) => {
            await assertDecisionInView(page, size);
          });
          await assertPageCleanAtBothSizes(page, "consent");

          // Opened: every toolset checked, read-only not; the person keeps tasks and time, read-only.
          await summary.click();
          for (const s of TOOLSETS) assert.equal(await box(TOOLSET_LABELS[s]).isChecked(), true, s);
          const readOnly = page.getByRole("checkbox", { name: /^Read-only/ });
          assert.equal(await readOnly.isChecked(), false);
          for (const s of TOOLSETS) {
            if (!(KEEP as readonly string[]).includes(s)) await box(TOOLSET_LABELS[s]).uncheck();
          }
          await readOnly.check();
          await atEachSize(page, async (size) => {
            assert.equal(
              await inViewport(page, "button[name=decision][value=allow]"),
              true,
              `${size}: Allow still visible`,
            );
            assert.equal(
              await inViewport(page, "button[name=decision][value=deny]"),
              true,
              `${size}: Deny still visible`,
            );
          });
          await assertPageCleanAtBothSizes(page, "consent with the choice open");
          await page.getByRole("button", { name: "Allow" }).click();
          await page.waitForURL((u) => u.href.startsWith(redirectUri));

          const [consent] = await db.sql`
              select toolsets, read_only from oauth_consents where user_id = ${user.id} and client_id = ${clientId}`;
          assert.deepEqual({ ...consent }, { toolsets: [...KEEP], read_only: true });
          const [code] = await db.sql`
              select toolsets, read_only from oauth_codes where user_id = ${user.id} and client_id = ${clientId}`;
          assert.deepEqual({ ...code }, { toolsets: [...KEEP], read_only: true });

          // Connected apps shows it.
          await page.goto(`${issuer}/account/apps`);
          await page.getByRole("heading", { name: "Connected apps" }).waitFor();
          assert.equal(
            (await page.locator("dd[data-limits]").textContent())?.trim(),
            "only Tasks, Time tracking; read-only",
          );
          await assertPageCleanAtBothSizes(page, "connected apps");

          // /account/keys: the same choice on the key form; the list shows it.
          await page.goto(`${issuer}/account/keys`);
          await page.getByRole("heading", { name: "API keys" }).waitFor();
          await assertPageCleanAtBothSizes(page, "keys");
          await page.getByLabel("Key name").fill("Reader phone");
          await page.getByText("Limit its tools (optional)").click();
          for (const s of TOOLSETS) {
            if (s !== "documents") await box(TOOLSET_LABELS[s]).uncheck();
          }
          await page.getByRole("checkbox", { name: /^Read-only/ }).check();
          await assertPageCleanAtBothSizes(page, "keys with the choice open");
          await page.getByRole("button", { name: "Create key" }).click();
          await page.locator("#new-key").waitFor();
          const key = (await page.locator("#new-key").textContent())!.trim();
          const [row] = await db.sql`
              select toolsets, read_only from api_keys where key_prefix = ${key.slice(0, 10)}`;
          assert.deepEqual({ ...row }, { toolsets: ["documents"], read_only: true });
          assert.equal(
            (await page.locator("li[data-key-id] [data-limits]").first().textContent())?.trim(),
            "only Documents and recordings; read-only",
          );
          await assertPageCleanAtBothSizes(page, "keys with the new key");
        } finally {
          await context.close();
        }
      });
    } finally {
      await browser.close();
      await callback.shutdown();
      await server.shutdown();
      await db.close();
    }
  },
});
