// Step-up (issue 29 point 3): acr_values, the operator's WORKSPACE_TWO_FACTOR and a workspace's "require two-step
// sign-in" send a browser whose sign-in used one factor to the second-factor pages before consent or a code; ID
// tokens carry acr and amr (RFC 8176) from the browser's sign-in, at the code exchange and at every refresh.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { parseConfig } from "../../lib/config.ts";
import { createLogger } from "../../lib/log.ts";
import { ACR_MULTI, ACR_SINGLE } from "../../lib/security/amr.ts";
import { confirmTotp, currentStep, newTotpSecret, totpCode } from "../../lib/security/totp.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture } from "../helpers/mcp.ts";
import {
  authorizeUrl,
  Browser,
  field,
  ISSUER,
  location,
  pkce,
  REDIRECT,
  refreshWith,
  registerPublic,
  token,
} from "../oauth/helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const PASSWORD = "test password 123";

function appWith(env: Record<string, string> = {}) {
  return createApp({
    config: parseConfig({ ISSUER, SECRET_KEY: TEST_SECRET, ...TEST_RATE_LIMITS, ...env }),
    sql: db.sql,
    log: createLogger("error"),
    secretKey: TEST_SECRET,
    scrypt: TEST_SCRYPT,
  });
}
const app = appWith();
const strict = appWith({ WORKSPACE_TWO_FACTOR: "require" });

const emailOf = async (id: string) =>
  (await db.sql`select email from users where id = ${id}`)[0].email as string;
const member = { id: f.users.member, email: await emailOf(f.users.member) };
const manager = { id: f.users.manager, email: await emailOf(f.users.manager) };

/** A trusted public client (workspace needs trust) with refresh tokens. */
async function trustedClient(on = app) {
  const client = await registerPublic(on, { client_name: "Step-up App" });
  await db.sql`update oauth_clients set trusted = true where client_id = ${client.client_id}`;
  return client;
}

function authUrl(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  return authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "openid",
    state: "st-up",
    ...extra,
  });
}

/** Follows redirects inside the app; returns the page reached or the redirect that leaves it (or reaches stop). */
async function follow(browser: Browser, res: Response, stop = "/signin/verify"): Promise<Response> {
  while (res.status === 302 || res.status === 303) {
    const next = location(res);
    if (next.origin !== ISSUER || next.pathname === stop) return res;
    res = await browser.get(next.pathname + next.search);
  }
  return res;
}

/** A browser signed in as `who` with a password alone (no second factor, no policy at sign-in time). */
async function signedInBrowser(on: typeof app, who: { email: string }) {
  const browser = new Browser(on);
  const page = await browser.get("/signin");
  const res = await browser.post("/signin", {
    csrf: field(await page.text(), "csrf")!,
    email: who.email,
    password: PASSWORD,
  });
  assert.equal(res.status, 303);
  assert.equal(location(res).pathname, "/account/apps");
  return browser;
}

/** Runs an authorization in a signed-in browser up to the page or redirect it stops at. */
async function authorize(browser: Browser, clientId: string, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const res = await follow(browser, await browser.get(authUrl(clientId, challenge, extra)));
  return { res, verifier };
}

/** Allows the consent page `res` shows; returns the client's redirect. */
async function allow(browser: Browser, res: Response): Promise<URL> {
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /action="\/oauth\/authorize\/consent"/);
  const place = html.match(/name="place" value="([^"]+)"/)?.[1];
  const answer = await browser.post("/oauth/authorize/consent", {
    csrf: field(html, "csrf")!,
    ticket: field(html, "ticket")!,
    decision: "allow",
    ...(place ? { place } : {}),
  });
  return location(await follow(browser, answer));
}

