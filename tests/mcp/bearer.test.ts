// /mcp as a protected resource (issue 12): resource metadata, the challenge, Bearer access tokens of this server
// (audience, scope, signature, expiry, grant liveness), the workspace chosen on consent, gating as for a key.
import assert from "node:assert/strict";
import { generateKeyPair, SignJWT } from "jose";
import { setUserDisabled } from "../../lib/accounts.ts";
import { signIn } from "../../lib/oauth/sign_in.ts";
import { createClient, setClientTrusted } from "../../lib/oauth/clients.ts";
import { disconnectApp } from "../../lib/oauth/consent.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { addMember } from "../../lib/workspace/workspaces.ts";
import { createAuditLog } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import { silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SECRET, testApp } from "../helpers/app.ts";
import { bearerFor, keysOf, MCP_RESOURCE, operatorClient, TEST_ISSUER } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, lastUsedFresh, listedTools, postMcp, rpc } from "../helpers/mcp.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  consentPageFor,
  pkce,
  REDIRECT,
  token,
} from "../oauth/helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = testApp(db.sql, { MCP_VARIANT: "A" });
const appB = testApp(db.sql, { MCP_VARIANT: "B" });
const PRM_URL = `${TEST_ISSUER}/.well-known/oauth-protected-resource/mcp`;
const CHALLENGE = `Bearer resource_metadata="${PRM_URL}", scope="workspace"`;

Deno.test.afterAll(() => db.close());

const sorted = (a: string[]) => [...a].sort();

/** Tokens signed by hand, for the refusals: the server's own key with chosen claims, or another key. */
async function forgedToken(
  opts: {
    alg?: string;
    kid?: string;
    key?: CryptoKey | Uint8Array;
    claims?: Record<string, unknown>;
    exp?: number;
    aud?: string;
    sub?: string;
  } = {},
): Promise<string> {
  const grant = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  const signing = await keysOf(db.sql).signing();
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({
    client_id: grant.clientId,
    scope: "openid workspace",
    grant_id: grant.grantId,
    ...opts.claims,
  })
    .setProtectedHeader({ alg: opts.alg ?? "RS256", typ: "at+jwt", kid: opts.kid ?? signing.kid })
    .setIssuer(TEST_ISSUER)
    .setSubject(opts.sub ?? f.users.owner)
    .setAudience(opts.aud ?? MCP_RESOURCE)
    .setIssuedAt(now - 10)
    .setExpirationTime(opts.exp ?? now + 3600)
    .setJti(crypto.randomUUID())
    .sign(opts.key ?? signing.key);
}

/** A genuine token not issued for /mcp: 403 insufficient_scope, naming the resource and scope to ask for. */
async function assertNotForMcp(auth: string, reason: string) {
  const r = await rpc(appA, auth, "tools/list");
  assert.equal(r.status, 403, JSON.stringify(r.body));
  const message = `${reason}; authorize again (a refresh keeps the audience and scope) with ` +
    `resource=${MCP_RESOURCE} and scope=workspace`;
  assert.equal(
    r.headers.get("www-authenticate"),
    `${CHALLENGE}, error="insufficient_scope", error_description="${message}"`,
  );
  assert.equal(r.body.error.code, -32003);
  assert.equal(r.body.id, null);
  assert.equal(r.body.error.message, message);
}

async function assertInvalidToken(auth: string, message: RegExp) {
  const r = await rpc(appA, auth, "tools/list");
  assert.equal(r.status, 401, JSON.stringify(r.body));
  const header = r.headers.get("www-authenticate")!;
  assert.ok(header.startsWith(`${CHALLENGE}, error="invalid_token", error_description="`), header);
  assert.equal(r.body.error.code, -32001);
  assert.equal(r.body.id, null);
  assert.match(r.body.error.message, message);
}

