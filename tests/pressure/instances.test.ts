// Two instances, one Postgres: registration limit, sessions, refresh rotation and signing keys are shared.
import assert from "node:assert/strict";
import { decodeProtectedHeader, type JWK } from "jose";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { createDb, type Sql } from "../../lib/db/client.ts";
import { silentLogger } from "../../lib/log.ts";
import {
  createKeyStore,
  KEY_PUBLISH_DELAY_SECONDS,
  KEY_REFRESH_SECONDS,
  type KeyStore,
} from "../../lib/oauth/keys.ts";
import { type AppDeps, createApp } from "../../routes/mod.ts";
import { TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import {
  DATABASE_URL,
  freshDatabase,
  TEST_CONNECT_TIMEOUT_S,
  TEST_STATEMENT_TIMEOUT_MS,
} from "../helpers/db.ts";
import { asApp, type HttpTarget, serveApp, spawnServer } from "../helpers/serve.ts";
import { eventually } from "../helpers/wait.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  field,
  ISSUER,
  location,
  PASSWORD,
  pkce,
  REDIRECT,
  register,
  type Registered,
  signInOnPage,
  token,
} from "../oauth/helpers.ts";

// Postgres only: two processes cannot share one embedded PGlite data directory.
const ignore = !DATABASE_URL;
const EMAIL = "dana@example.com";

// deno-lint-ignore no-explicit-any
async function json(res: Response): Promise<any> {
  return await res.json();
}

async function userinfo(at: HttpTarget, accessToken: string): Promise<{ status: number; sub?: string }> {
  const res = await at.request("/oauth/userinfo", { headers: { authorization: `Bearer ${accessToken}` } });
  const body = await res.json();
  return res.status === 200 ? { status: 200, sub: body.sub } : { status: res.status };
}

function refresh(at: HttpTarget, client: Registered, refreshToken: string): Promise<Response> {
  return token(asApp(at), {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
  });
}

async function kids(at: HttpTarget): Promise<string[]> {
  const res = await at.request("/oauth/jwks");
  assert.equal(res.status, 200);
  return ((await res.json()).keys as JWK[]).map((k) => k.kid!).sort();
}

/** Runs the authorization through `at` (signing in if asked) and exchanges the code at `exchangeAt`. */
async function tokensFor(at: HttpTarget, exchangeAt: HttpTarget, client: Registered) {
  const { verifier, challenge } = pkce();
  const redirect = await authorizeThrough(
    new Browser(asApp(at)),
    authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }),
    EMAIL,
  );
  const res = await token(asApp(exchangeAt), {
    grant_type: "authorization_code",
    code: redirect.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: client.client_id,
  });
  assert.equal(res.status, 200);
  return await json(res);
}

