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

    await t.step("invalid redirect URIs → 400 invalid_redirect_uri naming the field", async () => {
      for (
        const uris of [
          ["http://example.com/cb"],
          ["https://example.com/cb#frag"],
          ["https://*.example.com/cb"],
          ["javascript:alert(1)"],
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
