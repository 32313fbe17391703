// Issue 31, point 1: every abuse limit holds across instances. Two apps (two pools, two sets of in-memory state)
// on one database: with a limit of N, N requests pass in total whichever instance they reach, and the next is
// 429 on either. /mcp per API key, per OAuth grant and per address without a credential, refused client
// authentication at /oauth/token and /oauth/revoke, and introspection.
import assert from "node:assert/strict";
import type { Hono } from "hono";
import { createDb, type Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { testApp } from "../helpers/app.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase, TEST_CONNECT_TIMEOUT_S, TEST_STATEMENT_TIMEOUT_MS } from "../helpers/db.ts";
import { buildFixture, MCP_URL, mcpHeaders } from "../helpers/mcp.ts";
import { registerConfidential } from "../oauth/helpers.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const pools: Sql[] = [];
Deno.test.afterAll(async () => {
  for (const p of pools) await p.end({ timeout: 5 });
  await db.close();
});

/** A day-long window: the real clock cannot give a unit back while a test runs. */
const DAY = 86_400;

/** Two instances of the app, each with its own pool, on the test database. */
function twoInstances(env: Record<string, string>): [Hono<AppEnv>, Hono<AppEnv>] {
  const one = () => {
    const sql = createDb(db.url, {
      max: 3,
      connectTimeout: TEST_CONNECT_TIMEOUT_S,
      statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
    });
    pools.push(sql);
    return testApp(sql, env);
  };
  return [one(), one()];
}

const from = (ip: string) => ({ remoteAddr: { hostname: ip, port: 40000 } });

async function mcp(app: Hono<AppEnv>, credential: string | null, ip: string) {
  const res = await app.request(MCP_URL, {
    method: "POST",
    headers: mcpHeaders(credential),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  }, from(ip));
  // deno-lint-ignore no-explicit-any
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() as any };
}

/** Sends `n` requests alternately to A and B; the statuses. */
async function alternate(apps: Hono<AppEnv>[], n: number, send: (app: Hono<AppEnv>) => Promise<number>) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await send(apps[i % 2]));
  return out;
}

function assertMcpLimited(
  answer: Awaited<ReturnType<typeof mcp>>,
  scope: string,
  max: number,
) {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  const wait = Number(answer.retryAfter);
  // N units in a window of a day: the next is free DAY / N seconds after the first (less the test's time).
  assert.ok(wait > DAY / max - 60 && wait <= DAY / max, `Retry-After ${answer.retryAfter}`);
  assert.equal(answer.body.error.data.scope, scope);
  assert.deepEqual(answer.body.error.data.limit, { max, windowSeconds: DAY });
  assert.equal(answer.body.error.data.retryAfter, wait);
}

Deno.test("/mcp per API key: 4 in total through A and B, the fifth is 429 on either", async () => {
  const [a, b] = twoInstances({ MCP_RATE_LIMIT: `4/${DAY}`, MCP_UNAUTH_RATE_LIMIT: "0" });
  const key = await f.key({ user: f.users.member, name: "shared" });
  const ip = "192.0.2.10";
  assert.deepEqual(await alternate([a, b], 4, async (app) => (await mcp(app, key, ip)).status), [
    200,
    200,
    200,
    200,
  ]);
  assertMcpLimited(await mcp(a, key, ip), "api_key", 4);
  assertMcpLimited(await mcp(b, key, ip), "api_key", 4);
  // From another address too: the key's bucket, not the address's.
  assertMcpLimited(await mcp(b, key, "198.51.100.10"), "api_key", 4);
  // Another key has its own.
  assert.equal((await mcp(b, f.keys.owner, ip)).status, 200);
});

Deno.test("/mcp per OAuth grant: 3 in total through A and B, the fourth is 429 on either", async () => {
  const [a, b] = twoInstances({ MCP_RATE_LIMIT: `3/${DAY}`, MCP_UNAUTH_RATE_LIMIT: "0" });
  const g = await bearerFor(db.sql, { userId: f.users.manager, workspaceId: f.workspaceId });
  const ip = "192.0.2.11";
  assert.deepEqual(await alternate([b, a], 3, async (app) => (await mcp(app, g.auth, ip)).status), [
    200,
    200,
    200,
  ]);
  assertMcpLimited(await mcp(b, g.auth, ip), "grant", 3);
  assertMcpLimited(await mcp(a, g.auth, ip), "grant", 3);
});

