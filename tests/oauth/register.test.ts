// Dynamic client registration (RFC 7591): metadata, scope filtering, validation errors and the rate limit.
import assert from "node:assert/strict";
import { sha256Hex } from "../../lib/crypto.ts";
import { register, setup } from "./helpers.ts";

Deno.test("dynamic client registration", async (t) => {
  const ctx = await setup({ REGISTRATION_RATE_LIMIT: "30/3600" });
  const app = ctx.app;
  try {
    await t.step("a public client: 201, pcl_ id, no secret, registered metadata echoed", async () => {
      const res = await register(app, {
        client_name: "Claude",
        grant_types: ["authorization_code", "refresh_token"],
        client_uri: "https://claude.ai",
        contacts: ["ops@example.com"],
      });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get("cache-control"), "no-store");
      const body = await res.json();
      assert.match(body.client_id, /^pcl_/);
      assert.equal(body.client_secret, undefined);
      assert.equal(typeof body.client_id_issued_at, "number");
      assert.equal(body.token_endpoint_auth_method, "none");
      assert.deepEqual(body.grant_types, ["authorization_code", "refresh_token"]);
      assert.deepEqual(body.redirect_uris, ["http://127.0.0.1:8976/callback"]);
      assert.equal(body.client_name, "Claude");
      assert.equal(body.client_uri, "https://claude.ai");
      assert.deepEqual(body.response_types, ["code"]);
      assert.equal(body.scope, "openid profile agent.purchase");
    });

    await t.step("a confidential client: pcs_ secret shown once, stored hashed, never expires", async () => {
      const res = await register(app, { token_endpoint_auth_method: "client_secret_basic" });
      assert.equal(res.status, 201);
      const body = await res.json();
      assert.match(body.client_secret, /^pcs_/);
      assert.equal(body.client_secret_expires_at, 0);
      const [row] = await ctx.db.sql<{ secret_hash: string; self_registered: boolean }[]>`
        select secret_hash, self_registered from oauth_clients where client_id = ${body.client_id}`;
      assert.equal(row.secret_hash, sha256Hex(body.client_secret));
      assert.equal(row.self_registered, true);
    });

    await t.step("the workspace scope is dropped silently for self-registered clients", async () => {
      const res = await register(app, { scope: "openid workspace profile" });
      assert.equal(res.status, 201);
      const body = await res.json();
      assert.equal(body.scope, "openid profile");
      const [row] = await ctx.db.sql<{ scopes: string[] }[]>`
        select scopes from oauth_clients where client_id = ${body.client_id}`;
      assert.deepEqual(row.scopes, ["openid", "profile"]);
    });

    await t.step(
      "`workspace` alone (how MCP clients register) gets openid profile, not an error",
      async () => {
        // The MCP SDK registers with the scope of /mcp's challenge; a refusal here would end its connect with an
        // error instead of the operator-approval page (tests/e2e/mcp_oauth.test.ts drives that flow).
        const res = await register(app, { scope: "workspace" });
        assert.equal(res.status, 201);
        const body = await res.json();
        assert.equal(body.scope, "openid profile");
        const [row] = await ctx.db.sql<{ scopes: string[]; self_registered: boolean; trusted: boolean }[]>`
        select scopes, self_registered, trusted from oauth_clients where client_id = ${body.client_id}`;
        assert.deepEqual(row, { scopes: ["openid", "profile"], self_registered: true, trusted: false });
      },
    );

    await t.step("scope words of another server only (Claude's claudeai) get openid profile", async () => {
      for (const scope of ["claudeai", "claudeai workspace", "mcp:tools read"]) {
        const res = await register(app, { scope });
        assert.equal(res.status, 201, scope);
        const body = await res.json();
        assert.equal(body.scope, "openid profile", scope);
        const [row] = await ctx.db.sql<{ scopes: string[] }[]>`
          select scopes from oauth_clients where client_id = ${body.client_id}`;
        assert.deepEqual(row.scopes, ["openid", "profile"], scope);
      }
    });

    await t.step("application_type: answered as sent, web when absent (OIDC Registration §2)", async () => {
      const native = await register(app, { application_type: "native" }, "192.0.2.61");
      assert.equal(native.status, 201);
      assert.equal((await native.json()).application_type, "native");
      const absent = await register(app, {}, "192.0.2.62");
      assert.equal(absent.status, 201);
      assert.equal((await absent.json()).application_type, "web");
    });

    await t.step("Cursor's three redirect URIs in one request: 201, each registered as sent", async () => {
      const uris = [
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "https://www.cursor.com/agents/mcp/oauth/callback",
        "http://localhost:8787/callback",
      ];
      const res = await register(app, { redirect_uris: uris });
      assert.equal(res.status, 201);
      const body = await res.json();
      assert.deepEqual(body.redirect_uris, uris);
      const [row] = await ctx.db.sql<{ redirect_uris: string[] }[]>`
        select redirect_uris from oauth_clients where client_id = ${body.client_id}`;
      assert.deepEqual(row.redirect_uris, uris);
    });

    await t.step("invalid redirect URIs → 400 invalid_redirect_uri naming the field", async () => {
      for (
        const uris of [
          ["http://example.com/cb"],
          ["https://example.com/cb#frag"],
          ["https://*.example.com/cb"],
          ["javascript:alert(1)"],
          ["data:text/html,<script>alert(1)</script>"],
          ["file:///etc/passwd"],
          ["not a uri"],
          [],
          Array.from({ length: 21 }, (_, i) => `https://example.com/${i}`),
        ]
      ) {
        const res = await register(app, { redirect_uris: uris });
        assert.equal(res.status, 400, JSON.stringify(uris));
        const body = await res.json();
        assert.equal(body.error, "invalid_redirect_uri", JSON.stringify(uris));
        assert.match(body.error_description, /redirect_uris/);
      }
      const ok = await register(app, {
        redirect_uris: ["https://app.example.com/cb", "http://[::1]/cb", "com.example.app:/oauth"],
      });
      assert.equal(ok.status, 201);
    });

    await t.step("invalid metadata → 400 invalid_client_metadata naming the field", async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ client_name: "x".repeat(201) }, /client_name/],
        [{ token_endpoint_auth_method: "private_key_jwt" }, /token_endpoint_auth_method/],
        [{ grant_types: ["implicit"] }, /grant_types/],
        [{ grant_types: ["refresh_token"] }, /grant_types/],
        [{ response_types: ["token"] }, /response_types/],
        [{ scope: "openid superpowers" }, /scope/],
        [{ application_type: "service" }, /application_type/],
        [{ scope: "" }, /scope/],
        [{ client_uri: "ftp://example.com" }, /client_uri/],
      ];
      for (const [body, field] of cases) {
        const res = await register(app, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        const json = await res.json();
        assert.equal(json.error, "invalid_client_metadata", JSON.stringify(body));
        assert.match(json.error_description, field);
      }
      const notJson = await app.request("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{nope",
      });
      assert.equal(notJson.status, 400);
      assert.equal((await notJson.json()).error, "invalid_client_metadata");
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("registration is rate limited per client IP, counted in the database", async () => {
  const ctx = await setup({ REGISTRATION_RATE_LIMIT: "3/600" });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await register(ctx.app, {}, "192.0.2.50");
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
    const limited = await register(ctx.app, {}, "192.0.2.50");
    assert.equal(limited.status, 429);
    assert.deepEqual(await limited.json(), {
      error: "too_many_requests",
      error_description: "too many registrations, retry later",
    });
    const retry = Number(limited.headers.get("retry-after"));
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 600, String(retry));
    // another IP is not affected
    const other = await register(ctx.app, {}, "192.0.2.51");
    assert.equal(other.status, 201);
    await other.body?.cancel();
    // a second app instance on the same database shares the counter
    const { testApp } = await import("../helpers/app.ts");
    const second = testApp(ctx.db.sql, { REGISTRATION_RATE_LIMIT: "3/600" });
    const shared = await register(second, {}, "192.0.2.50");
    assert.equal(shared.status, 429);
    await shared.body?.cancel();
  } finally {
    await ctx.close();
  }
});