Deno.test("protected resource metadata (RFC 9728) at /mcp's location, with CORS for MCP-Protocol-Version; none at the root", async () => {
  // RFC 9728 §3.3: a document names the resource of the URL it was fetched from; the root one would name the
  // origin, which is no resource of ours, so there is none (tests/mcp/sdk_client.test.ts drives the SDK there).
  const root = await appA.request("/.well-known/oauth-protected-resource");
  assert.equal(root.status, 404);
  await root.body?.cancel();
  for (const path of ["/.well-known/oauth-protected-resource/mcp"]) {
    const res = await appA.request(path);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(await res.json(), {
      resource: MCP_RESOURCE,
      authorization_servers: [TEST_ISSUER],
      scopes_supported: ["workspace"],
      bearer_methods_supported: ["header"],
      resource_name: "Portico workspace tools",
    });
    const pre = await appA.request(path, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:6274",
        "access-control-request-method": "GET",
        "access-control-request-headers": "mcp-protocol-version",
      },
    });
    assert.equal(pre.status, 204);
    assert.match(pre.headers.get("access-control-allow-headers") ?? "", /MCP-Protocol-Version/i);
  }
  const as = await (await appA.request("/.well-known/oauth-authorization-server")).json();
  assert.equal(as.client_id_metadata_document_supported, true);
  // Generic clients ask for every advertised scope: nothing that spends the person's credits is advertised.
  assert.deepEqual(as.scopes_supported, ["openid", "profile", "workspace", "offline_access"]);
});

Deno.test("no credential → 401 with the Bearer challenge; an unsupported scheme too; both credentials → 400", async () => {
  for (
    const headers of [{}, { authorization: "Basic dXNlcjpwYXNz" }, { authorization: "Bearer " }] as Record<
      string,
      string
    >[]
  ) {
    const r = await rpc(appA, null, "tools/list", undefined, headers);
    assert.equal(r.status, 401);
    assert.equal(r.headers.get("www-authenticate"), CHALLENGE);
  }
  const basic = await rpc(appA, null, "tools/list", undefined, { authorization: "Basic dXNlcjpwYXNz" });
  assert.match(basic.body.error.message, /^unsupported Authorization scheme/);
  const { auth } = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  const both = await rpc(appA, f.keys.owner, "tools/list", undefined, { authorization: auth });
  assert.equal(both.status, 400);
  assert.equal(both.body.error.code, -32600);
  assert.match(both.body.error.message, /send one credential/);
});

Deno.test("a Bearer caller sees exactly what a user-bound key of that person sees (roles, companies, both variants)", async () => {
  for (const role of ["owner", "manager", "accounting", "guest", "limited"] as const) {
    const { auth } = await bearerFor(db.sql, { userId: f.users[role], workspaceId: f.workspaceId });
    assert.deepEqual(
      sorted(await listedTools(appA, auth)),
      sorted(await listedTools(appA, f.keys[role])),
      role,
    );
    assert.deepEqual(
      sorted(await listedTools(appB, auth)),
      sorted(await listedTools(appB, f.keys[role])),
      role,
    );
  }
  // Company limits: the limited member sees company a only, exactly as with their key.
  const limited = await bearerFor(db.sql, { userId: f.users.limited, workspaceId: f.workspaceId });
  assert.deepEqual(
    await callOk(appA, limited.auth, "list_projects", {}),
    await callOk(appA, f.keys.limited, "list_projects", {}),
  );
  // A grant narrowed to one company on consent acts like a company-scoped key.
  const ownerA = await bearerFor(db.sql, {
    userId: f.users.owner,
    workspaceId: f.workspaceId,
    companyId: f.companies.a,
  });
  const created = await callOk(appA, ownerA.auth, "create_project", { name: "Bearer project in A" });
  assert.equal(created.companyId, f.companies.a);
  assert.deepEqual(
    await callOk(appA, ownerA.auth, "list_projects", {}),
    await callOk(appA, f.keys.ownerCompanyA, "list_projects", {}),
  );
  // Role gating: a guest's token cannot use project tools.
  const guest = await bearerFor(db.sql, { userId: f.users.guest, workspaceId: f.workspaceId });
  assert.match(
    await callFails(appA, guest.auth, "list_projects", {}, "access_denied"),
    /the guest role may not use projects/,
  );
  // User-context tools: open to a person in A; in B a Bearer caller is external (like a user key).
  const owner = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  assert.ok((await listedTools(appA, owner.auth)).includes("create_task"));
  assert.ok(!(await listedTools(appB, owner.auth)).includes("create_task"));
  const task = await callOk(appA, owner.auth, "create_task", { title: "made through OAuth" });
  const [row] = await db.sql`select created_by from tasks where id = ${task.id}`;
  assert.equal(row.created_by, f.users.owner);
});

