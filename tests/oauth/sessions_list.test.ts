// /account/sessions over HTTP: the person's browsers (device, address, how they signed in, this browser), "Sign
// out" of one (their account only: others in a shared browser stay), "Sign out everywhere else", CSRF on both,
// the security events; and the device summary's parsing.
import assert from "node:assert/strict";
import { deviceSummary, signInMethod } from "../../lib/oauth/session_list.ts";
import { Browser, type Ctx, field, setup, signInOnPage } from "./helpers.ts";

const FIREFOX_WIN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI_IOS =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) " +
  "Version/18.1 Mobile/15E148 Safari/604.1";

async function signedIn(
  ctx: Ctx,
  email: string,
  ua: string,
  ip: string,
  browser?: Browser,
): Promise<Browser> {
  const b = browser ?? new Browser(ctx.app, ip);
  if (!browser) {
    const orig = b.request.bind(b);
    b.request = (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set("user-agent", ua);
      return orig(path, { ...init, headers });
    };
  }
  const res = await signInOnPage(b, await b.get(browser ? "/signin?add=1" : "/signin"), email);
  assert.equal(res.status, 303);
  return b;
}

async function accountsOf(ctx: Ctx, userId: string): Promise<number> {
  const [r] = await ctx.db.sql<{ n: number }[]>`
    select count(*)::int as n from browser_session_accounts where user_id = ${userId}`;
  return r.n;
}

Deno.test("device summary and sign-in method", () => {
  assert.equal(deviceSummary(FIREFOX_WIN), "Firefox on Windows");
  assert.equal(deviceSummary(SAFARI_IOS), "Safari on iOS");
  assert.equal(
    deviceSummary(
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
    ),
    "Chrome on Linux",
  );
  assert.equal(
    deviceSummary(
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0",
    ),
    "Edge on Windows",
  );
  assert.equal(
    deviceSummary(
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile",
    ),
    "Chrome on Android",
  );
  assert.equal(
    deviceSummary(
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 Version/17.1 Safari/605.1.15",
    ),
    "Safari on macOS",
  );
  assert.equal(deviceSummary(""), "Unknown browser");
  assert.equal(deviceSummary("x".repeat(100_000)), "Unknown browser");
  assert.equal(signInMethod(["pwd"]), "Password");
  assert.equal(signInMethod(["pwd", "otp", "mfa"]), "Password and one-time code");
  assert.equal(signInMethod(["hwk", "user", "mfa"]), "Passkey");
  assert.equal(signInMethod(["pwd", "hwk", "mfa"]), "Password and passkey");
});

