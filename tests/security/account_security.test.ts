// /account/security and /account/security/password over HTTP (issue 29 part C): changing the password (current
// first, through the sign-in brake; the policy; every other browser signed out, this one kept), the change asked
// for after a sign-in with a password that falls short (and the OAuth flow resuming after it), the overview with
// the person's security log, and no secret in any event row or log line.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { sha256Hex, verifyPassword } from "../../lib/crypto.ts";
import { createLogger } from "../../lib/log.ts";
import { SIGN_IN_BRAKE } from "../../lib/oauth/sign_in.ts";
import { createApp } from "../../routes/mod.ts";
import { safeNext } from "../../routes/account_security.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase, type TestDb } from "../helpers/db.ts";
import {
  authorizeUrl,
  Browser,
  field,
  ISSUER,
  location,
  pkce,
  REDIRECT,
  registerPublic,
} from "../oauth/helpers.ts";

const GOOD = "correct horse battery";
const NEW = "lantern orbit pebble saffron";
const SHORT = "short pw 1"; // 10 characters: accepted before issue 29, below today's minimum

interface World {
  db: TestDb;
  app: ReturnType<typeof createApp>;
  logs: string[];
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const db = await freshDatabase();
  const logs: string[] = [];
  const log = createLogger("debug", (l) => logs.push(l));
  const config = parseConfig({ ISSUER, SECRET_KEY: TEST_SECRET, ...TEST_RATE_LIMITS });
  const app = createApp({ config, sql: db.sql, log, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT });
  return { db, app, logs, close: () => db.close() };
}

async function person(w: World, email: string, password: string): Promise<string> {
  return (await createUser(w.db.sql, { email, password, name: "Dana" }, { scrypt: TEST_SCRYPT })).id;
}

/** A browser signed in as `email`; returns it and where the sign-in sent it. */
async function signedIn(w: World, email: string, password: string, ip = "198.51.100.7") {
  const b = new Browser(w.app, ip);
  const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
  const res = await b.post("/signin", { csrf, email, password });
  assert.equal(res.status, 303);
  return { browser: b, location: res.headers.get("location")! };
}

async function changeForm(b: Browser, path = "/account/security/password") {
  const page = await b.get(path);
  assert.equal(page.status, 200);
  const html = await page.text();
  return { html, csrf: field(html, "csrf")!, next: field(html, "next") };
}

async function hashOf(w: World, userId: string): Promise<string> {
  const [row] = await w.db.sql<{ h: string }[]>`select password_hash as h from users where id = ${userId}`;
  return row.h;
}

async function sessionsOf(w: World, userId: string): Promise<string[]> {
  const rows = await w.db.sql<{ id: string }[]>`
    select session_id as id from browser_session_accounts where user_id = ${userId} order by session_id`;
  return rows.map((r) => r.id);
}

async function sessionOfBrowser(w: World, b: Browser): Promise<string> {
  const token = b.cookies.get("portico_session")!;
  const [row] = await w.db.sql<{ id: string }[]>`select id from browser_sessions where token_hash = ${
    sha256Hex(token)
  }`;
  return row.id;
}

Deno.test("change password: a wrong current password is refused with 400 and changes nothing", async () => {
  const w = await world();
  try {
    const userId = await person(w, "dana@example.com", GOOD);
    const { browser } = await signedIn(w, "dana@example.com", GOOD);
    const before = await hashOf(w, userId);
    const { csrf } = await changeForm(browser);
    const res = await browser.post("/account/security/password", {
      csrf,
      current: "not my password",
      password: NEW,
      confirm: NEW,
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /<p class="error" role="alert">The current password is not right\.<\/p>/);
    assert.equal(await hashOf(w, userId), before);
    assert.equal((await sessionsOf(w, userId)).length, 1);
    const [row] = await w.db.sql<{ kind: string; detail: Record<string, unknown> }[]>`
      select kind, detail from security_events where user_id = ${userId} order by id desc limit 1`;
    assert.deepEqual({ ...row }, {
      kind: "sign_in_failed",
      detail: { during: "password_change", reason: "invalid_credentials" },
    });
  } finally {
    await w.close();
  }
});

Deno.test("change password: the policy, a mismatch and CSRF are refused; signed-out visitors go to sign-in", async () => {
  const w = await world();
  try {
    const userId = await person(w, "dana@example.com", GOOD);
    const { browser } = await signedIn(w, "dana@example.com", GOOD);
    const before = await hashOf(w, userId);
    for (
      const [password, confirm, message] of [
        ["password1234", "password1234", /on lists of common passwords/],
        ["elevenchars", "elevenchars", /Use at least 12 characters\./],
        ["dana@example.com!!", "dana@example.com!!", /contains your email address or name/],
        [NEW, NEW + "x", /The two new passwords are not the same\./],
        [GOOD, GOOD, /The new password is the same as the current one\./],
      ] as const
    ) {
      const { csrf } = await changeForm(browser);
      const res = await browser.post("/account/security/password", {
        csrf,
        current: GOOD,
        password,
        confirm,
      });
      assert.equal(res.status, 400, password);
      assert.match(await res.text(), message);
    }
    const forged = await browser.post("/account/security/password", {
      csrf: "forged",
      current: GOOD,
      password: NEW,
      confirm: NEW,
    });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    assert.equal(await hashOf(w, userId), before);
    const stranger = new Browser(w.app);
    for (const path of ["/account/security", "/account/security/password"]) {
      const res = await stranger.get(path);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), `/signin?return_to=${encodeURIComponent(path)}`);
    }
  } finally {
    await w.close();
  }
});

