// Sign-in, CSRF, cookies, security headers and /account/apps: the browser-facing rules.
import assert from "node:assert/strict";
import { SIGN_IN_BRAKE } from "../../lib/oauth/sign_in.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
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
      "repeated failures brake the account (per email) and the IP, counted in the database",
      async () => {
        const b = new Browser(app, "203.0.113.99");
        const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
        for (let i = 0; i < SIGN_IN_BRAKE.perAccount; i++) {
          await b.post("/signin", { csrf, email: "victim@example.com", password: `guess-${i}` });
        }
        const [row] = await ctx.db.sql<{ n: number }[]>`
        select coalesce(sum(count), 0)::int as n from rate_limits where bucket like 'signin:account:%'`;
        assert.ok(row.n >= SIGN_IN_BRAKE.perAccount);
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
