// Browser pages declare themselves once, by being routes of a page sub-app (lib/http/pages.ts): a database outage
// there is an HTML page, everywhere else JSON, and no list of page paths is kept beside the routes.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { parseConfig } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { onError, requestContext } from "../../lib/http/middleware.ts";
import { createPageApp } from "../../lib/http/pages.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { silentLogger } from "../../lib/log.ts";
import { sealTicket } from "../../lib/oauth/authorize.ts";
import type { KeyStore } from "../../lib/oauth/keys.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { Browser, field, REDIRECT } from "../oauth/helpers.ts";

function outage(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
}

/**
 * A database client whose every statement fails as an unreachable database does. Statements are thenables that
 * fail only when awaited, as postgres.js's run only then: a fragment built into another statement is never awaited.
 */
function unreachableSql(): Sql {
  const statement = {
    then: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) =>
      Promise.reject(outage()).then(ok, fail),
  };
  const client: unknown = new Proxy(function () {}, {
    apply: () => statement,
    get: (_target, name) => name === "then" ? undefined : client,
  });
  return client as Sql;
}

async function assertOutagePage(res: Response, what: string) {
  const html = await res.text();
  assert.equal(res.status, 503, `${what}: ${html.slice(0, 300)}`);
  assert.match(res.headers.get("content-type")!, /^text\/html/, what);
  assert.equal(res.headers.get("retry-after"), "5", what);
  assert.equal(res.headers.get("cache-control"), "no-store", what);
  assert.match(html, /<h1>Temporarily unavailable<\/h1>/, what);
  assert.match(html, /data-error-code="temporarily_unavailable"/, what);
}

async function assertOutageJson(res: Response, what: string) {
  const text = await res.text();
  assert.equal(res.status, 503, `${what}: ${text}`);
  assert.match(res.headers.get("content-type")!, /^application\/json/, what);
  assert.equal(res.headers.get("retry-after"), "5", what);
  assert.equal(res.headers.get("cache-control"), "no-store", what);
  assert.deepEqual(JSON.parse(text), {
    error: "temporarily_unavailable",
    error_description: "the service is temporarily unavailable; retry in 5 s",
  }, what);
}

Deno.test("a new route of a page sub-app gets the HTML outage page; the middleware names no path", async () => {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext(silentLogger));
  app.onError(onError(silentLogger));
  const pages = createPageApp(silentLogger);
  pages.get("/brand-new/page", () => {
    throw outage();
  });
  pages.get("/brand-new/bug", () => {
    throw new Error("a bug");
  });
  const api = new Hono<AppEnv>();
  api.get("/brand-new/api", () => {
    throw outage();
  });
  app.route("/", pages);
  app.route("/", api);

  await assertOutagePage(await app.request("/brand-new/page"), "a page route");
  await assertOutageJson(await app.request("/brand-new/api"), "a route of an ordinary sub-app");
  // Only the outage is a page: anything else a page throws is answered as everywhere else.
  const bug = await app.request("/brand-new/bug", { headers: { "x-request-id": "req-1" } });
  assert.equal(bug.status, 500);
  assert.deepEqual(await bug.json(), {
    error: "server_error",
    error_description: "internal error (request id req-1)",
  });
  // A path nobody declared is the JSON 404 as before.
  assert.equal((await app.request("/brand-new/nothing")).status, 404);
});

Deno.test("the app's pages answer a database outage with the page, its JSON endpoints with JSON", async () => {
  const down = () => Promise.reject(outage());
  const keys: KeyStore = { signing: down, verificationKey: down, jwks: down, invalidate() {} };
  const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET });
  const app = createApp({ config, sql: unreachableSql(), log: silentLogger, secretKey: TEST_SECRET, keys });

  // The sign-in form needs no database without a session cookie: it hands out the CSRF cookie and token.
  const browser = new Browser(app);
  const signin = await browser.get("/signin");
  assert.equal(signin.status, 200);
  const csrf = field(await signin.text(), "csrf")!;
  browser.cookies.set("portico_session", "s".repeat(43));
  const ticket = await sealTicket(TEST_SECRET, {
    req: {
      clientId: "pcl_some-client",
      redirectUri: REDIRECT,
      scopes: ["openid"],
      codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      prompt: [],
      iat: Math.floor(Date.now() / 1000),
    },
  });
  const authorize = new URLSearchParams({
    response_type: "code",
    client_id: "pcl_some-client",
    redirect_uri: REDIRECT,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });

  // Every page the middleware's path list used to name (/oauth/authorize…, /signin, /signout, /account/…).
  const pages: [string, () => Promise<Response>][] = [
    ["GET /oauth/authorize", () => browser.get(`/oauth/authorize?${authorize}`)],
    ["POST /oauth/authorize", () => browser.post("/oauth/authorize", Object.fromEntries(authorize))],
    [
      "GET /oauth/authorize/resume",
      () => browser.get(`/oauth/authorize/resume?ticket=${encodeURIComponent(ticket)}`),
    ],
    [
      "POST /oauth/authorize/select",
      () => browser.post("/oauth/authorize/select", { csrf, ticket, user_id: "u" }),
    ],
    ["POST /oauth/authorize/switch", () => browser.post("/oauth/authorize/switch", { csrf, ticket })],
    ["POST /oauth/authorize/consent", () => browser.post("/oauth/authorize/consent", { csrf, ticket })],
    ["GET /signin", () => browser.get("/signin")],
    ["POST /signin", () => browser.post("/signin", { csrf, email: "a@example.com", password: "pw" })],
    ["POST /signout", () => browser.post("/signout", { csrf })],
    ["POST /account/switch", () => browser.post("/account/switch", { csrf, user_id: "u" })],
    ["GET /account/apps", () => browser.get("/account/apps")],
    ["GET /account/apps/disconnect", () => browser.get("/account/apps/disconnect?client_id=c")],
    ["POST /account/apps/revoke", () => browser.post("/account/apps/revoke", { csrf, client_id: "pcl_c" })],
    ["GET /account/keys", () => browser.get("/account/keys")],
    ["POST /account/keys", () => browser.post("/account/keys", { csrf, workspace_id: "w", name: "n" })],
    ["GET /account/keys/revoke", () => browser.get("/account/keys/revoke?key_id=k")],
    ["POST /account/keys/revoke", () => browser.post("/account/keys/revoke", { csrf, key_id: "k" })],
  ];
  for (const [what, send] of pages) await assertOutagePage(await send(), what);

  await assertOutageJson(
    await app.request("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "During", redirect_uris: [REDIRECT] }),
    }),
    "POST /oauth/register",
  );
  await assertOutageJson(
    await app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "r", client_id: "pcl_c" })
        .toString(),
    }),
    "POST /oauth/token",
  );
  await assertOutageJson(await app.request("/oauth/jwks"), "GET /oauth/jwks");
});