async function exchange(clientId: string, code: string, verifier: string) {
  const res = await token(app, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  assert.equal(res.status, 200);
  return await res.json();
}

function expectStepUp(res: Response) {
  assert.equal(res.status, 303);
  const at = location(res);
  assert.equal(at.pathname, "/signin/verify");
  assert.ok((at.searchParams.get("p") ?? "").length > 20, "the pending sign-in travels sealed");
}

/** Marks the browser's sign-in of `userId` as password + one-time code (what the second-factor pages store). */
async function upgrade(userId: string, amr = ["pwd", "otp", "mfa"]) {
  await db.sql`update browser_session_accounts set amr = ${amr} where user_id = ${userId}`;
}

Deno.test("discovery advertises the two acr values, and acr/amr among the claims", async () => {
  const meta = await (await app.request("/.well-known/openid-configuration")).json();
  assert.deepEqual(meta.acr_values_supported, [ACR_SINGLE, ACR_MULTI]);
  assert.ok(meta.claims_supported.includes("acr") && meta.claims_supported.includes("amr"));
});

Deno.test("a password sign-in's ID tokens say acr 1fa, amr [pwd], at the exchange and after a refresh", async () => {
  const client = await registerPublic(app, { client_name: "Plain App" });
  const browser = await signedInBrowser(app, member);
  const { res, verifier } = await authorize(browser, client.client_id, { scope: "openid offline_access" });
  const back = await allow(browser, res);
  const body = await exchange(client.client_id, back.searchParams.get("code")!, verifier);
  const id = decodeJwt(body.id_token);
  assert.equal(id.acr, ACR_SINGLE);
  assert.deepEqual(id.amr, ["pwd"]);
  const refreshed = await (await refreshWith(app, client, body.refresh_token)).json();
  const again = decodeJwt(refreshed.id_token);
  assert.equal(again.acr, ACR_SINGLE);
  assert.deepEqual(again.amr, ["pwd"]);
});

Deno.test("acr_values: a first preference of 2fa steps up; 1fa first does not; prompt=none answers login_required", async () => {
  // Trusted: errors before any page go back to it (an unvouched self-registered client gets an error page).
  const client = await trustedClient();
  const browser = await signedInBrowser(app, member);
  expectStepUp((await authorize(browser, client.client_id, { acr_values: `unknown:acr ${ACR_MULTI}` })).res);
  const relaxed = await authorize(browser, client.client_id, { acr_values: `${ACR_SINGLE} ${ACR_MULTI}` });
  assert.equal(relaxed.res.status, 200, "1fa first: the sign-in is good enough");
  const silent = await authorize(browser, client.client_id, { acr_values: ACR_MULTI, prompt: "none" });
  const back = location(silent.res);
  assert.equal(back.origin + back.pathname, REDIRECT);
  assert.equal(back.searchParams.get("error"), "login_required");
  assert.equal(back.searchParams.get("state"), "st-up");
  assert.equal(back.searchParams.get("code"), null);
  const repeated = await browser.get(
    authUrl(client.client_id, pkce().challenge) + `&acr_values=a&acr_values=b`,
  );
  assert.equal(location(repeated).searchParams.get("error"), "invalid_request");
});

Deno.test("a workspace requiring two-step sign-in steps up its member's older sign-in at workspace consent only", async () => {
  const client = await trustedClient();
  const browser = await signedInBrowser(app, manager);
  await db.sql`update workspaces set require_two_factor = true where id = ${f.workspaceId}`;
  try {
    expectStepUp((await authorize(browser, client.client_id, { scope: "openid workspace" })).res);
    // Sign-in alone (no workspace) is not held up.
    assert.equal((await authorize(browser, client.client_id, { scope: "openid" })).res.status, 200);
    // Once the browser's sign-in has a second factor, consent follows, and the tokens say so.
    await upgrade(manager.id);
    const { res, verifier } = await authorize(browser, client.client_id, {
      scope: "openid workspace offline_access",
    });
    const back = await allow(browser, res);
    const body = await exchange(client.client_id, back.searchParams.get("code")!, verifier);
    const id = decodeJwt(body.id_token);
    assert.equal(id.acr, ACR_MULTI);
    assert.deepEqual(id.amr, ["pwd", "otp", "mfa"]);
    const [code] = await db
      .sql`select amr from oauth_codes where user_id = ${manager.id} order by created_at desc limit 1`;
    assert.deepEqual(code.amr, ["pwd", "otp", "mfa"]);
    const refreshed = decodeJwt((await (await refreshWith(app, client, body.refresh_token)).json()).id_token);
    assert.equal(refreshed.acr, ACR_MULTI);
    assert.deepEqual(refreshed.amr, ["pwd", "otp", "mfa"]);
  } finally {
    await db.sql`update workspaces set require_two_factor = false where id = ${f.workspaceId}`;
    await upgrade(manager.id, ["pwd"]);
  }
});

Deno.test("a consent form posted after the sign-in lost its second factor starts over instead of issuing a code", async () => {
  const client = await trustedClient(strict);
  const browser = await signedInBrowser(strict, member);
  await upgrade(member.id);
  try {
    const { verifier: _v, challenge } = pkce();
    const page = await follow(
      browser,
      await browser.get(authUrl(client.client_id, challenge, { scope: "openid workspace" })),
    );
    assert.equal(page.status, 200);
    const html = await page.text();
    await upgrade(member.id, ["pwd"]);
    const answer = await browser.post("/oauth/authorize/consent", {
      csrf: field(html, "csrf")!,
      ticket: field(html, "ticket")!,
      decision: "allow",
      place: html.match(/name="place" value="([^"]+)"/)![1],
    });
    assert.equal(answer.status, 303);
    assert.equal(location(answer).pathname, "/oauth/authorize/resume");
    expectStepUp(await follow(browser, answer));
    const [codes] = await db
      .sql`select count(*)::int as n from oauth_codes where client_id = ${client.client_id}`;
    assert.equal(codes.n, 0);
  } finally {
    await upgrade(member.id, ["pwd"]);
  }
});

