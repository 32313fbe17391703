// The README's screenshots of the approval pages (issue 23): starts Portico on a fresh database with the demo data
// of `deno task dev`, one person and one operator, then drives headless Chromium through the person's ask and
// waiting pages and the operator's requests and apps pages, saving each page's card as a PNG in docs/screenshots/;
// then the German pages (issue 30 point 4, tests/helpers/german_tour.ts) at both sizes, as de-<page>-<size>.png.
//
//   deno task screenshots            (DATABASE_URL set: a fresh database on that server; unset: in-memory PGlite)
//
// Test-only packages (playwright-core) come from deno.test.json; Chromium is /usr/bin/chromium.
import type { Locator, Page } from "playwright-core";
import { createUser } from "../lib/accounts.ts";
import { seedDemo } from "../lib/demo.ts";
import { setTrust, trustPrefix } from "../lib/oauth/approvals.ts";
import { addMember } from "../lib/workspace/workspaces.ts";
import { launchChromium, VIEWPORTS } from "../tests/helpers/browser.ts";
import { germanTour } from "../tests/helpers/german_tour.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import { serveAtIssuer } from "../tests/helpers/serve.ts";

const OUT = new URL("../docs/screenshots/", import.meta.url);
const PERSON = { email: "sam@portico.local", password: "sam rivera password 123", name: "Sam Rivera" };
const WIDTH = 1100;

/** Registers an app the way an MCP host does (RFC 7591, public client); returns its client_id. */
async function register(issuer: string, name: string, redirectUris: string[]): Promise<string> {
  const res = await fetch(`${issuer}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: redirectUris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`registering ${name}: ${res.status} ${JSON.stringify(body)}`);
  return body.client_id;
}

/** An authorization request for `workspace` as an MCP host sends it (PKCE S256, resource = /mcp). */
async function authorizeUrl(issuer: string, clientId: string, redirectUri: string): Promise<string> {
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "workspace",
    state: crypto.randomUUID(),
    resource: `${issuer}/mcp`,
  });
  return `${issuer}/oauth/authorize?${params}`;
}

/** Saves the page's card (its brand header included) as docs/screenshots/<name>.png. */
async function shoot(page: Page, name: string): Promise<void> {
  // no focus ring on the field last filled
  await page.evaluate(() =>
    (globalThis as unknown as { document: { activeElement?: { blur?(): void } } })
      .document.activeElement?.blur?.()
  );
  const card: Locator = page.locator("main");
  await card.screenshot({
    path: new URL(`${name}.png`, OUT).pathname,
    animations: "disabled",
    caret: "hide",
  });
  console.log(`docs/screenshots/${name}.png`);
}

async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const db = await freshDatabase();
const sql = db.sql;
const demo = await seedDemo(sql);
// The demo owner is the operator (as in `deno task dev`); the person is a plain member of the demo workspace.
await sql`update users set operator = true where email = ${demo.email}`;
const personId = (await createUser(sql, PERSON)).id;
await addMember(sql, demo.ctx.workspaceId, personId, "member", null);

const { issuer, server } = serveAtIssuer(sql);
const browser = await launchChromium();
try {
  await Deno.mkdir(OUT, { recursive: true });

  // Apps the operators dealt with before: a ChatGPT connector they approved, Claude's metadata documents.
  const chatgpt = await register(issuer, "ChatGPT", ["https://chatgpt.com/connector/oauth/c_7f3a9d"]);
  await setTrust(sql, chatgpt, true, { via: "cli" });
  await trustPrefix(sql, "https://claude.ai/oauth/", { via: "page", operatorId: demo.ctx.users.owner });

  // Cursor registers itself (its three redirect URIs) and sends the person to sign in.
  const cursorRedirect = "cursor://anysphere.cursor-mcp/oauth/callback";
  const cursor = await register(issuer, "Cursor", [
    cursorRedirect,
    "http://127.0.0.1:33418/oauth/callback",
    "http://localhost:33418/oauth/callback",
  ]);

  const personPage = await (await browser.newContext({ viewport: { width: WIDTH, height: 900 } })).newPage();
  await personPage.goto(await authorizeUrl(issuer, cursor, cursorRedirect));
  await signIn(personPage, PERSON);
  await personPage.getByRole("heading", { name: "Cursor needs an operator's approval" }).waitFor();
  await personPage.getByLabel("Note to the operators (optional)").fill(
    "Cursor for the Demo Studio client work, please: I want it to read and update my tasks.",
  );
  await shoot(personPage, "approval-ask");
  await personPage.getByRole("button", { name: "Ask for approval" }).click();
  await personPage.getByRole("heading", { name: "Waiting for an operator" }).waitFor();
  await shoot(personPage, "approval-waiting");

  const operatorPage = await (await browser.newContext({ viewport: { width: WIDTH, height: 900 } }))
    .newPage();
  await operatorPage.goto(`${issuer}/operator/requests`);
  await signIn(operatorPage, { email: demo.email, password: demo.password });
  await operatorPage.getByRole("heading", { name: "Approval requests" }).waitFor();
  await shoot(operatorPage, "operator-requests");

  const row = operatorPage.getByRole("listitem").filter({ hasText: "Cursor" });
  await row.getByRole("button", { name: /Approve/ }).click();
  await operatorPage.getByRole("status").waitFor();
  await operatorPage.goto(`${issuer}/operator/clients`);
  await operatorPage.getByRole("heading", { level: 1 }).waitFor();
  await shoot(operatorPage, "operator-clients");

  // The German pages a person meets most, at the desktop and phone sizes of the browser tests.
  const german = new Set(["anmelden", "zweiter-faktor", "zustimmung", "konto", "aktivitaet", "sicherheit"]);
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await germanTour(browser, sql, issuer, async (page, name) => {
      if (german.has(name)) await shoot(page, `de-${name}-${size}`);
    }, viewport);
  }
} finally {
  await browser.close();
  await server.shutdown();
  await db.close();
}
