// One-time codes (RFC 6238) and recovery codes, as a unit and over HTTP: the RFC's test vectors; set-up from the
// account page with a code computed here; sign-in with password then code; a replayed code, a wrong-code flood
// (the brake: exact statuses, Retry-After and the rate_limits row), parallel use of one code (one wins); recovery
// codes (once each, few-left warning, new set replaces the old); the sealed secret; turning off with the
// password; the policy walk over HTTP; expired and forged pending sign-ins.
import assert from "node:assert/strict";
import { open } from "../../lib/secret_box.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import {
  createRecoveryCodes,
  normalizeRecoveryCode,
  RECOVERY_CODE_COUNT,
  useRecoveryCode,
} from "../../lib/security/recovery_codes.ts";
import { SECOND_FACTOR_BRAKE, secondFactorBucket } from "../../lib/security/second_factor_brake.ts";
import { currentStep, matchingStep, totpCode } from "../../lib/security/totp.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { Browser, type Ctx, field, PASSWORD, setup } from "../oauth/helpers.ts";

// RFC 6238 Appendix B, SHA-1: the ASCII secret "12345678901234567890" in base32, and (time, 8-digit code).
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const RFC_VECTORS: Array<[number, string]> = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

Deno.test("TOTP: RFC 6238 test vectors (SHA-1, 8 digits) and their 6-digit codes", () => {
  for (const [time, code] of RFC_VECTORS) {
    const step = Math.floor(time / 30);
    assert.equal(totpCode(RFC_SECRET, step, 8), code, `T=${time}`);
    assert.equal(totpCode(RFC_SECRET, step), code.slice(2), `T=${time}, 6 digits`);
    assert.equal(matchingStep(RFC_SECRET, code.slice(2), time * 1000), step);
  }
});

Deno.test("TOTP: a code is accepted one step either side of now, not two", () => {
  const now = 1_700_000_000_000;
  const step = currentStep(now);
  for (const d of [-1, 0, 1]) {
    assert.equal(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, step + d), now), step + d);
  }
  for (const d of [-2, 2]) assert.equal(matchingStep(RFC_SECRET, totpCode(RFC_SECRET, step + d), now), null);
});

Deno.test("recovery codes: format, normalization, 50 bits each", () => {
  assert.equal(normalizeRecoveryCode("ABCDE-FGH1K"), "abcdefgh1k");
  assert.equal(normalizeRecoveryCode(" abcde fghik "), "abcdefgh1k"); // i read as 1
  assert.equal(normalizeRecoveryCode("0O0O0-00000"), "0000000000"); // O read as 0
  assert.equal(normalizeRecoveryCode("abcde-fghu0"), null); // u is not in the alphabet
  assert.equal(normalizeRecoveryCode("abcde"), null);
});

// ---- HTTP -----------------------------------------------------------------------------------------------------

const SIGNED_IN = "/account/apps";

async function signInWithPassword(ctx: Ctx, browser: Browser): Promise<string> {
  const csrf = field(await (await browser.get("/signin")).text(), "csrf")!;
  const res = await browser.post("/signin", { csrf, email: ctx.user.email, password: PASSWORD });
  assert.equal(res.status, 303);
  return res.headers.get("location")!;
}

/** The pending sign-in's `p` from the second-factor page's path. */
function pOf(location: string): string {
  const url = new URL(location, "http://localhost");
  assert.equal(url.pathname, "/signin/verify");
  return url.searchParams.get("p")!;
}

/** The recovery codes a page shows. */
function codesOn(html: string): string[] {
  return [...html.matchAll(/<li[^>]*><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]);
}

/** The manual key a set-up page shows, without its spaces. */
function manualKey(html: string): string {
  return html.match(/data-manual-key>([A-Z2-7 ]+)</)![1].replaceAll(" ", "");
}

/** Sets the app up from the account page as a person would: the manual key read off the page. */
async function setUpTotp(ctx: Ctx): Promise<{ secret: string; codes: string[] }> {
  const browser = new Browser(ctx.app);
  assert.equal(await signInWithPassword(ctx, browser), SIGNED_IN);
  const page = await (await browser.get("/account/security/two-step/setup")).text();
  const secret = manualKey(page);
  assert.equal(secret.length, 32, "160-bit secret");
  assert.match(page, /<svg[^>]*viewBox/);
  const res = await browser.post("/account/security/two-step/setup", {
    csrf: field(page, "csrf")!,
    setup: field(page, "setup")!,
    code: totpCode(secret, currentStep()),
  });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/account/security/two-step?done=on");
  const shown = await (await browser.get("/account/security/two-step")).text();
  const codes = codesOn(shown);
  assert.equal(codes.length, RECOVERY_CODE_COUNT);
  // Shown once.
  assert.doesNotMatch(await (await browser.get("/account/security/two-step")).text(), /data-recovery-codes/);
  return { secret, codes };
}

