// Conformance gaps (issue 14, points 7–9): POST /oauth/authorize, request/request_uri error codes, the registered
// token_endpoint_auth_method, several resources, no open redirector for unvouched clients, single-use resume URLs.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { createClient, setClientTrusted } from "../../lib/oauth/clients.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  type Ctx,
  exchange,
  field,
  ISSUER,
  location,
  pkce,
  REDIRECT,
  registerConfidential,
  type Registered,
  registerPublic,
  setup,
  signInOnPage,
  token,
} from "./helpers.ts";

function params(client: Registered, extra: Record<string, string | undefined> = {}) {
  return {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "xyz",
    ...extra,
  };
}

/** A redirect (302 after GET, 303 after POST) back to the client carrying `error`, with state and iss. */
function assertRedirectError(res: Response, error: string, status = 302): URL {
  assert.equal(res.status, status, `expected a redirect, got ${res.status}`);
  const url = location(res);
  assert.equal(url.origin + url.pathname, REDIRECT);
  assert.equal(url.searchParams.get("error"), error);
  assert.equal(url.searchParams.get("state"), "xyz");
  assert.equal(url.searchParams.get("iss"), ISSUER);
  assert.equal(url.searchParams.get("code"), null);
  return url;
}

/** The error page that stands in for a redirect: 400 HTML, no Location, the OAuth error code shown. */
async function assertErrorPage(res: Response, error: string) {
  assert.equal(res.status, 400, `expected an error page, got ${res.status} ${res.headers.get("location")}`);
  assert.equal(res.headers.get("location"), null);
  assert.match(res.headers.get("content-type")!, /^text\/html/);
  const html = await res.text();
  assert.ok(html.includes(`<code>${error}</code>`), html);
  assert.match(html, /does not send you on to 127\.0\.0\.1:8976/);
}

/** An operator-registered public client (never self-registered: errors always go back to it). */
async function operatorClient(ctx: Ctx): Promise<Registered> {
  const { clientId } = await createClient(ctx.db.sql, {
    name: "Operator App",
    redirectUris: [REDIRECT],
    confidential: false,
    scopes: ["openid", "profile"],
    grantTypes: ["authorization_code", "refresh_token"],
    selfRegistered: false,
  });
  return { client_id: clientId };
}

/** Runs authorize → sign in → consent for `client` as the test user; the code and its verifier. */
async function codeFor(ctx: Ctx, client: Registered, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const url = await authorizeThrough(
    new Browser(ctx.app),
    authorizeUrl(params(client, { code_challenge: challenge, ...extra })),
    ctx.user.email,
  );
  const code = url.searchParams.get("code");
  assert.ok(code, `no code: ${url}`);
  return { code, verifier };
}

function postAuthorize(browser: Browser, fields: Record<string, string>) {
  return browser.post("/oauth/authorize", fields);
}

async function codeCount(ctx: Ctx, client: Registered): Promise<number> {
  const [row] = await ctx.db.sql<{ n: number }[]>`
    select count(*)::int as n from oauth_codes where client_id = ${client.client_id}`;
  return row.n;
}

