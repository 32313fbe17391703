// End to end (issue 23, "Done when" 1): two real MCP clients with no pre-registered client — the official SDK
// client and mcp-remote 0.15.1 as a subprocess — each register themselves, send a person (not an operator) through
// sign-in in Chromium, where the person asks the operators for approval with a note and waits; an operator, in a
// second browser context, approves the request on /operator/requests; the person's waiting page continues by
// itself (its script polls), the person allows the app on consent, the waiting client gets its code and lists
// exactly the tools the person's own API key lists. The database then holds the approved request, the trusted
// client and the operator's decision made on the page.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { BrowserContext, Page, Response as PwResponse } from "playwright-core";
import { createApiKey } from "../../lib/api_keys.ts";
import { createUser } from "../../lib/accounts.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { haveChromium, launchChromium, warnIfMissing } from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { haveNpx, MCP_REMOTE_VERSION, prepareMcpRemote } from "../helpers/mcp_remote.ts";
import { loopbackCallback, MemoryProvider, recordingFetch } from "../helpers/oauth_host.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { settles } from "../helpers/wait.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/approval_clients.test.ts");
if (!haveNpx) {
  console.warn("tests/e2e/approval_clients.test.ts: mcp-remote step skipped: npx (Node.js) is missing");
}

const PERSON = { email: "pat.person@example.com", password: "pat person password 123", name: "Pat Person" };
const OPERATOR = { email: "olga.operator@example.com", password: "olga operator password 123", name: "Olga" };
const SDK_APP = "Approval SDK Host";