/** A code the app would show now that has not been used yet. */
async function freshCode(ctx: Ctx, secret: string): Promise<string> {
  const [{ last }] = await ctx.db.sql<{ last: number }[]>`
    select last_step::float8 as last from user_totp where user_id = ${ctx.user.id}`;
  const step = Math.max(last + 1, currentStep() - 1);
  assert.ok(step <= currentStep() + 1, "a fresh code exists in the window");
  return totpCode(secret, step);
}

async function verifyPage(browser: Browser, location: string): Promise<{ csrf: string; p: string }> {
  const res = await browser.get(location);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /autocomplete="one-time-code"/);
  assert.match(html, /inputmode="numeric"/);
  return { csrf: field(html, "csrf")!, p: pOf(location) };
}

async function sessionAmr(ctx: Ctx): Promise<string[][]> {
  const rows = await ctx.db.sql<{ amr: string[] }[]>`
    select amr from browser_session_accounts where user_id = ${ctx.user.id} order by auth_time`;
  return rows.map((r) => r.amr);
}

async function events(ctx: Ctx, kind: string): Promise<Array<Record<string, unknown>>> {
  const rows = await ctx.db.sql<{ detail: Record<string, unknown> }[]>`
    select detail from security_events where user_id = ${ctx.user.id} and kind = ${kind} order by id`;
  return rows.map((r) => r.detail);
}

Deno.test("TOTP over HTTP: set up from the account page, then password + a code computed here signs in", async () => {
  const ctx = await setup();
  try {
    const { secret } = await setUpTotp(ctx);
    assert.equal((await events(ctx, "factor_added")).length, 1);
    assert.equal((await events(ctx, "recovery_codes_created")).length, 1);

    const browser = new Browser(ctx.app);
    const location = await signInWithPassword(ctx, browser);
    const { csrf, p } = await verifyPage(browser, location);
    // Not signed in yet: the account pages still send this browser to sign in.
    assert.equal((await browser.get("/account/security/two-step")).status, 303);
    const res = await browser.post("/signin/verify/totp", { csrf, p, code: await freshCode(ctx, secret) });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), SIGNED_IN);
    assert.deepEqual((await sessionAmr(ctx)).at(-1), ["pwd", "otp", "mfa"]);
    assert.deepEqual((await events(ctx, "sign_in")).at(-1), { amr: "pwd otp mfa" });
    assert.equal((await browser.get("/account/security/two-step")).status, 200);
    // The pending sign-in is spent.
    assert.equal((await browser.get(location)).status, 400);
  } finally {
    await ctx.close();
  }
});

Deno.test("TOTP: a replayed code is refused", async () => {
  const ctx = await setup();
  try {
    const { secret } = await setUpTotp(ctx);
    const code = await freshCode(ctx, secret);
    const first = new Browser(ctx.app);
    const a = await verifyPage(first, await signInWithPassword(ctx, first));
    assert.equal((await first.post("/signin/verify/totp", { ...a, code })).status, 303);
    const [{ last }] = await ctx.db
      .sql`select last_step::float8 as last from user_totp where user_id = ${ctx.user.id}`;

    const second = new Browser(ctx.app, "203.0.113.9");
    const b = await verifyPage(second, await signInWithPassword(ctx, second));
    const res = await second.post("/signin/verify/totp", { ...b, code });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /That code was used already/);
    assert.equal(second.cookies.has("portico_session"), false);
    const [{ again }] = await ctx.db
      .sql`select last_step::float8 as again from user_totp where user_id = ${ctx.user.id}`;
    assert.equal(again, last);
    assert.deepEqual((await events(ctx, "second_factor_failed")).at(-1), { factor: "totp", reason: "used" });
  } finally {
    await ctx.close();
  }
});

