// A walk through Portico's pages in German, as a person whose browser asks for German sees them (issue 30 point 4):
// sign-in (empty, with a wrong password), forgotten password, the second factor, consent (and its toolset choice),
// every account page, disconnecting an app, the operator's pages, an error page, the sign-out question and the
// signed-out page, in one walk at `viewport` (default 1280×800). `visit(page, name)` runs on each page once it is
// shown; tests/e2e/pages_german.test.ts walks on the phone's screen and checks each page (axe, no English left,
// at both sizes by re-laying it out), `deno task screenshots` saves it to docs/screenshots/de-*.png. Data is
// German too (names, workspace, app), so a leftover English word is the page's, not the data's.
//
// Export: `germanTour(browser, sql, issuer, visit, viewport?)`, `GERMAN_DATA` (the data words).
import type { Browser, Page } from "playwright-core";
import { createUser } from "../../lib/accounts.ts";
import { createApiKey } from "../../lib/api_keys.ts";
import type { Sql } from "../../lib/db/client.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { confirmTotp, currentStep, newTotpSecret, totpCode } from "../../lib/security/totp.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { TEST_SCRYPT, TEST_SECRET } from "./app.ts";
import { pkce } from "../oauth/helpers.ts";

const PASSWORD = "ein ausreichend langes Passwort";

/** Names in the data the pages show back (never counted as English left on a page). */
export const GERMAN_DATA = ["Sana Berger", "Atelier Nord", "Planungshelfer", "Laptop im Büro", "Portico"];

let round = 0;

export async function germanTour(
  browser: Browser,
  sql: Sql,
  issuer: string,
  visit: (page: Page, name: string) => Promise<void>,
  viewport = { width: 1280, height: 800 },
): Promise<void> {
  round++;
  const email = `sana${round}.${Date.now()}@beispiel.de`;
  const user = await createUser(sql, { email, password: PASSWORD, name: "Sana Berger" }, {
    scrypt: TEST_SCRYPT,
  });
  await sql`update users set operator = true where id = ${user.id}`;
  const ws = await createWorkspace(sql, `Atelier Nord ${round}`, ["projects"]);
  await addMember(sql, ws.id, user.id, "owner", null);
  await createApiKey(sql, { workspaceId: ws.id, userId: user.id, kind: "user", name: "Laptop im Büro" });
  const secret = newTotpSecret();
  const earlier = currentStep() - 10;
  await confirmTotp(sql, TEST_SECRET, user.id, secret, totpCode(secret, earlier), earlier * 30_000);
  const app = await createClient(sql, {
    name: "Planungshelfer",
    redirectUris: [`${issuer}/healthz`],
    postLogoutRedirectUris: [`${issuer}/healthz`],
    confidential: false,
    scopes: ["openid", "profile", "workspace"],
    grantTypes: ["authorization_code", "refresh_token"],
    selfRegistered: false,
  });

  const context = await browser.newContext({ viewport, locale: "de-DE", bypassCSP: true });
  try {
    const page = await context.newPage();
    const submit = (form: string) => page.locator(`${form} button[type=submit]`).first().click();

    await page.goto(`${issuer}/signin`);
    await visit(page, "anmelden");
    await page.locator("#email").fill(email);
    await page.locator("#password").fill("falsch, ganz falsch");
    await submit("form#sign-in");
    await page.locator("[role=alert]").first().waitFor();
    await visit(page, "anmelden-fehler");

    await page.goto(`${issuer}/signin/forgot`);
    await visit(page, "passwort-vergessen");

    // The app's request: sign-in, the second factor, consent.
    const { challenge } = pkce();
    const authorize = new URL(`${issuer}/oauth/authorize`);
    for (
      const [k, v] of Object.entries({
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: `${issuer}/healthz`,
        scope: "openid profile workspace",
        state: "s",
        code_challenge: challenge,
        code_challenge_method: "S256",
      })
    ) authorize.searchParams.set(k, v);
    await page.goto(authorize.href);
    await page.locator("#email").fill(email);
    await page.locator("#password").fill(PASSWORD);
    await submit("form#sign-in");
    await page.waitForURL((u) => u.pathname === "/signin/verify");
    await visit(page, "zweiter-faktor");
    await page.locator("#code").fill(totpCode(secret, currentStep()));
    await page.locator("#code").press("Enter");
    await page.locator("button[name=decision][value=allow]").waitFor();
    await visit(page, "zustimmung");
    // The toolset choice opened: the longest German words of the page.
    await page.locator("details.limits > summary").click();
    await visit(page, "zustimmung-werkzeuggruppen");
    await page.locator("button[name=decision][value=allow]").click();
    await page.waitForURL((u) => u.pathname === "/healthz");
    // What the app did since: two calls, one of them refused (rows as lib/audit.ts writes them).
    await sql`
      insert into audit_log (at, workspace_id, client_id, user_id, tool, outcome, duration_ms, request_id, reason)
      values (now() - interval '5 minutes', ${ws.id}, ${app.clientId}, ${user.id}, 'list_tasks', 'ok', 12, 'tour-1',
              null),
             (now() - interval '2 minutes', ${ws.id}, ${app.clientId}, ${user.id}, 'create_invoice', 'denied', 3,
              'tour-2', 'access_denied')`;

    for (
      const [path, name] of [
        ["/account", "konto"],
        ["/account/apps", "verbundene-apps"],
        [`/account/apps/disconnect?client_id=${app.clientId}`, "app-trennen"],
        ["/account/keys", "api-schluessel"],
        ["/account/activity", "aktivitaet"],
        ["/account/security", "sicherheit"],
        ["/account/security/two-step", "zweistufige-anmeldung"],
        ["/account/security/passkeys", "passkeys"],
        ["/account/security/password", "passwort-aendern"],
        ["/account/sessions", "sitzungen"],
        ["/account/workspaces", "arbeitsbereiche"],
        [`/account/workspaces/${ws.id}/activity`, "arbeitsbereich-aktivitaet"],
        ["/operator/requests", "betrieb-anfragen"],
        ["/operator/clients", "betrieb-apps"],
        ["/oauth/authorize?client_id=unbekannt&response_type=code", "fehlerseite"],
        [`/oauth/logout?client_id=${app.clientId}`, "abmelden-frage"],
      ] as const
    ) {
      await page.goto(`${issuer}${path}`);
      await page.locator("h1").first().waitFor();
      await visit(page, name);
    }
    // Yes, sign out: the signed-out page.
    await page.locator("form[action='/oauth/logout/confirm'] button[type=submit]").first().click();
    await page.waitForURL((u) => u.pathname === "/oauth/logout/done");
    await visit(page, "abgemeldet");
  } finally {
    await context.close();
  }
}
