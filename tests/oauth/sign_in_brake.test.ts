// The sign-in brake: attempts counted before the password is checked, device cookies that keep the owner in,
// progressive delays, and scrypt at OWASP's cost with a transparent rehash of older hashes.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import {
  HASHING_CONCURRENCY,
  hashingSlots,
  hashParams,
  hashPassword,
  Semaphore,
  verifyPassword,
} from "../../lib/crypto.ts";
import { silentLogger } from "../../lib/log.ts";
import { release, reserve } from "../../lib/oauth/rate_limit.ts";
import { accountKey, DEVICE_COOKIE, SIGN_IN_BRAKE } from "../../lib/oauth/sign_in.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { settleCounter } from "../helpers/wait.ts";
import { Browser, field, PASSWORD, setup } from "./helpers.ts";

type Outcome = "signed_in" | "invalid_credentials" | "throttled";

/** A browser on its own IP with the sign-in form loaded; `attempt` posts it and names the outcome. */
async function signInBrowser(app: Browser["app"], ip: string) {
  const browser = new Browser(app, ip);
  const csrf = field(await (await browser.get("/signin")).text(), "csrf")!;
  return {
    browser,
    async attempt(email: string, password: string): Promise<Outcome> {
      const res = await browser.post("/signin", { csrf, email, password });
      assert.equal(res.status, 303);
      const to = res.headers.get("location")!;
      if (to === "/account/apps") return "signed_in";
      const error = new URL(to, "http://x").searchParams.get("error");
      assert.ok(error === "invalid_credentials" || error === "throttled", to);
      return error;
    },
  };
}

/** Takes every hashing slot; the returned function gives them back (once), also when a test fails midway. */
async function holdHashing(): Promise<() => void> {
  for (let i = 0; i < HASHING_CONCURRENCY; i++) await hashingSlots.acquire();
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    for (let i = 0; i < HASHING_CONCURRENCY; i++) hashingSlots.release();
  };
}

function tally(outcomes: Outcome[]): Record<Outcome, number> {
  const out = { signed_in: 0, invalid_credentials: 0, throttled: 0 };
  for (const o of outcomes) out[o]++;
  return out;
}

async function accountCount(ctx: Awaited<ReturnType<typeof setup>>, email: string): Promise<number> {
  const [row] = await ctx.db.sql<{ n: number }[]>`
    select coalesce(sum(count), 0)::int as n from rate_limits where bucket = ${`signin:account:${
    accountKey(email)
  }`}`;
  return row.n;
}

Deno.test("40 parallel guesses against a limit of 10: 10 are checked, the right password is refused", async () => {
  const ctx = await setup();
  let letGo = () => {};
  let pending: Promise<unknown>[] = [];
  try {
    assert.equal(SIGN_IN_BRAKE.perAccount, 10);
    // 40 attackers on 40 addresses, so only the per-account brake stands in the way.
    const attackers = [];
    for (let i = 0; i < 40; i++) attackers.push(await signInBrowser(ctx.app, `198.18.0.${i + 1}`));
    // Hold every hashing slot: no password check finishes while the guesses arrive, as with real scrypt
    // timings (0.6-1 s per check) — the window the old check-verify-count order lost.
    letGo = await holdHashing();
    const done: Outcome[] = [];
    const answered = settleCounter();
    const wrong = attackers.slice(0, 39).map((a, i) =>
      answered.track(a.attempt(ctx.user.email, `wrong-guess-${i}`).then((o) => (done.push(o), o)))
    );
    pending = wrong;
    // Those over the brake are answered without a check; wait for them (the ten checks cannot finish meanwhile).
    await answered.atLeast(29, "29 guesses answered without a check");
    assert.deepEqual(tally(done), { signed_in: 0, invalid_credentials: 0, throttled: 29 });
    // The 40th guess, the right password, arrives while ten checks are under way: refused.
    assert.equal(await attackers[39].attempt(ctx.user.email, PASSWORD), "throttled");
    letGo();
    const outcomes = await Promise.all(wrong);
    assert.deepEqual(tally(outcomes), { signed_in: 0, invalid_credentials: 10, throttled: 29 });
    assert.equal(await accountCount(ctx, ctx.user.email), 10);
    // The brake is on: the right password from yet another new browser is refused too, and refusals are not
    // counted.
    const late = await signInBrowser(ctx.app, "198.18.1.1");
    assert.equal(await late.attempt(ctx.user.email, PASSWORD), "throttled");
    assert.equal(await accountCount(ctx, ctx.user.email), 10);
  } finally {
    letGo();
    await Promise.allSettled(pending);
    await ctx.close();
  }
});