Deno.test("change password: wrong current passwords meet the sign-in brake (429, Retry-After)", async () => {
  const w = await world();
  try {
    const userId = await person(w, "dana@example.com", GOOD);
    const { browser } = await signedIn(w, "dana@example.com", GOOD);
    const { csrf } = await changeForm(browser);
    const post = (current: string) =>
      browser.post("/account/security/password", { csrf, current, password: NEW, confirm: NEW });
    for (let i = 0; i < SIGN_IN_BRAKE.perNetwork; i++) {
      const res = await post(`wrong guess ${i}`);
      assert.equal(res.status, 400);
      await res.body?.cancel();
    }
    const braked = await post(GOOD);
    assert.equal(braked.status, 429);
    assert.ok(Number(braked.headers.get("retry-after")) >= 1);
    assert.match(await braked.text(), /Too many wrong passwords\. Wait \d+ minutes? and try again\./);
    // The same allowance as the sign-in page: a browser of this network without Dana's device cookie is braked.
    const neighbour = new Browser(w.app, "198.51.100.8");
    const csrf2 = field(await (await neighbour.get("/signin")).text(), "csrf")!;
    const signin = await neighbour.post("/signin", {
      csrf: csrf2,
      email: "dana@example.com",
      password: GOOD,
    });
    assert.match(signin.headers.get("location")!, /error=throttled/);
    const again = await post(GOOD);
    assert.equal(again.status, 429);
    await again.body?.cancel();
    // Refusals cost the guesser nothing: one row on Dana's page per brake period, a log line for each.
    const [{ n }] = await w.db.sql<{ n: number }[]>`
      select count(*)::int as n from security_events where kind = 'sign_in_throttled'`;
    assert.equal(n, 1);
    const lines = w.logs.map((l) => JSON.parse(l)).filter((l) => l.event === "sign_in_throttled");
    assert.deepEqual(lines.map((l) => [l.user_id === userId, l.repeated ?? false]), [
      [true, false],
      [true, true],
      [true, true],
    ]);
  } finally {
    await w.close();
  }
});