Deno.test({
  name:
    "two `deno run main.ts` processes on one database share the rate limit, sessions and refresh rotation",
  ignore,
  async fn(t) {
    const db = await freshDatabase();
    const user = await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Dana" }, {
      scrypt: TEST_SCRYPT,
    });
    const env = {
      DATABASE_URL: db.url,
      SECRET_KEY: TEST_SECRET,
      ISSUER,
      REGISTRATION_RATE_LIMIT: "3/3600",
    };
    const [A, B] = await Promise.all([spawnServer(env), spawnServer(env)]);
    try {
      let client!: Registered;

      await t.step(
        "registration limit 3/3600: two through A, two through B → the fourth is 429",
        async () => {
          const answers: Response[] = [];
          for (const at of [A, B, A, B]) {
            answers.push(await register(asApp(at), { grant_types: ["authorization_code", "refresh_token"] }));
          }
          assert.deepEqual(answers.map((r) => r.status), [201, 201, 201, 429]);
          client = await json(answers[0]);
          for (const r of answers.slice(1, 3)) await r.body?.cancel();
          const limited = answers[3];
          assert.deepEqual(await json(limited), {
            error: "too_many_requests",
            error_description: "too many registrations, retry later",
          });
          const retry = Number(limited.headers.get("retry-after"));
          assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 3600, String(retry));
          const refused = await register(asApp(A), {});
          assert.equal(refused.status, 429, "A refuses too: the counter lives in the database");
          await refused.body?.cancel();
        },
      );

      await t.step("both started together: one signing key, served by both", async () => {
        const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from signing_keys`;
        assert.equal(n, 1);
        assert.deepEqual(await kids(A), await kids(B));
      });

      let first!: { access_token: string; refresh_token: string };

      await t.step(
        "a session made by signing in at A is valid at B's /account/apps and /oauth/authorize",
        async () => {
          const atA = new Browser(asApp(A));
          const signedIn = await signInOnPage(atA, await atA.get("/signin?return_to=/account/apps"), EMAIL);
          assert.equal(signedIn.status, 303);
          assert.equal(location(signedIn).pathname, "/account/apps");
          // The same browser (its cookies) now talks to B.
          const atB = new Browser(asApp(B));
          atB.cookies = atA.cookies;
          const apps = await atB.get("/account/apps");
          assert.equal(apps.status, 200);
          assert.match(await apps.text(), /Signed in as dana@example\.com/);
          const stranger = await new Browser(asApp(B)).get("/account/apps");
          assert.equal(stranger.status, 303, "without the cookie B asks for a sign-in");
          assert.equal(location(stranger).pathname, "/signin");

          // Authorize at B: no sign-in form, straight to consent; the consent form is posted to A.
          const { verifier, challenge } = pkce();
          const consent = await atB.get(authorizeUrl({
            response_type: "code",
            client_id: client.client_id,
            redirect_uri: REDIRECT,
            code_challenge: challenge,
            code_challenge_method: "S256",
            state: "two-instances",
          }));
          assert.equal(consent.status, 200);
          const html = await consent.text();
          assert.ok(html.includes('action="/oauth/authorize/consent"'), "B shows the consent page");
          assert.ok(!html.includes('action="/signin"'), "B does not ask for a sign-in");
          const allowed = await atA.post("/oauth/authorize/consent", {
            csrf: field(html, "csrf")!,
            ticket: field(html, "ticket")!,
            decision: "allow",
          });
          assert.equal(allowed.status, 303);
          const back = location(allowed);
          assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
          assert.equal(back.searchParams.get("state"), "two-instances");
          // The code issued by A is exchanged at B; B's access token is accepted by A's UserInfo.
          const exchanged = await token(asApp(B), {
            grant_type: "authorization_code",
            code: back.searchParams.get("code")!,
            redirect_uri: REDIRECT,
            code_verifier: verifier,
            client_id: client.client_id,
          });
          assert.equal(exchanged.status, 200);
          first = await json(exchanged);
          assert.deepEqual(await userinfo(A, first.access_token), { status: 200, sub: user.id });
          assert.deepEqual(await userinfo(B, first.access_token), { status: 200, sub: user.id });
        },
      );

      await t.step("a refresh token rotated at A is refused at B; its successor works at B", async () => {
        const r1 = await refresh(A, client, first.refresh_token).then(json);
        assert.ok(r1.refresh_token);
        assert.deepEqual(await userinfo(B, r1.access_token), { status: 200, sub: user.id });
        const r2res = await refresh(B, client, r1.refresh_token);
        assert.equal(r2res.status, 200, "the new token works at B");
        const r2 = await json(r2res);
        const reused = await refresh(B, client, first.refresh_token);
        assert.equal(reused.status, 400, "the rotated one does not");
        assert.equal((await json(reused)).error, "invalid_grant");
        // docs/oauth.md: presenting a rotated token revokes the family, wherever it is presented.
        const after = await refresh(A, client, r2.refresh_token);
        assert.equal(after.status, 400);
        assert.equal((await json(after)).error, "invalid_grant");
        assert.deepEqual(await userinfo(A, r2.access_token), { status: 401 });
        assert.deepEqual(await userinfo(B, r2.access_token), { status: 401 });
      });
    } finally {
      await Promise.all([A.close(), B.close()]);
      await db.close();
    }
  },
});

/** Moves every key's creation time `seconds` into the past, as if that time had passed since. */
async function shiftKeyCreation(sql: Sql, seconds: number): Promise<void> {
  // The whole key timeline moves (creation, activation, retirement), as if `seconds` had passed.
  await sql`
    update signing_keys set created_at = created_at - make_interval(secs => ${seconds}),
           activates_at = activates_at - make_interval(secs => ${seconds}),
           retired_at = retired_at - make_interval(secs => ${seconds})`;
}

/** An in-process instance with its own pool and its own key cache refreshed every `refreshSeconds`. */
function instance(
  url: string,
  keys: (sql: Sql) => KeyStore,
): { http: HttpTarget; sql: Sql; close(): Promise<void> } {
  const sql = createDb(url, {
    max: 5,
    connectTimeout: TEST_CONNECT_TIMEOUT_S,
    statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
  });
  const config = parseConfig({ ISSUER, SECRET_KEY: TEST_SECRET });
  // createApp hands its dependencies to the OAuth routes, which use `keys` when given one.
  const deps: AppDeps & { keys: KeyStore } = {
    config,
    sql,
    log: silentLogger,
    secretKey: TEST_SECRET,
    keys: keys(sql),
  };
  const http = serveApp(createApp(deps));
  return {
    http,
    sql,
    async close() {
      await http.close();
      await sql.end({ timeout: 5 });
    },
  };
}

Deno.test({
  name: "a key rotated by `deno task admin keys rotate` reaches both instances within their refresh interval",
  ignore,
  async fn() {
    // Processes refresh every KEY_REFRESH_SECONDS (60 s, as docs/oauth.md says); waiting that long is too slow
    // for a test, so these two in-process instances (separate pools, separate caches) read a clock the test
    // moves on by one interval. (They used to refresh every real second and the test asserted "within 1 s +
    // 1 s" — a timing assertion a loaded host broke; the slow test below uses the real interval.)
    assert.equal(KEY_REFRESH_SECONDS, 60);
    let ahead = 0;
    const clock = () => Date.now() + ahead;
    const nextRefresh = () => ahead += KEY_REFRESH_SECONDS * 1000 + 1;
    const db = await freshDatabase();
    await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Dana" }, { scrypt: TEST_SCRYPT });
    const store = (sql: Sql) => createKeyStore(sql, TEST_SECRET, { now: clock });
    const a = instance(db.url, store);
    const b = instance(db.url, store);
    try {
      const client: Registered = await json(
        await register(asApp(a.http), { grant_types: ["authorization_code", "refresh_token"] }),
      );
      const old = await tokensFor(a.http, b.http, client);
      const oldKid = decodeProtectedHeader(old.access_token).kid!;
      assert.deepEqual(await kids(a.http), [oldKid]);
      assert.deepEqual(await kids(b.http), [oldKid]);

      const cmd = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "admin.ts", "keys", "rotate", "--json"],
        cwd: new URL("../../", import.meta.url),
        env: { DATABASE_URL: db.url, SECRET_KEY: TEST_SECRET, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(cmd.code, 0, new TextDecoder().decode(cmd.stderr));
      const newKid: string = JSON.parse(new TextDecoder().decode(cmd.stdout)).kid;
      assert.notEqual(newKid, oldKid);

      // Published by both at once after their next refresh; the retired key stays for its tokens.
      const both = [newKid, oldKid].sort();
      nextRefresh();
      assert.deepEqual(await kids(a.http), both, "a publishes the new key after one refresh interval");
      assert.deepEqual(await kids(b.http), both, "b publishes the new key after one refresh interval");
      // Not used for signing before every instance has had KEY_PUBLISH_DELAY_SECONDS to see it.
      const early = await refresh(a.http, client, old.refresh_token).then(json);
      assert.equal(decodeProtectedHeader(early.access_token).kid, oldKid);

      // That delay has passed: every key's creation is moved back rather than waited for (all of them, so the
      // new key stays the newest; the newest published key signs).
      await shiftKeyCreation(db.sql, KEY_PUBLISH_DELAY_SECONDS + 1);
      let latest = early.refresh_token as string;
      const signedWith = async (at: HttpTarget, kid: string) => {
        const res = await json(await refresh(at, client, latest));
        latest = res.refresh_token;
        return decodeProtectedHeader(res.access_token).kid === kid ? res.access_token as string : undefined;
      };
      // each signs with it from its next refresh on
      nextRefresh();
      const fromA = await signedWith(a.http, newKid);
      assert.ok(fromA, "a signs with the new key after one refresh interval");
      const fromB = await signedWith(b.http, newKid);
      assert.ok(fromB, "b signs with the new key after one refresh interval");
      // A token signed by one instance verifies at the other, old and new keys alike.
      assert.equal((await userinfo(b.http, fromA)).status, 200);
      assert.equal((await userinfo(a.http, fromB)).status, 200);
      assert.equal((await userinfo(a.http, early.access_token)).status, 200);
      assert.equal((await userinfo(b.http, early.access_token)).status, 200);
    } finally {
      await a.close();
      await b.close();
      await db.close();
    }
  },
});

Deno.test({
  name:
    "slow (PORTICO_SLOW_TESTS=1): two processes publish and use a rotated key by their real 60 s refresh, no restart",
  // Waits out the production refresh interval (about a minute), so it runs only when asked for.
  ignore: ignore || Deno.env.get("PORTICO_SLOW_TESTS") !== "1",
  async fn() {
    const db = await freshDatabase();
    await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Dana" }, { scrypt: TEST_SCRYPT });
    const env = { DATABASE_URL: db.url, SECRET_KEY: TEST_SECRET, ISSUER };
    const [A, B] = await Promise.all([spawnServer(env), spawnServer(env)]);
    try {
      const client: Registered = await json(
        await register(asApp(A), { grant_types: ["authorization_code", "refresh_token"] }),
      );
      const old = await tokensFor(A, B, client);
      const oldKid = decodeProtectedHeader(old.access_token).kid!;
      // Both caches are loaded now; each reloads at most KEY_REFRESH_SECONDS later.
      assert.deepEqual(await kids(A), [oldKid]);
      assert.deepEqual(await kids(B), [oldKid]);
      const rotated = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "admin.ts", "keys", "rotate", "--json"],
        cwd: new URL("../../", import.meta.url),
        env: { DATABASE_URL: db.url, SECRET_KEY: TEST_SECRET, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(rotated.code, 0, new TextDecoder().decode(rotated.stderr));
      const newKid: string = JSON.parse(new TextDecoder().decode(rotated.stdout)).kid;
      // Skip the publish delay (tested above) so that the first reload also switches signing.
      await shiftKeyCreation(db.sql, KEY_PUBLISH_DELAY_SECONDS + 1);
      const both = [newKid, oldKid].sort();
      // by their own refresh (when is the fake-clock test above's business: no timing assertion here)
      await eventually(
        "both processes publish the new key",
        async () =>
          JSON.stringify(await kids(A)) === JSON.stringify(both) &&
          JSON.stringify(await kids(B)) === JSON.stringify(both),
        500,
      );
      const fromA = await refresh(A, client, old.refresh_token).then(json);
      assert.equal(decodeProtectedHeader(fromA.access_token).kid, newKid);
      const fromB = await refresh(B, client, fromA.refresh_token).then(json);
      assert.equal(decodeProtectedHeader(fromB.access_token).kid, newKid);
      assert.equal((await userinfo(B, fromA.access_token)).status, 200);
      assert.equal((await userinfo(A, fromB.access_token)).status, 200);
      assert.equal((await userinfo(A, old.access_token)).status, 200, "the retired key still verifies");
    } finally {
      await Promise.all([A.close(), B.close()]);
      await db.close();
    }
  },
});