Deno.test("registration limit: Retry-After is the true wait and refused attempts do not extend it", async () => {
  // 3 per 600 s: a burst of three, then one every 200 s.
  const ctx = await setup({ REGISTRATION_RATE_LIMIT: "3/600" });
  const ip = "192.0.2.60";
  const bucket = `register:${ip}`;
  const status = async () => {
    const res = await register(ctx.app, {}, ip);
    await res.body?.cancel();
    return [res.status, res.headers.get("retry-after")];
  };
  const tat = async () =>
    (await ctx.db.sql<{ tat: Date }[]>`select tat from rate_buckets where bucket = ${bucket}`)[0].tat
      .getTime();
  // Moves the bucket's clock as if `seconds` had passed.
  const wait = (seconds: number) =>
    ctx.db
      .sql`update rate_buckets set tat = tat - make_interval(secs => ${seconds}) where bucket = ${bucket}`;
  try {
    for (let i = 0; i < 3; i++) assert.deepEqual(await status(), [201, null]);
    // Pin the bucket to "three taken just now" so the values below do not depend on how fast this machine is.
    await ctx.db.sql`update rate_buckets set tat = now() + interval '600 seconds' where bucket = ${bucket}`;
    const pinned = await tat();
    assert.deepEqual(await status(), [429, "200"]);
    // Refused attempts change nothing: the same wait, the same stored state.
    for (let i = 0; i < 5; i++) assert.deepEqual(await status(), [429, "200"]);
    assert.equal(await tat(), pinned);
    await wait(150);
    assert.deepEqual(await status(), [429, "50"]);
    await wait(49);
    assert.deepEqual(await status(), [429, "1"]);
    // Waiting what Retry-After said is enough (the old limiter answered 10 s, then 429 again with 57 s).
    await wait(1);
    assert.deepEqual(await status(), [201, null]);
    assert.deepEqual(await status(), [429, "200"]);
    // A long pause refills the whole burst, and no more.
    await wait(600);
    for (let i = 0; i < 3; i++) assert.deepEqual(await status(), [201, null]);
    assert.deepEqual(await status(), [429, "200"]);
    const [n] = await ctx.db.sql<{ n: number }[]>`
      select count(*)::int as n from oauth_clients where name = 'Test App'`;
    // Seven were admitted; being identical and public, from one source, they made one client.
    assert.equal(n.n, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("an identical public registration from the same source returns the existing client", async () => {
  const ctx = await setup({ REGISTRATION_RATE_LIMIT: "100/3600" });
  const clients = async (name: string) =>
    (await ctx.db.sql<{ n: number }[]>`select count(*)::int as n from oauth_clients where name = ${name}`)[0]
      .n;
  const meta = {
    client_name: "mcp-remote",
    redirect_uris: ["http://127.0.0.1:3334/oauth/callback", "http://localhost:3334/oauth/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    scope: "openid profile",
  };
  try {
    const first = await register(ctx.app, meta, "192.0.2.70");
    assert.equal(first.status, 201);
    const a = await first.json();
    // five retries, sequential, lists in another order: the same client, the same answer
    for (let i = 0; i < 5; i++) {
      const res = await register(ctx.app, {
        ...meta,
        redirect_uris: [...meta.redirect_uris].reverse(),
        grant_types: ["refresh_token", "authorization_code"],
        scope: "profile openid",
      }, "192.0.2.70");
      assert.equal(res.status, 201);
      const again = await res.json();
      assert.equal(again.client_id, a.client_id);
      assert.equal(again.client_id_issued_at, a.client_id_issued_at);
      assert.equal(again.client_secret, undefined);
    }
    // ten at once: still that one client
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => register(ctx.app, meta, "192.0.2.70").then((r) => r.json())),
    );
    assert.deepEqual(new Set(burst.map((b) => b.client_id)), new Set([a.client_id]));
    assert.equal(await clients("mcp-remote"), 1);

    // Another source, or other metadata, is another client.
    assert.notEqual((await (await register(ctx.app, meta, "192.0.2.71")).json()).client_id, a.client_id);
    const otherUri =
      await (await register(ctx.app, { ...meta, redirect_uris: ["http://127.0.0.1:9999/cb"] }, "192.0.2.70"))
        .json();
    assert.notEqual(otherUri.client_id, a.client_id);
    const otherScope = await (await register(ctx.app, { ...meta, scope: "openid" }, "192.0.2.70")).json();
    assert.notEqual(otherScope.client_id, a.client_id);
    assert.equal(await clients("mcp-remote"), 4);

    // Confidential clients are never deduplicated: the secret is shown once, so each gets its own client.
    const conf = { ...meta, client_name: "Server App", token_endpoint_auth_method: "client_secret_basic" };
    const c1 = await (await register(ctx.app, conf, "192.0.2.70")).json();
    const c2 = await (await register(ctx.app, conf, "192.0.2.70")).json();
    assert.notEqual(c1.client_id, c2.client_id);
    assert.match(c1.client_secret, /^pcs_/);
    assert.match(c2.client_secret, /^pcs_/);
    assert.notEqual(c1.client_secret, c2.client_secret);
    assert.equal(await clients("Server App"), 2);

    // After the window (24 h from the first registration) a new client is made.
    await ctx.db.sql`
      update oauth_client_registrations set created_at = created_at - interval '24 hours 1 second'
      where client_id = ${a.client_id}`;
    const later = await (await register(ctx.app, meta, "192.0.2.70")).json();
    assert.notEqual(later.client_id, a.client_id);
    assert.equal(await clients("mcp-remote"), 5);
    // A deleted client is not handed out again.
    await ctx.db.sql`delete from oauth_clients where client_id = ${later.client_id}`;
    const fresh = await (await register(ctx.app, meta, "192.0.2.70")).json();
    assert.notEqual(fresh.client_id, later.client_id);
    assert.equal(await clients("mcp-remote"), 5);
  } finally {
    await ctx.close();
  }
});
