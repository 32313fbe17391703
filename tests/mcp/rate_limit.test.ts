// Rate limits on /mcp (issue 13, point 3): per API key, per OAuth grant, per client address without an accepted
// credential; 429 with Retry-After and a JSON-RPC error; batches per message; no database work when limited.
import assert from "node:assert/strict";
import type { Hono } from "hono";
import { createAuditLog } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import type { Sql } from "../../lib/db/client.ts";
import { addressKey } from "../../lib/http/client_ip.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { createLogger, silentLogger } from "../../lib/log.ts";
import type { Caller } from "../../lib/mcp/caller.ts";
import { createMcpRateLimits, KNOWN_CREDENTIAL_TTL_MS, RATE_LIMITED_CODE } from "../../lib/mcp/rate_limit.ts";
import { createMemoryLimiter } from "../../lib/rate_limit/mod.ts";
import { signAccessToken } from "../../lib/oauth/tokens.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SCRYPT, TEST_SECRET, testApp } from "../helpers/app.ts";
import { bearerFor, type BearerGrant, keysOf, MCP_RESOURCE, TEST_ISSUER } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, lastUsedFresh, MCP_URL, mcpHeaders } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

const START = Date.UTC(2026, 0, 1);
/** The buckets are in the shared database: each app's clock starts a day after the previous one's. */
let clocks = 0;

/** The full app with its own clock for the limits; `env` sets MCP_RATE_LIMIT and friends. */
function limitedApp(
  env: Record<string, string>,
  opts: { sql?: Sql; audit?: ReturnType<typeof createAuditLog> } = {},
) {
  let t = START + clocks++ * 86_400_000;
  const config = parseConfig({ ISSUER: TEST_ISSUER, SECRET_KEY: TEST_SECRET, ...env });
  const limits = createMcpRateLimits({
    db: opts.sql ?? db.sql,
    perCredential: config.mcpRateLimit,
    unauthenticated: config.mcpUnauthRateLimit,
    now: () => t,
  });
  const app = createApp({
    config,
    sql: opts.sql ?? db.sql,
    log: silentLogger,
    secretKey: TEST_SECRET,
    scrypt: TEST_SCRYPT,
    audit: opts.audit,
    mcpRateLimits: limits,
  });
  return { app, limits, advance: (ms: number) => void (t += ms) };
}

interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

let nextId = 1;

/** POSTs to /mcp as if from `ip` (the peer address Deno.serve would pass). */
async function post(
  app: Hono<AppEnv>,
  key: string | null,
  opts: { ip?: string; body?: unknown; headers?: Record<string, string | null> } = {},
): Promise<Answer> {
  const res = await app.request(
    MCP_URL,
    {
      method: "POST",
      headers: mcpHeaders(key, opts.headers),
      body: JSON.stringify(opts.body ?? { jsonrpc: "2.0", id: nextId++, method: "ping" }),
    },
    { remoteAddr: { hostname: opts.ip ?? "192.0.2.1", port: 40000 } },
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function statuses(app: Hono<AppEnv>, key: string | null, n: number, ip?: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await post(app, key, { ip })).status);
  return out;
}

function assertLimited(
  a: Answer,
  retryAfter: number,
  scope: "api_key" | "grant" | "address",
  limit: { max: number; windowSeconds: number },
) {
  assert.equal(a.status, 429, JSON.stringify(a.body));
  assert.equal(a.headers.get("retry-after"), String(retryAfter));
  assert.equal(a.headers.get("content-type"), "application/json");
  assert.equal(a.headers.get("cache-control"), "no-store");
  const whose = {
    api_key: "this API key",
    grant: "this OAuth grant",
    address: "this address without an accepted credential",
  }[scope];
  assert.deepEqual(a.body, {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: RATE_LIMITED_CODE,
      message: `rate_limited: more than ${limit.max} requests per ${limit.windowSeconds} s for ${whose}; ` +
        `retry after ${retryAfter} s`,
      data: { retryAfter, scope, limit },
    },
  });
}

