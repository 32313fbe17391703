// The authorization endpoint: error pages vs redirected errors, PKCE and scope rules, consent, every prompt value.
import assert from "node:assert/strict";
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
  type Registered,
  registerPublic,
  setup,
} from "./helpers.ts";

function params(client: Registered, extra: Record<string, string | undefined> = {}) {
  return authorizeUrl({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "xyz",
    ...extra,
  });
}

/** A redirect back to the client carrying `error`, with state and iss. */
function assertRedirectError(res: Response, error: string, state = "xyz") {
  assert.equal(res.status, 302, `expected a redirect, got ${res.status}`);
  const url = location(res);
  assert.equal(url.origin + url.pathname, REDIRECT);
  assert.equal(url.searchParams.get("error"), error);
  assert.equal(url.searchParams.get("state"), state);
  assert.equal(url.searchParams.get("iss"), ISSUER);
  assert.equal(url.searchParams.get("code"), null);
}

/** Signs `email` into the browser through the account pages. */
async function signInBrowser(browser: Browser, email: string) {
  const page = await browser.get("/signin?add=1");
  const csrf = field(await page.text(), "csrf")!;
  const res = await browser.post("/signin", {
    csrf,
    email,
    password: "correct horse battery",
    return_to: "/",
  });
  assert.equal(res.status, 303);
}

function kindOf(html: string): "signin" | "choose" | "consent" | "other" {
  if (html.includes('action="/oauth/authorize/consent"')) return "consent";
  if (html.includes('action="/oauth/authorize/select"')) return "choose";
  if (html.includes('action="/signin"')) return "signin";
  return "other";
}

async function page(res: Response): Promise<{ kind: string; html: string }> {
  assert.equal(res.status, 200, `expected a page, got ${res.status} ${res.headers.get("location")}`);
  const html = await res.text();
  return { kind: kindOf(html), html };
}

/**
 * Completes one grant (code exchanged) for `client` as `email`: errors before any page go back to such a client;
 * a self-registered client without one gets an error page instead (tests/oauth/conformance.test.ts).
 */