Deno.test("module gating applies to a Bearer caller", async () => {
  const g = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "finance_collections") });
  const { auth } = await bearerFor(db.sql, { userId: g.users.owner, workspaceId: g.workspaceId });
  assert.ok(!(await listedTools(appA, auth)).includes("list_invoices"));
  await callFails(appA, auth, "list_invoices", {}, "unavailable");
});

Deno.test("refused tokens: audience, expiry, unknown key, alg none and HS256, scope, malformed, no grant", async () => {
  // Issue 23 point 7: a token for another audience is no longer invalid_token (401), which SDK 1.12.1 answers
  // by refreshing and retrying without end, but insufficient_scope (403) naming what to ask for.
  const audience =
    "the access token is not for this resource (its audience must be http://localhost:8000/mcp)";
  await assertNotForMcp(`Bearer ${await forgedToken({ aud: TEST_ISSUER })}`, audience);
  await assertNotForMcp(
    `Bearer ${await forgedToken({ aud: "https://payments.internal.example/api" })}`,
    audience,
  );
  await assertInvalidToken(
    `Bearer ${await forgedToken({ exp: Math.floor(Date.now() / 1000) - 60 })}`,
    /invalid or expired/,
  );
  const stranger = await generateKeyPair("RS256");
  await assertInvalidToken(
    `Bearer ${await forgedToken({ kid: "unknown-kid", key: stranger.privateKey })}`,
    /invalid or expired/,
  );
  // The server's kid with a foreign key: the signature does not verify.
  await assertInvalidToken(`Bearer ${await forgedToken({ key: stranger.privateKey })}`, /invalid or expired/);
  await assertInvalidToken(
    `Bearer ${await forgedToken({ alg: "HS256", key: new TextEncoder().encode("s".repeat(64)) })}`,
    /invalid or expired/,
  );
  const valid = await forgedToken();
  const [h, p] = valid.split(".");
  const noneHeader = btoa(JSON.stringify({ alg: "none", typ: "at+jwt", kid: JSON.parse(atob(h)).kid }))
    .replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");
  await assertInvalidToken(`Bearer ${noneHeader}.${p}.`, /malformed|invalid or expired/);
  await assertInvalidToken(`Bearer ${noneHeader}.${p}.c2ln`, /invalid or expired/);
  await assertInvalidToken("Bearer not-a-jwt", /malformed/);
  await assertInvalidToken(`Bearer ${"a".repeat(9000)}.b.c`, /malformed/);
  await assertInvalidToken(
    `Bearer ${await forgedToken({ claims: { grant_id: crypto.randomUUID() } })}`,
    /grant does not exist/,
  );
  // Unchanged claims of a real grant but another subject: refused.
  await assertInvalidToken(
    `Bearer ${await forgedToken({ sub: f.users.admin })}`,
    /grant does not exist/,
  );

  const noScope = await bearerFor(db.sql, {
    userId: f.users.owner,
    workspaceId: f.workspaceId,
    scopes: ["openid", "profile"],
  });
  await assertNotForMcp(noScope.auth, "the access token lacks the workspace scope");
});