Deno.test("per API key: a burst of MAX, then 429 with the true wait; other keys and workspaces unaffected", async () => {
  const { app, advance } = limitedApp({ MCP_RATE_LIMIT: "3/60", MCP_UNAUTH_RATE_LIMIT: "0" });
  const key = await f.key({ user: f.users.member, name: "limited" });
  assert.deepEqual(await statuses(app, key, 3), [200, 200, 200]);
  // 3 per 60 s is one every 20 s: the fourth must wait exactly 20 s.
  assertLimited(await post(app, key), 20, "api_key", { max: 3, windowSeconds: 60 });
  assertLimited(await post(app, key), 20, "api_key", { max: 3, windowSeconds: 60 });
  // Another key of the same workspace, of the same person, and another workspace's key: their own buckets.
  const sibling = await f.key({ user: f.users.member, name: "sibling" });
  assert.deepEqual(await statuses(app, sibling, 3), [200, 200, 200]);
  assert.deepEqual(await statuses(app, f.keys.owner, 3), [200, 200, 200]);
  assert.deepEqual(await statuses(app, f.other.key, 3), [200, 200, 200]);

  advance(19_500);
  assertLimited(await post(app, key), 1, "api_key", { max: 3, windowSeconds: 60 });
  advance(500);
  assert.equal((await post(app, key)).status, 200, "after Retry-After seconds the request passes");
  assertLimited(await post(app, key), 20, "api_key", { max: 3, windowSeconds: 60 });
  advance(60_000);
  assert.deepEqual(await statuses(app, key, 4), [200, 200, 200, 429], "a full window refills the burst");
});

/** One more access token of grant `g` (as a refresh would issue it). */
async function anotherToken(g: BearerGrant, userId: string): Promise<string> {
  return await signAccessToken(keysOf(db.sql), {
    issuer: TEST_ISSUER,
    userId,
    audience: MCP_RESOURCE,
    clientId: g.clientId,
    scopes: ["openid", "workspace"],
    grantId: g.grantId,
    authTime: new Date(),
  });
}

Deno.test("per OAuth grant: every access token of one grant shares its bucket; another grant has its own", async () => {
  const { app, advance } = limitedApp({ MCP_RATE_LIMIT: "2/60", MCP_UNAUTH_RATE_LIMIT: "0" });
  const g = await bearerFor(db.sql, { userId: f.users.manager, workspaceId: f.workspaceId });
  const again = await anotherToken(g, f.users.manager);
  assert.notEqual(again, g.token);
  assert.equal((await post(app, g.auth)).status, 200);
  assert.equal((await post(app, `Bearer ${again}`)).status, 200);
  assertLimited(await post(app, `Bearer ${again}`), 30, "grant", { max: 2, windowSeconds: 60 });
  assertLimited(await post(app, g.auth), 30, "grant", { max: 2, windowSeconds: 60 });
  // A third token of the grant, never seen: identified by its lookup, then refused by the grant's bucket.
  const third = await anotherToken(g, f.users.manager);
  assertLimited(await post(app, `Bearer ${third}`), 30, "grant", { max: 2, windowSeconds: 60 });

  // Another grant of the same person and client, and an API key of the same person: not limited.
  const other = await bearerFor(db.sql, { userId: f.users.manager, workspaceId: f.workspaceId });
  assert.deepEqual(await statuses(app, other.auth, 2), [200, 200]);
  assert.deepEqual(await statuses(app, f.keys.manager, 2), [200, 200]);
  // Another workspace's grant.
  const foreign = await bearerFor(db.sql, { userId: f.other.ownerId, workspaceId: f.other.workspaceId });
  assert.deepEqual(await statuses(app, foreign.auth, 2), [200, 200]);

  advance(30_000);
  assert.equal((await post(app, `Bearer ${again}`)).status, 200);
  assert.equal((await post(app, g.auth)).status, 429);
});

