// Client ID Metadata Document clients through the endpoints (issue 12.6): an URL as client_id at authorize and
// token, mirrored into oauth_clients, shown by its host on consent, trusted for `workspace` only by prefix.
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, rpc } from "../helpers/mcp.ts";
import { askApproval, decideRequest, trustPrefix, untrustPrefix } from "../../lib/oauth/approvals.ts";
import { authorizeThrough, authorizeUrl, Browser, consentPageFor, pkce, REDIRECT, token } from "./helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

let docCount = 0;
const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (req): Response => {
    docCount++;
    const url = new URL(req.url);
    const clientId: string = `http://127.0.0.1:${server.addr.port}${url.pathname}`;
    if (url.pathname === "/bad.json") {
      return Response.json({ client_id: "https://elsewhere.example/app.json", redirect_uris: [REDIRECT] });
    }
    return Response.json({
      client_id: clientId,
      client_name: "Doc Client",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    }, { headers: { "cache-control": "max-age=300" } });
  },
);
Deno.test.afterAll(() => server.shutdown());
const base = () => `http://127.0.0.1:${server.addr.port}`;
const [{ email }] = await db.sql`select email from users where id = ${f.users.owner}`;

function url(clientId: string, scope: string, challenge: string) {
  return authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    scope,
  });
}

Deno.test("a metadata-document client signs in, is shown by its host, and exchanges its code", async () => {
  const app = testApp(db.sql);
  const clientId = `${base()}/client.json`;
  const { verifier, challenge } = pkce();
  // The consent page says who describes the app and warns that it returns only to this computer.
  const consent = await consentPageFor(
    new Browser(app),
    url(clientId, "openid profile", challenge),
    email,
    "test password 123",
  );
  assert.ok(consent.includes(`described by 127.0.0.1:${server.addr.port}`), consent);
  assert.match(consent, /data-warning="loopback"/);
  assert.match(consent, /Allow <strong>Doc Client<\/strong>/);

  const redirect = await authorizeThrough(
    new Browser(app),
    url(clientId, "openid profile", challenge),
    email,
    "allow",
    {
      password: "test password 123",
    },
  );
  const res2 = await token(app, {
    grant_type: "authorization_code",
    code: redirect.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  assert.equal(res2.status, 200);
  const tokens = await res2.json();
  assert.ok(tokens.refresh_token);
  const [row] = await db.sql`
    select name, self_registered, token_endpoint_auth_method, secret_hash from oauth_clients
     where client_id = ${clientId}`;
  assert.deepEqual({ ...row }, {
    name: "Doc Client",
    self_registered: true,
    token_endpoint_auth_method: "none",
    secret_hash: null,
  });
});

Deno.test("workspace for a metadata-document client: only under TRUSTED_CLIENT_ID_PREFIXES", async () => {
  const clientId = `${base()}/mcp-client.json`;
  const { verifier, challenge } = pkce();
  const untrusted = testApp(db.sql);
  const page = await consentPageFor(
    new Browser(untrusted),
    url(clientId, "workspace", challenge),
    email,
    "test password 123",
  );
  assert.match(page, /action="\/oauth\/authorize\/approval"/, "untrusted: the person may ask the operators");

  const trusted = testApp(db.sql, { TRUSTED_CLIENT_ID_PREFIXES: `${base()}/` });
  const redirect = await authorizeThrough(
    new Browser(trusted),
    url(clientId, "workspace", challenge),
    email,
    "allow",
    {
      password: "test password 123",
    },
  );
  const res = await token(trusted, {
    grant_type: "authorization_code",
    code: redirect.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  assert.equal(res.status, 200);
  const { access_token } = await res.json();
  assert.equal((await rpc(trusted, `Bearer ${access_token}`, "ping")).status, 200);
});

Deno.test("an invalid document: an error page at authorize (no redirect), invalid_client at the token endpoint", async () => {
  const app = testApp(db.sql);
  const clientId = `${base()}/bad.json`;
  const res = await new Browser(app).get(url(clientId, "openid", pkce().challenge));
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("location"), null);
  assert.match(await res.text(), /metadata document at .* cannot be used/);
  const t = await token(app, {
    grant_type: "authorization_code",
    code: "x",
    redirect_uri: REDIRECT,
    code_verifier: "v".repeat(43),
    client_id: clientId,
  });
  assert.equal(t.status, 401);
  assert.equal((await t.json()).error, "invalid_client");
  // Not a URL Portico would fetch (plain http to a public host): an unknown client, nothing fetched.
  const before = docCount;
  const unknown = await new Browser(app).get(
    url("http://example.com/client.json", "openid", pkce().challenge),
  );
  assert.equal(unknown.status, 400);
  assert.match(await unknown.text(), /Unknown application/);
  assert.equal(docCount, before);
});

Deno.test("metadata-document apps: a prefix trusted on the operator side needs no approval; an approval counts once per app, not per install", async () => {
  const app = testApp(db.sql);
  const { challenge } = pkce();
  const perApp = `${base()}/per-app/client.json`;
  const askPage = (who: string) =>
    consentPageFor(new Browser(app), url(perApp, "workspace", challenge), who, "test password 123");
  assert.match(await askPage(email), /action="\/oauth\/authorize\/approval"/);
  // One person asks; an operator approves; every install (same client_id URL) and every person is then through.
  const [{ email: other }] = await db.sql`select email from users where id = ${f.users.manager}`;
  const asked = await askApproval(db.sql, {
    clientId: perApp,
    userId: f.users.owner,
    place: { workspaceId: f.workspaceId, companyId: null },
    scopes: ["workspace"],
    note: "",
  });
  assert.equal(asked.kind, "asked");
  if (asked.kind !== "asked") return;
  assert.equal((await decideRequest(db.sql, asked.request.id, true, { via: "cli" })).kind, "decided");
  assert.match(await askPage(other), /action="\/oauth\/authorize\/consent"/);

  const underPrefix = `${base()}/vendor/app.json`;
  const page = (who: string) =>
    consentPageFor(new Browser(app), url(underPrefix, "workspace", challenge), who, "test password 123");
  assert.match(await page(email), /action="\/oauth\/authorize\/approval"/);
  assert.equal(await trustPrefix(db.sql, `${base()}/vendor/`, { via: "cli" }), true);
  assert.match(await page(email), /action="\/oauth\/authorize\/consent"/);
  assert.match(await page(other), /action="\/oauth\/authorize\/consent"/);
  assert.equal(await untrustPrefix(db.sql, `${base()}/vendor/`, { via: "cli" }, []), true);
  assert.match(await page(email), /action="\/oauth\/authorize\/approval"/);
});