Deno.test("access ends on the very next request: revocation, disconnect, member removal, disabled person, untrust", async () => {
  // Refresh-token (grant) revocation through RFC 7009.
  const revoked = await bearerFor(db.sql, { userId: f.users.manager, workspaceId: f.workspaceId });
  assert.equal((await rpc(appA, revoked.auth, "ping")).status, 200);
  await db.sql`update oauth_grants set revoked_at = now() where id = ${revoked.grantId}`;
  await assertInvalidToken(revoked.auth, /was revoked/);

  // Disconnect on /account/apps.
  const person = f.users.member;
  const clientId = await operatorClient(db.sql);
  await db
    .sql`insert into oauth_consents (user_id, client_id, scopes) values (${person}, ${clientId}, '{workspace}')
               on conflict do nothing`;
  const disconnected = await bearerFor(db.sql, { userId: person, workspaceId: f.workspaceId });
  assert.equal((await rpc(appA, disconnected.auth, "ping")).status, 200);
  await disconnectApp(db.sql, person, clientId);
  await assertInvalidToken(disconnected.auth, /was revoked/);

  // Removed from the workspace chosen on consent.
  const removed = await bearerFor(db.sql, { userId: f.users.accounting, workspaceId: f.workspaceId });
  assert.equal((await rpc(appA, removed.auth, "ping")).status, 200);
  await db
    .sql`delete from workspace_members where workspace_id = ${f.workspaceId} and user_id = ${f.users.accounting}`;
  try {
    await assertInvalidToken(removed.auth, /no longer a member/);
  } finally {
    await addMember(db.sql, f.workspaceId, f.users.accounting, "accounting", null);
  }

  // A disabled person: tokens and keys both stop.
  const disabled = await bearerFor(db.sql, { userId: f.users.admin, workspaceId: f.workspaceId });
  assert.equal((await rpc(appA, disabled.auth, "ping")).status, 200);
  await setUserDisabled(db.sql, f.users.admin, true);
  try {
    await assertInvalidToken(disabled.auth, /account is disabled/);
    const byKey = await rpc(appA, f.keys.admin, "ping");
    assert.equal(byKey.status, 403);
    assert.equal(byKey.body.error.message, "the key's user is disabled");
    // Sign-in with the right password says so; the wrong password says nothing about the account.
    const [{ email }] = await db.sql`select email from users where id = ${f.users.admin}`;
    assert.deepEqual(await signIn(db.sql, { email, password: "test password 123", ip: "192.0.2.77" }), {
      ok: false,
      reason: "disabled",
    });
    assert.deepEqual(await signIn(db.sql, { email, password: "wrong-password", ip: "192.0.2.78" }), {
      ok: false,
      reason: "invalid_credentials",
    });
  } finally {
    await setUserDisabled(db.sql, f.users.admin, false);
  }
  assert.equal((await rpc(appA, f.keys.admin, "ping")).status, 200);

  // Withdrawn trust ends a self-registered client's workspace grants.
  const selfReg = (await createClient(db.sql, {
    name: "Self-registered MCP client",
    redirectUris: [REDIRECT],
    confidential: false,
    scopes: ["openid", "profile"],
    grantTypes: ["authorization_code"],
    selfRegistered: true,
  })).clientId;
  await setClientTrusted(db.sql, selfReg, true);
  const trusted = await bearerFor(db.sql, {
    userId: f.users.owner,
    workspaceId: f.workspaceId,
    clientId: selfReg,
  });
  assert.equal((await rpc(appA, trusted.auth, "ping")).status, 200);
  await setClientTrusted(db.sql, selfReg, false);
  await assertInvalidToken(trusted.auth, /was revoked/);
});

Deno.test("the audit trail names the OAuth client of a Bearer call (and no key)", async () => {
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000 });
  const config = parseConfig({ ISSUER: TEST_ISSUER, SECRET_KEY: TEST_SECRET });
  const app = createApp({ config, sql: db.sql, log: silentLogger, secretKey: TEST_SECRET, audit });
  const g = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  await callOk(app, g.auth, "list_projects", {});
  await audit.close();
  const [row] = await db.sql`
    select workspace_id, key_id, client_id, user_id, tool, outcome from audit_log
     where client_id = ${g.clientId} order by id desc limit 1`;
  assert.deepEqual({ ...row }, {
    workspace_id: f.workspaceId,
    key_id: null,
    client_id: g.clientId,
    user_id: f.users.owner,
    tool: "list_projects",
    outcome: "ok",
  });
});

