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
import { createLogger, silentLogger } from "../../lib/log.ts";
import { release, reserve } from "../../lib/rate_limit/mod.ts";
import { accountKey, brakeBucket, DEVICE_COOKIE, SIGN_IN_BRAKE, signIn } from "../../lib/oauth/sign_in.ts";
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

/** The sliding count of one brake bucket as stored (the sum over its windows). */
async function bucketCount(ctx: Awaited<ReturnType<typeof setup>>, bucket: string): Promise<number> {
  const [row] = await ctx.db.sql<{ n: number }[]>`
    select coalesce(sum(count), 0)::int as n from rate_limits where bucket = ${bucket}`;
  return row.n;
}

function accountCount(ctx: Awaited<ReturnType<typeof setup>>, email: string): Promise<number> {
  return bucketCount(ctx, brakeBucket.account(accountKey(email)));
}

function networkCount(ctx: Awaited<ReturnType<typeof setup>>, email: string, ip: string): Promise<number> {
  return bucketCount(ctx, brakeBucket.network(accountKey(email), ip));
}

Deno.test("40 parallel guesses against a limit of 10: 10 are checked, the right password is refused", async () => {
  const ctx = await setup();
  let letGo = () => {};
  let pending: Promise<unknown>[] = [];
  try {
    assert.equal(SIGN_IN_BRAKE.perNetwork, 10);
    // 40 attackers on 40 addresses of one /24, so only the brake per account and network stands in the way.
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
    assert.equal(await networkCount(ctx, ctx.user.email, "198.18.0.1"), 10);
    assert.equal(await accountCount(ctx, ctx.user.email), 10);
    // The brake is on for that network: the right password from yet another new browser there is refused too,
    // and refusals are not counted.
    const late = await signInBrowser(ctx.app, "198.18.0.250");
    assert.equal(await late.attempt(ctx.user.email, PASSWORD), "throttled");
    assert.equal(await networkCount(ctx, ctx.user.email, "198.18.0.1"), 10);
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

/** Moves the brake's last counted attempts back in time, as if `seconds` had passed (no sleeping). */
async function travel(ctx: Awaited<ReturnType<typeof setup>>, seconds: number): Promise<void> {
  await ctx.db.sql`
    update rate_limits set last_at = last_at - make_interval(secs => ${seconds}) where bucket like 'signin:%'`;
}

Deno.test("12 wrong passwords from one address brake that network only: the owner's new browser elsewhere signs in", async () => {
  const ctx = await setup();
  try {
    const email = ctx.user.email;
    const cases = [
      { attacker: "198.51.100.66", neighbour: "198.51.100.67", owner: "203.0.113.50", later: "192.0.2.50" },
      {
        attacker: "2001:db8:aa:1::1",
        neighbour: "2001:db8:aa:1:ffff::beef",
        owner: "2001:db8:aa:2::1",
        later: "2001:db8:aa:3::1",
      },
    ];
    let failures = 0;
    for (const ip of cases) {
      // The attack of issue 28.6: one cookie jar on one address, 12 wrong passwords at a known email.
      const attacker = await signInBrowser(ctx.app, ip.attacker);
      const outcomes: Outcome[] = [];
      for (let i = 0; i < 12; i++) outcomes.push(await attacker.attempt(email, `wrong-${i}`));
      assert.deepEqual(tally(outcomes), { signed_in: 0, invalid_credentials: 10, throttled: 2 }, ip.attacker);
      failures += 10;
      // The owner's correct password from a fresh browser (no device cookie) on another network: signed in.
      const owner = await signInBrowser(ctx.app, ip.owner);
      assert.equal(await owner.attempt(email, PASSWORD), "signed_in", ip.owner);
      // The attacker's own address is still braked, the right password included, and so is its network.
      assert.equal(await attacker.attempt(email, PASSWORD), "throttled", ip.attacker);
      const neighbour = await signInBrowser(ctx.app, ip.neighbour);
      assert.equal(await neighbour.attempt(email, PASSWORD), "throttled", ip.neighbour);
      assert.equal(await networkCount(ctx, email, ip.attacker), 10);
      assert.equal(await networkCount(ctx, email, ip.owner), 0, "the owner's success gave its slot back");
      assert.equal(await accountCount(ctx, email), failures);

      // Keeping it up (one attempt per wait, the old brake's day-long lockout) still costs the owner nothing.
      await travel(ctx, SIGN_IN_BRAKE.maxDelaySeconds);
      assert.equal(await attacker.attempt(email, "wrong-again"), "invalid_credentials");
      failures += 1;
      const later = await signInBrowser(ctx.app, ip.later);
      assert.equal(await later.attempt(email, PASSWORD), "signed_in", ip.later);
      assert.equal(await attacker.attempt(email, PASSWORD), "throttled", ip.attacker);
      assert.equal(await networkCount(ctx, email, ip.attacker), 11);
      assert.equal(await accountCount(ctx, email), failures);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("guesses spread over many networks meet the account-wide ceiling; the owner's wait is bounded", async () => {
  const ctx = await setup();
  try {
    const email = ctx.user.email;
    const { perAccount, perNetwork } = SIGN_IN_BRAKE;
    assert.deepEqual({ perAccount, perNetwork }, { perAccount: 200, perNetwork: 10 });
    // The owner signed in once on their laptop: that browser has a device cookie for the account.
    const laptop = await signInBrowser(ctx.app, "203.0.113.10");
    assert.equal(await laptop.attempt(email, PASSWORD), "signed_in");

    // 20 networks, each with its free 10 wrong passwords: all 200 are checked.
    const networks = await Promise.all(
      Array.from({ length: perAccount / perNetwork }, (_, n) => signInBrowser(ctx.app, `198.18.${n}.1`)),
    );
    const outcomes = await Promise.all(networks.map(async (a, n) => {
      const mine: Outcome[] = [];
      for (let i = 0; i < perNetwork; i++) mine.push(await a.attempt(email, `net-${n}-guess-${i}`));
      return mine;
    }));
    assert.deepEqual(tally(outcomes.flat()), { signed_in: 0, invalid_credentials: 200, throttled: 0 });
    assert.equal(await accountCount(ctx, email), 200);

    // Past the ceiling, a network that has not tried yet is refused unchecked, the right password included;
    // the refusal names the account-wide bucket and is not counted.
    const fresh = await signInBrowser(ctx.app, "192.0.2.77");
    assert.equal(await fresh.attempt(email, PASSWORD), "throttled");
    const direct = await signIn(ctx.db.sql, { email, password: PASSWORD, ip: "192.0.2.78" }, {
      scrypt: TEST_SCRYPT,
    });
    assert.ok(!direct.ok && direct.reason === "throttled");
    assert.equal(direct.brake, "account");
    assert.ok(
      direct.retryAfter >= 1 && direct.retryAfter <= SIGN_IN_BRAKE.firstDelaySeconds,
      JSON.stringify(direct),
    );
    assert.equal(await accountCount(ctx, email), 200);
    assert.equal(await networkCount(ctx, email, "192.0.2.77"), 0, "a slot taken and given back");

    // The owner's laptop is not held back by any of it.
    assert.equal(await laptop.attempt(email, PASSWORD), "signed_in");
    // And the wait is bounded: once the first delay has passed, a new browser's right password is checked.
    await travel(ctx, SIGN_IN_BRAKE.firstDelaySeconds);
    assert.equal(await fresh.attempt(email, PASSWORD), "signed_in");
    assert.equal(await accountCount(ctx, email), 200);
    // Guessing goes on at one attempt per wait (1 min, then 2, 4 … 15 min) for the whole account.
    const more = await signInBrowser(ctx.app, "192.0.2.200");
    assert.equal(
      await more.attempt(email, "another guess"),
      "throttled",
      "the owner's try restarted the wait",
    );
    await travel(ctx, SIGN_IN_BRAKE.firstDelaySeconds);
    assert.equal(await more.attempt(email, "another guess"), "invalid_credentials");
    assert.equal(await more.attempt(email, "and another"), "throttled");
    assert.equal(await accountCount(ctx, email), 201);
  } finally {
    await ctx.close();
  }
});

Deno.test("a failed and a throttled sign-in each leave a security event with ids only, never the email or password", async () => {
  const db = await freshDatabase();
  try {
    const lines: Record<string, unknown>[] = [];
    const raw: string[] = [];
    const log = createLogger("debug", (l) => (raw.push(l), lines.push(JSON.parse(l))));
    const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET });
    const app = createApp({ config, sql: db.sql, log, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT });
    const email = "Dana@Example.com";
    const user = await createUser(db.sql, { email, password: PASSWORD, name: "Dana" }, {
      scrypt: TEST_SCRYPT,
    });
    const browser = new Browser(app, "198.51.100.23");
    const csrf = field(await (await browser.get("/signin")).text(), "csrf")!;
    let n = 0;
    /** Posts the form with a request id of its own; returns that id and the lines logged besides the access line. */
    const attempt = async (typed: string, password: string) => {
      const requestId = `signin-test-${++n}`;
      const before = lines.length;
      const res = await browser.request("/signin", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": requestId },
        body: new URLSearchParams({ csrf, email: typed, password }).toString(),
      });
      assert.equal(res.status, 303);
      const logged = lines.slice(before).filter((l) => l.msg !== "request");
      return { requestId, logged: logged.map(({ time: _, ...rest }) => rest) };
    };

    const wrong = await attempt(email, "not-the-password-1");
    assert.deepEqual(wrong.logged, [{
      level: "warn",
      msg: "security event",
      event: "sign_in_failed",
      request_id: wrong.requestId,
      user_id: user.id,
      network: "198.51.100.0/24",
      device: false,
      reason: "invalid_credentials",
    }]);
    // An email nobody has: no person to name, and nothing of what was typed.
    const unknown = await attempt("nobody@example.com", "not-the-password-2");
    assert.deepEqual(unknown.logged, [{
      level: "warn",
      msg: "security event",
      event: "sign_in_failed",
      request_id: unknown.requestId,
      network: "198.51.100.0/24",
      device: false,
      reason: "invalid_credentials",
    }]);
    // Nine more at Dana's account (the unknown email counted against its own): her network's ten are used.
    for (let i = 1; i < SIGN_IN_BRAKE.perNetwork; i++) await attempt(email, `not-the-password-${i + 2}`);
    const throttled = await attempt(email, PASSWORD);
    assert.equal(throttled.logged.length, 1);
    const { retry_after, ...rest } = throttled.logged[0];
    assert.deepEqual(rest, {
      level: "warn",
      msg: "security event",
      event: "sign_in_throttled",
      request_id: throttled.requestId,
      user_id: user.id,
      network: "198.51.100.0/24",
      device: false,
      brake: "network",
    });
    assert.ok(Number.isInteger(retry_after) && (retry_after as number) >= 1, String(retry_after));
    // A success logs its security event (ids only: the person, the network, how) and its access line.
    const elsewhere = new Browser(app, "203.0.113.23");
    const csrf2 = field(await (await elsewhere.get("/signin")).text(), "csrf")!;
    const before = lines.length;
    const ok = await elsewhere.post("/signin", { csrf: csrf2, email, password: PASSWORD });
    assert.equal(ok.headers.get("location"), "/account/apps");
    assert.deepEqual(lines.slice(before).map((l) => l.msg), ["security event", "request"]);
    const { time: _t, request_id: okRequestId, ...signedIn } = lines[before];
    assert.equal(typeof okRequestId, "string");
    assert.deepEqual(signedIn, {
      level: "info",
      msg: "security event",
      event: "sign_in",
      user_id: user.id,
      network: "203.0.113.0/24",
      amr: "pwd",
    });
    // Neither what was typed as the email (in any case) nor any password appears in any line.
    const all = raw.join("\n").toLowerCase();
    for (
      const secret of [email.toLowerCase(), "nobody@example.com", "not-the-password", PASSWORD.toLowerCase()]
    ) {
      assert.equal(all.includes(secret), false, secret);
    }
  } finally {
    await db.close();
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

    // The attacker, from many addresses of one network: 30 guesses, 10 checked, then braked.
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 30; i++) {
      const a = await signInBrowser(ctx.app, `198.51.100.${i + 1}`);
      outcomes.push(await a.attempt(ctx.user.email, `guess-${i}`));
    }
    assert.deepEqual(tally(outcomes), { signed_in: 0, invalid_credentials: 10, throttled: 20 });
    const stranger = await signInBrowser(ctx.app, "198.51.100.200");
    assert.equal(
      await stranger.attempt(ctx.user.email, PASSWORD),
      "throttled",
      "a new browser on that network",
    );

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
