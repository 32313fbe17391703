// Passkeys at the HTTP level, with a software authenticator (tests/helpers/soft_authenticator.ts): registration
// from the account page, sign-in with a passkey alone (amr hwk user mfa), the passkey as a second factor, and
// every forged or replayed answer refused with its exact status and code, nothing signed in.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  type Ctx,
  field,
  ISSUER,
  PASSWORD,
  pkce,
  REDIRECT,
  registerPublic,
  setup,
} from "../oauth/helpers.ts";
import { SoftAuthenticator, type SoftCredential } from "../helpers/soft_authenticator.ts";
import { brakeBucket, SIGN_IN_BRAKE } from "../../lib/oauth/sign_in.ts";

const soft = new SoftAuthenticator(ISSUER, "localhost");

async function postJson(b: Browser, path: string, body: unknown): Promise<Response> {
  return await b.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function expectJson(res: Response, status: number, error?: string) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  if (error) assert.equal(body.error, error);
  return body;
}

/** A browser signed in with the password (no second factor yet). */
async function signedIn(ctx: Ctx, email: string): Promise<Browser> {
  const b = new Browser(ctx.app);
  const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
  const res = await b.post("/signin", { csrf, email, password: PASSWORD, return_to: "/account/apps" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/account/apps");
  return b;
}

async function registerPasskey(b: Browser, name = "Test key"): Promise<SoftCredential> {
  const csrf = field(await (await b.get("/account/security/passkeys")).text(), "csrf")!;
  const options = await expectJson(
    await postJson(b, "/account/security/passkeys/options", { csrf, name }),
    200,
  );
  assert.equal(options.rp.id, "localhost");
  assert.equal(options.authenticatorSelection.residentKey, "required");
  assert.equal(options.authenticatorSelection.userVerification, "required");
  assert.equal(options.attestation, "none");
  // ASVS 2.9.3: approved algorithms only (ES256, EdDSA, RS256).
  assert.deepEqual(options.pubKeyCredParams.map((p: { alg: number }) => p.alg), [-7, -8, -257]);
  const { credential, response } = await soft.register(options);
  const done = await postJson(b, "/account/security/passkeys", { csrf, name, response });
  assert.deepEqual(await expectJson(done, 200), { redirect: "/account/security/passkeys?done=added" });
  return credential;
}

/** A signed-out browser on the sign-in page, with the options of a passkey sign-in. */
async function signInOptions(ctx: Ctx, b = new Browser(ctx.app)) {
  const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
  const options = await expectJson(await postJson(b, "/signin/passkey/options", { csrf }), 200);
  return { b, csrf, challenge: options.challenge as string, options };
}

async function sessionAmr(ctx: Ctx, userId: string): Promise<string[][]> {
  const rows = await ctx.db.sql<{ amr: string[] }[]>`
    select amr from browser_session_accounts where user_id = ${userId} order by auth_time`;
  return rows.map((r) => r.amr);
}

async function events(ctx: Ctx, userId: string, kind: string) {
  return await ctx.db.sql<{ detail: Record<string, unknown> }[]>`
    select detail from security_events where user_id = ${userId} and kind = ${kind} order by id`;
}

Deno.test("passkeys: register one, then sign in with it alone (amr hwk user mfa, counter stored)", async () => {
  const ctx = await setup();
  try {
    const credential = await registerPasskey(await signedIn(ctx, ctx.user.email), "Dana's laptop");
    const [row] = await ctx.db.sql`
      select name, credential_id, sign_count::int as n, transports, length(public_key) > 0 as has_key
      from user_passkeys where user_id = ${ctx.user.id}`;
    assert.deepEqual(
      { ...row },
      { name: "Dana's laptop", credential_id: credential.id, n: 0, transports: ["internal"], has_key: true },
    );
    assert.deepEqual((await events(ctx, ctx.user.id, "factor_added")).map((e) => e.detail), [{
      factor: "passkey",
    }]);

    const { b, csrf, challenge, options } = await signInOptions(ctx);
    assert.deepEqual(options.allowCredentials, []);
    assert.equal(options.userVerification, "required");
    // ASVS 2.9.2: a random challenge of 256 bits, new for each ceremony.
    assert.equal(Buffer.from(challenge, "base64url").length, 32);
    assert.notEqual((await signInOptions(ctx)).challenge, challenge);
    const response = await soft.assert(credential, challenge);
    const res = await postJson(b, "/signin/passkey", { csrf, return_to: "/account/keys", response });
    assert.deepEqual(await expectJson(res, 200), { redirect: "/account/keys" });
    assert.deepEqual(await sessionAmr(ctx, ctx.user.id), [["pwd"], ["hwk", "user", "mfa"]]);
    const [used] = await ctx.db.sql`
      select sign_count::int as n, last_used_at is not null as used from user_passkeys`;
    assert.deepEqual({ ...used }, { n: 1, used: true });
    assert.equal((await b.get("/account/security/passkeys")).status, 200);
    assert.deepEqual((await events(ctx, ctx.user.id, "sign_in")).at(-1)?.detail, { amr: "hwk user mfa" });
  } finally {
    await ctx.close();
  }
});

Deno.test("passkeys: forged assertions are refused with 401 passkey_refused and sign nobody in", async () => {
  const ctx = await setup();
  try {
    const credential = await registerPasskey(await signedIn(ctx, ctx.user.email));
    const stranger = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
    const forgeries: Record<string, (challenge: string) => Promise<unknown>> = {
      "wrong signature": (ch) => soft.assert(credential, ch, { signWith: stranger.privateKey }),
      "wrong challenge": () => soft.assert(credential, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
      "wrong origin": (ch) => soft.assert(credential, ch, { origin: "https://evil.example" }),
      "wrong RP ID": (ch) => soft.assert(credential, ch, { rpId: "evil.example" }),
      "unknown credential": (ch) => soft.assert(credential, ch, { id: "bm90LWEtcmVhbC1jcmVkZW50aWFs" }),
      "no user verification": (ch) => soft.assert(credential, ch, { userVerified: false }),
    };
    for (const [what, forge] of Object.entries(forgeries)) {
      const { b, csrf, challenge } = await signInOptions(ctx);
      const res = await postJson(b, "/signin/passkey", { csrf, response: await forge(challenge) });
      await expectJson(res, 401, "passkey_refused");
      assert.equal(b.cookies.has("portico_session"), false, what);
    }
    assert.deepEqual(await sessionAmr(ctx, ctx.user.id), [["pwd"]]);
    // Known credential: the person's security log has each failure (the unknown one is a log line only).
    const failed = await events(ctx, ctx.user.id, "sign_in_failed");
    assert.equal(failed.length, 5);
    assert.ok(failed.every((e) => e.detail.method === "passkey"));
    // Without the page's CSRF token nothing is even asked.
    const b = new Browser(ctx.app);
    await b.get("/signin");
    await expectJson(await postJson(b, "/signin/passkey/options", { csrf: "forged" }), 403, "invalid_csrf");
    await expectJson(await postJson(b, "/signin/passkey", { csrf: "forged" }), 403, "invalid_csrf");
  } finally {
    await ctx.close();
  }
});

Deno.test("passkeys: a challenge is used once — the same answer again is refused (400 challenge_expired)", async () => {
  const ctx = await setup();
  try {
    const credential = await registerPasskey(await signedIn(ctx, ctx.user.email));
    const { b, csrf, challenge } = await signInOptions(ctx);
    const kept = new Map(b.cookies);
    const response = await soft.assert(credential, challenge);
    await expectJson(await postJson(b, "/signin/passkey", { csrf, response }), 200);
    // The answer replayed, in a browser that still holds the challenge cookie.
    const replay = new Browser(ctx.app);
    replay.cookies = new Map(kept);
    await expectJson(await postJson(replay, "/signin/passkey", { csrf, response }), 400, "challenge_expired");
    // And with no challenge cookie at all.
    const bare = new Browser(ctx.app);
    bare.cookies.set("portico_csrf", kept.get("portico_csrf")!);
    await expectJson(await postJson(bare, "/signin/passkey", { csrf, response }), 400, "challenge_expired");
    assert.equal((await sessionAmr(ctx, ctx.user.id)).length, 2);
  } finally {
    await ctx.close();
  }
});

Deno.test("passkeys: a signature counter that went backwards is refused and the stored counter kept", async () => {
  const ctx = await setup();
  try {
    const credential = await registerPasskey(await signedIn(ctx, ctx.user.email));
    const first = await signInOptions(ctx);
    const ok = await soft.assert(credential, first.challenge, { counter: 10 });
    await expectJson(await postJson(first.b, "/signin/passkey", { csrf: first.csrf, response: ok }), 200);
    for (const counter of [9, 10]) {
      const next = await signInOptions(ctx);
      const cloned = await soft.assert(credential, next.challenge, { counter });
      const res = await postJson(next.b, "/signin/passkey", { csrf: next.csrf, response: cloned });
      await expectJson(res, 401, "passkey_refused");
    }
    const [row] = await ctx.db.sql`select sign_count::int as n from user_passkeys`;
    assert.equal(row.n, 10);
  } finally {
    await ctx.close();
  }
});

/** Password sign-in of a person with a passkey: the pending sign-in's `p` and the browser. */
async function pendingAfterPassword(ctx: Ctx, email: string): Promise<{ b: Browser; p: string }> {
  const b = new Browser(ctx.app);
  const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
  const res = await b.post("/signin", { csrf, email, password: PASSWORD, return_to: "/account/apps" });
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get("location")!, ISSUER);
  assert.equal(location.pathname, "/signin/verify");
  return { b, p: location.searchParams.get("p")! };
}

Deno.test("passkeys as second factor: only the pending person's passkey completes (amr pwd hwk mfa)", async () => {
  const ctx = await setup();
  try {
    const danas = await registerPasskey(await signedIn(ctx, ctx.user.email));
    const ollys = await registerPasskey(await signedIn(ctx, ctx.other.email));
    const { b, p } = await pendingAfterPassword(ctx, ctx.user.email);
    const page = await b.get(`/signin/verify/passkey?p=${encodeURIComponent(p)}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy")!, /script-src 'self'.*connect-src 'self'/);
    const csrf = field(await page.text(), "csrf")!;

    const ask = async () =>
      await expectJson(await postJson(b, "/signin/verify/passkey/options", { csrf, p }), 200);
    let options = await ask();
    assert.deepEqual(options.allowCredentials.map((c: { id: string }) => c.id), [danas.id]);
    // Olly's passkey, correctly signed over Dana's challenge, is no second factor for Dana.
    const foreign = await soft.assert(ollys, options.challenge);
    await expectJson(
      await postJson(b, "/signin/verify/passkey", { csrf, p, response: foreign }),
      401,
      "passkey_refused",
    );
    assert.deepEqual((await events(ctx, ctx.user.id, "second_factor_failed")).map((e) => e.detail), [
      { factor: "passkey", reason: "other_person" },
    ]);
    assert.equal(b.cookies.has("portico_session"), false);

    // A pending sign-in from another browser is not this one's.
    const elsewhere = new Browser(ctx.app);
    elsewhere.cookies.set("portico_csrf", b.cookies.get("portico_csrf")!);
    await expectJson(
      await postJson(elsewhere, "/signin/verify/passkey/options", { csrf, p }),
      400,
      "pending_expired",
    );

    options = await ask();
    const own = await soft.assert(danas, options.challenge, { userVerified: false });
    const done = await postJson(b, "/signin/verify/passkey", { csrf, p, response: own });
    assert.deepEqual(await expectJson(done, 200), { redirect: "/account/apps" });
    assert.deepEqual((await sessionAmr(ctx, ctx.user.id)).at(-1), ["pwd", "hwk", "mfa"]);
    // The pending sign-in is over: its page and its endpoints refuse it now.
    assert.equal((await b.get(`/signin/verify/passkey?p=${encodeURIComponent(p)}`)).status, 400);
    await expectJson(
      await postJson(b, "/signin/verify/passkey/options", { csrf, p }),
      400,
      "pending_expired",
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("passkeys in the account: rename, remove (events), and nobody else's passkey", async () => {
  const ctx = await setup();
  try {
    const b = await signedIn(ctx, ctx.user.email);
    await registerPasskey(b, "Old name");
    const [{ id }] = await ctx.db.sql<{ id: string }[]>`select id from user_passkeys`;
    const olly = await signedIn(ctx, ctx.other.email);
    const csrfOlly = field(await (await olly.get("/account/security/passkeys")).text(), "csrf")!;
    const stolen = await olly.post("/account/security/passkeys/remove", { csrf: csrfOlly, id });
    assert.equal(stolen.headers.get("location"), "/account/security/passkeys?error=no_passkey");
    assert.equal(
      (await olly.get(`/account/security/passkeys/remove?id=${id}`)).headers.get("location"),
      "/account/security/passkeys?error=no_passkey",
    );

    const csrf = field(await (await b.get(`/account/security/passkeys/rename?id=${id}`)).text(), "csrf")!;
    assert.equal((await b.post("/account/security/passkeys/rename", { csrf, id, name: "  " })).status, 400);
    const renamed = await b.post("/account/security/passkeys/rename", { csrf, id, name: "Work phone" });
    assert.equal(renamed.headers.get("location"), "/account/security/passkeys?done=renamed");
    const confirm = await b.get(`/account/security/passkeys/remove?id=${id}`);
    assert.match(await confirm.text(), /Remove Work phone\?/);
    assert.equal((await b.post("/account/security/passkeys/remove", { csrf: "forged", id })).status, 403);
    const removed = await b.post("/account/security/passkeys/remove", { csrf, id });
    assert.equal(removed.headers.get("location"), "/account/security/passkeys?done=removed");
    const [{ n }] = await ctx.db.sql`select count(*)::int as n from user_passkeys`;
    assert.equal(n, 0);
    assert.deepEqual((await events(ctx, ctx.user.id, "factor_removed")).map((e) => e.detail), [{
      factor: "passkey",
    }]);
    // Signed out, the account's JSON endpoints say so instead of redirecting.
    const out = new Browser(ctx.app);
    const csrfOut = field(await (await out.get("/signin")).text(), "csrf")!;
    await expectJson(
      await postJson(out, "/account/security/passkeys/options", { csrf: csrfOut, name: "x" }),
      401,
      "signed_out",
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("passkeys: an authorization request's sign-in page takes a passkey and the request goes on", async () => {
  const ctx = await setup();
  try {
    const credential = await registerPasskey(await signedIn(ctx, ctx.user.email));
    const client = await registerPublic(ctx.app);
    const url = authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "st-passkey",
    });
    const b = new Browser(ctx.app);
    const page = await b.get(url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy")!, /script-src 'self'.*connect-src 'self'/);
    const html = await page.text();
    assert.match(html, /autocomplete="username webauthn"/);
    assert.match(html, /data-passkey="sign-in"[^>]*hidden/);
    const csrf = field(html, "csrf")!;
    const ticket = field(html, "ticket")!;
    const options = await expectJson(await postJson(b, "/signin/passkey/options", { csrf, ticket }), 200);
    const response = await soft.assert(credential, options.challenge);
    // A ticket that is not ours is refused before the challenge is spent.
    await expectJson(
      await postJson(b, "/signin/passkey", { csrf, ticket: "forged", response }),
      400,
      "request_expired",
    );
    const done = await expectJson(await postJson(b, "/signin/passkey", { csrf, ticket, response }), 200);
    assert.match(done.redirect, /^\/oauth\/authorize\/resume\?ticket=/);
    const back = await authorizeThrough(b, done.redirect, ctx.user.email);
    assert.equal(back.origin + back.pathname, REDIRECT);
    assert.equal(back.searchParams.get("state"), "st-passkey");
    assert.ok(back.searchParams.get("code"));
    assert.deepEqual((await sessionAmr(ctx, ctx.user.id)).at(-1), ["hwk", "user", "mfa"]);
  } finally {
    await ctx.close();
  }
});

Deno.test("a passkey as second factor shares the code brake: five refusals, then 429 with Retry-After", async () => {
  const ctx = await setup();
  try {
    await registerPasskey(await signedIn(ctx, ctx.user.email));
    const ollys = await registerPasskey(await signedIn(ctx, ctx.other.email));
    const { b, p } = await pendingAfterPassword(ctx, ctx.user.email);
    const csrf = field(
      await (await b.get(`/signin/verify/passkey?p=${encodeURIComponent(p)}`)).text(),
      "csrf",
    )!;
    const attempt = async () => {
      const options = await expectJson(await postJson(b, "/signin/verify/passkey/options", { csrf, p }), 200);
      const foreign = await soft.assert(ollys, options.challenge);
      return await postJson(b, "/signin/verify/passkey", { csrf, p, response: foreign });
    };
    for (let i = 0; i < 5; i++) await expectJson(await attempt(), 401, "passkey_refused");
    const braked = await attempt();
    assert.equal(braked.status, 429);
    assert.equal((await braked.json()).error, "throttled");
    assert.ok(Number(braked.headers.get("retry-after")) >= 1);
    assert.equal((await events(ctx, ctx.user.id, "second_factor_failed")).length, 5);
    assert.deepEqual((await events(ctx, ctx.user.id, "second_factor_throttled")).map((e) => e.detail), [
      { factor: "passkey" },
    ]);
    const [{ count }] = await ctx.db.sql<{ count: number }[]>`
      select sum(count)::int as count from rate_limits where bucket = ${`2fa:user:${ctx.user.id}`}`;
    assert.equal(count, 5, "the braked attempt is not counted");
    assert.equal(b.cookies.has("portico_session"), false);
  } finally {
    await ctx.close();
  }
});

Deno.test("passkey sign-in shares the password form's per-address brake: a braked address gets 429, nobody signed in", async () => {
  const ctx = await setup();
  try {
    const credential = await registerPasskey(await signedIn(ctx, ctx.user.email));
    const b = new Browser(ctx.app, "203.0.113.77");
    // The address has used up its free attempts today (as 50 wrong passwords would).
    await ctx.db.sql`
      insert into rate_limits (bucket, window_start, count, last_at)
      values (${brakeBucket.address("203.0.113.77")},
              to_timestamp(floor(extract(epoch from now()) / ${SIGN_IN_BRAKE.windowSeconds}) * ${SIGN_IN_BRAKE.windowSeconds}),
              ${SIGN_IN_BRAKE.perIp}, now())`;
    const { csrf, challenge } = await signInOptions(ctx, b);
    const res = await postJson(b, "/signin/passkey", {
      csrf,
      response: await soft.assert(credential, challenge),
    });
    assert.equal(res.status, 429);
    assert.equal((await res.json()).error, "throttled");
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
    assert.equal(b.cookies.has("portico_session"), false);
    // Another address signs in with the same passkey at once, and gives its slot back.
    const other = await signInOptions(ctx, new Browser(ctx.app, "198.51.100.200"));
    const ok = await postJson(other.b, "/signin/passkey", {
      csrf: other.csrf,
      response: await soft.assert(credential, other.challenge),
    });
    assert.equal(ok.status, 200);
    const [{ n }] = await ctx.db.sql<{ n: number }[]>`
      select coalesce(sum(count), 0)::int as n from rate_limits where bucket = ${
      brakeBucket.address("198.51.100.200")
    }`;
    assert.equal(n, 0);
  } finally {
    await ctx.close();
  }
});
