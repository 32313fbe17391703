// The account pages in German and French in Chromium, light and dark, at 1280×800 and 390×844 (every screen and
// scheme once, each language on both screens): Connected apps, Disconnect's confirmation, API keys (a new key, a
// refused toolset choice, Revoke's confirmation), Sessions with a second browser, Workspaces — axe-clean (WCAG 2.2
// AA) and without sideways scrolling with the longer words; the copy button's status in the page's language. The
// language is the person's setting (users.locale), so signing in stays in the browser's English whatever the
// sign-in pages speak.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import {
  assertPageClean,
  haveChromium,
  launchChromium,
  signInWithPassword,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

warnIfMissing("tests/e2e/pages_account_i18n.test.ts");

const PASSWORD = "account pages in other words";

/** The words the test acts on, per language. */
const WORDS = {
  de: {
    keyName: "Name des Schlüssels",
    create: "Schlüssel erstellen",
    copy: "Schlüssel kopieren",
    copied: "In die Zwischenablage kopiert.",
    refused: "Wählen Sie mindestens ein Toolset",
  },
  fr: {
    keyName: "Nom de la clé",
    create: "Créer la clé",
    copy: "Copier la clé",
    copied: "Copiée dans le presse-papiers.",
    refused: "Choisissez au moins un ensemble d'outils",
  },
} as const;

Deno.test({
  name:
    "Chromium: the account pages in German and French, light and dark, 1280×800 and 390×844, are axe-clean",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    const ws = await createWorkspace(db.sql, "Atelier Nord", [...MODULES]);
    const client = await createClient(db.sql, {
      name: "Notizen",
      redirectUris: ["https://notes.example/cb"],
      confidential: false,
      scopes: ["openid", "profile", "workspace"],
      grantTypes: ["authorization_code", "refresh_token"],
      selfRegistered: true,
    });
    try {
      // Every screen in light and dark once, each language on both screens.
      const rounds: Array<["de" | "fr", keyof typeof VIEWPORTS, "light" | "dark"]> = [
        ["de", "desktop", "light"],
        ["de", "phone", "dark"],
        ["fr", "desktop", "dark"],
        ["fr", "phone", "light"],
      ];
      let round = 0;
      for (const [lang, size, colorScheme] of rounds) {
        const label = `${lang} ${size} ${colorScheme}`;
        await t.step(label, async () => {
          round++;
          const email = `person${round}@example.com`;
          const user = await createUser(db.sql, { email, password: PASSWORD, name: "Person" });
          await addMember(db.sql, ws.id, user.id, "owner", null);
          await db.sql`
            insert into oauth_consents (user_id, client_id, scopes, workspace_id, toolsets, read_only, granted_at)
            values (${user.id}, ${client.clientId}, '{openid,profile,workspace}', ${ws.id}, '{tasks,time}', true,
                    '2026-11-20 08:00Z')`;
          await db.sql`
            insert into oauth_grants (client_id, user_id, scopes, workspace_id, last_used_at)
            values (${client.clientId}, ${user.id}, '{openid,profile,workspace}', ${ws.id}, '2026-11-28 09:30Z')`;

          const viewport = VIEWPORTS[size];
          const other = await browser.newContext({
            viewport,
            colorScheme,
            userAgent: "Mozilla/5.0 (Windows NT 10.0) Firefox/133.0",
          });
          const context = await browser.newContext({ viewport, colorScheme, bypassCSP: true });
          try {
            const elsewhere = await other.newPage();
            await signInWithPassword(elsewhere, issuer, email, PASSWORD);
            await elsewhere.waitForURL((u) => u.pathname === "/account/apps");
            const page = await context.newPage();
            await signInWithPassword(page, issuer, email, PASSWORD);
            await page.waitForURL((u) => u.pathname === "/account/apps");
            await db.sql`update users set locale = ${lang} where id = ${user.id}`;

            const visit = async (path: string, name: string) => {
              await page.goto(`${issuer}${path}`);
              assert.equal(await page.locator("html").getAttribute("lang"), lang, path);
              await assertPageClean(page, `${label} ${name}`);
            };
            await visit("/account/apps", "connected apps");
            await visit(`/account/apps/disconnect?client_id=${client.clientId}`, "disconnect confirmation");

            await page.goto(`${issuer}/account/keys`);
            await page.getByLabel(WORDS[lang].keyName).fill("Portable");
            await page.getByRole("button", { name: WORDS[lang].create }).click();
            await page.locator("#new-key").waitFor();
            assert.equal(await page.locator("html").getAttribute("lang"), lang);
            await assertPageClean(page, `${label} keys with a new key`);
            if (round === 1) {
              await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: issuer });
              await page.getByRole("button", { name: WORDS[lang].copy }).click();
              await page.getByRole("status").filter({ hasText: WORDS[lang].copied }).waitFor();
            }
            await visit("/account/keys?error=no_toolset", "keys, a refused choice");
            assert.match(await page.getByRole("alert").textContent() ?? "", new RegExp(WORDS[lang].refused));
            const [{ id: keyId }] = await db.sql<{ id: string }[]>`
              select id from api_keys where user_id = ${user.id} and name = 'Portable'`;
            await visit(`/account/keys/revoke?key_id=${keyId}`, "revoke confirmation");
            await visit("/account/sessions", "sessions");
            assert.equal(await page.locator("[data-session]").count(), 2);
            await visit("/account/workspaces", "workspaces");
          } finally {
            await context.close();
            await other.close();
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