Deno.test("POST /oauth/authorize behaves like GET (OIDC Core §3.1.2.1)", async (t) => {
  const ctx = await setup();
  try {
    const client = await operatorClient(ctx);

    await t.step(
      "a form POST (no CSRF field) → 303 to a GET that carries the request; sign-in → code",
      async () => {
        const browser = new Browser(ctx.app);
        const posted = await postAuthorize(browser, params(client, { nonce: "n-1" }));
        assert.equal(posted.status, 303);
        const next = location(posted);
        assert.equal(next.origin, ISSUER);
        assert.equal(next.pathname, "/oauth/authorize/resume");
        const signInPage = await browser.get(next.pathname + next.search);
        assert.equal(signInPage.status, 200);
        const signed = await signInOnPage(browser, signInPage, ctx.user.email);
        assert.equal(signed.status, 303);
        const consent = await (await browser.get(location(signed).pathname + location(signed).search)).text();
        assert.ok(consent.includes('action="/oauth/authorize/consent"'));
        const allowed = await browser.post("/oauth/authorize/consent", {
          csrf: field(consent, "csrf")!,
          ticket: field(consent, "ticket")!,
          decision: "allow",
        });
        assert.equal(allowed.status, 303);
        const back = location(allowed);
        assert.equal(back.origin + back.pathname, REDIRECT);
        assert.match(back.searchParams.get("code")!, /^pco_/);
        assert.equal(back.searchParams.get("state"), "xyz");
        assert.equal(back.searchParams.get("iss"), ISSUER);
        const [row] = await ctx.db.sql<{ nonce: string }[]>`
        select nonce from oauth_codes where code_hash = encode(sha256(${back.searchParams.get(
          "code",
        )!}::bytea), 'hex')`;
        assert.equal(row.nonce, "n-1");
      },
    );

    await t.step("signed in with consent remembered: POST → resume → code", async () => {
      const browser = new Browser(ctx.app);
      await authorizeThrough(browser, authorizeUrl(params(client)), ctx.user.email);
      const posted = await postAuthorize(browser, params(client));
      assert.equal(posted.status, 303);
      const back = await browser.get(location(posted).pathname + location(posted).search);
      assert.equal(back.status, 302);
      assert.match(location(back).searchParams.get("code")!, /^pco_/);
    });

    await t.step("errors: redirected with 303, state and iss; unknown client → error page", async () => {
      assertRedirectError(
        await postAuthorize(new Browser(ctx.app), params(client, { scope: "openid nonsense" })),
        "invalid_scope",
        303,
      );
      const unknown = await postAuthorize(new Browser(ctx.app), params({ client_id: "pcl_unknown" }));
      assert.equal(unknown.status, 400);
      assert.equal(unknown.headers.get("location"), null);
      await unknown.body?.cancel();
      // Parameters travel in the form body only; a POST with JSON names no client.
      const json = await new Browser(ctx.app).request("/oauth/authorize", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(params(client)),
      });
      assert.equal(json.status, 400);
      assert.equal(json.headers.get("location"), null);
      assert.match(await json.text(), /names no client_id/);
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("request and request_uri: their own error codes, redirected after client validation", async () => {
  const ctx = await setup();
  try {
    const client = await operatorClient(ctx);
    const get = (extra: Record<string, string>) =>
      new Browser(ctx.app).get(authorizeUrl(params(client, extra)));
    const r1 = assertRedirectError(
      await get({ request: "eyJhbGciOiJub25lIn0.e30." }),
      "request_not_supported",
    );
    assert.match(r1.searchParams.get("error_description")!, /request objects/);
    assertRedirectError(
      await get({ request_uri: "https://client.example/req.jwt" }),
      "request_uri_not_supported",
    );
    assertRedirectError(
      await postAuthorize(new Browser(ctx.app), params(client, { request_uri: "urn:x" })),
      "request_uri_not_supported",
      303,
    );
    // Before the client and redirect URI are known good, nothing is redirected.
    const bad = await new Browser(ctx.app).get(
      authorizeUrl(params(client, { request: "x", redirect_uri: "https://evil.example/cb" })),
    );
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get("location"), null);
    await bad.body?.cancel();
  } finally {
    await ctx.close();
  }
});

Deno.test("the registered token_endpoint_auth_method is enforced exactly", async (t) => {
  const ctx = await setup();
  const code = (c: string, v: string) => ({
    grant_type: "authorization_code",
    code: c,
    redirect_uri: REDIRECT,
    code_verifier: v,
  });
  const basic = (id: string, secret: string) => ({
    authorization: `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`,
  });
  try {
    await t.step("client_secret_basic: the secret in the body is invalid_client; Basic works", async () => {
      const conf = await registerConfidential(ctx.app, { token_endpoint_auth_method: "client_secret_basic" });
      const { code: c, verifier } = await codeFor(ctx, conf);
      const body = await token(ctx.app, {
        ...code(c, verifier),
        client_id: conf.client_id,
        client_secret: conf.client_secret!,
      });
      assert.equal(body.status, 401);
      const err = await body.json();
      assert.equal(err.error, "invalid_client");
      assert.match(err.error_description, /registered client_secret_basic/);
      // Refused before the code was looked at: the same code still works the registered way.
      const ok = await token(ctx.app, code(c, verifier), basic(conf.client_id, conf.client_secret!));
      assert.equal(ok.status, 200);
      assert.equal(decodeJwt((await ok.json()).access_token).client_id, conf.client_id);
    });

    await t.step(
      "client_secret_post: Basic is invalid_client (with a Basic challenge); the body works",
      async () => {
        const conf = await registerConfidential(ctx.app, {
          token_endpoint_auth_method: "client_secret_post",
        });
        const { code: c, verifier } = await codeFor(ctx, conf);
        const viaBasic = await token(ctx.app, code(c, verifier), basic(conf.client_id, conf.client_secret!));
        assert.equal(viaBasic.status, 401);
        assert.match(viaBasic.headers.get("www-authenticate")!, /^Basic realm="portico"/);
        const err = await viaBasic.json();
        assert.equal(err.error, "invalid_client");
        assert.match(err.error_description, /registered client_secret_post/);
        const ok = await exchange(ctx, conf, c, verifier);
        assert.equal(ok.status, 200);
        const tokens = await ok.json();
        // the refresh grant authenticates the same way
        const refreshBasic = await token(
          ctx.app,
          { grant_type: "refresh_token", refresh_token: tokens.refresh_token },
          basic(conf.client_id, conf.client_secret!),
        );
        assert.equal(refreshBasic.status, 401);
        assert.equal((await refreshBasic.json()).error, "invalid_client");
      },
    );

    await t.step("none: a secret is invalid_client; Basic with an empty password carries none", async () => {
      const pub = await registerPublic(ctx.app);
      const { code: c, verifier } = await codeFor(ctx, pub);
      const withSecret = await token(ctx.app, code(c, verifier), basic(pub.client_id, "pcs_invented"));
      assert.equal(withSecret.status, 401);
      assert.equal((await withSecret.json()).error, "invalid_client");
      const ok = await token(ctx.app, code(c, verifier), {
        authorization: `Basic ${btoa(`${pub.client_id}:`)}`,
      });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("several resource values are refused with invalid_target, on authorize and token", async (t) => {
  const ctx = await setup();
  const two = ["https://rs1.example/api", "https://rs2.example/api"];
  try {
    const client = await operatorClient(ctx);

    await t.step("authorize: redirected invalid_target that says why", async () => {
      const q = new URLSearchParams(params(client));
      for (const r of two) q.append("resource", r);
      const res = await new Browser(ctx.app).get(`/oauth/authorize?${q}`);
      const url = assertRedirectError(res, "invalid_target");
      assert.match(url.searchParams.get("error_description")!, /^several resource values are not supported/);
    });

    await t.step("token: 400 invalid_target before the code is used; one resource then works", async () => {
      const { code, verifier } = await codeFor(ctx, client);
      const body = new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: client.client_id,
      });
      for (const r of two) body.append("resource", r);
      const res = await ctx.app.request("/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: body.toString(),
      });
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("cache-control"), "no-store");
      const err = await res.json();
      assert.equal(err.error, "invalid_target");
      assert.match(err.error_description, /^several resource values are not supported/);
      const ok = await exchange(ctx, client, code, verifier, { resource: two[0] });
      assert.equal(ok.status, 200);
      const tokens = await ok.json();
      assert.equal(decodeJwt(tokens.access_token).aud, two[0]);

      const refresh = new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: client.client_id,
      });
      for (const r of two) refresh.append("resource", r);
      const refused = await ctx.app.request("/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: refresh.toString(),
      });
      assert.equal(refused.status, 400);
      assert.equal((await refused.json()).error, "invalid_target");
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("not an open redirector: unvouched self-registered clients get error pages (RFC 9700 §4.11.2)", async (t) => {
  const ctx = await setup();
  const get = (client: Registered, extra: Record<string, string | undefined>) =>
    new Browser(ctx.app).get(authorizeUrl(params(client, extra)));
  try {
    await t.step(
      "a fresh self-registered client: errors before any page are shown, not redirected",
      async () => {
        const fresh = await registerPublic(ctx.app);
        await assertErrorPage(await get(fresh, { scope: "openid nonsense" }), "invalid_scope");
        await assertErrorPage(await get(fresh, { response_type: "token" }), "unsupported_response_type");
        await assertErrorPage(await get(fresh, { code_challenge_method: "plain" }), "invalid_request");
        await assertErrorPage(await get(fresh, { request: "x" }), "request_not_supported");
        await assertErrorPage(await get(fresh, { resource: "not-a-uri" }), "invalid_target");
        // prompt=none: nobody sees a page either
        await assertErrorPage(await get(fresh, { prompt: "none" }), "login_required");
        await assertErrorPage(
          await postAuthorize(new Browser(ctx.app), params(fresh, { scope: "openid nonsense" })),
          "invalid_scope",
        );
        // A denial is the person's own act on a page: it goes back.
        const denied = await authorizeThrough(
          new Browser(ctx.app),
          authorizeUrl(params(fresh)),
          ctx.user.email,
          "deny",
        );
        assert.equal(denied.searchParams.get("error"), "access_denied");
      },
    );

    await t.step("once it completed a grant, its errors go back to it", async () => {
      const fresh = await registerPublic(ctx.app);
      const { code, verifier } = await codeFor(ctx, fresh);
      // an issued but unexchanged code is not a completed grant
      await assertErrorPage(await get(fresh, { scope: "openid nonsense" }), "invalid_scope");
      const res = await exchange(ctx, fresh, code, verifier);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assertRedirectError(await get(fresh, { scope: "openid nonsense" }), "invalid_scope");
      assertRedirectError(await get(fresh, { prompt: "none" }), "login_required");
    });

    await t.step(
      "operator clients and trusted self-registered clients get redirects from the start",
      async () => {
        const op = await operatorClient(ctx);
        assertRedirectError(await get(op, { scope: "openid nonsense" }), "invalid_scope");
        assertRedirectError(await get(op, { prompt: "none" }), "login_required");
        const trusted = await registerPublic(ctx.app);
        assert.ok(await setClientTrusted(ctx.db.sql, trusted.client_id, true));
        assertRedirectError(await get(trusted, { scope: "openid nonsense" }), "invalid_scope");
      },
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("the resume URL after sign-in is single use; max_age=0 and prompt=login need a fresh sign-in", async (t) => {
  const ctx = await setup();
  try {
    const client = await operatorClient(ctx);
    // Consent remembered, so the resume URL would go straight to a code.
    await codeFor(ctx, client);

    for (const extra of [{ max_age: "0" }, { prompt: "login" }]) {
      await t.step(`${JSON.stringify(extra)}: reopening the resume URL mints no second code`, async () => {
        const browser = new Browser(ctx.app);
        const [{ before }] = await ctx.db.sql<{ before: Date }[]>`select now() as before`;
        const signInPage = await browser.get(authorizeUrl(params(client, extra)));
        assert.ok((await signInPage.clone().text()).includes('action="/signin"'));
        const signed = await signInOnPage(browser, signInPage, ctx.user.email);
        const resume = location(signed).pathname + location(signed).search;
        const codesBefore = await codeCount(ctx, client);
        const first = await browser.get(resume);
        assert.equal(first.status, 302);
        const code = location(first).searchParams.get("code")!;
        assert.match(code, /^pco_/);
        // The code's auth_time is the sign-in done for this request, after the request arrived.
        const [row] = await ctx.db.sql<{ after: boolean }[]>`
          select auth_time > ${before} as after from oauth_codes
          where code_hash = encode(sha256(${code}::bytea), 'hex')`;
        assert.equal(row.after, true);
        const again = await browser.get(resume);
        assert.equal(again.status, 400);
        assert.equal(again.headers.get("location"), null);
        assert.match(await again.text(), /This page has expired/);
        assert.equal(await codeCount(ctx, client), codesBefore + 1);
        // The client's own URL again: the earlier sign-in does not count as fresh for the new request.
        const reopened = await browser.get(authorizeUrl(params(client, extra)));
        assert.equal(reopened.status, 200);
        assert.ok((await reopened.text()).includes('action="/signin"'));
      });
    }

    await t.step("parallel opens of one resume URL: exactly one code", async () => {
      const browser = new Browser(ctx.app);
      const signed = await signInOnPage(
        browser,
        await browser.get(authorizeUrl(params(client, { max_age: "0" }))),
        ctx.user.email,
      );
      const resume = location(signed).pathname + location(signed).search;
      const codesBefore = await codeCount(ctx, client);
      const answers = await Promise.all(Array.from({ length: 10 }, () => browser.get(resume)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [302, ...Array(9).fill(400)]);
      for (const r of answers) await r.body?.cancel();
      assert.equal(await codeCount(ctx, client), codesBefore + 1);
    });

    await t.step("the consent form is single use too: a second submission issues nothing", async () => {
      const fresh = await operatorClient(ctx);
      const browser = new Browser(ctx.app);
      const signed = await signInOnPage(
        browser,
        await browser.get(authorizeUrl(params(fresh, { max_age: "0" }))),
        ctx.user.email,
      );
      const consent = await (await browser.get(location(signed).pathname + location(signed).search)).text();
      assert.ok(consent.includes('action="/oauth/authorize/consent"'));
      const form = { csrf: field(consent, "csrf")!, ticket: field(consent, "ticket")!, decision: "allow" };
      const first = await browser.post("/oauth/authorize/consent", form);
      assert.equal(first.status, 303);
      assert.match(location(first).searchParams.get("code")!, /^pco_/);
      const second = await browser.post("/oauth/authorize/consent", form);
      assert.equal(second.status, 400);
      assert.equal(second.headers.get("location"), null);
      assert.match(await second.text(), /This page has expired/);
      assert.equal(await codeCount(ctx, fresh), 1);
    });
  } finally {
    await ctx.close();
  }
});