Deno.test("change password: success signs out every other browser, keeps this one, records the event", async () => {
  const w = await world();
  try {
    const userId = await person(w, "dana@example.com", GOOD);
    const otherId = await person(w, "olly@example.com", GOOD);
    const laptop = (await signedIn(w, "dana@example.com", GOOD, "198.51.100.7")).browser;
    const phone = (await signedIn(w, "dana@example.com", GOOD, "203.0.113.9")).browser;
    // A browser shared with Olly: Dana leaves it, Olly stays signed in there.
    const shared = (await signedIn(w, "olly@example.com", GOOD, "192.0.2.44")).browser;
    const csrfShared = field(await (await shared.get("/signin?add=1")).text(), "csrf")!;
    await shared.post("/signin", { csrf: csrfShared, email: "dana@example.com", password: GOOD });
    const here = await sessionOfBrowser(w, laptop);
    assert.equal((await sessionsOf(w, userId)).length, 3);

    const { csrf } = await changeForm(laptop);
    const res = await laptop.post("/account/security/password", {
      csrf,
      current: GOOD,
      password: NEW,
      confirm: NEW,
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account/security?changed=1");
    assert.deepEqual(await sessionsOf(w, userId), [here], "only this browser stays signed in");
    assert.equal((await sessionsOf(w, otherId)).length, 1, "another person in a shared browser stays");
    assert.ok(await verifyPassword(NEW, await hashOf(w, userId), TEST_SCRYPT));
    const [u] = await w.db.sql<{ at: Date | null; required: boolean }[]>`
      select password_changed_at as at, password_change_required as required from users where id = ${userId}`;
    assert.ok(u.at instanceof Date);
    assert.equal(u.required, false);

    // The phone is signed out: its next account page asks for a sign-in.
    const gone = await phone.get("/account/security");
    assert.equal(gone.status, 303);
    assert.match(gone.headers.get("location")!, /^\/signin\?/);
    // This browser goes on, with the notice and the event on the overview.
    const overview = await laptop.get("/account/security?changed=1");
    assert.equal(overview.status, 200);
    const html = await overview.text();
    assert.match(html, /Your password was changed, and your other browsers were signed out\./);
    assert.match(html, /<li\s+data-event="password_changed"><strong>Password changed<\/strong>/);
    const [event] = await w.db.sql<{ kind: string; detail: Record<string, unknown>; ip: string }[]>`
      select kind, detail, ip from security_events where user_id = ${userId} order by id desc limit 1`;
    assert.deepEqual({ ...event }, {
      kind: "password_changed",
      detail: { sessions_ended: 2 },
      ip: "198.51.100.7",
    });
  } finally {
    await w.close();
  }
});

Deno.test("a sign-in with a password below the policy must change it first, then goes where it was going", async () => {
  const w = await world();
  try {
    const userId = await person(w, "dana@example.com", SHORT);
    const { browser, location: to } = await signedIn(w, "dana@example.com", SHORT);
    assert.equal(to, "/account/security/password?required=1&next=%2Faccount%2Fapps");
    const [flag] = await w.db.sql<{ required: boolean }[]>`
      select password_change_required as required from users where id = ${userId}`;
    assert.equal(flag.required, true);
    const { html, csrf, next } = await changeForm(browser, to);
    assert.match(html, /<p data-required>Your password falls short of our password rules/);
    assert.doesNotMatch(html, /href="\/account\/security">Cancel/, "no way around it");
    assert.equal(next, "/account/apps");
    const res = await browser.post("/account/security/password", {
      csrf,
      current: SHORT,
      password: NEW,
      confirm: NEW,
      next: next!,
      required: "1",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account/apps");
    const [after] = await w.db.sql<{ required: boolean }[]>`
      select password_change_required as required from users where id = ${userId}`;
    assert.equal(after.required, false);
    // The next sign-in with the new password goes straight on.
    assert.equal((await signedIn(w, "dana@example.com", NEW, "203.0.113.5")).location, "/account/apps");
  } finally {
    await w.close();
  }
});

Deno.test("a password that must change cannot be walked around: account pages and authorizations lead back to it", async () => {
  const w = await world();
  try {
    await person(w, "dana@example.com", SHORT);
    const { browser } = await signedIn(w, "dana@example.com", SHORT);
    // Typing another account page's address: back to the change page, which then returns there.
    for (const path of ["/account/apps", "/account/keys", "/account/security", "/account/sessions?x=1"]) {
      const res = await browser.get(path);
      assert.equal(res.status, 303, path);
      assert.equal(
        res.headers.get("location"),
        `/account/security/password?required=1&next=${encodeURIComponent(path)}`,
      );
    }
    // An app's authorization in the same browser: the change page, then this very request.
    const client = await registerPublic(w.app);
    const url = authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "walk-around",
    });
    const res = await browser.get(url);
    assert.equal(res.status, 303);
    const to = location(res);
    assert.equal(to.pathname, "/account/security/password");
    assert.ok(to.searchParams.get("next")!.startsWith("/oauth/authorize/resume?ticket="));
    // prompt=none cannot show the page: the client hears login_required.
    await w.db.sql`update oauth_clients set trusted = true where client_id = ${client.client_id}`;
    const silent = location(await browser.get(`${url}&prompt=none`));
    assert.equal(silent.searchParams.get("error"), "login_required");
    assert.equal(silent.searchParams.get("code"), null);
    // Signing out stays possible.
    const csrf = field(await (await browser.get("/account/security/password?required=1")).text(), "csrf")!;
    assert.equal((await browser.post("/signout", { csrf })).status, 303);
  } finally {
    await w.close();
  }
});

Deno.test("a password that meets the policy does not ask for a change; a common one of 12+ characters does", async () => {
  const w = await world();
  try {
    await person(w, "dana@example.com", GOOD);
    assert.equal((await signedIn(w, "dana@example.com", GOOD)).location, "/account/apps");
    const common = await person(w, "olly@example.com", "password1234");
    const { location: to } = await signedIn(w, "olly@example.com", "password1234", "203.0.113.77");
    assert.equal(to, "/account/security/password?required=1&next=%2Faccount%2Fapps");
    const [flag] = await w.db.sql<{ required: boolean }[]>`
      select password_change_required as required from users where id = ${common}`;
    assert.equal(flag.required, true);
  } finally {
    await w.close();
  }
});

Deno.test("an OAuth sign-in with a short password: change it, then the authorization request resumes", async () => {
  const w = await world();
  try {
    await person(w, "dana@example.com", SHORT);
    const client = await registerPublic(w.app);
    const url = authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "keep-me",
    });
    const b = new Browser(w.app);
    const page = await (await b.get(url)).text();
    const signin = await b.post("/signin", {
      csrf: field(page, "csrf")!,
      ticket: field(page, "ticket")!,
      email: "dana@example.com",
      password: SHORT,
    });
    assert.equal(signin.status, 303);
    const to = location(signin);
    assert.equal(to.pathname, "/account/security/password");
    assert.equal(to.searchParams.get("required"), "1");
    const resume = to.searchParams.get("next")!;
    assert.ok(resume.startsWith("/oauth/authorize/resume?ticket="), resume);
    const { csrf, next } = await changeForm(b, to.pathname + to.search);
    assert.equal(next, resume, "the form carries the resume URL");
    const changed = await b.post("/account/security/password", {
      csrf,
      current: SHORT,
      password: NEW,
      confirm: NEW,
      next: next!,
      required: "1",
    });
    assert.equal(changed.status, 303);
    assert.equal(changed.headers.get("location"), resume);
    const consent = await b.get(resume);
    assert.equal(consent.status, 200);
    const html = await consent.text();
    assert.match(html, /action="\/oauth\/authorize\/consent"/);
    assert.match(html, /Test App/);
  } finally {
    await w.close();
  }
});