Deno.test("/mcp per address without an accepted credential: 4 in total through A and B, then 429 on either", async () => {
  const [a, b] = twoInstances({ MCP_RATE_LIMIT: "0", MCP_UNAUTH_RATE_LIMIT: `4/${DAY}` });
  const ip = "192.0.2.12";
  const unknown = `pak_${"U".repeat(43)}`;
  // No credential, an unknown key, a bad token: one budget.
  const statuses = [
    (await mcp(a, null, ip)).status,
    (await mcp(b, unknown, ip)).status,
    (await mcp(a, "Bearer not.a.token", ip)).status,
    (await mcp(b, null, ip)).status,
  ];
  assert.deepEqual(statuses, [401, 403, 401, 401]);
  assertMcpLimited(await mcp(a, null, ip), "address", 4);
  assertMcpLimited(await mcp(b, unknown, ip), "address", 4);
  // Another address has its own budget; a key this instance has not accepted yet waits like anyone unknown.
  assert.equal((await mcp(b, null, "192.0.2.13")).status, 401);
  assertMcpLimited(await mcp(a, f.keys.owner, ip), "address", 4);
});

const form = { "content-type": "application/x-www-form-urlencoded" };

Deno.test("refused client authentication at /oauth/token and /oauth/revoke: 3 in total through A and B, then 429 on either", async () => {
  const [a, b] = twoInstances({ TOKEN_FAILURE_RATE_LIMIT: `3/${DAY}` });
  const client = await registerConfidential(a);
  const ip = "198.51.100.20";
  const token = (app: Hono<AppEnv>, secret: string) =>
    app.request("/oauth/token", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: "nope",
        client_id: client.client_id,
        client_secret: secret,
      }).toString(),
    }, from(ip));
  const answers = [];
  for (const app of [a, b, a]) {
    const res = await token(app, "wrong-secret");
    answers.push([res.status, (await res.json()).error]);
  }
  assert.deepEqual(answers, [[401, "invalid_client"], [401, "invalid_client"], [401, "invalid_client"]]);
  for (const app of [b, a]) {
    const res = await token(app, "wrong-secret");
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("www-authenticate"), null);
    const wait = Number(res.headers.get("retry-after"));
    assert.ok(wait > DAY / 3 - 60 && wait <= DAY / 3, `Retry-After ${wait}`);
    assert.deepEqual(await res.json(), {
      error: "too_many_requests",
      error_description: "too many refused requests from this address, retry later",
    });
  }
  // Both instances now refuse the address before any lookup, even the right secret and the revocation endpoint.
  for (const app of [a, b]) {
    assert.equal((await token(app, client.client_secret!)).status, 429);
    const revoke = await app.request("/oauth/revoke", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({
        token: "x",
        client_id: client.client_id,
        client_secret: client.client_secret!,
      })
        .toString(),
    }, from(ip));
    assert.equal(revoke.status, 429);
  }
  const [row] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from rate_buckets where bucket = ${`token_refused:${ip}`}`;
  assert.equal(row.n, 1, "one bucket in the shared table");
});

Deno.test("introspection: 2 in total through A and B, the third is 429 on either", async () => {
  const [a, b] = twoInstances({ INTROSPECTION_RATE_LIMIT: `2/${DAY}` });
  const rs = await registerConfidential(a);
  const ip = "203.0.113.30";
  const introspect = (app: Hono<AppEnv>) =>
    app.request("/oauth/introspect", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ token: "x", client_id: rs.client_id, client_secret: rs.client_secret! })
        .toString(),
    }, from(ip));
  assert.deepEqual(await alternate([a, b], 2, async (app) => (await introspect(app)).status), [200, 200]);
  for (const app of [a, b]) {
    const res = await introspect(app);
    assert.equal(res.status, 429);
    const wait = Number(res.headers.get("retry-after"));
    assert.ok(wait > DAY / 2 - 60 && wait <= DAY / 2, `Retry-After ${wait}`);
    assert.equal((await res.json()).error, "too_many_requests");
  }
});
