// Issue 23 point 7: a 2025-03-26-era client (SDK 1.12.1) names neither `resource` nor `scope`, so its token is for
// the issuer with `openid profile`. /mcp must answer it so that it stops with a message naming what to send, after
// one browser trip and a bounded number of token requests — not refresh-and-retry until the rate limit. The
// current SDK, given the same kind of token, asks for `workspace` at /mcp once and gets on with it.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
// The old client, by its exact version in this file only: the import map's @modelcontextprotocol/sdk/ is the
// current one, and a second entry there would let any test pick up the old SDK by accident.
// deno-lint-ignore no-import-prefix
import { Client as Client1121 } from "npm:@modelcontextprotocol/sdk@1.12.1/client/index.js";
// deno-lint-ignore no-import-prefix
import { StreamableHTTPClientTransport as Transport1121 } from "npm:@modelcontextprotocol/sdk@1.12.1/client/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { testApp } from "../helpers/app.ts";
import { operatorClient, TEST_ISSUER } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, MCP_URL } from "../helpers/mcp.ts";
import { authorizeThrough, Browser, REDIRECT } from "../oauth/helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

const [{ email }] = await db.sql<{ email: string }[]>`select email from users where id = ${f.users.owner}`;
const WHAT_TO_SEND = `resource=${MCP_URL} and scope=workspace`;

/** Every request the client made to the app, and the counts the issue bounds. */
interface Traffic {
  seen: string[];
  tokenRequests: number;
  mcpRequests: number;
}

// A loop is cut here (and then fails the count assertions) rather than running into the rate limit.
const LOOP_GUARD = 20;

/** The app as the network: URLs under the issuer are answered by app.request(); counted; a loop is cut short. */
function appFetch(app: ReturnType<typeof testApp>, traffic: Traffic) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    if (!req.url.startsWith(`${TEST_ISSUER}/`)) throw new Error(`unexpected fetch of ${req.url}`);
    const path = new URL(req.url).pathname;
    if (req.method === "POST" && path === "/oauth/token") traffic.tokenRequests++;
    if (path === "/mcp") traffic.mcpRequests++;
    if (traffic.tokenRequests > LOOP_GUARD || traffic.mcpRequests > LOOP_GUARD) {
      throw new Error(`loop: ${traffic.tokenRequests} token requests, ${traffic.mcpRequests} /mcp requests`);
    }
    const res = await app.request(req, undefined, { remoteAddr: { hostname: "198.51.100.10", port: 40002 } });
    traffic.seen.push(`${req.method} ${path} ${res.status}`);
    return res;
  };
}

/**
 * An OAuthClientProvider whose redirectToAuthorization is the person's browser trip (sign-in, consent, allow):
 * the code the redirect carries is kept for finishAuth, as a host's callback listener would.
 */
class BrowserProvider {
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  readonly redirectUrl = REDIRECT;
  readonly trips: URL[] = [];
  code: string | undefined;

