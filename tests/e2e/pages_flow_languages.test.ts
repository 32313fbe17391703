// The sign-in flow's pages in German and French (issue 30 point 4), in Chromium at 1280×800 and 390×844, light
// and dark: a browser that asks for the language (its locale, so its Accept-Language) gets the sign-in page with
// a refused password, consent with the workspace and toolset choice open, the approval request and its waiting
// page, the sign-out question and the signed-out page, and an authorize error page — each axe-clean (WCAG 2.2 AA)
// and without sideways scrolling, where the longer German and French words could push a phone's page wider.
import { createUser } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { s256 } from "../../lib/oauth/pkce.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import type { Page } from "playwright-core";
import {
  assertPageClean,
  haveChromium,
  launchChromium,
  VIEWPORTS,
  warnIfMissing,
} from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

warnIfMissing("tests/e2e/pages_flow_languages.test.ts");

const PASSWORD = "a long enough password";
const REDIRECT = "http://127.0.0.1:9/callback";

/** What each language's pages say where the test reads or clicks. */
const WORDS = {
  de: {
    locale: "de-DE",
    email: "E-Mail-Adresse",
    password: "Passwort",
    signIn: "Anmelden",
    wrong: "Diese E-Mail-Adresse und dieses Passwort passen zu keinem Konto.",
    consent: /Zugriff auf Ihr Konto erlauben\?/,
    limits: "Nutzbare Werkzeuge einschränken (optional)",
    approval: /braucht die Freigabe eines Betreibers/,
    ask: "Freigabe anfordern",
    waiting: "Warten auf einen Betreiber",
    signOutQuestion: /Von .* abmelden\?/,
    signOut: "Abmelden",
    signedOut: "Sie sind abgemeldet",
    unknown: "Unbekannte Anwendung",
  },
  fr: {
    locale: "fr-FR",
    email: "Adresse e-mail",
    password: "Mot de passe",
    signIn: "Se connecter",
    wrong: "Cette adresse e-mail et ce mot de passe ne correspondent à aucun compte.",
    consent: /à utiliser votre compte/,
    limits: "Limiter les outils utilisables (facultatif)",
    approval: /doit être approuvée par un opérateur/,
    ask: "Demander l'approbation",
    waiting: "En attente d'un opérateur",
    signOutQuestion: /Se déconnecter de .*\?/,
    signOut: "Se déconnecter",
    signedOut: "Vous êtes déconnecté",
    unknown: "Application inconnue",
  },
} as const;

Deno.test({
  name:
    "Chromium: the flow's pages in German and French, light and dark, 1280×800 and 390×844, are axe-clean",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const { issuer, server } = serveAtIssuer(db.sql);
    const browser = await launchChromium();
    // Long names, as people give them, beside the longer words.
    const ws = await createWorkspace(db.sql, "Arbeitsgemeinschaft Stadtentwicklung", ["projects"]);
    await createCompany(db.sql, ws.id, "Grundstücksverwaltungsgesellschaft mbH");
    const client = (name: string, selfRegistered: boolean) =>
      createClient(db.sql, {
        name,
        redirectUris: [REDIRECT],
        confidential: false,
        scopes: selfRegistered ? ["openid", "profile"] : ["openid", "profile", "workspace"],
        grantTypes: ["authorization_code"],
        selfRegistered,
      });
    const known = await client("Projektplanungsassistent", false);

    const authorize = (clientId: string) =>
      `${issuer}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: s256("v".repeat(43)),
        code_challenge_method: "S256",
        scope: "openid profile workspace",
        state: "st",
      })}`;

    async function signIn(page: Page, w: typeof WORDS[keyof typeof WORDS], email: string, password: string) {
      await page.getByLabel(w.email).fill(email);
      await page.getByLabel(w.password, { exact: true }).fill(password);
      await page.getByRole("button", { name: w.signIn, exact: true }).click();
    }

    try {
      let round = 0;
      for (const [lang, w] of Object.entries(WORDS)) {
        for (const [size, viewport] of Object.entries(VIEWPORTS)) {
          for (const colorScheme of ["light", "dark"] as const) {
            const label = `${lang} ${size} ${colorScheme}`;
            await t.step(label, async () => {
              round++;
              const email = `person${round}@example.com`;
              const user = await createUser(db.sql, { email, password: PASSWORD, name: "Maximiliane" });
              await addMember(db.sql, ws.id, user.id, "accounting", null);
              const waiting = await client(`Selbstregistrierte Anwendung ${round}`, true);
              const context = await browser.newContext({
                viewport,
                colorScheme,
                locale: w.locale,
                bypassCSP: true,
              });
              try {
                const page = await context.newPage();
                await page.goto(authorize(known.clientId));
                await signIn(page, w, email, "not the password");
                await page.getByText(w.wrong).waitFor();
                await assertPageClean(page, `${label} sign-in, refused`);
                await signIn(page, w, email, PASSWORD);
                await page.getByRole("heading", { name: w.consent }).waitFor();
                await page.getByText(w.limits).click();
                await assertPageClean(page, `${label} consent`);

                await page.goto(authorize(waiting.clientId));
                await page.getByRole("heading", { name: w.approval }).waitFor();
                await assertPageClean(page, `${label} approval`);
                await page.getByRole("button", { name: w.ask }).click();
                await page.getByRole("heading", { name: w.waiting }).waitFor();
                await assertPageClean(page, `${label} waiting`);

                await page.goto(`${issuer}/oauth/logout?client_id=${known.clientId}`);
                await page.getByRole("heading", { name: w.signOutQuestion }).waitFor();
                await assertPageClean(page, `${label} sign-out question`);
                await page.getByRole("button", { name: w.signOut }).click();
                await page.getByRole("heading", { name: w.signedOut }).waitFor();
                await assertPageClean(page, `${label} signed out`);

                await page.goto(authorize("pcl_nobody"));
                await page.getByRole("heading", { name: w.unknown }).waitFor();
                await assertPageClean(page, `${label} error page`);
              } finally {
                await context.close();
              }
            });
          }
        }
      }
    } finally {
      await browser.close();
      await server.shutdown();
      await db.close();
    }
  },
});
