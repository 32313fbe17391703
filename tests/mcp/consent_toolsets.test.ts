// Toolsets and read-only chosen on the consent page (issue 16.3): stored code → grant → consent, read by /mcp
// through the Bearer token (tools/list narrowed, `unavailable:` outside), never widened by the URL, reused by a
// later authorization, shown on Connected apps; a re-consent starts from the remembered choice and narrows live
// grants at once; an emptied or forged choice is refused with the page again.
import assert from "node:assert/strict";
import { inToolsets, TOOLSETS } from "../../lib/mcp/toolsets.ts";
import { TOOLS } from "../../tools/mod.ts";
import { testApp } from "../helpers/app.ts";
import { MCP_RESOURCE, operatorClient } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, listedTools, MCP_URL, mcpHeaders } from "../helpers/mcp.ts";
import {
  authorizeUrl,
  Browser,
  consentPageFor,
  field,
  location,
  pkce,
  REDIRECT,
  token,
} from "../oauth/helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const app = testApp(db.sql, { MCP_VARIANT: "A" });
const clientId = await operatorClient(db.sql);
const PASSWORD = "test password 123";
Deno.test.afterAll(() => db.close());

const toolByName = new Map(TOOLS.map((t) => [t.name, t]));

async function emailOf(userId: string): Promise<string> {
  return (await db.sql<{ email: string }[]>`select email from users where id = ${userId}`)[0].email;
}

function authUrl(challenge: string, extra: Record<string, string> = {}): string {
  return authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    scope: "workspace",
    resource: MCP_RESOURCE,
    ...extra,
  });
}

/** Allow on a consent page with these extra fields (one `toolset` per checked box, as a browser sends them). */
async function allow(b: Browser, html: string, pairs: Array<[string, string]>): Promise<Response> {
  return await b.request("/oauth/authorize/consent", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([
      ["csrf", field(html, "csrf")!],
      ["ticket", field(html, "ticket")!],
      ["decision", "allow"],
      ...pairs,
    ]).toString(),
  });
}

/** The code in the redirect back to the client, exchanged: the Bearer credential and its grant. */
async function exchanged(res: Response, verifier: string): Promise<{ auth: string; grantId: string }> {
  assert.ok(res.status === 302 || res.status === 303, `redirect expected, got ${res.status}`);
  const back = location(res);
  assert.equal(back.origin + back.pathname, REDIRECT);
  const code = back.searchParams.get("code")!;
  const t = await token(app, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    resource: MCP_RESOURCE,
  });
  assert.equal(t.status, 200);
  const body = await t.json();
  const claims = JSON.parse(atob(body.access_token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
  return { auth: `Bearer ${body.access_token}`, grantId: claims.grant_id };
}

async function grantLimits(grantId: string) {
  const [row] = await db.sql`select toolsets, read_only from oauth_grants where id = ${grantId}`;
  return { ...row };
}

async function consentLimits(userId: string) {
  const [row] = await db.sql`
    select toolsets, read_only from oauth_consents where user_id = ${userId} and client_id = ${clientId}`;
  return row ? { ...row } : null;
}

let rpcId = 1;
async function rpcAt(query: string, auth: string, method: string, params?: unknown) {
  const res = await app.request(`${MCP_URL}${query ? `?${query}` : ""}`, {
    method: "POST",
    headers: mcpHeaders(auth),
    body: JSON.stringify({ jsonrpc: "2.0", id: rpcId++, method, params }),
  });
  return { status: res.status, body: await res.json() };
}

async function namesAt(query: string, auth: string): Promise<string[]> {
  const r = await rpcAt(query, auth, "tools/list");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result.tools.map((t: { name: string }) => t.name);
}

async function callText(query: string, auth: string, name: string, args: unknown = {}): Promise<string> {
  const r = await rpcAt(query, auth, "tools/call", { name, arguments: args });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.isError, true, r.body.result.content[0].text);
  return r.body.result.content[0].text;
}

/** The names a key of the same person lists, narrowed to `sets` and, when asked, read-only tools. */
function narrowedTo(full: string[], sets: string[], readOnly: boolean): string[] {
  return full.filter((n) => {
    const t = toolByName.get(n)!;
    return inToolsets(t, sets) && (!readOnly || t.annotations.readOnlyHint);
  });
}

const checked = (html: string, t: string) => html.includes(`name="toolset" value="${t}" checked>`);

Deno.test("consent offers the toolsets (every one checked, collapsed) and read-only only when workspace is asked", async () => {
  const b = new Browser(app);
  const html = await consentPageFor(
    b,
    authUrl(pkce().challenge),
    await emailOf(f.users.accounting),
    PASSWORD,
  );
  assert.match(html, /Where may it act as you\?/);
  for (const t of TOOLSETS) assert.ok(checked(html, t), t);
  assert.match(html, /<input type="checkbox" name="read_only" value="1" >/);
  assert.match(html, /<input type="hidden" name="toolset_choice" value="1">/);
  assert.match(html, /<details class="limits" ><summary>Limit the tools it may use \(optional\)<\/summary>/);
  // Without `workspace` there are no tools to limit, so there is no choice.
  const plain = await (await b.get(authUrl(pkce().challenge, { scope: "openid", prompt: "consent" }))).text();
  assert.match(plain, /action="\/oauth\/authorize\/consent"/);
  assert.doesNotMatch(plain, /name="toolset"/);
});

