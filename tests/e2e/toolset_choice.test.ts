// End to end, in Chromium at 1280×800 and 390×844: toolsets and read-only chosen on the consent page (collapsed
// by default, Allow and Deny still on screen without scrolling, opened and narrowed by the person) and on
// /account/keys; the choice is stored, shown on Connected apps and in the keys list; axe-core at zero WCAG 2.2
// AA violations with the choice closed and open.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { TOOLSET_LABELS, TOOLSETS } from "../../lib/mcp/toolsets.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  assertNoAxeViolations,
  haveChromium,
  inViewport,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

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
    "Chromium (1280×800, 390×844): toolsets and read-only chosen on consent and on /account/keys, axe clean",
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
      for (const [label, viewport] of Object.entries(VIEWPORTS)) {
        await t.step(`${label} ${viewport.width}×${viewport.height}`, async () => {
          // One person per screen: consent is remembered per person, and each round starts from nothing.
          const email = `${label}@example.com`;
          const user = await createUser(db.sql, { email, password: PASSWORD, name: `Tess ${label}` });
          await addMember(db.sql, workspaceId, user.id, "manager", null);
          const context = await browser.newContext({ viewport, bypassCSP: true });
          const page = await context.newPage();
          try {
            await page.goto(`${issuer}/oauth/authorize?${new URLSearchParams({
              response_type: "code",
              client_id: clientId,
              redirect_uri: redirectUri,
              scope: "openid profile workspace",
              state: `state-${label}`,
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
            assert.equal(await inViewport(page, "button[name=decision][value=allow]"), true, "Allow visible");
            assert.equal(await inViewport(page, "button[name=decision][value=deny]"), true, "Deny visible");
            await assertNoAxeViolations(page, `consent ${label}`);

            // Opened: every toolset checked, read-only not; the person keeps tasks and time, read-only.
            await summary.click();
            for (const s of TOOLSETS) assert.equal(await box(TOOLSET_LABELS[s]).isChecked(), true, s);
            const readOnly = page.getByRole("checkbox", { name: /^Read-only/ });
            assert.equal(await readOnly.isChecked(), false);
            for (const s of TOOLSETS) {
              if (!(KEEP as readonly string[]).includes(s)) await box(TOOLSET_LABELS[s]).uncheck();
            }
            await readOnly.check();
            assert.equal(
              await inViewport(page, "button[name=decision][value=allow]"),
              true,
              "Allow still visible",
            );
            assert.equal(
              await inViewport(page, "button[name=decision][value=deny]"),
              true,
              "Deny still visible",
            );
            await assertNoAxeViolations(page, `consent with the choice open ${label}`);
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
            await assertNoAxeViolations(page, `connected apps ${label}`);

            // /account/keys: the same choice on the key form; the list shows it.
            await page.goto(`${issuer}/account/keys`);
            await page.getByRole("heading", { name: "API keys" }).waitFor();
            await assertNoAxeViolations(page, `keys ${label}`);
            await page.getByLabel("Key name").fill(`Reader ${label}`);
            await page.getByText("Limit its tools (optional)").click();
            for (const s of TOOLSETS) {
              if (s !== "documents") await box(TOOLSET_LABELS[s]).uncheck();
            }
            await page.getByRole("checkbox", { name: /^Read-only/ }).check();
            await assertNoAxeViolations(page, `keys with the choice open ${label}`);
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
            await assertNoAxeViolations(page, `keys with the new key ${label}`);
          } finally {
            await context.close();
          }
        });
      }
    } finally {
      await browser.close();
      await callback.shutdown();
      await server.shutdown();
      await db.close();
    }
  },
});