Deno.test("the whole flow over HTTP: consent picks a workspace and company, the token reaches only that place", async () => {
  const person = f.users.manager;
  const [{ email }] = await db.sql`select email from users where id = ${person}`;
  // The manager also belongs to the other workspace, so consent offers a choice.
  await addMember(db.sql, f.other.workspaceId, person, "member", null);
  const clientId = await operatorClient(db.sql);
  const browser = new Browser(appA);
  const { verifier, challenge } = pkce();
  const url = authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s1",
    scope: "workspace",
    resource: MCP_RESOURCE,
  });
  // The consent page lists both workspaces and each company of the test workspace.
  const place = `${f.workspaceId}:${f.companies.b}`;
  const consentHtml = await consentPageFor(new Browser(appA), url, email, "test password 123");
  assert.match(consentHtml, /Where may it act as you\?/);
  for (const value of [f.workspaceId, `${f.workspaceId}:${f.companies.a}`, place, f.other.workspaceId]) {
    assert.ok(consentHtml.includes(`value="${value}"`), value);
  }
  assert.ok(
    consentHtml.includes(
      "Use your workspace tools as you: read and change projects, tasks, clients, invoices and more " +
        "in the workspace you choose below",
    ),
  );

  const redirect = await authorizeThrough(browser, url, email, "allow", {
    place,
    password: "test password 123",
  });
  const code = redirect.searchParams.get("code")!;
  const res = await token(appA, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    resource: MCP_RESOURCE,
  });
  assert.equal(res.status, 200);
  const tokens = await res.json();
  assert.equal(tokens.scope, "workspace");
  const claims = JSON.parse(
    atob(tokens.access_token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")),
  );
  assert.equal(claims.aud, MCP_RESOURCE);
  const [grant] = await db
    .sql`select workspace_id, company_id from oauth_grants where id = ${claims.grant_id}`;
  assert.deepEqual({ ...grant }, { workspace_id: f.workspaceId, company_id: f.companies.b });

  const auth = `Bearer ${tokens.access_token}`;
  const keyB = await f.key({ user: person, companyId: f.companies.b });
  assert.deepEqual(sorted(await listedTools(appA, auth)), sorted(await listedTools(appA, keyB)));
  assert.deepEqual(
    await callOk(appA, auth, "list_projects", {}),
    await callOk(appA, keyB, "list_projects", {}),
  );

  // A second authorization without prompt reuses the remembered place: no page, same workspace and company.
  const again = pkce();
  const second = await browser.get(authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: again.challenge,
    code_challenge_method: "S256",
    state: "s2",
    scope: "workspace",
  }));
  assert.equal(second.status, 302);
  const code2 = new URL(second.headers.get("location")!).searchParams.get("code")!;
  const res2 = await token(appA, {
    grant_type: "authorization_code",
    code: code2,
    redirect_uri: REDIRECT,
    code_verifier: again.verifier,
    client_id: clientId,
  });
  const t2 = await res2.json();
  const c2 = JSON.parse(atob(t2.access_token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
  // No resource sent: a `workspace` request is bound to /mcp anyway.
  assert.equal(c2.aud, MCP_RESOURCE);
  const [g2] = await db.sql`select workspace_id, company_id from oauth_grants where id = ${c2.grant_id}`;
  assert.deepEqual({ ...g2 }, { workspace_id: f.workspaceId, company_id: f.companies.b });
  assert.equal((await rpc(appA, `Bearer ${t2.access_token}`, "ping")).status, 200);

  // A forged place (a workspace the person does not belong to) is refused on the consent POST.
  const forgedBrowser = new Browser(appA);
  const p3 = pkce();
  const url3 = authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: p3.challenge,
    code_challenge_method: "S256",
    state: "s3",
    scope: "workspace",
    prompt: "consent",
  });
  await assert.rejects(
    authorizeThrough(forgedBrowser, url3, email, "allow", {
      place: (await db
        .sql`select id from workspaces where id <> ${f.workspaceId} and id <> ${f.other.workspaceId} limit 1`)[
          0
        ]
        ?.id ?? crypto.randomUUID(),
      password: "test password 123",
    }),
    /unexpected 400/,
  );
});

