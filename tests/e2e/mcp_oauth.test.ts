// End to end (issue 12): the official MCP SDK client, given nothing but the /mcp URL, follows the 401 challenge to
// the resource metadata and the authorization server, gets a client (operator-registered, self-registered and
// trusted, metadata document), sends a real headless Chromium through sign-in and consent (choosing the second
// of the person's two workspaces), exchanges the code with `resource`, and then sees exactly what a user-bound
// API key of that person in that workspace sees — until the refresh token is revoked or the app disconnected.
// An untrusted self-registered client makes one trip to a clear error page and never registers twice.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "playwright-core";
import { createApiKey } from "../../lib/api_keys.ts";
import { createUser } from "../../lib/accounts.ts";
import { createClient, setClientTrusted } from "../../lib/oauth/clients.ts";
import { disconnectApp } from "../../lib/oauth/consent.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { haveChromium, launchChromium, warnIfMissing } from "../helpers/browser.ts";
import { freshDatabase } from "../helpers/db.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { MemoryProvider } from "../helpers/oauth_host.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/mcp_oauth.test.ts");

const EMAIL = "mcp.oauth@example.com";
const PASSWORD = "mcp oauth password 123";

/** One HTTP exchange the SDK made, as the wrapping fetch saw it. */
interface Seen {
  method: string;
  path: string;
  status: number;
  wwwAuthenticate: string | null;
  /** the form body of token requests */
  form?: URLSearchParams;
}