Deno.test("/account/sessions: list, sign out one, sign out everywhere else", async (t) => {
  const ctx = await setup();
  try {
    const laptop = await signedIn(ctx, ctx.user.email, FIREFOX_WIN, "198.51.100.7");
    const phone = await signedIn(ctx, ctx.user.email, SAFARI_IOS, "203.0.113.9");
    // A shared browser: Olly first, then Dana.
    const shared = await signedIn(ctx, ctx.other.email, FIREFOX_WIN, "192.0.2.44");
    await signedIn(ctx, ctx.user.email, FIREFOX_WIN, "192.0.2.44", shared);
    const [{ id: phoneSession }] = await ctx.db.sql<{ id: string }[]>`
      select id from browser_sessions where ip = '203.0.113.9'`;
    const [{ id: sharedSession }] = await ctx.db.sql<{ id: string }[]>`
      select id from browser_sessions where ip = '192.0.2.44'`;

    await t.step("signed out: the page sends the browser to sign in", async () => {
      const res = await new Browser(ctx.app).get("/account/sessions");
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/signin?return_to=%2Faccount%2Fsessions");
    });

    let html = "";
    await t.step(
      "the list: every browser of Dana, with device, address, method, and this browser",
      async () => {
        const res = await laptop.get("/account/sessions");
        assert.equal(res.status, 200);
        html = await res.text();
        assert.equal(html.match(/data-session="/g)?.length, 3);
        assert.ok(html.includes("Firefox on Windows") && html.includes("Safari on iOS"));
        assert.ok(
          html.includes("198.51.100.7") && html.includes("203.0.113.9") && html.includes("192.0.2.44"),
        );
        assert.equal(html.match(/data-this-browser/g)?.length, 1);
        assert.match(html, /<li data-session="[^"]+" data-current="1"/, "this browser comes first");
        assert.ok(html.indexOf('data-current="1"') < html.indexOf("Safari on iOS"));
        assert.match(html, /data-method[^>]*>Password</);
        assert.ok(html.includes("Sign out everywhere else"));
      },
    );

    await t.step("POSTs without CSRF are refused and change nothing", async () => {
      const one = await laptop.post("/account/sessions/end", { session_id: phoneSession });
      assert.equal(one.status, 403);
      const all = await laptop.post("/account/sessions/end-others", { csrf: "forged" });
      assert.equal(all.status, 403);
      assert.equal(await accountsOf(ctx, ctx.user.id), 3);
    });

    await t.step("sign out of one browser: the phone's next page goes to sign-in", async () => {
      const res = await laptop.post("/account/sessions/end", {
        csrf: field(html, "csrf")!,
        session_id: phoneSession,
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/account/sessions?ended=one");
      const next = await phone.get("/account/apps");
      assert.equal(next.status, 303);
      assert.match(next.headers.get("location")!, /^\/signin/);
      const [gone] = await ctx.db.sql`select id from browser_sessions where id = ${phoneSession}`;
      assert.equal(gone, undefined, "a session left with no account is deleted");
      const [event] = await ctx.db.sql<{ detail: { this_browser: boolean } }[]>`
        select detail from security_events where user_id = ${ctx.user.id} and kind = 'session_ended'`;
      assert.equal(event.detail.this_browser, false);
      const page = await (await laptop.get("/account/sessions?ended=one")).text();
      assert.ok(page.includes("You were signed out of that browser."));
      // Another person's session id does nothing to them.
      const [{ id: laptopSession }] = await ctx.db.sql<{ id: string }[]>`
        select id from browser_sessions where ip = '198.51.100.7'`;
      const otherHtml = await (await shared.get("/account/sessions")).text();
      assert.ok(otherHtml.includes(laptopSession), "Dana (current in the shared browser) sees the laptop");
    });

    await t.step("sign out everywhere else: Dana leaves the shared browser, Olly stays there", async () => {
      const res = await laptop.post("/account/sessions/end-others", { csrf: field(html, "csrf")! });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/account/sessions?ended=others");
      assert.equal(await accountsOf(ctx, ctx.user.id), 1, "only this browser is left");
      const rows = await ctx.db.sql<{ user_id: string }[]>`
        select user_id from browser_session_accounts where session_id = ${sharedSession}`;
      assert.deepEqual(rows.map((r) => r.user_id), [ctx.other.id]);
      const [event] = await ctx.db.sql<{ detail: { sessions: number } }[]>`
        select detail from security_events where user_id = ${ctx.user.id} and kind = 'sessions_ended'`;
      assert.equal(event.detail.sessions, 1);
      const page = await (await laptop.get("/account/sessions")).text();
      assert.equal(page.match(/data-session="/g)?.length, 1);
      assert.ok(!page.includes("Sign out everywhere else"), "nothing else to sign out of");
    });

    await t.step("sign out of this browser: the cookie goes, back to sign-in", async () => {
      const page = await (await laptop.get("/account/sessions")).text();
      const [{ id }] = await ctx.db.sql<
        { id: string }[]
      >`select id from browser_sessions where ip = '198.51.100.7'`;
      const res = await laptop.post("/account/sessions/end", { csrf: field(page, "csrf")!, session_id: id });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/signin?return_to=%2Faccount%2Fsessions");
      assert.equal(await accountsOf(ctx, ctx.user.id), 0);
      assert.equal((await laptop.get("/account/sessions")).status, 303);
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("the sign-out button (POST /signout) records signed_out for the account that left", async () => {
  const ctx = await setup();
  try {
    const b = await signedIn(ctx, ctx.user.email, FIREFOX_WIN, "198.51.100.7");
    const html = await (await b.get("/account/apps")).text();
    const res = await b.post("/signout", { csrf: field(html, "csrf")!, return_to: "/account/apps" });
    assert.equal(res.status, 303);
    const events = await ctx.db.sql<{ kind: string; ip: string }[]>`
      select kind, ip from security_events where user_id = ${ctx.user.id} and kind = 'signed_out'`;
    assert.deepEqual(events.map((e) => [e.kind, e.ip]), [["signed_out", "198.51.100.7"]]);
    assert.equal(await accountsOf(ctx, ctx.user.id), 0);
  } finally {
    await ctx.close();
  }
});