Deno.test("who may obtain workspace: operator clients that registered it, trusted self-registered clients", async () => {
  const { challenge } = pkce();
  const params = (clientId: string, extra: Record<string, string> = {}) =>
    authorizeUrl({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st",
      scope: "openid workspace",
      ...extra,
    });
  // An operator client registered without workspace: invalid_scope back to the client, with the reason.
  const plain = (await createClient(db.sql, {
    name: "Operator without workspace",
    redirectUris: [REDIRECT],
    confidential: false,
    scopes: ["openid", "profile"],
    grantTypes: ["authorization_code"],
    selfRegistered: false,
  })).clientId;
  const refused = await new Browser(appA).get(params(plain));
  assert.equal(refused.status, 302);
  const loc = new URL(refused.headers.get("location")!);
  assert.equal(loc.searchParams.get("error"), "invalid_scope");
  assert.equal(
    loc.searchParams.get("error_description"),
    "this client is not registered for the workspace scope",
  );

  // A self-registered client: the approval page after sign-in until the operator trusts it, then consent.
  const reg = await appA.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Some MCP client",
      redirect_uris: [REDIRECT],
      scope: "openid workspace",
    }),
  });
  const { client_id } = await reg.json();
  const [{ email }] = await db.sql`select email from users where id = ${f.users.owner}`;
  const page = await consentPageFor(new Browser(appA), params(client_id), email, "test password 123");
  assert.match(page, /action="\/oauth\/authorize\/approval"/);
  assert.doesNotMatch(page, /action="\/oauth\/authorize\/consent"/);
  await setClientTrusted(db.sql, client_id, true);
  const ok = await authorizeThrough(new Browser(appA), params(client_id), email, "allow", {
    password: "test password 123",
  });
  assert.ok(ok.searchParams.get("code"));
});

Deno.test("consent names a foreign audience; a person in no workspace can only deny", async () => {
  const clientId = await operatorClient(db.sql);
  const { challenge } = pkce();
  await db.sql`
    insert into users (email, name, password_hash) select 'loner@test.local', 'Loner', password_hash
      from users where id = ${f.users.owner} returning id`;
  const ownerEmail = (await db.sql`select email from users where id = ${f.users.owner}`)[0].email;
  const open = (extra: Record<string, string>) => {
    const { email, ...params } = extra;
    return consentPageFor(
      new Browser(appA),
      authorizeUrl({
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "st",
        ...params,
      }),
      email ?? ownerEmail,
      "test password 123",
    );
  };
  const foreign = await open({ scope: "openid", resource: "https://payments.internal.example/api" });
  assert.match(
    foreign,
    /Its access will be used at <strong>https:\/\/payments\.internal\.example\/api<\/strong>/,
  );
  const own = await open({ scope: "openid workspace", resource: MCP_RESOURCE });
  assert.doesNotMatch(own, /Its access will be used at/);
  const lonely = await open({ scope: "workspace", email: "loner@test.local" });
  assert.match(lonely, /You are not a member of any workspace/);
  assert.doesNotMatch(lonely, /value="allow"/);
});

Deno.test("a revoked grant is refused even while its token's signature is cached", async () => {
  const g = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  for (let i = 0; i < 3; i++) {
    assert.equal((await postMcp(appA, g.auth, { jsonrpc: "2.0", id: i, method: "ping" })).status, 200);
  }
  await db.sql`update oauth_grants set revoked_at = now() where id = ${g.grantId}`;
  await assertInvalidToken(g.auth, /was revoked/);
});

Deno.test("one SQL round trip per request on both ways in (the signature is checked in-process and cached)", async () => {
  const { default: postgres } = await import("postgres");
  let queries: string[] = [];
  const counted = postgres(db.url, {
    max: 2,
    onnotice: () => {},
    types: {},
    debug: (_conn: number, query: string) => queries.push(query),
  });
  try {
    // deno-lint-ignore no-explicit-any
    const app = testApp(counted as any, { MCP_VARIANT: "A" });
    const g = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
    for (const credential of [g.auth, f.keys.owner]) {
      // warm: keys loaded, last_used_at written (then not again within the minute)
      assert.equal((await rpc(app, credential, "ping")).status, 200);
      await lastUsedFresh(db.sql, credential);
      queries = [];
      assert.equal((await rpc(app, credential, "ping")).status, 200);
      assert.equal(queries.length, 1, queries.join("\n---\n"));
    }
  } finally {
    await counted.end({ timeout: 5 });
  }
});

Deno.test("revoking the access token at /oauth/revoke ends it at /mcp on the next request, cached signature or not", async () => {
  const g = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  for (let i = 0; i < 2; i++) {
    assert.equal((await postMcp(appA, g.auth, { jsonrpc: "2.0", id: i, method: "ping" })).status, 200);
  }
  const res = await appA.request("/oauth/revoke", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: g.token, token_type_hint: "access_token", client_id: g.clientId })
      .toString(),
  });
  assert.equal(res.status, 200);
  await assertInvalidToken(g.auth, /was revoked/);
});