Deno.test({
  name:
    "MCP SDK client + Chromium: /mcp 401 → discovery → sign-in, workspace consent → tools as the person; " +
    "revocation; untrusted self-registered client",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const sql = db.sql;

    // One person in two workspaces: owner of "Alpha" (listed first on consent, every module) and manager in
    // "Beta" (two modules). The apps are pointed at Beta, so what they see differs from the preselected choice.
    const userId = (await createUser(sql, { email: EMAIL, password: PASSWORD, name: "Olive OAuth" }, {
      scrypt: TEST_SCRYPT,
    })).id;
    const alpha = (await createWorkspace(sql, "Alpha Workspace", [...MODULES])).id;
    const alphaCo = (await createCompany(sql, alpha, "Alpha Co")).id;
    await addMember(sql, alpha, userId, "owner", null);
    const beta = (await createWorkspace(sql, "Beta Workspace", ["projects", "tasks"])).id;
    const betaCo = (await createCompany(sql, beta, "Beta Co")).id;
    await addMember(sql, beta, userId, "manager", null);
    const betaKey = (await createApiKey(sql, { workspaceId: beta, userId, kind: "user", name: "beta" })).key;
    const alphaKey =
      (await createApiKey(sql, { workspaceId: alpha, userId, kind: "user", name: "alpha" })).key;

    // The MCP host's loopback redirect target (RFC 8252): where the browser brings the code back.
    const arrivals: URL[] = [];
    const callback = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/callback") arrivals.push(url);
      return new Response("<!doctype html><title>done</title><p>You can close this window.</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    const redirectUri = `http://127.0.0.1:${callback.addr.port}/callback`;

    // A Client ID Metadata Document (MCP 2025-11-25) served on loopback: its URL is the client_id. The issuer is
    // loopback, so plain http to loopback is allowed; TRUSTED_CLIENT_ID_PREFIXES lets it obtain `workspace`.
    let documentFetches = 0;
    const documents: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen() {},
    }, (req): Response => {
      const url = new URL(req.url);
      if (url.pathname !== "/mcp-host/client.json") return new Response("not found", { status: 404 });
      documentFetches++;
      return Response.json({
        client_id: documentUrl,
        client_name: "Document App",
        client_uri: `http://127.0.0.1:${documents.addr.port}/mcp-host`,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      });
    });
    const documentPrefix: string = `http://127.0.0.1:${documents.addr.port}/mcp-host/`;
    const documentUrl: string = `${documentPrefix}client.json`;

    const { issuer, server } = serveAtIssuer(sql, { TRUSTED_CLIENT_ID_PREFIXES: documentPrefix });
    const mcpUrl = new URL(`${issuer}/mcp`);

    // Everything the SDK sends goes through this fetch, so the test sees the statuses the SDK saw.
    const seen: Seen[] = [];
    const recordingFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const res = await fetch(url, init);
      const u = new URL(url);
      seen.push({
        method: init?.method ?? "GET",
        path: u.pathname,
        status: res.status,
        wwwAuthenticate: res.headers.get("www-authenticate"),
        form: init?.body instanceof URLSearchParams ? new URLSearchParams(init.body) : undefined,
      });
      return res;
    };
    const since = (mark: number) => seen.slice(mark).map((s) => `${s.method} ${s.path} ${s.status}`);

    const open: Client[] = [];
    function oauthClient(provider: MemoryProvider) {
      const transport = new StreamableHTTPClientTransport(mcpUrl, {
        authProvider: provider,
        fetch: recordingFetch,
      });
      const client = new Client({ name: "portico-e2e-host", version: "1.0.0" });
      open.push(client);
      return { client, transport };
    }
    async function keyClient(key: string): Promise<Client> {
      const client = new Client({ name: "portico-e2e-key", version: "1.0.0" });
      open.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { "x-api-key": key } } }),
      );
      return client;
    }

    const browser = await launchChromium();
    const context = await browser.newContext();
    const page: Page = await context.newPage();

    /** Opens the authorization URL the SDK produced; `act` answers the pages; returns the callback URL. */
    async function trip(url: URL, act: () => Promise<void>): Promise<URL> {
      const before = arrivals.length;
      await page.goto(url.href);
      await act();
      await page.waitForURL((u) => u.href.startsWith(redirectUri));
      assert.equal(arrivals.length, before + 1, "exactly one arrival at the client's redirect URI");
      return arrivals[arrivals.length - 1];
    }

    /** Consent in the browser: the workspace radio group, Beta chosen (not the preselected first option). */
    async function consentToBeta(clientName: string) {
      await page.getByRole("heading", { name: new RegExp(`Allow ${clientName}`) }).waitFor();
      const places = page.locator('input[type="radio"][name="place"]');
      const values = await places.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
      // A place per workspace ("every company") and per company, Alpha first.
      assert.deepEqual(values, [alpha, `${alpha}:${alphaCo}`, beta, `${beta}:${betaCo}`]);
      assert.equal(await places.first().isChecked(), true, "the first option is preselected");
      await page.locator(`input[type="radio"][name="place"][value="${beta}"]`).check();
      await page.getByRole("button", { name: "Allow" }).click();
    }

    async function signIn() {
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
    }

    /** The code from the callback, after checking `state` and `iss` (RFC 9207) as a host should. */
    function codeFrom(arrival: URL, provider: MemoryProvider): string {
      assert.equal(arrival.searchParams.get("error"), null, arrival.href);
      assert.equal(arrival.searchParams.get("iss"), issuer);
      assert.equal(arrival.searchParams.get("state"), provider.lastState);
      const code = arrival.searchParams.get("code");
      assert.ok(code, "a code came back");
      return code;
    }

    /** Connects with the provider's tokens; the first attempt must end in the SDK asking for a browser trip. */
    async function connectNeedsBrowser(provider: MemoryProvider) {
      const before = provider.authorizationUrls.length;
      const first = oauthClient(provider);
      await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
      assert.equal(provider.authorizationUrls.length, before + 1, "the SDK asked for one authorization");
      return first.transport;
    }

    /** What a caller sees: tools/list names and the list_projects answer. */
    async function view(client: Client) {
      const tools = (await client.listTools()).tools.map((x: { name: string }) => x.name).sort();
      const projects = await client.callTool({ name: "list_projects", arguments: {} });
      return { tools, projects };
    }

    /** Asserts the SDK's next call answered 401 at /mcp and ended in a new authorization request. */
    async function nextCallIs401(client: Client, provider: MemoryProvider) {
      const mark = seen.length;
      const before = provider.authorizationUrls.length;
      await assert.rejects(client.callTool({ name: "list_projects", arguments: {} }), UnauthorizedError);
      const mcp = seen.slice(mark).find((s) => s.path === "/mcp");
      assert.ok(mcp, "the call reached /mcp");
      assert.equal(mcp.status, 401, since(mark).join("\n"));
      assert.match(mcp.wwwAuthenticate ?? "", /^Bearer /);
      assert.match(mcp.wwwAuthenticate ?? "", /error="invalid_token"/);
      // The SDK tried the refresh token, was refused, and fell back to a new authorization: no loop.
      assert.ok(since(mark).includes("POST /oauth/token 400"), since(mark).join("\n"));
      assert.equal(provider.authorizationUrls.length, before + 1);
    }

    // What a user-bound key of the person in Beta sees: the reference every OAuth client must match.
    const betaKeyClient = await keyClient(betaKey);
    await betaKeyClient.callTool({ name: "create_project", arguments: { name: "Beta launch" } });
    const alphaKeyClient = await keyClient(alphaKey);
    await alphaKeyClient.callTool({ name: "create_project", arguments: { name: "Alpha secret" } });
    const expected = await view(betaKeyClient);
    const alphaView = await view(alphaKeyClient);
    assert.notDeepEqual(expected.tools, alphaView.tools, "the two workspaces offer different tools");
    assert.match(JSON.stringify(expected.projects), /Beta launch/);
    assert.doesNotMatch(JSON.stringify(expected.projects), /Alpha secret/);

    const clientCount = async () =>
      Number((await sql<{ n: number }[]>`select count(*)::int as n from oauth_clients`)[0].n);

    try {
      const operator = await createClient(sql, {
        name: "Operator App",
        redirectUris: [redirectUri],
        confidential: true,
        scopes: ["openid", "profile", "workspace"],
        grantTypes: ["authorization_code", "refresh_token"],
        selfRegistered: false,
      });
      const operatorProvider = new MemoryProvider(redirectUri, "Operator App", {
        client_id: operator.clientId,
        client_secret: operator.clientSecret,
      });
      let operatorClient: Client | undefined;

      await t.step(
        "(a) operator-registered client: 401 → metadata → Chromium consent in Beta → tools",
        async () => {
          const mark = seen.length;
          const transport = await connectNeedsBrowser(operatorProvider);
          // From nothing but the /mcp URL: the challenge, the resource metadata it names, the AS metadata.
          const first = seen[mark];
          assert.equal(`${first.method} ${first.path} ${first.status}`, "POST /mcp 401");
          assert.equal(
            first.wwwAuthenticate,
            `Bearer resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp", scope="workspace"`,
          );
          assert.deepEqual(since(mark), [
            "POST /mcp 401",
            "GET /.well-known/oauth-protected-resource/mcp 200",
            "GET /.well-known/oauth-authorization-server 200",
          ]);
          const authUrl = operatorProvider.lastAuthorizationUrl;
          assert.equal(authUrl.origin + authUrl.pathname, `${issuer}/oauth/authorize`);
          assert.equal(authUrl.searchParams.get("client_id"), operator.clientId);
          assert.equal(authUrl.searchParams.get("scope"), "workspace");
          assert.equal(authUrl.searchParams.get("resource"), mcpUrl.href);

          const arrival = await trip(authUrl, async () => {
            await signIn();
            await consentToBeta("Operator App");
          });
          const tokenMark = seen.length;
          await transport.finishAuth(codeFrom(arrival, operatorProvider));
          const exchange = seen.slice(tokenMark).find((s) => s.path === "/oauth/token");
          assert.equal(exchange?.status, 200);
          assert.equal(exchange?.form?.get("grant_type"), "authorization_code");
          assert.equal(exchange?.form?.get("resource"), mcpUrl.href, "the code is exchanged with resource");
          const claims = decodeJwt(operatorProvider.tokens()!.access_token);
          assert.equal(claims.aud, mcpUrl.href);
          assert.equal(claims.sub, userId);
          assert.equal(claims.client_id, operator.clientId);
          assert.equal(claims.scope, "workspace");

          const again = oauthClient(operatorProvider);
          await again.client.connect(again.transport);
          assert.deepEqual(await view(again.client), expected, "the token acts as the person's key in Beta");
          operatorClient = again.client;
        },
      );

      await t.step("(a) revoking the refresh token at /oauth/revoke: the next /mcp call is 401", async () => {
        const refresh = operatorProvider.tokens()!.refresh_token;
        assert.ok(refresh, "a refresh token was issued");
        const res = await fetch(`${issuer}/oauth/revoke`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            authorization: `Basic ${btoa(`${operator.clientId}:${operator.clientSecret}`)}`,
          },
          body: new URLSearchParams({ token: refresh, token_type_hint: "refresh_token" }),
        });
        await res.body?.cancel();
        assert.equal(res.status, 200);
        await nextCallIs401(operatorClient!, operatorProvider);
      });

      await t.step(
        "(a) a new authorization (consent remembered), then Disconnect on /account/apps: 401",
        async () => {
          // The SDK already asked for a new authorization when it was refused; the consent is remembered, so the
          // browser comes straight back, and the grant acts in Beta again.
          const transport = new StreamableHTTPClientTransport(mcpUrl, {
            authProvider: operatorProvider,
            fetch: recordingFetch,
          });
          const arrival = await trip(operatorProvider.lastAuthorizationUrl, async () => {});
          await transport.finishAuth(codeFrom(arrival, operatorProvider));
          const again = oauthClient(operatorProvider);
          await again.client.connect(again.transport);
          assert.deepEqual(await view(again.client), expected);

          await page.goto(`${issuer}/account/apps`);
          await page.getByRole("button", { name: "Disconnect Operator App" }).click();
          // the confirmation page (issue 18): the same button name confirms
          await page.getByRole("heading", { name: "Disconnect Operator App?" }).waitFor();
          await page.getByRole("button", { name: "Disconnect Operator App" }).click();
          await page.getByRole("status").filter({ hasText: "The application was disconnected." }).waitFor();
          await nextCallIs401(again.client, operatorProvider);
        },
      );

      const selfProvider = new MemoryProvider(redirectUri, "Self App");
      let selfClientId = "";

      await t.step(
        "(c) untrusted self-registered client: one trip, the page to ask the operators, one registration",
        async () => {
          const before = await clientCount();
          const mark = seen.length;
          await connectNeedsBrowser(selfProvider);
          assert.deepEqual(since(mark), [
            "POST /mcp 401",
            "GET /.well-known/oauth-protected-resource/mcp 200",
            "GET /.well-known/oauth-authorization-server 200",
            "POST /oauth/register 201",
          ]);
          assert.equal(await clientCount(), before + 1);
          selfClientId = selfProvider.clientInformation()!.client_id;
          assert.match(selfClientId, /^pcl_/);

          const arrivalsBefore = arrivals.length;
          const res = await page.goto(selfProvider.lastAuthorizationUrl.href);
          assert.equal(res?.status(), 200);
          await page.getByRole("heading", { name: "Self App needs an operator's approval" }).waitFor();
          await page.getByRole("button", { name: "Ask for approval" }).waitFor();
          assert.equal(arrivals.length, arrivalsBefore, "nothing is sent back to the app, so it cannot loop");

          // Trying again (the person retries in the host) reuses the registration: no second client.
          const retry = seen.length;
          await connectNeedsBrowser(selfProvider);
          assert.ok(!since(retry).some((s) => s.startsWith("POST /oauth/register")), since(retry).join("\n"));
          assert.equal(selfProvider.lastAuthorizationUrl.searchParams.get("client_id"), selfClientId);
          assert.equal(await clientCount(), before + 1);
        },
      );

      await t.step(
        "(b) the same self-registered client, once the operator trusts it: consent in Beta → tools",
        async () => {
          assert.ok(selfClientId, "step (c) registered the client");
          const before = await clientCount();
          assert.equal(await setClientTrusted(sql, selfClientId, true), true);
          const transport = await connectNeedsBrowser(selfProvider);
          const arrival = await trip(selfProvider.lastAuthorizationUrl, async () => {
            await page.getByRole("heading", { name: /Allow Self App/ }).waitFor();
            assert.ok(
              (await page.content()).includes("This application registered itself"),
              "consent says the app registered itself",
            );
            await consentToBeta("Self App");
          });
          await transport.finishAuth(codeFrom(arrival, selfProvider));
          const again = oauthClient(selfProvider);
          await again.client.connect(again.transport);
          assert.deepEqual(await view(again.client), expected);
          assert.equal(await clientCount(), before, "no registration after the operator's approval either");
          assert.equal(selfProvider.saved, 1, "the SDK stored client information once");
        },
      );

      await t.step({
        name: "(d) metadata-document client (client_id = a loopback URL under TRUSTED_CLIENT_ID_PREFIXES): " +
          "consent in Beta → tools; disconnect → 401",
        fn: async () => {
          const before = await clientCount();
          const metadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
          assert.equal(metadata.client_id_metadata_document_supported, true);
          // SDK 1.32.2 uses `clientMetadataUrl` only for https URLs; a loopback document is configured as the
          // host's client information instead, which is the same client_id on the wire.
          const provider = new MemoryProvider(redirectUri, "Document App", { client_id: documentUrl });
          const mark = seen.length;
          const transport = await connectNeedsBrowser(provider);
          assert.ok(!since(mark).some((s) => s.startsWith("POST /oauth/register")), since(mark).join("\n"));
          assert.equal(provider.lastAuthorizationUrl.searchParams.get("client_id"), documentUrl);
          const arrival = await trip(provider.lastAuthorizationUrl, async () => {
            await page.getByRole("heading", { name: /Allow Document App/ }).waitFor();
            assert.ok(
              (await page.content()).includes(`described by 127.0.0.1:${documents.addr.port}`),
              "consent names the host serving the document",
            );
            await consentToBeta("Document App");
          });
          assert.ok(documentFetches >= 1, "Portico fetched the document");
          await transport.finishAuth(codeFrom(arrival, provider));
          const claims = decodeJwt(provider.tokens()!.access_token);
          assert.equal(claims.client_id, documentUrl);
          assert.equal(claims.aud, mcpUrl.href);
          const again = oauthClient(provider);
          await again.client.connect(again.transport);
          assert.deepEqual(await view(again.client), expected);
          // The document's client is mirrored into oauth_clients (for grants and consents) once, never registered.
          assert.equal(await clientCount(), before + 1);
          // (the SDK stores the preset once more, stamped with the issuer: the same client_id)
          assert.equal(provider.clientInformation()?.client_id, documentUrl, "never registered or replaced");

          // Disconnect through lib/oauth/consent.ts (what /account/apps calls): the next call is 401.
          assert.equal(await disconnectApp(sql, userId, documentUrl), true);
          await nextCallIs401(again.client, provider);
        },
      });
    } finally {
      for (const c of open) await c.close().catch(() => {});
      await browser.close();
      await callback.shutdown();
      await documents.shutdown();
      await server.shutdown();
      await db.close();
    }
  },
});