  constructor(readonly app: ReturnType<typeof testApp>, preset?: OAuthClientInformationMixed) {
    this.#client = preset;
  }
  get clientMetadata(): OAuthClientMetadata {
    // What SDK 1.12.1's examples register: no scope.
    return {
      client_name: "2025-03-26-era client",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.trips.push(url);
    const back = await authorizeThrough(new Browser(this.app), url.pathname + url.search, email, "allow", {
      password: "test password 123",
    });
    this.code = back.searchParams.get("code") ?? undefined;
    assert.ok(this.code, back.href);
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no code verifier saved");
    return this.#verifier;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") this.#client = undefined;
    if (scope === "all" || scope === "tokens") this.#tokens = undefined;
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
  }
}

Deno.test("SDK 1.12.1 with OAuth: one browser trip, one token request, then a clear error naming resource and scope", async () => {
  const app = testApp(db.sql);
  const traffic: Traffic = { seen: [], tokenRequests: 0, mcpRequests: 0 };
  // SDK 1.12.1 calls the global fetch (it takes no fetch option); this test file runs in its own worker.
  const realFetch = globalThis.fetch;
  globalThis.fetch = appFetch(app, traffic);
  const warn = console.warn; // 1.12.1 warns when the root resource metadata is absent (it reads only that one)
  console.warn = () => {};
  try {
    const provider = new BrowserProvider(app);
    // The host connects: 401 → discovery → registration → the browser trip; connect() then fails as
    // "unauthorized" and the host finishes with the code from its callback, then connects again.
    const first = new Transport1121(new URL(MCP_URL), { authProvider: provider });
    await assert.rejects(new Client1121({ name: "old", version: "1.0.0" }).connect(first), /Unauthorized/);
    assert.equal(provider.trips.length, 1);
    assert.equal(provider.trips[0].searchParams.get("resource"), null, "1.12.1 sends no resource");
    assert.equal(provider.trips[0].searchParams.get("scope"), null, "1.12.1 sends no scope");
    await first.finishAuth(provider.code!);
    const claims = decodeJwt(provider.tokens()!.access_token);
    assert.equal(claims.aud, TEST_ISSUER);
    assert.equal(claims.scope, "openid profile");

    const second = new Transport1121(new URL(MCP_URL), { authProvider: provider });
    const client = new Client1121({ name: "old", version: "1.0.0" });
    let error: Error | undefined;
    try {
      await client.connect(second);
    } catch (e) {
      error = e as Error;
    }
    assert.ok(error, "the connection must fail");
    // 1.12.1's StreamableHTTPClientTransport.send() throws `Error POSTing to endpoint (HTTP 403): <body>` on any
    // status but 401; the body is the JSON-RPC error, whose message names what to send.
    assert.match(error.message, /^Error POSTing to endpoint \(HTTP 403\): /);
    const body = JSON.parse(error.message.slice(error.message.indexOf("{")));
    assert.equal(body.error.code, -32003);
    assert.equal(
      body.error.message,
      `the access token is not for this resource (its audience must be ${MCP_URL}); authorize again ` +
        `(a refresh keeps the audience and scope) with ${WHAT_TO_SEND}`,
    );
    await client.close().catch(() => {});

    assert.equal(provider.trips.length, 1, "one browser trip");
    assert.ok(traffic.tokenRequests <= 3, `${traffic.tokenRequests} token requests`);
    assert.equal(traffic.tokenRequests, 1, "the code exchange, and no refresh");
    assert.deepEqual(traffic.seen.filter((s) => s.startsWith("POST /mcp")), [
      "POST /mcp 401",
      "POST /mcp 403",
    ]);
  } finally {
    globalThis.fetch = realFetch;
    console.warn = warn;
  }
});

Deno.test("current SDK with a token for the issuer: 403 insufficient_scope → one refresh naming /mcp, refused → a clear error", async () => {
  const app = testApp(db.sql);
  const traffic: Traffic = { seen: [], tokenRequests: 0, mcpRequests: 0 };
  const fetchFn = appFetch(app, traffic);
  // A client that authorized at the issuer itself (auth() started from the issuer URL): a token for the issuer.
  const provider = new BrowserProvider(app, { client_id: await operatorClient(db.sql) });
  const sdkProvider: OAuthClientProvider = provider;
  assert.equal(await auth(sdkProvider, { serverUrl: TEST_ISSUER, fetchFn }), "REDIRECT");
  assert.equal(
    await auth(sdkProvider, { serverUrl: TEST_ISSUER, authorizationCode: provider.code!, fetchFn }),
    "AUTHORIZED",
  );
  assert.equal(decodeJwt(provider.tokens()!.access_token).aud, TEST_ISSUER);
  const tokensBefore = traffic.tokenRequests;

  // At /mcp: 403 insufficient_scope, scope="workspace" → the SDK's upscoping runs auth() once with the /mcp
  // metadata: a refresh naming resource={ISSUER}/mcp, which the refresh grant refuses (a refresh never changes
  // the audience) → the SDK surfaces invalid_target instead of retrying (its 403 guard would stop a second 403).
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    authProvider: sdkProvider,
    fetch: fetchFn,
  });
  const client = new Client({ name: "current", version: "1.0.0" });
  await assert.rejects(client.connect(transport), (e: Error) => {
    assert.equal(e.name, "InvalidTargetError");
    assert.match(e.message, /a refresh cannot change it/);
    return true;
  });
  await client.close().catch(() => {});
  assert.equal(provider.trips.length, 1, "no second browser trip");
  assert.equal(traffic.tokenRequests - tokensBefore, 1, "one refresh");
  assert.deepEqual(traffic.seen.filter((s) => s.startsWith("POST /mcp")), ["POST /mcp 403"]);
});
