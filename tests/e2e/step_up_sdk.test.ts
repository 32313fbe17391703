// End to end (issue 29 "Done when"): the official MCP SDK client's OAuth flow passes through step-up and gets acr
// and amr in its ID token. A person signed in with a password alone, who set up an authenticator app afterwards,
// is asked for a code before an app may act in a workspace (WORKSPACE_TWO_FACTOR=require); then, on a server
// without that setting, a member of a workspace that requires two-step sign-in, signed in before it did, is
// walked through setting up an app inside the same authorization. Real Chromium, real SDK client, codes computed
// here from the secret.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "playwright-core";
import { createUser } from "../../lib/accounts.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { ACR_MULTI } from "../../lib/security/amr.ts";
import { confirmTotp, currentStep, newTotpSecret, totpCode } from "../../lib/security/totp.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { haveChromium, launchChromium, warnIfMissing } from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { loopbackCallback, MemoryProvider } from "../helpers/oauth_host.ts";
import { serveAtIssuer } from "../helpers/serve.ts";

warnIfMissing("tests/e2e/step_up_sdk.test.ts");

const PASSWORD = "step up password 2026";
const SCOPE = "openid workspace offline_access";

Deno.test({
  name: "MCP SDK client + Chromium: step-up at workspace consent under each policy; acr/amr in the ID token",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const sql = db.sql;
    const workspace = (await createWorkspace(sql, "Gamma Studio", [...MODULES])).id;
    await createCompany(sql, workspace, "Gamma Co");
    const callback = loopbackCallback();
    const strict = serveAtIssuer(sql, { WORKSPACE_TWO_FACTOR: "require" });
    const relaxed = serveAtIssuer(sql);
    const browser = await launchChromium();
    const open: Client[] = [];

    /** An operator-registered, trusted app at `issuer`, as the SDK's host knows it. */
    async function hostFor(issuer: string, name: string) {
      const registered = await createClient(sql, {
        name,
        redirectUris: [callback.redirectUri],
        confidential: false,
        scopes: ["openid", "profile", "offline_access", "workspace"],
        grantTypes: ["authorization_code", "refresh_token"],
        selfRegistered: false,
      });
      const provider = new MemoryProvider(callback.redirectUri, name, { client_id: registered.clientId });
      return { provider, serverUrl: new URL(`${issuer}/mcp`) };
    }

    /** The SDK asks for an authorization (the host would open the URL); answers it. */
    async function authorizationUrl(host: Awaited<ReturnType<typeof hostFor>>): Promise<URL> {
      assert.equal(await auth(host.provider, { serverUrl: host.serverUrl, scope: SCOPE }), "REDIRECT");
      const url = host.provider.lastAuthorizationUrl;
      assert.equal(url.searchParams.get("scope"), SCOPE);
      return url;
    }

    /** The browser at the consent page: Allow; the code arrives at the host's loopback listener. */
    async function allow(page: Page, appName: string): Promise<string> {
      const before = callback.arrivals.length;
      await page.getByRole("heading", { name: new RegExp(`Allow ${appName}`) }).waitFor();
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL((u) => u.href.startsWith(callback.redirectUri));
      assert.equal(callback.arrivals.length, before + 1);
      const arrival = callback.arrivals.at(-1)!;
      assert.equal(arrival.searchParams.get("error"), null, arrival.href);
      return arrival.searchParams.get("code")!;
    }

    /** The SDK exchanges the code; its tokens, and a connected client listing tools. */
    async function finish(host: Awaited<ReturnType<typeof hostFor>>, code: string) {
      assert.equal(
        await auth(host.provider, { serverUrl: host.serverUrl, authorizationCode: code }),
        "AUTHORIZED",
      );
      const tokens = host.provider.tokens()!;
      const client = new Client({ name: "portico-step-up-host", version: "1.0.0" });
      open.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(host.serverUrl, { authProvider: host.provider }),
      );
      const tools = (await client.listTools()).tools;
      assert.ok(tools.length > 0, "the app lists the person's tools");
      return decodeJwt(tokens.id_token!);
    }

    async function signInWithPassword(page: Page, issuer: string, email: string) {
      await page.goto(`${issuer}/signin`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((u) => u.pathname === "/account/apps");
    }

    const authTimeOf = async (userId: string) =>
      Math.floor(
        (await sql<{ t: Date }[]>`
          select auth_time as t from browser_session_accounts where user_id = ${userId}`)[0].t.getTime() /
          1000,
      );

    try {
      await t.step(
        "operator policy: a password sign-in is asked for a code at workspace consent",
        async () => {
          const email = "stella@example.com";
          const user = await createUser(sql, { email, password: PASSWORD, name: "Stella Step" }, {
            scrypt: TEST_SCRYPT,
          });
          await addMember(sql, workspace, user.id, "manager", null);
          const context = await browser.newContext();
          try {
            const page = await context.newPage();
            await signInWithPassword(page, strict.issuer, email);
            // The app is set up afterwards (as on the account page): this browser's sign-in stays password-only.
            const secret = newTotpSecret();
            const earlier = currentStep() - 10;
            const confirmed = await confirmTotp(
              sql,
              TEST_SECRET,
              user.id,
              secret,
              totpCode(secret, earlier),
              earlier * 30_000,
            );
            assert.deepEqual(confirmed, { ok: true });
            const signedInAt = await authTimeOf(user.id);

            const host = await hostFor(strict.issuer, "Step-up Host");
            await page.goto((await authorizationUrl(host)).href);
            await page.waitForURL((u) => u.pathname === "/signin/verify");
            await page.getByRole("heading", { name: "Confirm it is you" }).waitFor();
            await page.getByLabel("Code", { exact: true }).fill(totpCode(secret, currentStep()));
            await page.getByRole("button", { name: "Verify" }).click();
            const id = await finish(host, await allow(page, "Step-up Host"));
            assert.equal(id.acr, ACR_MULTI);
            assert.deepEqual(id.amr, ["pwd", "otp", "mfa"]);
            assert.equal(id.auth_time, signedInAt, "step-up keeps the sign-in's time");
            const [event] = await sql`
            select kind, detail from security_events where user_id = ${user.id} and kind = 'step_up'`;
            assert.deepEqual(event.detail, { amr: "pwd otp mfa" });
          } finally {
            await context.close();
          }
        },
      );

      await t.step(
        "workspace policy: a member without a factor sets one up inside the authorization",
        async () => {
          const email = "wanda@example.com";
          const user = await createUser(sql, { email, password: PASSWORD, name: "Wanda Walk" }, {
            scrypt: TEST_SCRYPT,
          });
          await addMember(sql, workspace, user.id, "member", null);
          const context = await browser.newContext();
          try {
            const page = await context.newPage();
            await signInWithPassword(page, relaxed.issuer, email);
            await sql`update workspaces set require_two_factor = true where id = ${workspace}`;
            const host = await hostFor(relaxed.issuer, "Policy Host");
            await page.goto((await authorizationUrl(host)).href);
            await page.waitForURL((u) => u.pathname === "/signin/verify");
            assert.match(await page.locator("main").innerText(), /Gamma Studio requires two-step sign-in/);
            await page.getByRole("link", { name: "Set up now" }).click();
            await page.waitForURL((u) => u.pathname === "/signin/setup");
            const secret = (await page.locator("[data-manual-key]").innerText()).replaceAll(" ", "");
            await page.getByLabel("Code from the app").fill(totpCode(secret, currentStep()));
            await page.getByRole("button", { name: "Turn on two-step sign-in" }).click();
            await page.waitForURL((u) => u.pathname === "/signin/setup/codes");
            await page.getByRole("button", { name: "I saved them, continue" }).click();
            const id = await finish(host, await allow(page, "Policy Host"));
            assert.equal(id.acr, ACR_MULTI);
            assert.deepEqual(id.amr, ["pwd", "otp", "mfa"]);
            const [row] =
              await sql`select confirmed_at is not null as on from user_totp where user_id = ${user.id}`;
            assert.equal(row.on, true);
          } finally {
            await context.close();
            await sql`update workspaces set require_two_factor = false where id = ${workspace}`;
          }
        },
      );
    } finally {
      for (const c of open) await c.close().catch(() => {});
      await browser.close();
      await strict.server.shutdown();
      await relaxed.server.shutdown();
      await callback.close();
      await db.close();
    }
  },
});