Deno.test("TOTP: a wrong-code flood is braked (5 free, then 429 with Retry-After), a right code gives its slot back", async () => {
  const ctx = await setup();
  try {
    const { secret } = await setUpTotp(ctx);
    const bucket = secondFactorBucket(ctx.user.id);
    assert.equal(bucket, `2fa:user:${ctx.user.id}`);
    const count = async () => {
      const [row] = await ctx.db.sql<{ n: number }[]>`
        select coalesce(sum(count), 0)::int as n from rate_limits where bucket = ${bucket}`;
      return row.n;
    };
    // The set-up's right code gave its slot back.
    assert.equal(await count(), 0);
    const browser = new Browser(ctx.app);
    const form = await verifyPage(browser, await signInWithPassword(ctx, browser));
    const right = await freshCode(ctx, secret);
    const wrong = right === "000000" ? "000001" : "000000";
    for (let i = 1; i <= SECOND_FACTOR_BRAKE.free; i++) {
      const res = await browser.post("/signin/verify/totp", { ...form, code: wrong });
      assert.equal(res.status, 400, `wrong code ${i}`);
      assert.match(await res.text(), /That code is not right/);
      assert.equal(await count(), i);
    }
    const braked = await browser.post("/signin/verify/totp", { ...form, code: wrong });
    assert.equal(braked.status, 429);
    const wait = Number(braked.headers.get("retry-after"));
    assert.ok(wait >= 1 && wait <= SECOND_FACTOR_BRAKE.firstDelaySeconds, `Retry-After ${wait}`);
    assert.match(await braked.text(), /Too many wrong codes\. Try again in 1 minute\./);
    // Braked before it is checked: the right code is refused too, and nothing more is counted.
    const rightBraked = await browser.post("/signin/verify/totp", { ...form, code: right });
    assert.equal(rightBraked.status, 429);
    await rightBraked.body?.cancel();
    assert.equal(await count(), SECOND_FACTOR_BRAKE.free);
    const [row] = await ctx.db.sql<
      { count: number }[]
    >`select count from rate_limits where bucket = ${bucket}`;
    assert.equal(row.count, SECOND_FACTOR_BRAKE.free);
    assert.equal((await events(ctx, "second_factor_failed")).length, SECOND_FACTOR_BRAKE.free);
    assert.equal((await events(ctx, "second_factor_throttled")).length, 2);
    assert.equal((await sessionAmr(ctx)).filter((a) => a.includes("otp")).length, 0);

    // Once the wait is over (moved back in the table rather than waited for), the right code passes and gives
    // its slot back: only the failures stay counted.
    await ctx.db
      .sql`update rate_limits set last_at = last_at - interval '2 minutes' where bucket = ${bucket}`;
    const res = await browser.post("/signin/verify/totp", { ...form, code: right });
    assert.equal(res.status, 303);
    assert.equal(await count(), SECOND_FACTOR_BRAKE.free);
  } finally {
    await ctx.close();
  }
});

