// Issue 31, point 3: three `deno task start` processes (its permissions exactly) on one fresh database behind a
// round-robin proxy. A bounded mixed load — refresh chains, tool calls, registrations, sign-ins and floods at
// every abuse limit — then: each limit held within its stated overshoot (docs/operations.md "Rate limits":
// exact for /mcp, introspection and registration; refused token requests at most MAX answered with their
// error); a refresh token rotated on one instance and replayed on another is refused and its family revoked
// (REFRESH_REUSE_GRACE_SECONDS=0); a code replayed on another instance is refused and what it produced revoked;
// a revoked API key is refused by every instance on its next request. No sleeps: every step waits for answers.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { DATABASE_URL, freshDatabase } from "../helpers/db.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { buildFixture, callOk, MCP_URL, mcpHeaders, rpc } from "../helpers/mcp.ts";
import { roundRobin } from "../helpers/round_robin.ts";
import { asApp, type HttpTarget, spawnServer } from "../helpers/serve.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  ISSUER,
  PASSWORD,
  pkce,
  REDIRECT,
  type Registered,
  token,
} from "../oauth/helpers.ts";

// Postgres only: three processes cannot share one embedded PGlite data directory.
const ignore = !DATABASE_URL;
const EMAIL = "dana@example.com";
/** Day-long windows: the real clock gives back no unit while the test runs. */
const DAY = 86_400;
const LIMITS = { key: 30, unauth: 7, tokenFailures: 8, introspection: 6, registrations: 5 };

// deno-lint-ignore no-explicit-any
async function json(res: Response): Promise<any> {
  return await res.json();
}

/** `n` requests at once; the count of each status. */
async function flood(n: number, send: () => Promise<Response>): Promise<Record<number, number>> {
  const answers = await Promise.all(Array.from({ length: n }, send));
  const out: Record<number, number> = {};
  for (const r of answers) {
    out[r.status] = (out[r.status] ?? 0) + 1;
    await r.body?.cancel();
  }
  return out;
}

async function registerFrom(
  at: HttpTarget,
  ip: string,
  body: Record<string, unknown> = {},
): Promise<Response> {
  return await at.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify({
      client_name: "Three",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      ...body,
    }),
  });
}

/** Authorizes through `at` (signing in), exchanges the code at `exchangeAt`; the tokens, or the code left. */
async function authorize(at: HttpTarget, client: Registered) {
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
  const code = redirect.searchParams.get("code")!;
  const exchange = (where: HttpTarget) =>
    token(asApp(where), {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: client.client_id,
    });
  return { exchange };
}

function refresh(at: HttpTarget, client: Registered, refreshToken: string, ip?: string): Promise<Response> {
  return token(asApp(at), {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
  }, ip ? { "x-forwarded-for": ip } : {});
}

async function userinfo(at: HttpTarget, accessToken: string): Promise<number> {
  const res = await at.request("/oauth/userinfo", { headers: { authorization: `Bearer ${accessToken}` } });
  await res.body?.cancel();
  return res.status;
}

