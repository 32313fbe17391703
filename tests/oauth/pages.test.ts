// Sign-in, CSRF, cookies, security headers and /account/apps: the browser-facing rules.
import assert from "node:assert/strict";
import { loadBranding, MAX_LOGO_BYTES } from "../../lib/branding.ts";
import { parseConfig } from "../../lib/config.ts";
import { SIGN_IN_BRAKE } from "../../lib/oauth/sign_in.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  consentPageFor,
  exchange,
  field,
  getCode,
  location,
  PASSWORD,
  pkce,
  REDIRECT,
  registerPublic,
  setup,
  token,
} from "./helpers.ts";

Deno.test("browser pages", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  try {
    const client = await registerPublic(app, { client_name: "Pages App" });
    const authorize = () =>
      authorizeUrl({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
        state: "s",
      });

    await t.step(
      "pages carry anti-framing, no-referrer, CSP and no-store; the stylesheet is ours",
      async () => {
        const res = await new Browser(app).get("/signin");
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("x-frame-options"), "DENY");
        assert.match(res.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
        assert.equal(res.headers.get("referrer-policy"), "no-referrer");
        assert.equal(res.headers.get("cache-control"), "no-store");
        const html = await res.text();
        assert.match(html, /^<!doctype html>/);
        assert.match(html, /<link rel="stylesheet" href="\/assets\/style.css">/);
        assert.doesNotMatch(html, /https?:\/\//, "no third-party assets");
        const css = await app.request("/assets/style.css");
        assert.equal(css.status, 200);
        assert.match(css.headers.get("content-type")!, /^text\/css/);
      },
    );

    await t.step("cookies are HttpOnly and SameSite=Lax; no __Host- prefix on http", async () => {
      const b = new Browser(app);
      const res = await b.get("/signin");
      const cookies = res.headers.getSetCookie();
      assert.equal(cookies.length, 1);
      assert.match(cookies[0], /^portico_csrf=/);
      assert.match(cookies[0], /HttpOnly/);
      assert.match(cookies[0], /SameSite=Lax/);
      assert.doesNotMatch(cookies[0], /Secure/);
      const signed = await b.post("/signin", {
        csrf: field(await res.text(), "csrf")!,
        email: ctx.user.email,
        password: PASSWORD,
      });
      assert.equal(signed.status, 303);
      const session = signed.headers.getSetCookie().find((c) => c.startsWith("portico_session="))!;
      assert.match(session, /HttpOnly/);
      assert.match(session, /SameSite=Lax/);
      assert.match(session, /Path=\//);
    });

    await t.step("on an https issuer cookies are Secure with the __Host- prefix", async () => {
      const { testApp } = await import("../helpers/app.ts");
      const secure = new Browser(testApp(ctx.db.sql, { ISSUER: "https://auth.example.com" }));
      const res = await secure.get("/signin");
      const csrfCookie = res.headers.getSetCookie()[0];
      assert.match(csrfCookie, /^__Host-portico_csrf=/);
      assert.match(csrfCookie, /Secure/);
      const signed = await secure.post("/signin", {
        csrf: field(await res.text(), "csrf")!,
        email: ctx.user.email,
        password: PASSWORD,
      });
      const session = signed.headers.getSetCookie().find((c) => c.startsWith("__Host-portico_session="))!;
      assert.match(session, /Secure/);
      assert.match(session, /HttpOnly/);
      assert.match(session, /Path=\//);
      assert.doesNotMatch(session, /Domain=/);
    });

    await t.step("CSRF token missing or wrong on any form POST → 403, nothing done", async () => {
      const b = new Browser(app);
      const p = await b.get(authorize());
      const html = await p.text();
      const ticket = field(html, "ticket")!;
      const noCsrf = await b.post("/signin", { ticket, email: ctx.user.email, password: PASSWORD });
      assert.equal(noCsrf.status, 403);
      assert.equal(noCsrf.headers.getSetCookie().some((c) => c.includes("portico_session")), false);
      const wrong = await b.post("/signin", {
        csrf: "forged",
        ticket,
        email: ctx.user.email,
        password: PASSWORD,
      });
      assert.equal(wrong.status, 403);
      // a token from another browser does not fit this browser's cookie
      const other = new Browser(app);
      const otherCsrf = field(await (await other.get("/signin")).text(), "csrf")!;
      const crossed = await b.post("/signin", {
        csrf: otherCsrf,
        ticket,
        email: ctx.user.email,
        password: PASSWORD,
      });
      assert.equal(crossed.status, 403);
      for (
        const path of ["/oauth/authorize/consent", "/oauth/authorize/select", "/signout", "/account/switch"]
      ) {
        const res = await b.post(path, { ticket, decision: "allow" });
        assert.equal(res.status, 403, path);
        await res.body?.cancel();
      }
      const revoke = await b.post("/account/apps/revoke", { client_id: client.client_id });
      assert.equal(revoke.status, 403);
    });

    await t.step("a consent POST without CSRF issues no code even for a signed-in person", async () => {
      const b = new Browser(app);
      const first = await b.get(authorize());
      const html = await first.text();
      const signed = await b.post("/signin", {
        csrf: field(html, "csrf")!,
        ticket: field(html, "ticket")!,
        email: ctx.user.email,
        password: PASSWORD,
      });
      const consent = await (await b.get(location(signed).pathname + location(signed).search)).text();
      const ticket = field(consent, "ticket")!;
      const res = await b.post("/oauth/authorize/consent", { ticket, decision: "allow" });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get("location"), null);
    });

    await t.step("unknown email and wrong password get the same message; 303 after the POST", async () => {
      const b = new Browser(app);
      const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
      const unknown = await b.post("/signin", { csrf, email: "nobody@example.com", password: PASSWORD });
      const wrong = await b.post("/signin", { csrf, email: ctx.other.email, password: "wrong password" });
      assert.equal(unknown.status, 303);
      assert.equal(wrong.status, 303);
      assert.equal(unknown.headers.get("location"), wrong.headers.get("location"));
      const a = await (await b.get(unknown.headers.get("location")!)).text();
      const c = await (await b.get(wrong.headers.get("location")!)).text();
      assert.match(a, /That email and password do not match an account/);
      assert.equal(a.replace(/value="[^"]*"/g, ""), c.replace(/value="[^"]*"/g, ""));
    });

    await t.step(
      "repeated failures brake the account on that network (per email and network) and the IP, in the database",
      async () => {
        const b = new Browser(app, "203.0.113.99");
        const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
        for (let i = 0; i < SIGN_IN_BRAKE.perNetwork; i++) {
          await b.post("/signin", { csrf, email: "victim@example.com", password: `guess-${i}` });
        }
        const [row] = await ctx.db.sql<{ n: number }[]>`
        select coalesce(sum(count), 0)::int as n from rate_limits where bucket like 'signin:net:%'`;
        assert.ok(row.n >= SIGN_IN_BRAKE.perNetwork);
        const braked = await b.post("/signin", { csrf, email: "victim@example.com", password: "anything" });
        assert.match(braked.headers.get("location")!, /error=throttled/);
        // the brake is per account: another email from another IP still signs in
        const fresh = new Browser(app, "203.0.113.100");
        const csrf2 = field(await (await fresh.get("/signin")).text(), "csrf")!;
        const ok = await fresh.post("/signin", { csrf: csrf2, email: ctx.user.email, password: PASSWORD });
        assert.equal(ok.headers.get("location"), "/account/apps");
        // per IP: a burst over many emails from one address is braked too
        const ip = new Browser(app, "203.0.113.101");
        const csrf3 = field(await (await ip.get("/signin")).text(), "csrf")!;
        for (let i = 0; i < SIGN_IN_BRAKE.perIp; i++) {
          await ip.post("/signin", { csrf: csrf3, email: `x${i}@example.com`, password: "nope-nope" });
        }
        const ipBraked = await ip.post("/signin", { csrf: csrf3, email: ctx.user.email, password: PASSWORD });
        assert.match(ipBraked.headers.get("location")!, /error=throttled/);
      },
    );

    await t.step("sign-in keeps return_to on this site only", async () => {
      const b = new Browser(app);
      const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
      const res = await b.post("/signin", {
        csrf,
        email: ctx.user.email,
        password: PASSWORD,
        return_to: "//evil.example/x",
      });
      assert.equal(res.headers.get("location"), "/account/apps");
      const ok = await b.post("/signin", {
        csrf,
        email: ctx.user.email,
        password: PASSWORD,
        return_to: "/account/keys",
      });
      assert.equal(ok.headers.get("location"), "/account/keys");
    });

    await t.step("/account/apps needs a session: 303 to sign-in with a return URL", async () => {
      const res = await new Browser(app).get("/account/apps");
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/signin?return_to=%2Faccount%2Fapps");
    });

    await t.step(
      "/account/apps lists a connected app; disconnecting ends refresh tokens and consent",
      async () => {
        const b = new Browser(app);
        const { code, verifier } = await getCode(ctx, b, client);
        const tokens = await (await exchange(ctx, client, code, verifier)).json();
        const list = await b.get("/account/apps");
        assert.equal(list.status, 200);
        const html = await list.text();
        assert.match(html, /Pages App/);
        assert.match(html, /127\.0\.0\.1:8976/);
        const res = await b.post("/account/apps/revoke", {
          csrf: field(html, "csrf")!,
          client_id: client.client_id,
        });
        assert.equal(res.status, 303);
        assert.equal(res.headers.get("location"), "/account/apps?disconnected=1");
        assert.doesNotMatch(await (await b.get("/account/apps")).text(), /Pages App/);
        const refresh = await token(app, {
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token,
          client_id: client.client_id,
        });
        assert.equal(refresh.status, 400);
        assert.equal((await refresh.json()).error, "invalid_grant");
        const userinfo = await app.request("/oauth/userinfo", {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        assert.equal(userinfo.status, 401);
        // consent is forgotten: the next authorization asks again
        const again = await b.get(authorize());
        assert.equal(again.status, 200);
        assert.match(await again.text(), /action="\/oauth\/authorize\/consent"/);
      },
    );

    await t.step("signing in again replaces the session cookie value (no fixation)", async () => {
      const b = new Browser(app);
      const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
      await b.post("/signin", { csrf, email: ctx.user.email, password: PASSWORD });
      const before = b.cookies.get("portico_session");
      await b.post("/signin", { csrf, email: ctx.other.email, password: PASSWORD });
      const after = b.cookies.get("portico_session");
      assert.ok(before && after);
      assert.notEqual(before, after);
      // both accounts live on in the one session
      const chooser = await (await b.get("/signin")).text();
      assert.match(chooser, /dana@example.com/);
      assert.match(chooser, /olly@example.com/);
    });

    await t.step("malformed form values get a normal answer, not a server error", async () => {
      const b = new Browser(app);
      const p = await b.get(authorize());
      const html = await p.text();
      const csrf = field(html, "csrf")!;
      const ticket = field(html, "ticket")!;
      const res = await b.post("/oauth/authorize/select", { csrf, ticket, user_id: "not-a-uuid" });
      assert.equal(res.status, 303);
      const sw = await b.post("/account/switch", { csrf, user_id: "'; drop table users; --" });
      assert.equal(sw.status, 303);
      const out = await b.post("/signout", { csrf, user_id: "nope" });
      assert.equal(out.status, 303);
    });

    await t.step("a tampered or foreign ticket is refused with an error page", async () => {
      const b = new Browser(app);
      const res = await b.get("/oauth/authorize/resume?ticket=v1.AAAA.BBBB");
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("location"), null);
      await res.body?.cancel();
    });

    await t.step("the whole flow works through the helper (sanity)", async () => {
      const url = await authorizeThrough(new Browser(app), authorize(), ctx.other.email);
      assert.ok(url.searchParams.get("code"));
    });
  } finally {
    await ctx.close();
  }
});

// ---- issue 18, point 7: pages that finish the job ----

Deno.test("branding: name, accent stylesheet and logo served by Portico itself, with a long cache", async () => {
  const dir = await Deno.makeTempDir();
  const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"></svg>`;
  await Deno.writeTextFile(`${dir}/logo.svg`, svg);
  const ctx = await setup({ BRAND_NAME: "Acme Access", BRAND_ACCENT: "#FC0", BRAND_LOGO: `${dir}/logo.svg` });
  const plain = await setup();
  try {
    const html = await (await new Browser(ctx.app).get("/signin")).text();
    assert.match(html, /<title>Sign in · Acme Access<\/title>/);
    assert.match(
      html,
      /<header class="brand"><img src="\/assets\/logo\?v=[0-9a-f]{12}" alt=""><span>Acme Access/,
    );
    assert.match(html, /<link rel="stylesheet" href="\/assets\/brand.css\?v=[0-9a-f]{12}">/);
    assert.doesNotMatch(html, /https?:\/\//, "still nothing from elsewhere");

    const logo = await ctx.app.request("/assets/logo");
    assert.equal(logo.status, 200);
    assert.equal(logo.headers.get("content-type"), "image/svg+xml");
    assert.equal(logo.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(
      logo.headers.get("content-security-policy"),
      "default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'",
    );
    assert.equal(logo.headers.get("x-content-type-options"), "nosniff");
    assert.equal(await logo.text(), svg);

    // #FC0 is widened to #ffcc00; on white it is too pale for text (links keep Portico's blue), on the dark
    // card it reads well; buttons get black text.
    const css = await ctx.app.request("/assets/brand.css");
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(
      await css.text(),
      ":root { --accent: #ffcc00; --accent-fg: #000000; --link: #2557d6; }\n" +
        "@media (prefers-color-scheme: dark) {\n" +
        "  :root { --accent: #ffcc00; --accent-fg: #000000; --link: #ffcc00; }\n}\n",
    );

    // Without branding: Portico's name, no logo, no accent stylesheet.
    const bare = await (await new Browser(plain.app).get("/signin")).text();
    assert.match(bare, /<title>Sign in · Portico<\/title>/);
    assert.doesNotMatch(bare, /assets\/logo|brand\.css/);
    const none = await plain.app.request("/assets/logo");
    assert.equal(none.status, 404);
    await none.body?.cancel();
  } finally {
    await ctx.close();
    await plain.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("favicon: every page links an icon in the accent colour; /favicon.ico answers it too, never 404", async () => {
  const branded = await setup({ BRAND_ACCENT: "#FC0" });
  const plain = await setup();
  try {
    for (
      const [ctx, accent, drawing] of [[branded, "#ffcc00", "#000000"], [
        plain,
        "#2557d6",
        "#ffffff",
      ]] as const
    ) {
      const b = new Browser(ctx.app);
      const href = (await (await b.get("/signin")).text()).match(
        /<link rel="icon" type="image\/svg\+xml" href="(\/assets\/favicon\.svg\?v=[0-9a-f]{12})">/,
      )?.[1];
      assert.ok(href, "the sign-in page links the icon");
      // every page links it: an error page and a page behind sign-in's redirect too
      const error = await b.get("/oauth/authorize?client_id=pcl_nobody");
      assert.equal(error.status, 400);
      assert.ok((await error.text()).includes(`<link rel="icon" type="image/svg+xml" href="${href}">`));

      const icon = await ctx.app.request(href);
      assert.equal(icon.status, 200);
      assert.equal(icon.headers.get("content-type"), "image/svg+xml");
      assert.equal(icon.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(
        icon.headers.get("content-security-policy"),
        "default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'",
      );
      const svg = await icon.text();
      assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'), svg);
      assert.ok(svg.includes(`<rect width="32" height="32" rx="7" fill="${accent}"/>`), svg);
      assert.ok(svg.includes(`<path fill="${drawing}" `), svg);

      const ico = await ctx.app.request("/favicon.ico");
      assert.equal(ico.status, 200);
      assert.equal(ico.headers.get("content-type"), "image/svg+xml");
      assert.equal(ico.headers.get("cache-control"), "public, max-age=3600");
      assert.equal(ico.headers.get("x-content-type-options"), "nosniff");
      assert.equal(await ico.text(), svg);
    }
  } finally {
    await branded.close();
    await plain.close();
  }
});

Deno.test("branding: a bad BRAND_ACCENT or BRAND_LOGO stops start-up with one clear line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.throws(() => parseConfig({ BRAND_ACCENT: "red" }), {
      name: "ConfigError",
      message: "config error: BRAND_ACCENT must be a hex colour like #2557d6",
    });
    assert.throws(() => parseConfig({ BRAND_LOGO: "logo.gif" }), {
      message: "config error: BRAND_LOGO must be the path of a .png or .svg file",
    });
    assert.throws(() => parseConfig({ BRAND_NAME: "x".repeat(61) }), {
      message: "config error: BRAND_NAME must be at most 60 characters",
    });
    const load = (logo: string) => () =>
      loadBranding({ brandName: "P", brandAccent: undefined, brandLogo: `${dir}/${logo}` });
    assert.throws(load("missing.png"), {
      name: "ConfigError",
      message: `config error: BRAND_LOGO ${dir}/missing.png does not exist`,
    });
    await Deno.writeTextFile(`${dir}/fake.png`, "<svg></svg>");
    assert.throws(load("fake.png"), {
      message: `config error: BRAND_LOGO ${dir}/fake.png is not a PNG file`,
    });
    await Deno.writeTextFile(`${dir}/page.svg`, "<html><script>alert(1)</script></html>");
    assert.throws(load("page.svg"), {
      message: `config error: BRAND_LOGO ${dir}/page.svg is not an SVG file (it must start with <svg)`,
    });
    await Deno.writeFile(`${dir}/big.png`, new Uint8Array(MAX_LOGO_BYTES + 1));
    assert.throws(load("big.png"), {
      message: `config error: BRAND_LOGO ${dir}/big.png is larger than 256 KiB`,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("consent: 'Not you? Use another account' signs that account out and returns to the request's sign-in", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app, { client_name: "Switch App" });
    const url = authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "keep-me",
    });
    const b = new Browser(ctx.app);
    const consent = await consentPageFor(b, url, ctx.user.email);
    assert.match(consent, /<form method="post" action="\/oauth\/authorize\/switch">/);
    const ticket = field(consent, "ticket")!;
    const csrf = field(consent, "csrf")!;

    const forged = await b.post("/oauth/authorize/switch", { ticket });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    assert.equal((await b.get("/account/apps")).status, 200, "still signed in after a refused POST");

    const res = await b.post("/oauth/authorize/switch", { csrf, ticket });
    assert.equal(res.status, 303);
    assert.equal(location(res).pathname, "/oauth/authorize/resume");
    const signIn = await (await b.get(location(res).pathname + location(res).search)).text();
    assert.match(signIn, /<h1>Sign in<\/h1>/);
    assert.match(signIn, /to continue to <strong>Switch App<\/strong>/);
    const apps = await b.get("/account/apps");
    assert.equal(apps.status, 303, "Dana is signed out of this browser");
    await apps.body?.cancel();

    // Someone else signs in: the same request goes on (state kept) and the code is theirs.
    const signed = await b.post("/signin", {
      csrf: field(signIn, "csrf")!,
      ticket: field(signIn, "ticket")!,
      email: ctx.other.email,
      password: PASSWORD,
    });
    const next = await (await b.get(location(signed).pathname + location(signed).search)).text();
    assert.match(next, /Signed in as Olly \(olly@example.com\)/);
    const back = location(
      await b.post("/oauth/authorize/consent", {
        csrf: field(next, "csrf")!,
        ticket: field(next, "ticket")!,
        decision: "allow",
      }),
    );
    assert.equal(back.searchParams.get("state"), "keep-me");
    const [grant] = await ctx.db.sql<{ user_id: string }[]>`
      select user_id from oauth_codes where client_id = ${client.client_id}`;
    assert.equal(grant.user_id, ctx.other.id);
  } finally {
    await ctx.close();
  }
});

Deno.test("error pages: a code word and the request id; an unregistered redirect URI beside the registered ones", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app, { client_name: "Pages App" });
    const sent = `https://evil.example/cb?a=<script>alert(1)</script>`;
    const res = await ctx.app.request(
      authorizeUrl({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: sent,
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
      }),
      { headers: { "x-request-id": "req-abc.123" } },
    );
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("location"), null);
    assert.equal(res.headers.get("x-request-id"), "req-abc.123");
    const html = await res.text();
    assert.match(html, /data-error-code="invalid_redirect_uri"/);
    assert.match(html, /<code>invalid_redirect_uri<\/code>/);
    assert.match(html, /<code data-request-id>req-abc\.123<\/code>/);
    assert.ok(
      html.includes(
        `<code data-redirect-sent>https://evil.example/cb?a=&lt;script>alert(1)&lt;/script></code>`,
      ),
      "sent, escaped",
    );
    assert.ok(html.includes(`<code data-redirect-registered>${REDIRECT}</code>`));
    assert.doesNotMatch(html, /<script/);
    assert.doesNotMatch(html, /<a /, "never a link");

    const unknown = await ctx.app.request(
      authorizeUrl({ response_type: "code", client_id: "pcl_nobody", redirect_uri: REDIRECT }),
    );
    const u = await unknown.text();
    assert.equal(unknown.status, 400);
    assert.match(u, /data-error-code="unknown_client"/);
    assert.ok(u.includes(`<code data-request-id>${unknown.headers.get("x-request-id")}</code>`));
    assert.doesNotMatch(u, /data-redirect-sent/);

    // Pages other routes render carry the code and id too (CSRF refusal).
    const b = new Browser(ctx.app);
    await (await b.get("/signin")).body?.cancel();
    const refused = await b.post("/signin", { email: "x@example.com", password: "y" });
    assert.equal(refused.status, 403);
    const r = await refused.text();
    assert.match(r, /data-error-code="invalid_csrf"/);
    assert.ok(r.includes(`<code data-request-id>${refused.headers.get("x-request-id")}</code>`));
  } finally {
    await ctx.close();
  }
});