Deno.test("next: same-origin paths and resume URLs longer than 2000 characters; nothing else", async () => {
  const longResume = `/oauth/authorize/resume?ticket=v1.${"A".repeat(6000)}.${"b".repeat(100)}`;
  assert.equal(safeNext(longResume), longResume);
  assert.equal(safeNext("/account/apps"), "/account/apps");
  for (
    const bad of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      `/oauth/authorize/resume?ticket=${"A".repeat(8001)}`,
      "/oauth/authorize/resume?ticket=a&redirect=https://evil.example",
      `/account/${"x".repeat(2001)}`,
    ]
  ) {
    assert.equal(safeNext(bad), null, bad.slice(0, 60));
  }
  const w = await world();
  try {
    await person(w, "dana@example.com", GOOD);
    const { browser } = await signedIn(w, "dana@example.com", GOOD);
    const { csrf, next } = await changeForm(
      browser,
      `/account/security/password?next=${encodeURIComponent(longResume)}`,
    );
    assert.equal(next, longResume);
    const res = await browser.post("/account/security/password", {
      csrf,
      current: GOOD,
      password: NEW,
      confirm: NEW,
      next: "https://evil.example/",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account/security?changed=1", "an unsafe next is ignored");
  } finally {
    await w.close();
  }
});

Deno.test("the overview: password, two-step status, passkeys, recovery codes, sessions link, newest events", async () => {
  const w = await world();
  try {
    const userId = await person(w, "dana@example.com", GOOD);
    // Signed in first: with passkeys, a sign-in would ask for one (part B's pages).
    const { browser } = await signedIn(w, "dana@example.com", GOOD);
    await w.db.sql`insert into user_passkeys (user_id, credential_id, public_key, name)
      values (${userId}, 'cred-1', '\\x01', 'Laptop'), (${userId}, 'cred-2', '\\x02', 'Phone')`;
    await w.db.sql`insert into user_recovery_codes (user_id, code_hash)
      select ${userId}, 'h' || g from generate_series(1, 7) g`;
    // 60 old events: the overview shows the 50 newest.
    await w.db.sql`insert into security_events (user_id, kind, at, ip, user_agent)
      select ${userId}, 'sign_in', now() - make_interval(days => g), '192.0.2.1', 'curl/8.0' from generate_series(1, 60) g`;
    const res = await browser.get("/account/security");
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<nav class="account-nav" aria-label="Your account">/);
    assert.match(html, /<a\s+href="\/account\/security"\s+aria-current="page">Security<\/a>/);
    assert.match(html, /<a\s+href="\/account\/sessions"\s*>Sessions<\/a>/);
    assert.match(html, /Not changed since the account was created\./);
    assert.match(html, /<dd data-totp="off">Off · <a href="\/account\/security\/two-step">Set up<\/a>/);
    assert.match(
      html,
      /<dd data-passkeys="2">2 passkeys · <a href="\/account\/security\/passkeys">Manage passkeys/,
    );
    assert.match(html, /<dd data-recovery-codes="7">7 left<\/dd>/);
    assert.match(html, /href="\/account\/sessions">See the browsers signed in/);
    const events = [...html.matchAll(/<li\s+data-event="([a-z_]+)">/g)].map((m) => m[1]);
    assert.equal(events.length, 50);
    // Newest first: this sign-in (Deno's test browser sends no User-Agent), then the old ones.
    assert.equal(events[0], "sign_in");
    assert.match(
      html,
      /Signed in<\/strong> <span class="muted">[0-9-]+ [0-9:]+ UTC · 192\.0\.2\.1 · curl<\/span>/,
    );
    // The other account pages carry the same navigation, each marking itself.
    for (const [path, label] of [["/account/apps", "Connected apps"], ["/account/keys", "API keys"]]) {
      const other = await (await browser.get(path)).text();
      assert.match(other, new RegExp(`<a\\s+href="${path}"\\s+aria-current="page">${label}</a>`), path);
      assert.match(other, /<a\s+href="\/account\/security"\s*>Security<\/a>/, path);
    }
  } finally {
    await w.close();
  }
});