Deno.test("limits chosen on consent: stored code → grant → consent, narrow tools/list and calls, the URL never widens, reused later", async () => {
  const person = f.users.manager;
  const b = new Browser(app);
  const { verifier, challenge } = pkce();
  const html = await consentPageFor(b, authUrl(challenge), await emailOf(person), PASSWORD);
  const res = await allow(b, html, [
    ["place", f.workspaceId],
    ["toolset_choice", "1"],
    ["toolset", "time"],
    ["toolset", "tasks"],
    ["read_only", "1"],
  ]);
  const g = await exchanged(res, verifier);
  assert.deepEqual(await grantLimits(g.grantId), { toolsets: ["tasks", "time"], read_only: true });
  assert.deepEqual(await consentLimits(person), { toolsets: ["tasks", "time"], read_only: true });

  // tools/list through the token: exactly the manager's tasks and time tools that only read
  const full = await listedTools(app, f.keys.manager);
  const own = narrowedTo(full, ["tasks", "time"], true);
  assert.ok(own.includes("list_tasks") && own.includes("list_time_logs"));
  assert.deepEqual(await namesAt("", g.auth), own);
  // a write and a tool outside the toolsets answer unavailable:, and nothing is written
  const [{ n: before }] = await db.sql<{ n: number }[]>`select count(*)::int as n from tasks`;
  assert.equal(
    await callText("", g.auth, "create_task", { title: "must not exist" }),
    "unavailable: create_task changes data and this connection is read-only",
  );
  assert.equal(
    await callText("", g.auth, "list_projects"),
    "unavailable: list_projects is in the projects toolset, outside this connection's toolsets (tasks, time)",
  );
  const [{ n: after }] = await db.sql<{ n: number }[]>`select count(*)::int as n from tasks`;
  assert.equal(after, before);
  // the URL narrows further and never widens
  assert.deepEqual(await namesAt("readonly=0", g.auth), own);
  // (the context tools, in no toolset, stay: they say who and where the caller is)
  assert.deepEqual(await namesAt("toolsets=finance,projects", g.auth), ["get_context", "list_members"]);
  assert.deepEqual(await namesAt("toolsets=tasks", g.auth), narrowedTo(full, ["tasks"], true));
  assert.equal(
    await callText("readonly=0", g.auth, "create_task", { title: "still not" }),
    "unavailable: create_task changes data and this connection is read-only",
  );

  // Connected apps says what the app may use
  const apps = await (await b.get("/account/apps")).text();
  assert.match(apps, /<dt>Tools<\/dt><dd data-limits>only Tasks, Time tracking; read-only<\/dd>/);

  // A later authorization without the page reuses the remembered limits, like the workspace.
  const again = pkce();
  const second = await b.get(authUrl(again.challenge));
  assert.equal(second.status, 302);
  const g2 = await exchanged(second, again.verifier);
  assert.notEqual(g2.grantId, g.grantId);
  assert.deepEqual(await grantLimits(g2.grantId), { toolsets: ["tasks", "time"], read_only: true });
  assert.deepEqual(await namesAt("", g2.auth), own);

  // Disconnect still ends a limited grant on the next request.
  const apps2 = await (await b.get("/account/apps")).text();
  const revoke = await b.post("/account/apps/revoke", { csrf: field(apps2, "csrf")!, client_id: clientId });
  assert.equal(revoke.status, 303);
  for (const auth of [g.auth, g2.auth]) assert.equal((await rpcAt("", auth, "ping")).status, 401);
});