Deno.test("sign-in page: focus starts in the email field", async () => {
  const ctx = await setup();
  try {
    const html = await (await new Browser(ctx.app).get("/signin")).text();
    assert.match(
      html,
      /<input id="email" name="email" type="email" autocomplete="username webauthn" autofocus required/,
    );
    assert.equal(html.match(/autofocus/g)?.length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("Disconnect and Revoke: a GET confirmation page changes nothing; unknown ones are refused", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app, { client_name: "Pages App" });
    const b = new Browser(ctx.app);
    await getCode(ctx, b, client);
    const list = await (await b.get("/account/apps")).text();
    assert.match(list, /<form method="get" action="\/account\/apps\/disconnect">/);
    assert.doesNotMatch(list, /action="\/account\/apps\/revoke"/, "no one-click disconnect on the list");
    const page = await b.get(`/account/apps/disconnect?client_id=${encodeURIComponent(client.client_id)}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<h1>Disconnect Pages App\?<\/h1>/);
    assert.match(html, /<form method="post" action="\/account\/apps\/revoke">/);
    assert.equal(field(html, "client_id"), client.client_id);
    assert.ok(field(html, "csrf"));
    const [consent] = await ctx.db.sql`select 1 from oauth_consents where client_id = ${client.client_id}`;
    assert.ok(consent, "the GET disconnected nothing");
    const missing = await b.get("/account/apps/disconnect?client_id=pcl_unknown");
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /data-error-code="not_found"/);
    const anon = await new Browser(ctx.app).get(`/account/apps/disconnect?client_id=${client.client_id}`);
    assert.equal(anon.status, 303);
    assert.match(anon.headers.get("location")!, /^\/signin\?return_to=/);

    const garbage = await b.get("/account/keys/revoke?key_id=not-a-uuid");
    assert.equal(garbage.status, 303);
    assert.equal(garbage.headers.get("location"), "/account/keys?error=no_key");
  } finally {
    await ctx.close();
  }
});

Deno.test("axe-core is test-only: not in main.ts's module graph", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(out.code, 0);
  // `modules` is the graph main.ts loads (npmPackages lists the whole import map, which is not loaded).
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: Array<{ specifier: string }> };
  const specifiers = graph.modules.map((m) => m.specifier);
  assert.ok(specifiers.some((s) => s.endsWith("/routes/page_assets.ts")), "the graph is the app's");
  assert.ok(specifiers.some((s) => s.startsWith("npm:/preact@")), "npm modules are listed");
  assert.deepEqual(specifiers.filter((s) => s.includes("axe-core")), []);
});