Deno.test("security events and log lines of sign-in, change and reset carry no secret", async () => {
  const w = await world();
  try {
    const userId = await person(w, "dana@example.com", GOOD);
    await signedIn(w, "dana@example.com", "a wrong password!");
    await signedIn(w, "nobody@example.com", "another wrong one");
    const { browser } = await signedIn(w, "dana@example.com", GOOD);
    const { csrf } = await changeForm(browser);
    await browser.post("/account/security/password", {
      csrf,
      current: "wrong current pw",
      password: NEW,
      confirm: NEW,
    });
    const { csrf: csrf2 } = await changeForm(browser);
    const ok = await browser.post("/account/security/password", {
      csrf: csrf2,
      current: GOOD,
      password: NEW,
      confirm: NEW,
    });
    assert.equal(ok.status, 303);
    const rows = await w.db.sql<{ kind: string }[]>`
      select kind from security_events where user_id = ${userId} order by id`;
    assert.deepEqual(rows.map((r) => r.kind), [
      "sign_in_failed",
      "sign_in",
      "sign_in_failed",
      "password_changed",
    ]);
    const stored = JSON.stringify(await w.db.sql`select * from security_events`).toLowerCase();
    const logged = w.logs.join("\n").toLowerCase();
    for (
      const secret of [
        GOOD,
        NEW,
        "a wrong password!",
        "another wrong one",
        "wrong current pw",
        "nobody@example.com",
      ]
    ) {
      assert.equal(stored.includes(secret), false, `row: ${secret}`);
      assert.equal(logged.includes(secret), false, `log: ${secret}`);
    }
    assert.equal(logged.includes("dana@example.com"), false, "log lines name people by id only");
    const failed = w.logs.map((l) => JSON.parse(l)).filter((l) => l.event === "sign_in_failed");
    assert.equal(failed.length, 3);
    assert.deepEqual(failed.map((l) => l.user_id), [userId, undefined, userId]);
  } finally {
    await w.close();
  }
});

Deno.test("a new password is kept whole: 128 characters with emoji sign in, a shortened one does not", async () => {
  const w = await world();
  try {
    await person(w, "dana@example.com", GOOD);
    const { browser } = await signedIn(w, "dana@example.com", GOOD);
    const words = "río 🦊 candle orbit maple quartz velvet lantern pebble harbor tundra cobalt saffron ";
    const long = [...(words + words)].slice(0, 128).join("");
    assert.equal([...long].length, 128);
    const { csrf } = await changeForm(browser);
    const res = await browser.post("/account/security/password", {
      csrf,
      current: GOOD,
      password: long,
      confirm: long,
    });
    assert.equal(res.status, 303);
    const cut = [...long].slice(0, 127).join("");
    assert.match(
      (await signedIn(w, "dana@example.com", cut, "203.0.113.60")).location,
      /error=invalid_credentials/,
    );
    assert.equal((await signedIn(w, "dana@example.com", long, "203.0.113.61")).location, "/account/apps");
  } finally {
    await w.close();
  }
});