Deno.test("per address without an accepted credential: missing, malformed and unknown keys share the address's bucket", async () => {
  const { app, advance } = limitedApp({ MCP_RATE_LIMIT: "0", MCP_UNAUTH_RATE_LIMIT: "2/60" });
  const limit = { max: 2, windowSeconds: 60 };
  const unknown = `pak_${"Q".repeat(43)}`;
  assert.equal((await post(app, null)).status, 401);
  assert.equal((await post(app, unknown)).status, 403);
  assertLimited(await post(app, null), 30, "address", limit);
  assertLimited(await post(app, unknown), 30, "address", limit);
  assertLimited(await post(app, "pak_short"), 30, "address", limit);
  assertLimited(await post(app, "Bearer not.a.token"), 30, "address", limit);
  // Another address is not affected.
  assert.deepEqual(await statuses(app, null, 2, "192.0.2.2"), [401, 401]);
  assert.equal((await post(app, null, { ip: "192.0.2.2" })).status, 429);

  // A valid key never used before from the exhausted address waits like anyone unknown (its lookup is work) …
  assertLimited(await post(app, f.keys.accounting), 30, "address", limit);
  // … but a key accepted before on this instance is charged to itself, not to the address.
  assert.equal((await post(app, f.keys.guest, { ip: "192.0.2.3" })).status, 200);
  assert.deepEqual(await statuses(app, f.keys.guest, 5), [200, 200, 200, 200, 200]);

  advance(29_000);
  assertLimited(await post(app, null), 1, "address", limit);
  advance(1_000);
  assert.equal((await post(app, null)).status, 401);
  assert.equal((await post(app, null)).status, 429);
});

Deno.test("per address: accepted credentials give their unit back, so new keys do not use up the address", async () => {
  const { app, limits } = limitedApp({ MCP_RATE_LIMIT: "0", MCP_UNAUTH_RATE_LIMIT: "2/60" });
  const ip = "198.51.100.7";
  for (let i = 0; i < 5; i++) {
    const key = await f.key({ user: f.users.member, name: `fresh-${i}` });
    assert.equal((await post(app, key, { ip })).status, 200, `fresh key ${i}`);
  }
  assert.equal(limits.stats().knownCredentials, 5);
  assert.deepEqual(await statuses(app, null, 3, ip), [401, 401, 429]);
});

Deno.test("per address: IPv6 counts by /64, X-Forwarded-For only from TRUSTED_PROXIES", async () => {
  const { app } = limitedApp({
    MCP_RATE_LIMIT: "0",
    MCP_UNAUTH_RATE_LIMIT: "1/60",
    TRUSTED_PROXIES: "10.0.0.1",
  });
  assert.equal((await post(app, null, { ip: "2001:db8:1:2::1" })).status, 401);
  assert.equal((await post(app, null, { ip: "2001:db8:1:2:ffff:ffff:ffff:fffe" })).status, 429, "same /64");
  assert.equal((await post(app, null, { ip: "2001:db8:1:3::1" })).status, 401, "another /64");

  // Behind the trusted proxy every client has its own bucket …
  const via = (client: string) => ({ ip: "10.0.0.1", headers: { "x-forwarded-for": client } });
  assert.equal((await post(app, null, via("203.0.113.1"))).status, 401);
  assert.equal((await post(app, null, via("203.0.113.2"))).status, 401);
  assert.equal((await post(app, null, via("203.0.113.1"))).status, 429);
  // … and an untrusted peer cannot pick a fresh bucket by sending X-Forwarded-For.
  assert.equal(
    (await post(app, null, { ip: "203.0.113.9", headers: { "x-forwarded-for": "1.1.1.1" } })).status,
    401,
  );
  assert.equal(
    (await post(app, null, { ip: "203.0.113.9", headers: { "x-forwarded-for": "1.1.1.2" } })).status,
    429,
  );
});