function mcpFrom(at: HttpTarget, credential: string | null, ip: string): Promise<Response> {
  const headers = mcpHeaders(credential, { "x-forwarded-for": ip });
  return at.request(MCP_URL, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
}

Deno.test({
  name:
    "three `deno task start` processes behind a round-robin proxy: limits, refresh reuse, code replay, revocation",
  ignore,
  async fn(t) {
    const db = await freshDatabase();
    await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Dana" }, { scrypt: TEST_SCRYPT });
    const f = await buildFixture(db.sql);
    const env = {
      DATABASE_URL: db.url,
      SECRET_KEY: TEST_SECRET,
      ISSUER,
      TRUSTED_PROXIES: "127.0.0.1",
      MCP_RATE_LIMIT: `${LIMITS.key}/${DAY}`,
      MCP_UNAUTH_RATE_LIMIT: `${LIMITS.unauth}/${DAY}`,
      TOKEN_FAILURE_RATE_LIMIT: `${LIMITS.tokenFailures}/${DAY}`,
      INTROSPECTION_RATE_LIMIT: `${LIMITS.introspection}/${DAY}`,
      REGISTRATION_RATE_LIMIT: `${LIMITS.registrations}/${DAY}`,
      // No grace: a rotated token presented again is reuse at once, not a lost answer's retry.
      REFRESH_REUSE_GRACE_SECONDS: "0",
    };
    const instances = await Promise.all([0, 1, 2].map(() => spawnServer(env, { startTask: true })));
    const [A, B, C] = instances;
    const proxy = roundRobin(instances);
    try {
      // Clients for the load, each registered from an address of its own.
      const clients: Registered[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await registerFrom(proxy, `2001:db8:31::${i + 1}`);
        assert.equal(res.status, 201);
        clients.push(await json(res));
      }
      const rsRes = await registerFrom(proxy, "2001:db8:31::99", {
        token_endpoint_auth_method: "client_secret_post",
      });
      assert.equal(rsRes.status, 201);
      const rs: Registered = await json(rsRes);
      const keys = await Promise.all(
        [0, 1, 2, 3].map((i) => f.key({ user: f.users.member, name: `load-${i}` })),
      );
      const limitedKey = await f.key({ user: f.users.member, name: "flooded" });

      await t.step(
        "mixed load through the proxy; every limit holds within its stated overshoot",
        async () => {
          const chains = clients.slice(0, 3).map(async (client, i) => {
            // A sign-in and consent, then a chain of six rotations, each through the next instance.
            const first = await (await authorize(proxy, client)).exchange(proxy);
            assert.equal(first.status, 200);
            let refreshToken: string = (await json(first)).refresh_token;
            for (let n = 0; n < 6; n++) {
              const res = await refresh(proxy, client, refreshToken, `198.51.100.${i + 1}`);
              assert.equal(res.status, 200, `chain ${i}, rotation ${n}`);
              refreshToken = (await json(res)).refresh_token;
            }
          });
          const toolCalls = keys.map(async (key) => {
            for (let n = 0; n < 12; n++) await callOk(proxy, key, "list_projects");
          });
          const [keyFlood, unauthFlood, tokenFlood, introspectionFlood, registrationFlood] = await Promise
            .all([
              flood(45, () => mcpFrom(proxy, limitedKey, "203.0.113.10")),
              flood(15, () => mcpFrom(proxy, null, "203.0.113.20")),
              flood(20, () =>
                proxy.request("/oauth/token", {
                  method: "POST",
                  headers: {
                    "content-type": "application/x-www-form-urlencoded",
                    "x-forwarded-for": "203.0.113.30",
                  },
                  body: new URLSearchParams({
                    grant_type: "refresh_token",
                    refresh_token: "nope",
                    client_id: rs.client_id,
                    client_secret: "wrong-secret",
                  }).toString(),
                })),
              flood(12, () =>
                proxy.request("/oauth/introspect", {
                  method: "POST",
                  headers: {
                    "content-type": "application/x-www-form-urlencoded",
                    "x-forwarded-for": "203.0.113.40",
                  },
                  body: new URLSearchParams({
                    token: "x",
                    client_id: rs.client_id,
                    client_secret: rs.client_secret!,
                  })
                    .toString(),
                })),
              flood(9, () => registerFrom(proxy, "203.0.113.50")),
              ...chains,
              ...toolCalls,
            ]);
          // Exact: MAX in total, across the three instances.
          assert.deepEqual(keyFlood, { 200: LIMITS.key, 429: 45 - LIMITS.key });
          assert.deepEqual(unauthFlood, { 401: LIMITS.unauth, 429: 15 - LIMITS.unauth });
          assert.deepEqual(introspectionFlood, { 200: LIMITS.introspection, 429: 12 - LIMITS.introspection });
          assert.deepEqual(registrationFlood, { 201: LIMITS.registrations, 429: 9 - LIMITS.registrations });
          // Refused client authentication: at most MAX answered with their error (an instance may also hold
          // its requests in flight to MAX, answering 429 sooner); every other one 429.
          assert.ok((tokenFlood[401] ?? 0) <= LIMITS.tokenFailures, JSON.stringify(tokenFlood));
          assert.equal((tokenFlood[401] ?? 0) + (tokenFlood[429] ?? 0), 20, JSON.stringify(tokenFlood));
          const [{ counted }] = await db.sql<{ counted: number }[]>`
          select round(extract(epoch from tat - now()) / ${DAY / LIMITS.tokenFailures})::int as counted
            from rate_buckets where bucket = 'token_refused:203.0.113.30'`;
          assert.equal(counted, tokenFlood[401], "the shared bucket counted exactly the refusals answered");
          // And now every instance refuses each flooded bucket, directly too.
          for (const at of instances) {
            assert.equal((await mcpFrom(at, limitedKey, "127.0.0.1")).status, 429);
          }
          // Every instance took part.
          for (const n of proxy.served()) assert.ok(n > 50, `served ${proxy.served()}`);
        },
      );

      await t.step(
        "a refresh token rotated at A and replayed at B is refused, and the family revoked at C",
        async () => {
          const client = clients[3];
          const first = await json(await (await authorize(proxy, client)).exchange(A));
          const rotated = await refresh(A, client, first.refresh_token);
          assert.equal(rotated.status, 200);
          const next = await json(rotated);
          const replayed = await refresh(B, client, first.refresh_token);
          assert.equal(replayed.status, 400);
          assert.equal((await json(replayed)).error, "invalid_grant");
          const successor = await refresh(C, client, next.refresh_token);
          assert.equal(successor.status, 400, "the whole family is revoked");
          assert.equal((await json(successor)).error, "invalid_grant");
          for (const at of instances) assert.equal(await userinfo(at, next.access_token), 401);
        },
      );

      await t.step(
        "a code exchanged at A and replayed at B is refused; what it produced is revoked",
        async () => {
          const client = clients[3];
          const flow = await authorize(proxy, client);
          const exchanged = await flow.exchange(A);
          assert.equal(exchanged.status, 200);
          const tokens = await json(exchanged);
          const replay = await flow.exchange(B);
          assert.equal(replay.status, 400);
          assert.equal((await json(replay)).error, "invalid_grant");
          const after = await refresh(C, client, tokens.refresh_token);
          assert.equal(after.status, 400);
          assert.equal((await json(after)).error, "invalid_grant");
          for (const at of instances) assert.equal(await userinfo(at, tokens.access_token), 401);
        },
      );

      await t.step("an API key revoked is refused by every instance on its next request", async () => {
        const key = await f.key({ user: f.users.member, name: "to revoke" });
        // Every instance accepts it first (and remembers it for its rate limit).
        for (const at of instances) await callOk(at, key, "list_projects");
        await db.sql`update api_keys set revoked_at = now() where key_hash = ${sha256Hex(key)}`;
        for (const at of [C, B, A]) {
          const r = await rpc(at, key, "tools/call", { name: "list_projects", arguments: {} });
          assert.equal(r.status, 403);
          assert.equal(r.body.error.message, "API key revoked");
        }
      });
    } finally {
      await proxy.close();
      await Promise.all(instances.map((i) => i.close()));
      await db.close();
    }
  },
});