Deno.test("TOTP: parallel use of one code — exactly one sign-in wins", async () => {
  const ctx = await setup();
  try {
    const { secret } = await setUpTotp(ctx);
    const browsers = [0, 1, 2, 3].map((i) => new Browser(ctx.app, `198.51.100.${20 + i}`));
    const forms: Array<{ csrf: string; p: string }> = [];
    for (const b of browsers) forms.push(await verifyPage(b, await signInWithPassword(ctx, b)));
    const code = await freshCode(ctx, secret);
    const results = await Promise.all(
      browsers.map((b, i) => b.post("/signin/verify/totp", { ...forms[i], code })),
    );
    const statuses = results.map((r) => r.status).sort();
    await Promise.all(results.map((r) => r.body?.cancel()));
    assert.deepEqual(statuses, [303, 400, 400, 400]);
    assert.equal((await sessionAmr(ctx)).filter((a) => a.includes("otp")).length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("recovery codes: each works once; few left is said before the sign-in goes on", async () => {
  const ctx = await setup();
  try {
    const { codes } = await setUpTotp(ctx);
    const browser = new Browser(ctx.app);
    let form = await verifyPage(browser, await signInWithPassword(ctx, browser));
    // Typed in capitals with a space: still the code.
    const typed = codes[0].toUpperCase().replace("-", " ");
    const ok = await browser.post("/signin/verify/recovery", { ...form, code: typed });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), SIGNED_IN);
    assert.deepEqual((await sessionAmr(ctx)).at(-1), ["pwd", "otp", "mfa"]);
    assert.deepEqual(await events(ctx, "recovery_code_used"), [{ left: "9" }]);

    const again = new Browser(ctx.app);
    form = await verifyPage(again, await signInWithPassword(ctx, again));
    const refused = await again.post("/signin/verify/recovery", { ...form, code: codes[0] });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /That recovery code is not right, or was used already/);
    assert.deepEqual((await events(ctx, "second_factor_failed")).at(-1), { factor: "recovery_code" });

    // Use codes down to two left (directly: 7 more), then one through the page: the warning, then Continue.
    for (const code of codes.slice(1, 8)) {
      assert.notEqual(await useRecoveryCode(ctx.db.sql, ctx.user.id, code), null);
    }
    const low = await again.post("/signin/verify/recovery", { ...form, code: codes[8] });
    assert.equal(low.status, 200);
    const html = await low.text();
    assert.match(html, /You have 1 recovery code left\./);
    // A forged proof does not complete the sign-in.
    const forged = await again.post("/signin/verify/continue", {
      csrf: form.csrf,
      p: form.p,
      done: "v1.AAAA.BBBB",
    });
    assert.equal(forged.status, 400);
    const cont = await again.post("/signin/verify/continue", {
      csrf: field(html, "csrf")!,
      p: field(html, "p")!,
      done: field(html, "done")!,
    });
    assert.equal(cont.status, 303);
    assert.equal(cont.headers.get("location"), SIGNED_IN);
    const [{ used }] = await ctx.db.sql<{ used: number }[]>`
      select count(*)::int as used from user_recovery_codes where user_id = ${ctx.user.id} and used_at is not null`;
    assert.equal(used, 9);
  } finally {
    await ctx.close();
  }
});

Deno.test("recovery codes: one code used in parallel passes once; a new set replaces the old", async () => {
  const ctx = await setup();
  try {
    const codes = await createRecoveryCodes(ctx.db.sql, ctx.user.id);
    assert.equal(new Set(codes).size, RECOVERY_CODE_COUNT);
    for (const code of codes) assert.match(code, /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => useRecoveryCode(ctx.db.sql, ctx.user.id, codes[0])),
    );
    assert.deepEqual(results.filter((r) => r !== null), [9]);
    const stored = await ctx.db.sql<{ hash: string }[]>`
      select code_hash as hash from user_recovery_codes where user_id = ${ctx.user.id}`;
    for (const { hash } of stored) {
      assert.match(hash, /^[0-9a-f]{64}$/);
      for (const code of codes) assert.ok(!hash.includes(code.replace("-", "")));
    }
    const fresh = await createRecoveryCodes(ctx.db.sql, ctx.user.id);
    assert.equal(await useRecoveryCode(ctx.db.sql, ctx.user.id, codes[1]), null);
    assert.equal(await useRecoveryCode(ctx.db.sql, ctx.user.id, fresh[0]), 9);
  } finally {
    await ctx.close();
  }
});

Deno.test("TOTP: the secret is stored sealed, not readable in the database", async () => {
  const ctx = await setup();
  try {
    const { secret } = await setUpTotp(ctx);
    const [row] = await ctx.db.sql<{ sealed: string; confirmed: boolean }[]>`
      select secret_sealed as sealed, confirmed_at is not null as confirmed from user_totp
      where user_id = ${ctx.user.id}`;
    assert.equal(row.confirmed, true);
    assert.match(row.sealed, /^v1\./);
    assert.ok(!row.sealed.includes(secret));
    assert.equal(await open(TEST_SECRET, "totp-secret", row.sealed), secret);
    await assert.rejects(open(TEST_SECRET, "pending-sign-in", row.sealed));
    await assert.rejects(open("another-secret-key-0123456789abcdef0123", "totp-secret", row.sealed));
  } finally {
    await ctx.close();
  }
});

Deno.test("account two-step: turning off and new recovery codes ask for the password", async () => {
  const ctx = await setup();
  try {
    const { codes } = await setUpTotp(ctx);
    const browser = new Browser(ctx.app);
    const { csrf, p } = await verifyPage(browser, await signInWithPassword(ctx, browser));
    assert.equal((await browser.post("/signin/verify/recovery", { csrf, p, code: codes[0] })).status, 303);

    const wrong = await browser.post("/account/security/two-step/off", { csrf, password: "not it at all" });
    assert.equal(wrong.status, 303);
    assert.equal(wrong.headers.get("location"), "/account/security/two-step?error=password");
    const [{ on }] = await ctx.db
      .sql`select count(*)::int as on from user_totp where user_id = ${ctx.user.id}`;
    assert.equal(on, 1);
    assert.deepEqual((await events(ctx, "second_factor_failed")).at(-1), {
      factor: "password",
      action: "turn_off",
    });
    // Without the CSRF token: refused.
    const forged = await browser.post("/account/security/two-step/off", { password: PASSWORD });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();

    const renew = await browser.post("/account/security/two-step/recovery-codes", {
      csrf,
      password: PASSWORD,
    });
    assert.equal(renew.headers.get("location"), "/account/security/two-step?done=codes");
    const page = await (await browser.get("/account/security/two-step?done=codes")).text();
    const fresh = codesOn(page);
    assert.equal(fresh.length, RECOVERY_CODE_COUNT);
    assert.equal(await useRecoveryCode(ctx.db.sql, ctx.user.id, codes[1]), null);

    const off = await browser.post("/account/security/two-step/off", { csrf, password: PASSWORD });
    assert.equal(off.headers.get("location"), "/account/security/two-step?done=off");
    assert.deepEqual(await events(ctx, "factor_removed"), [{ factor: "totp" }]);
    // Off: the password alone signs in again.
    assert.equal(await signInWithPassword(ctx, new Browser(ctx.app)), SIGNED_IN);
  } finally {
    await ctx.close();
  }
});