async function completeGrant(ctx: Ctx, client: Registered, email: string) {
  const { verifier, challenge } = pkce();
  const url = await authorizeThrough(
    new Browser(ctx.app),
    params(client, { code_challenge: challenge }),
    email,
  );
  const res = await exchange(ctx, client, url.searchParams.get("code")!, verifier);
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function consentOnce(ctx: Ctx, browser: Browser, client: Registered, scope?: string) {
  const url = await authorizeThrough(browser, params(client, { scope }), ctx.user.email);
  assert.ok(url.searchParams.get("code"));
}

Deno.test("authorization endpoint", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  try {
    const client = await registerPublic(app);
    await completeGrant(ctx, client, ctx.user.email);

    await t.step("unknown client → error page, never a redirect", async () => {
      const res = await new Browser(app).get(params({ client_id: "pcl_unknown" }));
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("location"), null);
      assert.match(res.headers.get("content-type")!, /^text\/html/);
      assert.match(await res.text(), /not registered/);
      const missing = await new Browser(app).get("/oauth/authorize?response_type=code");
      assert.equal(missing.status, 400);
      assert.equal(missing.headers.get("location"), null);
    });

    await t.step("unregistered redirect_uri → error page, never a redirect", async () => {
      for (
        const uri of [
          "https://evil.example/cb",
          "http://127.0.0.1:8976/other",
          "http://localhost:8976/callback",
        ]
      ) {
        const res = await new Browser(app).get(params(client, { redirect_uri: uri }));
        assert.equal(res.status, 400, uri);
        assert.equal(res.headers.get("location"), null);
        await res.body?.cancel();
      }
      const none = await new Browser(app).get(params(client, { redirect_uri: undefined }));
      assert.equal(none.status, 400);
      assert.equal(none.headers.get("location"), null);
    });

    await t.step("a loopback redirect URI with another port is accepted (RFC 8252)", async () => {
      const res = await new Browser(app).get(
        params(client, { redirect_uri: "http://127.0.0.1:51234/callback" }),
      );
      const p = await page(res);
      assert.equal(p.kind, "signin");
      // and an error goes back to that port
      const err = await new Browser(app).get(
        params(client, { redirect_uri: "http://127.0.0.1:51234/callback", code_challenge_method: "plain" }),
      );
      assert.equal(err.status, 302);
      assert.equal(location(err).port, "51234");
    });

    await t.step("missing code_challenge → invalid_request redirect with state and iss", async () => {
      assertRedirectError(
        await new Browser(app).get(
          params(client, { code_challenge: undefined, code_challenge_method: undefined }),
        ),
        "invalid_request",
      );
    });

    await t.step("code_challenge_method=plain (or missing) → invalid_request", async () => {
      assertRedirectError(
        await new Browser(app).get(params(client, { code_challenge_method: "plain" })),
        "invalid_request",
      );
      assertRedirectError(
        await new Browser(app).get(params(client, { code_challenge_method: undefined })),
        "invalid_request",
      );
    });

    await t.step("response_type other than code → unsupported_response_type", async () => {
      assertRedirectError(
        await new Browser(app).get(params(client, { response_type: "token" })),
        "unsupported_response_type",
      );
    });

    await t.step("response_mode other than query → invalid_request", async () => {
      assertRedirectError(
        await new Browser(app).get(params(client, { response_mode: "form_post" })),
        "invalid_request",
      );
    });

    await t.step("unknown scope and unknown agent → invalid_scope", async () => {
      assertRedirectError(
        await new Browser(app).get(params(client, { scope: "openid email_all" })),
        "invalid_scope",
      );
      assertRedirectError(
        await new Browser(app).get(
          params(client, { scope: "openid agent.chat:00000000-0000-4000-8000-000000000000" }),
        ),
        "invalid_scope",
      );
    });

    await t.step(
      "workspace for an untrusted self-registered client: the request goes on to sign-in (approval comes after)",
      async () => {
        for (const scope of ["workspace", "openid workspace"]) {
          const res = await new Browser(app).get(params(client, { scope }));
          assert.equal(res.status, 200);
          assert.match(await res.text(), /action="\/signin"/);
        }
      },
    );

    await t.step("malformed resource → invalid_target", async () => {
      assertRedirectError(
        await new Browser(app).get(params(client, { resource: "not-a-uri" })),
        "invalid_target",
      );
      assertRedirectError(
        await new Browser(app).get(params(client, { resource: "https://rs.example/#frag" })),
        "invalid_target",
      );
      assertRedirectError(
        await new Browser(app).get(params(client, { resource: "http://rs.example/mcp" })),
        "invalid_target",
      );
    });

    await t.step("invalid prompt and max_age → invalid_request", async () => {
      assertRedirectError(
        await new Browser(app).get(params(client, { prompt: "none login" })),
        "invalid_request",
      );
      assertRedirectError(
        await new Browser(app).get(params(client, { prompt: "sometimes" })),
        "invalid_request",
      );
      assertRedirectError(await new Browser(app).get(params(client, { max_age: "-1" })), "invalid_request");
    });

    await t.step(
      "the consent page names the client, redirect host, self-registration and agent names",
      async () => {
        const c2 = await registerPublic(app, { client_name: "Agent Runner" });
        const browser = new Browser(app);
        const first = await page(
          await browser.get(params(c2, { scope: `openid agent.chat:${ctx.agentId}` })),
        );
        assert.equal(first.kind, "signin");
        assert.match(first.html, /Agent Runner/);
        const signed = await browser.post("/signin", {
          csrf: field(first.html, "csrf")!,
          ticket: field(first.html, "ticket")!,
          email: ctx.user.email,
          password: "correct horse battery",
        });
        assert.equal(signed.status, 303);
        const consent = await page(await browser.get(location(signed).pathname + location(signed).search));
        assert.equal(consent.kind, "consent");
        assert.match(consent.html, /Agent Runner/);
        assert.match(consent.html, /127\.0\.0\.1:8976/);
        assert.match(consent.html, /registered itself/);
        assert.match(consent.html, /Research Assistant/);
        assert.match(consent.html, /value="allow"/);
        assert.match(consent.html, /value="deny"/);
      },
    );

    await t.step("denied consent → access_denied with state and iss", async () => {
      const browser = new Browser(app);
      const url = await authorizeThrough(
        browser,
        params(client, { scope: "openid agent.purchase" }),
        ctx.user.email,
        "deny",
      );
      assert.equal(url.searchParams.get("error"), "access_denied");
      assert.equal(url.searchParams.get("state"), "xyz");
      assert.equal(url.searchParams.get("iss"), ISSUER);
    });

    await t.step("a successful redirect carries code, state and iss", async () => {
      const browser = new Browser(app);
      const url = await authorizeThrough(browser, params(client), ctx.user.email);
      assert.ok(url.searchParams.get("code"));
      assert.equal(url.searchParams.get("state"), "xyz");
      assert.equal(url.searchParams.get("iss"), ISSUER);
    });

    await t.step("consent is remembered; new scopes ask again; prompt=consent asks again", async () => {
      const c3 = await registerPublic(app);
      const browser = new Browser(app);
      await consentOnce(ctx, browser, c3);
      // same scopes: straight back with a code
      const again = await browser.get(params(c3));
      assert.equal(again.status, 302);
      assert.ok(location(again).searchParams.get("code"));
      // a new scope: consent page
      assert.equal(
        (await page(await browser.get(params(c3, { scope: "openid profile agent.purchase" })))).kind,
        "consent",
      );
      // prompt=consent: consent page even for known scopes
      assert.equal((await page(await browser.get(params(c3, { prompt: "consent" })))).kind, "consent");
    });

    await t.step(
      "prompt=none: login_required, consent_required, account_selection_required, or a code",
      async () => {
        const c4 = await registerPublic(app);
        await completeGrant(ctx, c4, ctx.other.email);
        assertRedirectError(await new Browser(app).get(params(c4, { prompt: "none" })), "login_required");
        const browser = new Browser(app);
        await signInBrowser(browser, ctx.user.email);
        assertRedirectError(await browser.get(params(c4, { prompt: "none" })), "consent_required");
        await consentOnce(ctx, browser, c4);
        const ok = await browser.get(params(c4, { prompt: "none" }));
        assert.equal(ok.status, 302);
        assert.ok(location(ok).searchParams.get("code"));
        await signInBrowser(browser, ctx.other.email);
        assertRedirectError(await browser.get(params(c4, { prompt: "none" })), "account_selection_required");
      },
    );

    await t.step("prompt=login forces a fresh sign-in, then continues", async () => {
      const browser = new Browser(app);
      await consentOnce(ctx, browser, client);
      const p = await page(await browser.get(params(client, { prompt: "login" })));
      assert.equal(p.kind, "signin");
      assert.match(p.html, /value="dana@example.com"/);
      const signed = await browser.post("/signin", {
        csrf: field(p.html, "csrf")!,
        ticket: field(p.html, "ticket")!,
        email: ctx.user.email,
        password: "correct horse battery",
      });
      const back = await browser.get(location(signed).pathname + location(signed).search);
      assert.equal(back.status, 302);
      assert.ok(location(back).searchParams.get("code"));
    });

    await t.step("prompt=select_account shows the chooser even with one account", async () => {
      const browser = new Browser(app);
      await consentOnce(ctx, browser, client);
      const p = await page(await browser.get(params(client, { prompt: "select_account" })));
      assert.equal(p.kind, "choose");
      assert.match(p.html, /dana@example.com/);
      assert.match(p.html, /Use another account/);
      assert.match(p.html, /Sign out/);
    });

    await t.step("two accounts: the chooser lists both; choosing one continues as that account", async () => {
      const browser = new Browser(app);
      await signInBrowser(browser, ctx.user.email);
      await signInBrowser(browser, ctx.other.email);
      const p = await page(await browser.get(params(client)));
      assert.equal(p.kind, "choose");
      assert.match(p.html, /dana@example.com/);
      assert.match(p.html, /olly@example.com/);
      const url = await authorizeThrough(browser, params(client), ctx.other.email);
      const code = url.searchParams.get("code")!;
      const [row] = await ctx.db.sql<{ user_id: string }[]>`
        select user_id from oauth_codes where code_hash = encode(sha256(${code}::bytea), 'hex')`;
      assert.equal(row.user_id, ctx.other.id);
    });

    await t.step("'Use another account' shows the sign-in form; 'Sign out' empties the chooser", async () => {
      const browser = new Browser(app);
      await signInBrowser(browser, ctx.user.email);
      const p = await page(await browser.get(params(client, { prompt: "select_account" })));
      const csrf = field(p.html, "csrf")!;
      const ticket = field(p.html, "ticket")!;
      const another = await browser.post("/oauth/authorize/select", { csrf, ticket, user_id: "" });
      assert.equal(another.status, 303);
      const form = await page(await browser.get(location(another).pathname + location(another).search));
      assert.equal(form.kind, "signin");
      const out = await browser.post("/signout", { csrf, ticket });
      assert.equal(out.status, 303);
      const after = await page(await browser.get(location(out).pathname + location(out).search));
      assert.equal(after.kind, "signin");
    });

    await t.step(
      "max_age: an old sign-in must sign in again; prompt=none answers login_required",
      async () => {
        const browser = new Browser(app);
        await consentOnce(ctx, browser, client);
        await ctx.db.sql`update browser_session_accounts set auth_time = now() - interval '1 hour'`;
        assertRedirectError(
          await browser.get(params(client, { prompt: "none", max_age: "60" })),
          "login_required",
        );
        const p = await page(await browser.get(params(client, { max_age: "60" })));
        assert.equal(p.kind, "signin");
        const fine = await browser.get(params(client, { max_age: "7200" }));
        assert.equal(fine.status, 302);
        assert.ok(location(fine).searchParams.get("code"));
      },
    );
  } finally {
    await ctx.close();
  }
});
