// The person's side of approval requests (issue 23 point 1): an app that registered itself asks for `workspace`;
// after sign-in the person asks the operators, waits, and the same authorization continues once approved — or
// ends with access_denied when denied, cancelled or not answered in time. Operators approve in one click here.
import assert from "node:assert/strict";
import { parseConfig } from "../../lib/config.ts";
import { createLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { sealWaiting, waitPath } from "../../lib/oauth/approval_flow.ts";
import { askApproval, decideRequest, MAX_PENDING_PER_PERSON, setTrust } from "../../lib/oauth/approvals.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, rpc } from "../helpers/mcp.ts";
import {
  authorizeUrl,
  Browser,
  field,
  ISSUER,
  location,
  pkce,
  REDIRECT,
  registerPublic,
  token,
} from "./helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

const lines: Array<Record<string, unknown>> = [];
const app = createApp({
  config: parseConfig({ ISSUER, SECRET_KEY: TEST_SECRET, ...TEST_RATE_LIMITS }),
  sql: db.sql,
  log: createLogger("info", (line) => lines.push(JSON.parse(line))),
  secretKey: TEST_SECRET,
  scrypt: TEST_SCRYPT,
});
const requestedLines = () => lines.filter((l) => l.msg === "approval requested");

const emailOf = async (id: string) =>
  (await db.sql`select email from users where id = ${id}`)[0].email as string;
const member = { id: f.users.member, email: await emailOf(f.users.member) };
const manager = { id: f.users.manager, email: await emailOf(f.users.manager) };
const operator = { id: f.users.admin, email: await emailOf(f.users.admin) };
await db.sql`update users set operator = true where id = ${operator.id}`;
const PASSWORD = "test password 123";

function authUrl(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  return authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "openid workspace",
    state: "st-approval",
    ...extra,
  });
}

/** Follows redirects inside the app; returns the page reached, or the redirect that leaves it. */
async function follow(browser: Browser, res: Response): Promise<Response> {
  while (res.status === 302 || res.status === 303) {
    const next = location(res);
    if (next.origin !== ISSUER) return res;
    res = await browser.get(next.pathname + next.search);
  }
  return res;
}

/** Opens the authorization URL in a fresh browser and signs `who` in; returns the page after sign-in. */
async function signedIn(clientId: string, who: { email: string }, extra: Record<string, string> = {}) {
  const browser = new Browser(app);
  const { verifier, challenge } = pkce();
  const page = await browser.get(authUrl(clientId, challenge, extra));
  assert.equal(page.status, 200, "the request goes on to sign-in");
  const html = await page.text();
  assert.match(html, /action="\/signin"/);
  const res = await browser.post("/signin", {
    csrf: field(html, "csrf")!,
    ticket: field(html, "ticket")!,
    email: who.email,
    password: PASSWORD,
  });
  return { browser, verifier, page: await follow(browser, res) };
}

function formOf(html: string) {
  return {
    csrf: field(html, "csrf")!,
    ticket: field(html, "ticket")!,
    place: html.match(/name="place" value="([^"]+)"/)?.[1] ?? "",
  };
}

/** A request stored directly (as the ask page would), for the test's own workspace. */
function askFor(clientId: string, userId: string) {
  return askApproval(db.sql, {
    clientId,
    userId,
    place: { workspaceId: f.workspaceId, companyId: null },
    scopes: ["workspace"],
    note: "",
  });
}

async function decisions(clientId: string) {
  return await db.sql`
    select action, via, operator_id as "operatorId" from operator_decisions where client_id = ${clientId}
     order by id`;
}

async function trusted(clientId: string): Promise<boolean> {
  return (await db.sql`select trusted from oauth_clients where client_id = ${clientId}`)[0].trusted;
}

