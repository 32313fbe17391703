// Browser sessions' idle limit (SESSION_IDLE_MINUTES) beside the 30-day absolute one, and the throttled
// last_seen_at bump: clocks are moved in the database (no sleeps).
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../lib/config.ts";
import { LAST_SEEN_BUMP_SECONDS } from "../../lib/oauth/sessions.ts";
import { Browser, type Ctx, setup, signInOnPage } from "./helpers.ts";

const UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

interface Row {
  id: string;
  lastSeenAt: Date;
  ip: string;
  userAgent: string;
}

async function sessionRows(ctx: Ctx): Promise<Row[]> {
  return await ctx.db.sql<Row[]>`
    select id, last_seen_at as "lastSeenAt", ip, user_agent as "userAgent" from browser_sessions order by created_at`;
}

/** A browser signed in as Dana, with a User-Agent. */
async function signedIn(ctx: Ctx, ip = "198.51.100.7"): Promise<Browser> {
  const browser = new Browser(ctx.app, ip);
  const orig = browser.request.bind(browser);
  browser.request = (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("user-agent", UA);
    return orig(path, { ...init, headers });
  };
  const res = await signInOnPage(browser, await browser.get("/signin"), ctx.user.email);
  assert.equal(res.status, 303);
  return browser;
}

async function isSignedIn(browser: Browser): Promise<boolean> {
  const res = await browser.get("/account/apps");
  await res.body?.cancel();
  if (res.status === 200) return true;
  assert.equal(res.status, 303);
  assert.match(res.headers.get("location")!, /^\/signin\?return_to=/);
  return false;
}

async function setLastSeen(ctx: Ctx, secondsAgo: number) {
  await ctx.db.sql`update browser_sessions set last_seen_at = now() - make_interval(secs => ${secondsAgo})`;
}

Deno.test("SESSION_IDLE_MINUTES: default 240, 0 turns it off, else 5 to 43200", () => {
  const base = { SECRET_KEY: "x".repeat(32) };
  assert.equal(parseConfig(base).sessionIdleMinutes, 240);
  assert.equal(parseConfig({ ...base, SESSION_IDLE_MINUTES: "0" }).sessionIdleMinutes, 0);
  assert.equal(parseConfig({ ...base, SESSION_IDLE_MINUTES: "30" }).sessionIdleMinutes, 30);
  for (const bad of ["4", "-1", "43201", "1.5", "soon"]) {
    assert.throws(() => parseConfig({ ...base, SESSION_IDLE_MINUTES: bad }), ConfigError, bad);
  }
});

Deno.test("browser sessions: idle limit, absolute limit, throttled bump, device facts", async (t) => {
  const ctx = await setup();
  try {
    await t.step("sign-in records the browser's User-Agent and address", async () => {
      await signedIn(ctx);
      const [row] = await sessionRows(ctx);
      assert.equal(row.userAgent, UA);
      assert.equal(row.ip, "198.51.100.7");
      await ctx.db.sql`delete from browser_sessions`;
    });

    await t.step("used within the idle limit: live, and the use moves last_seen_at", async () => {
      const browser = await signedIn(ctx);
      await setLastSeen(ctx, 239 * 60);
      assert.equal(await isSignedIn(browser), true);
      const [row] = await sessionRows(ctx);
      assert.ok(Date.now() - row.lastSeenAt.getTime() < 60_000, "bumped to now");
      // …so another 239 minutes later it is still live (4 h idle, not 4 h from sign-in).
      await setLastSeen(ctx, 239 * 60);
      assert.equal(await isSignedIn(browser), true);
      await ctx.db.sql`delete from browser_sessions`;
    });

    await t.step("idle past the limit: not live, and the session is deleted", async () => {
      const browser = await signedIn(ctx);
      await setLastSeen(ctx, 240 * 60 + 5);
      assert.equal(await isSignedIn(browser), false);
      assert.equal((await sessionRows(ctx)).length, 0, "the idle session is gone");
      // Signing in again starts a new session.
      const res = await signInOnPage(browser, await browser.get("/signin"), ctx.user.email);
      assert.equal(res.status, 303);
      assert.equal((await sessionRows(ctx)).length, 1);
      assert.equal(await isSignedIn(browser), true);
      await ctx.db.sql`delete from browser_sessions`;
    });

    await t.step("the absolute limit holds however fresh the use", async () => {
      const browser = await signedIn(ctx);
      await ctx.db
        .sql`update browser_sessions set expires_at = now() - interval '1 second', last_seen_at = now()`;
      assert.equal(await isSignedIn(browser), false);
      await ctx.db.sql`delete from browser_sessions`;
    });

    await t.step("last_seen_at and the address are written at most once a minute", async () => {
      const browser = await signedIn(ctx);
      await setLastSeen(ctx, LAST_SEEN_BUMP_SECONDS - 20);
      const [before] = await sessionRows(ctx);
      // Another address within the minute: neither field is written.
      const elsewhere = new Browser(ctx.app, "203.0.113.9");
      elsewhere.cookies = browser.cookies;
      for (let i = 0; i < 3; i++) assert.equal(await isSignedIn(elsewhere), true);
      const [same] = await sessionRows(ctx);
      assert.equal(same.lastSeenAt.getTime(), before.lastSeenAt.getTime(), "not bumped within the minute");
      assert.equal(same.ip, "198.51.100.7");
      // Over the minute: bumped, with the address of that request.
      await setLastSeen(ctx, LAST_SEEN_BUMP_SECONDS + 5);
      assert.equal(await isSignedIn(elsewhere), true);
      const [after] = await sessionRows(ctx);
      assert.ok(after.lastSeenAt.getTime() > before.lastSeenAt.getTime());
      assert.equal(after.ip, "203.0.113.9");
      await ctx.db.sql`delete from browser_sessions`;
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("SESSION_IDLE_MINUTES=0: no idle limit; 5: five minutes", async (t) => {
  for (
    const [minutes, idleSeconds, live] of [["0", 29 * 24 * 3600, true], ["5", 5 * 60 + 5, false]] as const
  ) {
    await t.step(
      `SESSION_IDLE_MINUTES=${minutes}, idle ${idleSeconds} s → ${live ? "live" : "over"}`,
      async () => {
        const ctx = await setup({ SESSION_IDLE_MINUTES: minutes });
        try {
          const browser = await signedIn(ctx);
          await setLastSeen(ctx, idleSeconds);
          assert.equal(await isSignedIn(browser), live);
        } finally {
          await ctx.close();
        }
      },
    );
  }
});