Deno.test("40 parallel guesses at once (right one last) never check more than 10", async () => {
  const ctx = await setup();
  let letGo = () => {};
  let pending: Promise<unknown>[] = [];
  try {
    const attackers = [];
    for (let i = 0; i < 40; i++) attackers.push(await signInBrowser(ctx.app, `198.18.2.${i + 1}`));
    letGo = await holdHashing();
    const done: Outcome[] = [];
    const answered = settleCounter();
    const all = attackers.map((a, i) =>
      answered.track(
        a.attempt(ctx.user.email, i === 39 ? PASSWORD : `wrong-${i}`).then((o) => (done.push(o), o)),
      )
    );
    pending = all;
    // 30 are refused without a check before any check can finish (the slots are held); then the checks run.
    await answered.atLeast(30, "30 guesses answered without a check");
    assert.deepEqual(tally(done), { signed_in: 0, invalid_credentials: 0, throttled: 30 });
    letGo();
    const t = tally(await Promise.all(all));
    // Whichever ten won the race were checked (the right one may be among them: the brake allows ten guesses).
    assert.equal(t.throttled, 30);
    assert.equal(t.invalid_credentials + t.signed_in, 10);
  } finally {
    letGo();
    await Promise.allSettled(pending);
    await ctx.close();
  }
});

Deno.test("the owner's browser (device cookie) still signs in while an attacker hammers the account", async () => {
  const ctx = await setup();
  try {
    const owner = await signInBrowser(ctx.app, "203.0.113.10");
    assert.equal(await owner.attempt(ctx.user.email, PASSWORD), "signed_in");
    const cookie = owner.browser.cookies.get(DEVICE_COOKIE)!;
    assert.match(cookie, /^[A-Za-z0-9_-]{24}\.[0-9a-f]{32}\.[A-Za-z0-9_-]{43}$/);
    // Signing out keeps the device cookie: the browser is still one the account signed in with.
    const page = await (await owner.browser.get("/account/apps")).text();
    await owner.browser.post("/signout", { csrf: field(page, "csrf")! });
    assert.equal(owner.browser.cookies.get(DEVICE_COOKIE), cookie);

    // The attacker, from many addresses: 30 guesses, 10 checked, then braked.
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 30; i++) {
      const a = await signInBrowser(ctx.app, `198.51.100.${i + 1}`);
      outcomes.push(await a.attempt(ctx.user.email, `guess-${i}`));
    }
    assert.deepEqual(tally(outcomes), { signed_in: 0, invalid_credentials: 10, throttled: 20 });
    const stranger = await signInBrowser(ctx.app, "198.51.100.200");
    assert.equal(await stranger.attempt(ctx.user.email, PASSWORD), "throttled");

    // The owner's browser is not held back by any of that, again and again.
    for (let i = 0; i < 3; i++) assert.equal(await owner.attempt(ctx.user.email, PASSWORD), "signed_in");
    // A forged or tampered device cookie is worth nothing.
    const forger = await signInBrowser(ctx.app, "198.51.100.201");
    forger.browser.cookies.set(DEVICE_COOKIE, cookie.slice(0, -2) + (cookie.endsWith("A") ? "BB" : "AA"));
    assert.equal(await forger.attempt(ctx.user.email, PASSWORD), "throttled");
    // The cookie vouches only for the accounts signed in with it: olly is another account.
    assert.equal(await owner.attempt(ctx.other.email, PASSWORD), "signed_in");
    const device = owner.browser.cookies.get(DEVICE_COOKIE)!.split(".");
    assert.equal(device[0], cookie.split(".")[0], "same browser id");
    assert.equal(
      device[1],
      `${accountKey(ctx.other.email).slice(0, 32)}~${accountKey(ctx.user.email).slice(0, 32)}`,
    );

    // The device has a brake of its own: 10 failures from it, then it waits too (the right password as well).
    const mine: Outcome[] = [];
    for (let i = 0; i < SIGN_IN_BRAKE.perDevice + 1; i++) {
      mine.push(await owner.attempt(ctx.user.email, `typo-${i}`));
    }
    assert.deepEqual(tally(mine), { signed_in: 0, invalid_credentials: 10, throttled: 1 });
    assert.equal(await owner.attempt(ctx.user.email, PASSWORD), "throttled");
    const [dev] = await ctx.db.sql<{ n: number }[]>`
      select sum(count)::int as n from rate_limits where bucket = ${`signin:device:${cookie.split(".")[0]}`}`;
    assert.equal(dev.n, 10);
  } finally {
    await ctx.close();
  }
});

Deno.test("a device cookie does not bypass the per-source brake", async () => {
  const ctx = await setup();
  try {
    const owner = await signInBrowser(ctx.app, "203.0.113.20");
    assert.equal(await owner.attempt(ctx.user.email, PASSWORD), "signed_in");
    // Someone on the same address sprays 50 other accounts: the address is braked for everyone on it.
    const sprayer = await signInBrowser(ctx.app, "203.0.113.20");
    for (let i = 0; i < SIGN_IN_BRAKE.perIp; i++) {
      assert.equal(await sprayer.attempt(`user${i}@example.com`, "password-1"), "invalid_credentials");
    }
    assert.equal(await sprayer.attempt("user99@example.com", "password-1"), "throttled");
    assert.equal(await owner.attempt(ctx.user.email, PASSWORD), "throttled");
    // A successful sign-in gives its slots back: the owner's earlier success left the address at 50, not 51.
    const [ip] = await ctx.db.sql<{ n: number }[]>`
      select sum(count)::int as n from rate_limits where bucket = 'signin:ip:203.0.113.20'`;
    assert.equal(ip.n, SIGN_IN_BRAKE.perIp);
  } finally {
    await ctx.close();
  }
});