Deno.test("ask → wait → an operator approves → the same authorization continues to consent, code and tools", async () => {
  const client = await registerPublic(app, { client_name: "Waiting App" });
  const { browser, verifier, page } = await signedIn(client.client_id, member);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<strong>Waiting App<\/strong> needs an operator(&#39;|')s approval/);
  assert.match(html, /action="\/oauth\/authorize\/approval"/);
  assert.match(html, /data-scope="workspace"/);
  assert.match(html, /name="decision" value="ask"/);
  assert.doesNotMatch(html, /value="approve"/, "only operators see Approve");
  const form = formOf(html);
  assert.ok(form.place.startsWith(f.workspaceId));

  const asked = await browser.post("/oauth/authorize/approval", {
    ...form,
    decision: "ask",
    note: "For the weekly report",
  });
  assert.equal(asked.status, 303);
  const waitAt = location(asked);
  assert.equal(waitAt.pathname, "/oauth/authorize/wait");
  const [row] = await db.sql`
    select status, note, workspace_id, scopes, user_id from oauth_approval_requests
     where client_id = ${client.client_id}`;
  assert.deepEqual({ ...row }, {
    status: "pending",
    note: "For the weekly report",
    workspace_id: f.workspaceId,
    scopes: ["openid", "workspace"],
    user_id: member.id,
  });
  const announced = requestedLines().filter((l) => l.client_id === client.client_id);
  assert.equal(announced.length, 1, "one warn line per new request");
  assert.equal(announced[0].level, "warn");
  assert.equal(announced[0].user_id, member.id);
  assert.ok(!JSON.stringify(announced[0]).includes(member.email), "ids only");
  assert.ok(!JSON.stringify(announced[0]).includes("weekly report"), "no note in the log");

  const waiting = await browser.get(waitAt.pathname + waitAt.search);
  assert.equal(waiting.status, 200);
  assert.match(waiting.headers.get("content-security-policy") ?? "", /connect-src 'self'/);
  const waitHtml = await waiting.text();
  assert.match(waitHtml, /Waiting for an operator/);
  assert.match(waitHtml, /data-poll="\/oauth\/authorize\/wait\?w=/);
  assert.match(waitHtml, />Check again</);
  const poll = () =>
    browser.request(waitAt.pathname + waitAt.search, { headers: { accept: "application/json" } });
  assert.deepEqual(await (await poll()).json(), { state: "pending" });

  // Another browser of the same person's (a second install asking again) adds no request and no line.
  const second = await signedIn(client.client_id, member);
  assert.equal(second.page.status, 200);
  assert.match(await second.page.text(), /Waiting for an operator/);
  assert.equal(requestedLines().filter((l) => l.client_id === client.client_id).length, 1);
  assert.equal(
    (await db
      .sql`select count(*)::int as n from oauth_approval_requests where client_id = ${client.client_id}`)[0]
      .n,
    1,
  );

  const [{ id }] = await db.sql`select id from oauth_approval_requests where client_id = ${client.client_id}`;
  const decided = await decideRequest(db.sql, id, true, { via: "page", operatorId: operator.id });
  assert.equal(decided.kind, "decided");
  assert.deepEqual(await (await poll()).json(), { state: "changed" });

  const consent = await follow(browser, await browser.get(waitAt.pathname + waitAt.search));
  assert.equal(consent.status, 200);
  const consentHtml = await consent.text();
  assert.match(consentHtml, /action="\/oauth\/authorize\/consent"/);
  assert.match(
    consentHtml,
    new RegExp(`value="${f.workspaceId}" checked`),
    "the workspace asked for is checked",
  );
  const allowed = await browser.post("/oauth/authorize/consent", {
    ...formOf(consentHtml),
    decision: "allow",
  });
  assert.equal(allowed.status, 303);
  const back = location(allowed);
  assert.equal(back.origin + back.pathname, REDIRECT);
  assert.equal(back.searchParams.get("state"), "st-approval");
  const res = await token(app, {
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: client.client_id,
  });
  assert.equal(res.status, 200);
  const tokens = await res.json();
  assert.equal(tokens.scope, "openid workspace");
  assert.equal((await rpc(app, `Bearer ${tokens.access_token}`, "tools/list")).status, 200);
});

Deno.test("an operator approves on their own authorization in one click; a non-operator cannot", async () => {
  const client = await registerPublic(app, { client_name: "Laptop App" });

  const notOp = await signedIn(client.client_id, manager);
  const notOpForm = formOf(await notOp.page.text());
  const refused = await notOp.browser.post("/oauth/authorize/approval", {
    ...notOpForm,
    decision: "approve",
  });
  assert.equal(refused.status, 403);
  assert.match(await refused.text(), /Only operators approve apps/);
  assert.equal(await trusted(client.client_id), false);
  assert.equal((await decisions(client.client_id)).length, 0);

  const { browser, page } = await signedIn(client.client_id, operator);
  const html = await page.text();
  assert.match(html, /name="decision" value="approve"/);
  assert.doesNotMatch(html, /value="ask"/);
  const approved = await browser.post("/oauth/authorize/approval", { ...formOf(html), decision: "approve" });
  assert.equal(approved.status, 303);
  const consent = await follow(browser, approved);
  assert.equal(consent.status, 200);
  assert.match(await consent.text(), /action="\/oauth\/authorize\/consent"/);
  assert.equal(await trusted(client.client_id), true);
  assert.deepEqual((await decisions(client.client_id)).map((d) => ({ ...d })), [
    { action: "approve", via: "page", operatorId: operator.id },
  ]);
  assert.equal(requestedLines().filter((l) => l.client_id === client.client_id).length, 0, "nobody to tell");
});

Deno.test("denied: the waiting page and every later authorization say so; the client gets access_denied", async () => {
  const client = await registerPublic(app, { client_name: "Denied App" });
  const { browser, page } = await signedIn(client.client_id, member);
  const asked = await browser.post("/oauth/authorize/approval", {
    ...formOf(await page.text()),
    decision: "ask",
  });
  const waitAt = location(asked);
  const [{ id }] = await db.sql`select id from oauth_approval_requests where client_id = ${client.client_id}`;
  assert.equal((await decideRequest(db.sql, id, false, { via: "cli" })).kind, "decided");

  const ended = await browser.get(waitAt.pathname + waitAt.search);
  assert.equal(ended.status, 403);
  const html = await ended.text();
  assert.match(html, /Not approved/);
  const back = new URL(
    html.match(/href="(http:\/\/127\.0\.0\.1:8976\/callback[^"]+)"/)![1].replaceAll("&amp;", "&"),
  );
  assert.equal(back.searchParams.get("error"), "access_denied");
  assert.equal(back.searchParams.get("state"), "st-approval");
  assert.equal(back.searchParams.get("iss"), ISSUER);
  assert.equal(await trusted(client.client_id), false);

  const again = await signedIn(client.client_id, member);
  assert.equal(again.page.status, 403);
  assert.match(await again.page.text(), /Not approved/);
  // Another person may still ask: a denial ends one person's request.
  const other = await signedIn(client.client_id, manager);
  assert.equal(other.page.status, 200);
  assert.match(await other.page.text(), /name="decision" value="ask"/);
});

Deno.test("cancel, bad input and other browsers: clear answers, nothing stored", async (t) => {
  const client = await registerPublic(app, { client_name: "Careful App" });
  const count = async () =>
    (await db
      .sql`select count(*)::int as n from oauth_approval_requests where client_id = ${client.client_id}`)[0]
      .n;

  await t.step("a note over 500 characters and a place not the person's: the page again, 400", async () => {
    const { browser, page } = await signedIn(client.client_id, member);
    const form = formOf(await page.text());
    const long = await browser.post("/oauth/authorize/approval", {
      ...form,
      decision: "ask",
      note: "x".repeat(501),
    });
    assert.equal(long.status, 400);
    const html = await long.text();
    assert.match(html, /Keep the note within 500 characters/);
    const foreign = await browser.post("/oauth/authorize/approval", {
      ...formOf(html),
      place: f.other.workspaceId,
      decision: "ask",
    });
    assert.equal(foreign.status, 400);
    assert.match(await foreign.text(), /Choose a workspace from the list/);
    assert.equal(await count(), 0);
  });

  await t.step("a missing CSRF token is refused; a spent ticket is an expired request", async () => {
    const { browser, page } = await signedIn(client.client_id, member);
    const form = formOf(await page.text());
    const noCsrf = await browser.post("/oauth/authorize/approval", { ...form, csrf: "", decision: "ask" });
    assert.equal(noCsrf.status, 403);
    assert.equal(await count(), 0);
    const cancelled = await browser.post("/oauth/authorize/approval", { ...form, decision: "cancel" });
    assert.equal(cancelled.status, 303);
    const spent = await browser.post("/oauth/authorize/approval", { ...form, decision: "ask" });
    assert.equal(spent.status, 400);
    assert.match(await spent.text(), /This page has expired/);
    assert.equal(await count(), 0);
  });

  await t.step("cancel: access_denied to the client, no request", async () => {
    const { browser, page } = await signedIn(client.client_id, member);
    const res = await browser.post("/oauth/authorize/approval", {
      ...formOf(await page.text()),
      decision: "cancel",
    });
    assert.equal(res.status, 303);
    const back = location(res);
    assert.equal(back.origin + back.pathname, REDIRECT);
    assert.equal(back.searchParams.get("error"), "access_denied");
    assert.equal(await count(), 0);
  });

  await t.step(
    "the waiting page: forged → expired page; another browser → sign-in; another's request → expired",
    async () => {
      const { browser, page } = await signedIn(client.client_id, member);
      const asked = await browser.post("/oauth/authorize/approval", {
        ...formOf(await page.text()),
        decision: "ask",
      });
      const waitAt = location(asked);
      assert.equal((await browser.get("/oauth/authorize/wait?w=forged")).status, 400);
      const stranger = await new Browser(app).get(waitAt.pathname + waitAt.search);
      assert.equal(stranger.status, 302);
      assert.equal(location(stranger).pathname, "/oauth/authorize/resume");

      const theirs = await askFor(client.client_id, manager.id);
      assert.equal(theirs.kind, "asked");
      const { verifier: _, challenge } = pkce();
      const sealed = await sealWaiting(TEST_SECRET, {
        req: {
          clientId: client.client_id,
          redirectUri: REDIRECT,
          scopes: ["openid", "workspace"],
          codeChallenge: challenge,
          prompt: [],
          iat: Math.floor(Date.now() / 1000),
        },
        userId: member.id,
        requestId: theirs.kind === "asked" ? theirs.request.id : "",
        until: Math.floor(Date.now() / 1000) + 60,
      });
      const mixed = await browser.get(waitPath(sealed));
      assert.equal(mixed.status, 400);
      assert.match(await mixed.text(), /This page has expired/);
    },
  );
});

Deno.test("a wait past its time: a clear page and access_denied; the request stays pending", async () => {
  const client = await registerPublic(app, { client_name: "Slow App" });
  const { browser, page } = await signedIn(client.client_id, member);
  await browser.post("/oauth/authorize/approval", { ...formOf(await page.text()), decision: "ask" });
  const [{ id }] = await db.sql`select id from oauth_approval_requests where client_id = ${client.client_id}`;
  const { challenge } = pkce();
  const sealed = await sealWaiting(TEST_SECRET, {
    req: {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      scopes: ["openid", "workspace"],
      state: "late",
      codeChallenge: challenge,
      prompt: [],
      iat: Math.floor(Date.now() / 1000) - 4000,
    },
    userId: member.id,
    requestId: id,
    until: Math.floor(Date.now() / 1000) - 1,
  });
  const res = await browser.get(waitPath(sealed));
  assert.equal(res.status, 410);
  const html = await res.text();
  assert.match(html, /No answer yet/);
  const back = new URL(
    html.match(/href="(http:\/\/127\.0\.0\.1:8976\/callback[^"]+)"/)![1].replaceAll("&amp;", "&"),
  );
  assert.equal(back.searchParams.get("error"), "access_denied");
  assert.equal(back.searchParams.get("state"), "late");
  const [{ status }] = await db.sql`select status from oauth_approval_requests where id = ${id}`;
  assert.equal(status, "pending");
});