Deno.test("policy walk over HTTP: a required workspace sets up the app inside the sign-in, then continues", async () => {
  const ctx = await setup();
  try {
    const ws = await createWorkspace(ctx.db.sql, "Acme Books", ["projects"]);
    await addMember(ctx.db.sql, ws.id, ctx.user.id, "member", null);
    await ctx.db.sql`update workspaces set require_two_factor = true where id = ${ws.id}`;
    const browser = new Browser(ctx.app);
    const location = await signInWithPassword(ctx, browser);
    const p = pOf(location);
    const intro = await (await browser.get(location)).text();
    assert.match(intro, /<strong>Acme Books<\/strong> requires two-step sign-in/);
    const page = await (await browser.get(`/signin/setup?p=${encodeURIComponent(p)}`)).text();
    const secret = manualKey(page);
    const base = { csrf: field(page, "csrf")!, p, setup: field(page, "setup")! };
    const wrong = await browser.post("/signin/setup", { ...base, code: "12345x" });
    assert.equal(wrong.status, 400);
    const again = await wrong.text();
    assert.match(again, /That code is not right/);
    assert.equal(manualKey(again), secret, "the same secret");
    // A set-up form sealed for someone else is refused.
    const other = await browser.post("/signin/setup", { ...base, setup: "v1.AAAA.BBBB", code: "123456" });
    assert.equal(other.status, 400);
    await other.body?.cancel();
    const res = await browser.post("/signin/setup", { ...base, code: totpCode(secret, currentStep()) });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/signin/setup/codes?p=${encodeURIComponent(p)}`);
    const shown = await (await browser.get(res.headers.get("location")!)).text();
    assert.equal([...shown.matchAll(/<li[^>]*><code>/g)].length, RECOVERY_CODE_COUNT);
    assert.deepEqual(await sessionAmr(ctx), [], "not signed in before Continue");
    const cont = await browser.post("/signin/verify/continue", {
      csrf: field(shown, "csrf")!,
      p: field(shown, "p")!,
      done: field(shown, "done")!,
    });
    assert.equal(cont.status, 303);
    assert.equal(cont.headers.get("location"), SIGNED_IN);
    assert.deepEqual(await sessionAmr(ctx), [["pwd", "otp", "mfa"]]);
    // A reload of the codes page does not show them again.
    const reload = await browser.get(res.headers.get("location")!);
    assert.equal(reload.status, 400);
    await reload.body?.cancel();
  } finally {
    await ctx.close();
  }
});

Deno.test("the second-factor page of a forged, foreign or missing pending sign-in is a 400 with a way back", async () => {
  const ctx = await setup();
  try {
    await setUpTotp(ctx);
    const browser = new Browser(ctx.app);
    const location = await signInWithPassword(ctx, browser);
    for (const path of ["/signin/verify?p=v1.AAAA.BBBB", "/signin/verify"]) {
      const res = await browser.get(path);
      assert.equal(res.status, 400, path);
      const html = await res.text();
      assert.match(html, /This sign-in has expired/);
      assert.match(html, /href="\/signin"/);
    }
    // The same link in another browser (no pending cookie): refused.
    const elsewhere = await new Browser(ctx.app).get(location);
    assert.equal(elsewhere.status, 400);
    await elsewhere.body?.cancel();
    const { csrf, p } = await verifyPage(browser, location);
    const noCsrf = await browser.post("/signin/verify/totp", { p, code: "123456" });
    assert.equal(noCsrf.status, 403);
    await noCsrf.body?.cancel();
    const stranger = new Browser(ctx.app);
    const res = await stranger.post("/signin/verify/totp", { csrf, p, code: "123456" });
    assert.equal(res.status, 403, "CSRF token of another browser");
    await res.body?.cancel();
  } finally {
    await ctx.close();
  }
});