Deno.test("progressive delay: 60 s after the free attempts, doubling to at most 15 min; refusals are free", async () => {
  const db = await freshDatabase();
  try {
    const brake = { free: 3, windowSeconds: 24 * 3600, firstDelaySeconds: 60, maxDelaySeconds: 900 };
    const bucket = "test:progressive";
    const waits: number[] = [];
    // One transaction: now() stands still in it, so each wait is exact. (Statement by statement, every value
    // assumed the next statement came within a second of the last — a loaded host need not.)
    await db.sql.begin(async (tx) => {
      const travel = (seconds: number) =>
        tx`update rate_limits set last_at = last_at - make_interval(secs => ${seconds}) where bucket = ${bucket}`;
      for (let i = 0; i < 3; i++) assert.equal((await reserve(tx, bucket, brake)).ok, true);
      for (const expected of [60, 120, 240, 480, 900, 900]) {
        const refused = await reserve(tx, bucket, brake);
        assert.deepEqual(refused, { ok: false, retryAfter: expected });
        // Asking again changes nothing.
        assert.deepEqual(await reserve(tx, bucket, brake), { ok: false, retryAfter: expected });
        await travel(expected - 2);
        assert.deepEqual(await reserve(tx, bucket, brake), { ok: false, retryAfter: 2 });
        await travel(2);
        const ok = await reserve(tx, bucket, brake);
        assert.equal(ok.ok, true);
        waits.push(expected);
      }
    });
    const [row] = await db.sql<{ n: number }[]>`
      select sum(count)::int as n from rate_limits where bucket = ${bucket}`;
    assert.equal(row.n, 3 + waits.length);
    // release gives one back (a successful sign-in)
    const taken = await reserve(db.sql, "test:release", brake);
    assert.ok(taken.ok);
    await release(db.sql, taken);
    const [left] = await db.sql<
      { count: number }[]
    >`select count from rate_limits where bucket = 'test:release'`;
    assert.equal(left.count, 0);
  } finally {
    await db.close();
  }
});

Deno.test("scrypt at OWASP's cost (N=2^17, r=8, p=1); an older hash is rehashed at sign-in", async () => {
  const db = await freshDatabase();
  try {
    // The app as production builds it: no test cost passed in.
    const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET });
    const app = createApp({ config, sql: db.sql, log: silentLogger, secretKey: TEST_SECRET });
    const email = "old@example.com";
    // A hash with the parameters Portico used before (N=2^14).
    await createUser(db.sql, { email, password: PASSWORD, name: "Old" }, {
      scrypt: { N: 2 ** 14, r: 8, p: 1 },
    });
    const stored = async () =>
      (await db.sql<{ password_hash: string }[]>`select password_hash from users where email = ${email}`)[0]
        .password_hash;
    const before = await stored();
    assert.deepEqual(hashParams(before), { N: 16384, r: 8, p: 1 });

    const first = await signInBrowser(app, "192.0.2.30");
    assert.equal(await first.attempt(email, "not the password"), "invalid_credentials");
    assert.equal(await stored(), before, "a failed attempt changes nothing");
    assert.equal(await first.attempt(email, PASSWORD), "signed_in");
    const after = await stored();
    assert.notEqual(after, before);
    assert.deepEqual(hashParams(after), { N: 131072, r: 8, p: 1 });
    assert.match(after, /^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    // The password still works, from another browser, and the new hash is kept as it is.
    const second = await signInBrowser(app, "192.0.2.31");
    assert.equal(await second.attempt(email, PASSWORD), "signed_in");
    assert.equal(await stored(), after);
    assert.equal(await verifyPassword(PASSWORD, after), true);
    assert.equal(await verifyPassword("wrong", after), false);
  } finally {
    await db.close();
  }
});

Deno.test("password hashing is bounded: at most HASHING_CONCURRENCY scrypt runs at once", async () => {
  assert.equal(HASHING_CONCURRENCY, 2);
  // While every slot is held, no hash can finish; each finishes once a slot is free.
  const letGo = await holdHashing();
  let finished = 0;
  const hashes = Array.from(
    { length: 4 },
    () => hashPassword("pw", TEST_SCRYPT).then((h) => (finished++, h)),
  );
  try {
    // all four wait for a slot (not "none finished within 100 ms", which a slow host says of running ones too)
    assert.equal(hashingSlots.waiting, 4);
    assert.equal(finished, 0);
  } finally {
    letGo();
  }
  assert.equal((await Promise.all(hashes)).length, 4);
  assert.equal(finished, 4);

  // The semaphore itself: 10 jobs, never more than 2 running.
  const s = new Semaphore(2);
  let running = 0, most = 0;
  await Promise.all(Array.from({ length: 10 }, () =>
    s.run(async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    })));
  assert.equal(most, 2);
});