Deno.test("trust withdrawn after approval: remembered consent does not bypass the operators; asking again is new", async () => {
  const client = await registerPublic(app, { client_name: "Withdrawn App" });
  const op = await signedIn(client.client_id, operator);
  const approved = await op.browser.post("/oauth/authorize/approval", {
    ...formOf(await op.page.text()),
    decision: "approve",
  });
  const consent = await follow(op.browser, approved);
  const allowed = await op.browser.post("/oauth/authorize/consent", {
    ...formOf(await consent.text()),
    decision: "allow",
  });
  assert.ok(location(allowed).searchParams.get("code"));
  assert.equal(await setTrust(db.sql, client.client_id, false, { via: "cli" }), true);

  // The operator's consent is remembered, yet the next authorization stops at the approval step.
  const { challenge } = pkce();
  const again = await follow(op.browser, await op.browser.get(authUrl(client.client_id, challenge)));
  assert.equal(again.status, 200);
  assert.match(await again.text(), /action="\/oauth\/authorize\/approval"/);

  const before = requestedLines().length;
  const m = await signedIn(client.client_id, member);
  await m.browser.post("/oauth/authorize/approval", { ...formOf(await m.page.text()), decision: "ask" });
  assert.equal(requestedLines().length, before + 1);
});

Deno.test("prompt=none for an app waiting on the operators: interaction_required, no page of ours", async () => {
  const client = await registerPublic(app, { client_name: "Silent App" });
  const { browser } = await signedIn(client.client_id, member);
  const { challenge } = pkce();
  const res = await browser.get(authUrl(client.client_id, challenge, { prompt: "none" }));
  // Never granted, never trusted: the error is shown, not redirected (RFC 9700 §4.11.2).
  assert.equal(res.status, 400);
  assert.match(await res.text(), /interaction_required/);
});

Deno.test(`at most ${MAX_PENDING_PER_PERSON} pending requests per person: the next ask is refused with 429`, async () => {
  const person = { id: f.users.guest, email: await emailOf(f.users.guest) };
  for (let i = 0; i < MAX_PENDING_PER_PERSON; i++) {
    const c = await registerPublic(app, { client_name: `Flood ${i}` });
    assert.equal((await askFor(c.client_id, person.id)).kind, "asked");
  }
  const client = await registerPublic(app, { client_name: "One Too Many" });
  const { browser, page } = await signedIn(client.client_id, person);
  const res = await browser.post("/oauth/authorize/approval", {
    ...formOf(await page.text()),
    decision: "ask",
  });
  assert.equal(res.status, 429);
  assert.match(await res.text(), /already have 20 requests waiting/);
  assert.equal(
    (await db
      .sql`select count(*)::int as n from oauth_approval_requests where client_id = ${client.client_id}`)[0]
      .n,
    0,
  );
});