Deno.test("WORKSPACE_TWO_FACTOR=require steps up every workspace consent, and a remembered one too", async () => {
  const client = await trustedClient(strict);
  const browser = await signedInBrowser(strict, member);
  expectStepUp((await authorize(browser, client.client_id, { scope: "openid workspace" })).res);
  // The same app and person under the default policy: consent, remembered.
  const relaxed = await signedInBrowser(app, member);
  const first = await authorize(relaxed, client.client_id, { scope: "openid workspace" });
  assert.equal((await allow(relaxed, first.res)).searchParams.has("code"), true);
  // Under the strict policy the remembered consent does not skip the second factor.
  expectStepUp((await authorize(browser, client.client_id, { scope: "openid workspace" })).res);
  const silent = await authorize(browser, client.client_id, { scope: "openid workspace", prompt: "none" });
  assert.equal(location(silent.res).searchParams.get("error"), "login_required");
});

Deno.test("prompt=login and max_age=0 with a second factor set up: password, then the code, then the request goes on", async () => {
  const client = await registerPublic(app, { client_name: "Fresh App" });
  const browser = await signedInBrowser(app, manager);
  const secret = newTotpSecret();
  const earlier = currentStep() - 10;
  await confirmTotp(db.sql, TEST_SECRET, manager.id, secret, totpCode(secret, earlier), earlier * 30_000);
  try {
    for (
      const [extra, step] of [[{ prompt: "login" }, currentStep()], [
        { max_age: "0" },
        currentStep() + 1,
      ]] as const
    ) {
      const { res, verifier } = await authorize(browser, client.client_id, { ...extra, scope: "openid" });
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /action="\/signin"/, "a new sign-in is asked for");
      const signin = await browser.post("/signin", {
        csrf: field(html, "csrf")!,
        ticket: field(html, "ticket")!,
        email: manager.email,
        password: "test password 123",
      });
      expectStepUp(signin);
      const verify = await browser.get(location(signin).pathname + location(signin).search);
      const page = await verify.text();
      const done = await browser.post("/signin/verify/totp", {
        csrf: field(page, "csrf")!,
        p: field(page, "p")!,
        code: totpCode(secret, step),
      });
      assert.equal(done.status, 303);
      // The first time the app is allowed on the consent page; the second time that consent is remembered.
      const reached = await follow(browser, done);
      const back = reached.status === 200 ? await allow(browser, reached) : location(reached);
      assert.equal(back.origin + back.pathname, REDIRECT);
      const body = await exchange(client.client_id, back.searchParams.get("code")!, verifier);
      const id = decodeJwt(body.id_token);
      assert.deepEqual(id.amr, ["pwd", "otp", "mfa"]);
      assert.ok((id.auth_time as number) >= Math.floor(Date.now() / 1000) - 5, "a fresh auth_time");
    }
  } finally {
    await db.sql`delete from user_totp where user_id = ${manager.id}`;
  }
});

Deno.test("a step-up finished after the browser signed out signs nobody in: the request starts over at sign-in", async () => {
  const client = await trustedClient(strict);
  const browser = await signedInBrowser(strict, manager);
  const secret = newTotpSecret();
  const earlier = currentStep() - 10;
  await confirmTotp(db.sql, TEST_SECRET, manager.id, secret, totpCode(secret, earlier), earlier * 30_000);
  try {
    const { res } = await authorize(browser, client.client_id, { scope: "openid workspace" });
    expectStepUp(res);
    const page = await (await browser.get(location(res).pathname + location(res).search)).text();
    // Another tab signs out meanwhile.
    const out = await browser.post("/signout", { csrf: field(page, "csrf")! });
    assert.equal(out.status, 303);
    const rows = async () =>
      (await db.sql`select count(*)::int as n from browser_session_accounts where user_id = ${manager.id}`)[0]
        .n;
    const before = await rows();
    const done = await browser.post("/signin/verify/totp", {
      csrf: field(page, "csrf")!,
      p: field(page, "p")!,
      code: totpCode(secret, currentStep()),
    });
    assert.equal(done.status, 303);
    assert.equal(location(done).pathname, "/oauth/authorize/resume");
    assert.equal(await rows(), before, "the code did not sign the person back in");
    const next = await browser.get(location(done).pathname + location(done).search);
    assert.equal(next.status, 200);
    assert.match(await next.text(), /action="\/signin"/);
  } finally {
    await db.sql`delete from user_totp where user_id = ${manager.id}`;
  }
});