Deno.test("addressKey: IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as IPv4", () => {
  assert.equal(addressKey("192.0.2.1"), "192.0.2.1");
  assert.equal(addressKey("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  assert.equal(addressKey("2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  assert.equal(addressKey("[2001:db8::1]"), "2001:db8:0:0::/64");
  assert.equal(addressKey("::1"), "0:0:0:0::/64");
  assert.equal(addressKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(addressKey("::ffff:192.0.2.1"), "192.0.2.1");
  assert.equal(addressKey("unknown"), "unknown");
});

Deno.test("a known key that was revoked is refused once, then counts against its address again", async () => {
  const { app } = limitedApp({ MCP_RATE_LIMIT: "100/60", MCP_UNAUTH_RATE_LIMIT: "1/60" });
  const key = await f.key({ user: f.users.admin, name: "to revoke" });
  assert.equal((await post(app, key)).status, 200);
  await db.sql`update api_keys set revoked_at = now() where key_hash = ${sha256Hex(key)}`;
  assert.equal((await post(app, key)).status, 403, "charged to the key, then refused: forgotten");
  assert.equal((await post(app, key)).status, 403, "now an unknown key: the address's one unit");
  assert.equal((await post(app, key)).status, 429);
});

Deno.test("a batch counts one unit per message; one that does not fit is refused whole with its true wait", async () => {
  const { app, advance } = limitedApp({ MCP_RATE_LIMIT: "3/60", MCP_UNAUTH_RATE_LIMIT: "0" });
  const key = await f.key({ user: f.users.member, name: "batch" });
  const batch = (n: number) =>
    Array.from({ length: n }, () => ({ jsonrpc: "2.0", id: nextId++, method: "ping" }));
  // Batches are protocol 2025-03-26.
  const v = { "mcp-protocol-version": "2025-03-26" };
  const first = await post(app, key, { body: batch(3), headers: v });
  assert.equal(first.status, 200);
  assert.equal(first.body.length, 3);
  assertLimited(await post(app, key), 20, "api_key", { max: 3, windowSeconds: 60 });

  advance(40_000); // two units back
  assert.equal((await post(app, key)).status, 200); // one left
  // Two messages, one unit: refused whole; 20 s later two are there.
  assertLimited(await post(app, key, { body: batch(2), headers: v }), 20, "api_key", {
    max: 3,
    windowSeconds: 60,
  });
  advance(19_000);
  assert.equal((await post(app, key, { body: batch(2), headers: v })).status, 429);
  advance(1_000);
  assert.equal((await post(app, key, { body: batch(2), headers: v })).status, 200);
});

Deno.test("a rate-limited request is not audited; the refused request before it is, once", async () => {
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000 });
  try {
    const { app } = limitedApp({ MCP_RATE_LIMIT: "1/60", MCP_UNAUTH_RATE_LIMIT: "1/60" }, { audit });
    const call = (i: number) => ({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params: { name: "list_projects" },
    });
    const ip = "192.0.2.50";
    assert.equal(
      (await post(app, null, { ip, body: call(1), headers: { "x-request-id": "rl-refused" } })).status,
      401,
    );
    assert.equal(
      (await post(app, null, { ip, body: call(2), headers: { "x-request-id": "rl-limited-1" } })).status,
      429,
    );
    assert.equal(
      (await post(app, f.keys.member, { body: call(3), headers: { "x-request-id": "rl-ok" } })).status,
      200,
    );
    assert.equal(
      (await post(app, f.keys.member, { body: call(4), headers: { "x-request-id": "rl-limited-2" } })).status,
      429,
    );
    await audit.flush();
    const rows = await db.sql<{ request_id: string; outcome: string }[]>`
      select request_id, outcome from audit_log where request_id like 'rl-%' order by request_id`;
    assert.deepEqual(rows.map((r) => [r.request_id, r.outcome]), [["rl-ok", "ok"], ["rl-refused", "denied"]]);
  } finally {
    await audit.close();
  }
});

Deno.test("a limited request costs no SQL query; an accepted one still exactly one, on both ways in", async () => {
  const { default: postgres } = await import("postgres");
  let queries: string[] = [];
  const counted = postgres(db.url, {
    max: 2,
    onnotice: () => {},
    types: {},
    debug: (_conn: number, query: string) => queries.push(query),
  });
  try {
    const { app, advance } = limitedApp({ MCP_RATE_LIMIT: "1/60", MCP_UNAUTH_RATE_LIMIT: "1/60" }, {
      sql: counted as unknown as Sql,
    });
    const g = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
    for (const credential of [g.auth, f.keys.owner]) {
      // warm: keys loaded, last_used_at written (then not again within the minute)
      assert.equal((await post(app, credential)).status, 200);
      await lastUsedFresh(db.sql, credential);
      advance(60_000);
      queries = [];
      assert.equal((await post(app, credential)).status, 200);
      assert.equal(queries.length, 1, queries.join("\n---\n"));
      // The one statement is the caller's, and it takes the key's or grant's unit itself (shared limits).
      assert.match(queries[0], /insert into rate_buckets/);
      queries = [];
      assert.equal((await post(app, credential)).status, 429);
      assert.deepEqual(queries, []);
    }
    // The address's unit spent on an unknown key; the next unknown key is refused without a lookup.
    const unknown = `pak_${"Z".repeat(43)}`;
    queries = [];
    assert.equal((await post(app, unknown, { ip: "192.0.2.99" })).status, 403);
    assert.equal(queries.length, 1);
    queries = [];
    assert.equal((await post(app, `pak_${"Y".repeat(43)}`, { ip: "192.0.2.99" })).status, 429);
    assert.deepEqual(queries, []);
  } finally {
    await counted.end({ timeout: 5 });
  }
});

Deno.test("from the configuration: the limits apply without injection; 0 turns each off", async () => {
  // A long window, so the real clock cannot refill a unit while the test runs.
  const on = testApp(db.sql, { MCP_RATE_LIMIT: "2/86400", MCP_UNAUTH_RATE_LIMIT: "2/86400" });
  const key = await f.key({ user: f.users.member, name: "config" });
  assert.deepEqual(await statuses(on, key, 3), [200, 200, 429]);
  assert.deepEqual(await statuses(on, null, 3), [401, 401, 429]);
  const limited = await post(on, key);
  const wait = Number(limited.headers.get("retry-after"));
  assert.ok(Number.isInteger(wait) && wait >= 43_190 && wait <= 43_200, `Retry-After ${wait}`);
  assert.equal(limited.body.error.data.retryAfter, wait);

  const off = testApp(db.sql, { MCP_RATE_LIMIT: "0", MCP_UNAUTH_RATE_LIMIT: "0" });
  assert.deepEqual(new Set(await statuses(off, key, 40)), new Set([200]));
  assert.deepEqual(new Set(await statuses(off, null, 40)), new Set([401]));
});

Deno.test("defaults: 600 per minute per credential, 60 per minute per address", async () => {
  const { app } = limitedApp({});
  const ip = "192.0.2.210";
  let passed = 0;
  while ((await post(app, null, { ip })).status === 401) passed++;
  assert.equal(passed, 60);
  const key = await f.key({ user: f.users.member, name: "defaults" });
  passed = 0;
  for (;;) {
    const a = await post(app, key);
    if (a.status !== 200) {
      assertLimited(a, 1, "api_key", { max: 600, windowSeconds: 60 });
      break;
    }
    passed++;
  }
  assert.equal(passed, 600);
});

/** An app's limits alone, on the shared database, with their own clock. */
function bareLimits(opts: { maxTracked?: number; log?: ReturnType<typeof createLogger> } = {}) {
  let t = START + clocks++ * 86_400_000;
  const limits = createMcpRateLimits({
    db: db.sql,
    perCredential: { max: 1, windowSeconds: 60 },
    unauthenticated: { max: 1, windowSeconds: 60 },
    now: () => t,
    ...opts,
  });
  return { limits, advance: (ms: number) => void (t += ms) };
}

/** What a caller statement answers when it took the only unit of a 1/60 bucket. */
const tookLast = (bucket: string) => ({ bucket, ok: true, aheadMs: 60_000 });
const callerOf = (keyId: string) => ({ workspaceId: "w", keyId } as unknown as Caller);

Deno.test("memory stays bounded: at most maxTracked buckets and credentials, idle ones dropped as requests come", async () => {
  let t = START;
  const limiter = createMemoryLimiter({ max: 2, windowSeconds: 10 }, { now: () => t, maxTracked: 3 });
  for (const b of ["a", "b", "c", "d", "e"]) assert.deepEqual(limiter.take(b), { ok: true });
  assert.equal(limiter.size(), 3, "the least recently used went");
  assert.deepEqual(limiter.take("a"), { ok: true }, "an evicted bucket starts full");
  t += 5_000; // every bucket's unit is back: all idle
  limiter.take("z");
  assert.equal(limiter.size(), 1, "idle buckets are swept from the front");
  limiter.give("z");
  assert.equal(limiter.size(), 0, "a bucket given back to full is dropped");

  const { limits, advance } = bareLimits({ maxTracked: 4 });
  for (let i = 0; i < 10; i++) {
    const a = limits.admit(`pak_${i}`, `203.0.113.${i}`);
    assert.ok(a.ok);
    const charge = limits.charge(a, 1);
    assert.equal(await limits.settle(a, charge, tookLast(`key:k${i}`), callerOf(`k${i}`)), null);
    // the address's only unit, taken in the database
    assert.equal(await limits.settle(a, charge, undefined, null), null);
  }
  assert.deepEqual(limits.stats(), { credentialBuckets: 4, addressBuckets: 4, knownCredentials: 0 });
  for (let i = 0; i < 10; i++) {
    const a = limits.admit(`pak_${i}`, `198.51.100.${i}`);
    assert.ok(a.ok);
    await limits.settle(a, limits.charge(a, 1), null, callerOf(`k${i}`));
  }
  assert.equal(limits.stats().knownCredentials, 4);
  advance(KNOWN_CREDENTIAL_TTL_MS);
  const a = limits.admit("pak_new", "198.51.100.200");
  assert.ok(a.ok);
  await limits.settle(a, limits.charge(a, 1), null, callerOf("k-new"));
  assert.equal(limits.stats().knownCredentials, 1);
});

Deno.test("a limited bucket is logged at warn once per minute, with its id and never the credential", async () => {
  const lines: Record<string, unknown>[] = [];
  const { limits, advance } = bareLimits({ log: createLogger("warn", (l) => lines.push(JSON.parse(l))) });
  const secret = `pak_${"S".repeat(43)}`;
  const a = limits.admit(secret, "192.0.2.1");
  assert.ok(a.ok);
  await limits.settle(a, limits.charge(a, 1), tookLast("key:key-1"), callerOf("key-1"));
  for (let i = 0; i < 5; i++) assert.equal(limits.admit(secret, "192.0.2.1").ok, false);
  for (let i = 0; i < 6; i++) {
    const b = limits.admit(undefined, "192.0.2.9");
    if (b.ok) await limits.settle(b, limits.charge(b, 1), undefined, null);
  }
  advance(59_000);
  assert.equal(limits.admit(secret, "192.0.2.1").ok, false);
  advance(1_000); // the key's unit is back
  const again = limits.admit(secret, "192.0.2.1");
  assert.ok(again.ok);
  await limits.settle(again, limits.charge(again, 1), tookLast("key:key-1"), callerOf("key-1"));
  assert.equal(limits.admit(secret, "192.0.2.1").ok, false);
  const logged = lines.map((l) => [l.level, l.msg, l.scope, l.bucket, l.limit, l.retry_after]);
  assert.deepEqual(logged, [
    ["warn", "mcp: rate limited", "api_key", "key:key-1", "1/60", 60],
    ["warn", "mcp: rate limited", "address", "ip:192.0.2.9", "1/60", 60],
    ["warn", "mcp: rate limited", "api_key", "key:key-1", "1/60", 60],
  ]);
  assert.ok(!JSON.stringify(lines).includes(secret));
});