Deno.test("re-consent starts from the remembered choice; widening reaches only the new grant, narrowing every live one", async () => {
  const person = f.users.owner;
  const b = new Browser(app);
  const first = pkce();
  const html = await consentPageFor(b, authUrl(first.challenge), await emailOf(person), PASSWORD);
  const g1 = await exchanged(
    await allow(b, html, [["place", f.workspaceId], ["toolset_choice", "1"], ["toolset", "tasks"], [
      "toolset",
      "crm",
    ]]),
    first.verifier,
  );
  assert.deepEqual(await grantLimits(g1.grantId), { toolsets: ["tasks", "crm"], read_only: false });

  // prompt=consent: the page opens the choice with what the app had, not with everything
  const second = pkce();
  const page2 = await (await b.get(authUrl(second.challenge, { prompt: "consent" }))).text();
  assert.match(page2, /<details class="limits" open><summary>/);
  assert.deepEqual(TOOLSETS.filter((t) => checked(page2, t)), ["tasks", "crm"]);
  // allowing everything this time: the new grant has no limits; the earlier grant keeps its own
  const g2 = await exchanged(
    await allow(b, page2, [
      ["place", f.workspaceId],
      ["toolset_choice", "1"],
      ...TOOLSETS.map((t): [
        string,
        string,
      ] => ["toolset", t]),
    ]),
    second.verifier,
  );
  assert.deepEqual(await grantLimits(g2.grantId), { toolsets: null, read_only: false });
  assert.deepEqual(await grantLimits(g1.grantId), { toolsets: ["tasks", "crm"], read_only: false });
  assert.deepEqual(await consentLimits(person), { toolsets: null, read_only: false });
  assert.deepEqual(await namesAt("", g2.auth), await listedTools(app, f.keys.owner));

  // a code issued under the wide choice and not yet exchanged (a later authorization, no page)
  const pending = pkce();
  const pendingRedirect = await b.get(authUrl(pending.challenge));
  assert.equal(pendingRedirect.status, 302);

  // narrowing to tasks, read-only: every live grant of the app is narrowed at once (intersection, read-only)
  const third = pkce();
  const page3 = await (await b.get(authUrl(third.challenge, { prompt: "consent" }))).text();
  const g3 = await exchanged(
    await allow(b, page3, [["place", f.workspaceId], ["toolset_choice", "1"], ["toolset", "tasks"], [
      "read_only",
      "1",
    ]]),
    third.verifier,
  );
  for (const id of [g1.grantId, g2.grantId, g3.grantId]) {
    assert.deepEqual(await grantLimits(id), { toolsets: ["tasks"], read_only: true }, id);
  }
  const tasksOnly = narrowedTo(await listedTools(app, f.keys.owner), ["tasks"], true);
  for (const g of [g1, g2, g3]) assert.deepEqual(await namesAt("", g.auth), tasksOnly);
  // and the code issued before the narrowing makes a narrowed grant too
  const g4 = await exchanged(pendingRedirect, pending.verifier);
  assert.deepEqual(await grantLimits(g4.grantId), { toolsets: ["tasks"], read_only: true });
  assert.deepEqual(await namesAt("", g4.auth), tasksOnly);
  assert.equal(
    (await db.sql`select 1 from oauth_grants where user_id = ${person} and revoked_at is null
                   and (toolsets is null or not read_only)`).length,
    0,
    "no live grant of the app is wider than the last choice",
  );
});

Deno.test("an emptied, unknown or malformed choice: the consent page again (400) with the reason, no code, nothing stored", async () => {
  const person = f.users.member;
  const b = new Browser(app);
  const { verifier, challenge } = pkce();
  let html = await consentPageFor(b, authUrl(challenge), await emailOf(person), PASSWORD);
  const cases: Array<[Array<[string, string]>, string]> = [
    [[["toolset_choice", "1"]], "Choose at least one toolset it may use, or deny the request."],
    [
      [["toolset_choice", "1"], ["toolset", "tasks"], ["toolset", "everything"]],
      "Choose toolsets from the list.",
    ],
    [
      [["toolset_choice", "1"], ["toolset", "tasks"], ["read_only", "yes"]],
      "Read-only is either checked or not.",
    ],
  ];
  for (const [pairs, problem] of cases) {
    const res = await allow(b, html, [["place", `${f.workspaceId}:${f.companies.a}`], ...pairs]);
    assert.equal(res.status, 400, problem);
    assert.equal(res.headers.get("location"), null, "nothing goes back to the client");
    html = await res.text();
    assert.ok(html.includes(`<p class="error" role="alert">${problem}</p>`), problem);
    // the person's own choices are kept: the place and the toolsets they checked
    assert.match(html, new RegExp(`name="place" value="${f.workspaceId}:${f.companies.a}" checked`));
    assert.deepEqual(
      TOOLSETS.filter((t) => checked(html, t)),
      pairs.some(([, v]) => v === "tasks") ? ["tasks"] : [],
    );
    assert.equal(await consentLimits(person), null, "no consent stored");
    const [{ n }] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from oauth_codes where user_id = ${person} and client_id = ${clientId}`;
    assert.equal(n, 0, "no code issued");
  }
  // The page shown again carries a fresh ticket that works.
  const g = await exchanged(
    await allow(b, html, [["place", f.workspaceId], ["toolset_choice", "1"], ["toolset", "documents"]]),
    verifier,
  );
  assert.deepEqual(await grantLimits(g.grantId), { toolsets: ["documents"], read_only: false });
});

Deno.test("a consent form without the choice (a script, an older page) limits nothing", async () => {
  const person = f.users.admin;
  const b = new Browser(app);
  const { verifier, challenge } = pkce();
  const html = await consentPageFor(b, authUrl(challenge), await emailOf(person), PASSWORD);
  const g = await exchanged(await allow(b, html, [["place", f.workspaceId]]), verifier);
  assert.deepEqual(await grantLimits(g.grantId), { toolsets: null, read_only: false });
  assert.deepEqual(await consentLimits(person), { toolsets: null, read_only: false });
  assert.deepEqual(await namesAt("", g.auth), await listedTools(app, f.keys.admin));
});