/** A document navigation's "METHOD /path status", as the browser saw it (redirect hops included). */
function navigations(page: Page): string[] {
  const seen: string[] = [];
  page.on("response", (r) => {
    if (!r.request().isNavigationRequest()) return;
    seen.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`);
  });
  return seen;
}

/** The waiting page script's check (a fetch of the page's own URL asking for JSON), answered "pending". */
function pollAnswered(page: Page): Promise<PwResponse> {
  return page.waitForResponse(async (r) => {
    if (new URL(r.url()).pathname !== "/oauth/authorize/wait" || r.request().isNavigationRequest()) {
      return false;
    }
    if (!(r.request().headers()["accept"] ?? "").includes("application/json")) return false;
    return r.status() === 200 && (await r.json()).state === "pending";
  });
}

Deno.test({
  name:
    "approval requests, end to end: the MCP SDK client and mcp-remote register themselves, the person asks, " +
    "an operator approves on /operator/requests, the waiting client finishes and lists the person's tools",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const sql = db.sql;

    // The person: a plain member of one workspace with two companies. The operator: another account, flagged.
    const personId = (await createUser(sql, PERSON, { scrypt: TEST_SCRYPT })).id;
    const operatorId = (await createUser(sql, OPERATOR, { scrypt: TEST_SCRYPT })).id;
    await sql`update users set operator = true where id = ${operatorId}`;
    const workspace = (await createWorkspace(sql, "Harbour Studio", [...MODULES])).id;
    await createCompany(sql, workspace, "Harbour North");
    await createCompany(sql, workspace, "Harbour South");
    await addMember(sql, workspace, personId, "member", null);
    const personKey =
      (await createApiKey(sql, { workspaceId: workspace, userId: personId, kind: "user", name: "k" }))
        .key;

    const { issuer, server } = serveAtIssuer(sql);
    const mcpUrl = new URL(`${issuer}/mcp`);
    const callback = loopbackCallback();
    const http = recordingFetch();
    const clients: Client[] = [];

    // What the person's own API key lists: the reference for every OAuth client acting as the person.
    const keyClient = new Client({ name: "portico-e2e-key", version: "1.0.0" });
    clients.push(keyClient);
    await keyClient.connect(
      new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { "x-api-key": personKey } } }),
    );
    const toolNames = async (client: Client) =>
      (await client.listTools()).tools.map((x: { name: string }) => x.name).sort();
    const expectedTools = await toolNames(keyClient);
    assert.ok(
      expectedTools.includes("list_projects") && expectedTools.includes("list_tasks"),
      expectedTools.join(),
    );

    const browser = await launchChromium();
    const personContext: BrowserContext = await browser.newContext({
      viewport: { width: 1100, height: 900 },
    });
    const operatorContext: BrowserContext = await browser.newContext({
      viewport: { width: 1100, height: 900 },
    });
    const person = await personContext.newPage();
    const operator = await operatorContext.newPage();
    const personNav = navigations(person);
    const operatorNav = navigations(operator);
    const navSince = (nav: string[], mark: number) => nav.slice(mark);

    async function signIn(page: Page, who: { email: string; password: string }) {
      await page.getByLabel("Email").fill(who.email);
      await page.getByLabel("Password").fill(who.password);
      await page.getByRole("button", { name: "Sign in" }).click();
    }

    /**
     * The person's side, from the authorization URL the client opened to the waiting page: sign in, see the
     * approval page (a person's: Ask, no Approve), choose the workspace, write a note, ask.
     */
    async function askAndWait(authUrl: URL, appName: string, note: string, signedIn: boolean) {
      const mark = personNav.length;
      const first = await person.goto(authUrl.href);
      assert.equal(first?.status(), 200);
      // The first app's trip signs the person in; the second finds them signed in (one account: no choice).
      if (!signedIn) await signIn(person, PERSON);
      await person.getByRole("heading", { name: `${appName} needs an operator's approval` }).waitFor();
      assert.equal(
        await person.getByRole("button", { name: /Approve/ }).count(),
        0,
        "a person cannot approve",
      );
      await person.locator(`input[type="radio"][name="place"][value="${workspace}"]`).check();
      await person.getByLabel("Note to the operators (optional)").fill(note);
      await person.getByRole("button", { name: "Ask for approval" }).click();
      await person.getByRole("heading", { name: "Waiting for an operator" }).waitFor();
      const trail = navSince(personNav, mark);
      assert.deepEqual(trail.slice(-2), [
        "POST /oauth/authorize/approval 303",
        "GET /oauth/authorize/wait 200",
      ]);
      assert.ok(person.url().startsWith(`${issuer}/oauth/authorize/wait?w=`), person.url());
    }

    /** The one pending request of `clientId`: pending, the person's, the note, the workspace. */
    async function pendingRequest(clientId: string, note: string): Promise<string> {
      const rows = await sql<
        { id: string; user_id: string; workspace_id: string; note: string; status: string }[]
      >`
        select id, user_id, workspace_id, note, status from oauth_approval_requests where client_id = ${clientId}`;
      assert.equal(rows.length, 1);
      assert.deepEqual(
        {
          user: rows[0].user_id,
          workspace: rows[0].workspace_id,
          note: rows[0].note,
          status: rows[0].status,
        },
        { user: personId, workspace, note, status: "pending" },
      );
      const [{ trusted }] = await sql<{ trusted: boolean }[]>`
        select trusted from oauth_clients where client_id = ${clientId}`;
      assert.equal(trusted, false, "the app registered itself and is not trusted yet");
      return rows[0].id;
    }

    /** The operator, in their own browser context, finds the request on /operator/requests and approves it. */
    async function operatorApproves(appName: string, note: string, signedIn: boolean) {
      const mark = operatorNav.length;
      await operator.goto(`${issuer}/operator/requests`);
      if (!signedIn) {
        await operator.getByRole("heading", { name: /Sign in/ }).waitFor();
        await signIn(operator, OPERATOR);
      }
      await operator.getByRole("heading", { name: "Approval requests" }).waitFor();
      assert.equal(navSince(operatorNav, mark).at(-1), "GET /operator/requests 200");
      const row = operator.getByRole("listitem").filter({ hasText: appName });
      assert.equal(await row.count(), 1, `one request of ${appName} is listed`);
      const text = await row.innerText();
      assert.ok(text.includes(PERSON.email), `the request names the person: ${text}`);
      assert.ok(text.includes(note), `the request shows the note: ${text}`);
      const approveMark = operatorNav.length;
      await row.getByRole("button", { name: /Approve/ }).click();
      await operator.getByRole("status").filter({ hasText: "Approved" }).waitFor();
      assert.deepEqual(navSince(operatorNav, approveMark), [
        "POST /operator/requests/approve 303",
        "GET /operator/requests 200",
      ]);
      assert.equal(
        await operator.getByRole("listitem").filter({ hasText: appName }).count(),
        0,
        "no longer pending",
      );
    }

    /** Approved after the page's own checks: the waiting page continues to consent by itself; Allow. */
    async function continueAndAllow(appName: string, approve: () => Promise<void>) {
      // The page checks by itself while the request is pending (its script asks for JSON every few seconds)…
      await pollAnswered(person);
      const mark = personNav.length;
      await approve();
      // … and once approved, reloads and goes on to consent: the test navigates nothing here.
      await person.getByRole("heading", { name: new RegExp(`Allow ${appName}`) }).waitFor();
      assert.deepEqual(navSince(personNav, mark), [
        "GET /oauth/authorize/wait 302",
        "GET /oauth/authorize/resume 200",
      ]);
      await person.locator(`input[type="radio"][name="place"][value="${workspace}"]`).check();
      await person.getByRole("button", { name: "Allow" }).click();
    }

    /** The request approved by this operator on the page, the client trusted, one decision row saying so. */
    async function approvedInDatabase(clientId: string, requestId: string) {
      const [request] = await sql<{ status: string; decided_by: string | null; decided: boolean }[]>`
        select status, decided_by, decided_at is not null as decided from oauth_approval_requests
         where id = ${requestId}`;
      assert.deepEqual(request, { status: "approved", decided_by: operatorId, decided: true });
      const [{ trusted }] = await sql<{ trusted: boolean }[]>`
        select trusted from oauth_clients where client_id = ${clientId}`;
      assert.equal(trusted, true);
      const decisions = await sql`
        select operator_id, via, action, request_id from operator_decisions where client_id = ${clientId}`;
      assert.deepEqual(decisions.map((d) => ({ ...d })), [
        { operator_id: operatorId, via: "page", action: "approve", request_id: requestId },
      ]);
    }

    try {
      await t.step("the MCP SDK client: register → ask → operator approves on the page → tools", async () => {
        const provider = new MemoryProvider(callback.redirectUri, SDK_APP);
        const first = new Client({ name: "portico-e2e-host", version: "1.0.0" });
        clients.push(first);
        const transport = new StreamableHTTPClientTransport(mcpUrl, {
          authProvider: provider,
          fetch: http.fetch,
        });
        await assert.rejects(first.connect(transport), UnauthorizedError);
        assert.deepEqual(http.since(0), [
          "POST /mcp 401",
          "GET /.well-known/oauth-protected-resource/mcp 200",
          "GET /.well-known/oauth-authorization-server 200",
          "POST /oauth/register 201",
        ]);
        const clientId = provider.clientInformation()!.client_id;
        assert.match(clientId, /^pcl_/);
        const authUrl = provider.lastAuthorizationUrl;
        assert.equal(authUrl.origin + authUrl.pathname, `${issuer}/oauth/authorize`);
        assert.equal(authUrl.searchParams.get("client_id"), clientId);
        assert.equal(authUrl.searchParams.get("scope"), "workspace");

        const note = "Pat here: the SDK host for the weekly report, please.";
        await askAndWait(authUrl, SDK_APP, note, false);
        const requestId = await pendingRequest(clientId, note);
        assert.equal(callback.arrivals.length, 0, "nothing reached the client while waiting");

        await continueAndAllow(SDK_APP, () => operatorApproves(SDK_APP, note, false));
        await person.waitForURL((u) => u.href.startsWith(callback.redirectUri));
        assert.equal(callback.arrivals.length, 1, "exactly one arrival at the client's redirect URI");
        const arrival = callback.arrivals[0];
        assert.equal(arrival.searchParams.get("error"), null, arrival.href);
        assert.equal(arrival.searchParams.get("iss"), issuer);
        assert.equal(arrival.searchParams.get("state"), provider.lastState);
        const code = arrival.searchParams.get("code");
        assert.ok(code);

        const mark = http.seen.length;
        await transport.finishAuth(code);
        // (the SDK discovers the token endpoint again before the exchange)
        assert.deepEqual(http.since(mark), [
          "GET /.well-known/oauth-protected-resource/mcp 200",
          "GET /.well-known/oauth-authorization-server 200",
          "POST /oauth/token 200",
        ]);
        const exchange = http.seen.at(-1)!;
        assert.equal(exchange.form?.get("grant_type"), "authorization_code");
        assert.equal(exchange.form?.get("resource"), mcpUrl.href, "the code is exchanged with resource");
        const claims = decodeJwt(provider.tokens()!.access_token);
        assert.deepEqual(
          { sub: claims.sub, client_id: claims.client_id, aud: claims.aud, scope: claims.scope },
          { sub: personId, client_id: clientId, aud: mcpUrl.href, scope: "workspace" },
        );

        const connected = new Client({ name: "portico-e2e-host", version: "1.0.0" });
        clients.push(connected);
        await connected.connect(
          new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: http.fetch }),
        );
        assert.deepEqual(
          await toolNames(connected),
          expectedTools,
          "the SDK client lists the person's tools",
        );
        await approvedInDatabase(clientId, requestId);
      });

      await t.step({
        name: `mcp-remote ${MCP_REMOTE_VERSION} (npx, stdio): register → ask → operator approves → tools`,
        ignore: !haveNpx,
        fn: async () => {
          const remote = await prepareMcpRemote(mcpUrl.href);
          const client = new Client({ name: "portico-e2e-stdio-host", version: "1.0.0" });
          try {
            const before = new Set(
              (await sql<{ client_id: string }[]>`select client_id from oauth_clients`).map((r) =>
                r.client_id
              ),
            );
            // connect() sends initialize, which mcp-remote answers once it reached the server: after the browser.
            const connecting = settles(client.connect(remote.transport), "mcp-remote's initialize");
            connecting.catch(() => {});
            const authUrl = await Promise.race([
              remote.openedUrl(),
              connecting.then(() => {
                throw new Error(`mcp-remote connected without a browser:\n${remote.log()}`);
              }),
            ]);
            assert.equal(authUrl.origin + authUrl.pathname, `${issuer}/oauth/authorize`, remote.log());
            const clientId = authUrl.searchParams.get("client_id")!;
            assert.ok(!before.has(clientId), "mcp-remote registered a client of its own");
            assert.equal(
              authUrl.searchParams.get("redirect_uri"),
              `http://localhost:${remote.callbackPort}/oauth/callback`,
            );
            const [{ name, self_registered }] = await sql<{ name: string; self_registered: boolean }[]>`
              select name, self_registered from oauth_clients where client_id = ${clientId}`;
            assert.equal(self_registered, true);

            const note = "mcp-remote for Claude Desktop on my laptop.";
            await askAndWait(authUrl, name, note, true);
            const requestId = await pendingRequest(clientId, note);
            await continueAndAllow(name, () => operatorApproves(name, note, true));
            // mcp-remote's own callback page, then it exchanges the code and answers initialize.
            await person.waitForURL((u) => u.href.startsWith(`http://localhost:${remote.callbackPort}/`));
            await connecting;
            const tools = await toolNames(client);
            assert.deepEqual(tools, expectedTools, "mcp-remote lists the person's tools");
            await approvedInDatabase(clientId, requestId);
            const [{ n }] = await sql<{ n: number }[]>`
              select count(*)::int as n from oauth_grants where client_id = ${clientId} and user_id = ${personId}`;
            assert.equal(n, 1, "mcp-remote holds one grant of the person");
          } catch (err) {
            console.error(`mcp-remote's log:\n${remote.log()}`);
            throw err;
          } finally {
            await client.close().catch(() => {});
            await remote.cleanup();
          }
        },
      });
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await browser.close();
      await callback.close();
      await server.shutdown();
      await db.close();
    }
  },
});
