// Discovery metadata, JWKS, and signing-key rotation across instances.
import assert from "node:assert/strict";
import { decodeProtectedHeader, type JWK } from "jose";
import {
  createKeyStore,
  JWKS_MAX_AGE_SECONDS,
  KEY_PUBLISH_DELAY_SECONDS,
  KEY_REFRESH_SECONDS,
  rotateSigningKey,
} from "../../lib/oauth/keys.ts";
import { signAccessToken, verifyAccessToken } from "../../lib/oauth/tokens.ts";
import { TEST_SECRET, testApp } from "../helpers/app.ts";
import { Browser, exchange, getCode, registerPublic, setup } from "./helpers.ts";

/** A clock just past the activation of a key rotated now. */
const afterActivation = () => Date.now() + (KEY_PUBLISH_DELAY_SECONDS + 1) * 1000;

Deno.test("discovery documents", async () => {
  const ctx = await setup();
  try {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const res = await ctx.app.request(path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("cache-control")!, /public, max-age=\d+/);
      const m = await res.json();
      assert.equal(m.issuer, "http://localhost:8000");
      assert.equal(m.authorization_endpoint, "http://localhost:8000/oauth/authorize");
      assert.equal(m.token_endpoint, "http://localhost:8000/oauth/token");
      assert.equal(m.registration_endpoint, "http://localhost:8000/oauth/register");
      assert.equal(m.revocation_endpoint, "http://localhost:8000/oauth/revoke");
      assert.equal(m.userinfo_endpoint, "http://localhost:8000/oauth/userinfo");
      assert.equal(m.jwks_uri, "http://localhost:8000/oauth/jwks");
      assert.deepEqual(m.response_types_supported, ["code"]);
      assert.deepEqual(m.code_challenge_methods_supported, ["S256"]);
      assert.deepEqual(m.grant_types_supported, ["authorization_code", "refresh_token"]);
      assert.deepEqual(m.id_token_signing_alg_values_supported, ["RS256"]);
      assert.deepEqual(m.subject_types_supported, ["public"]);
      assert.deepEqual(m.token_endpoint_auth_methods_supported, [
        "none",
        "client_secret_post",
        "client_secret_basic",
      ]);
      assert.ok(Array.isArray(m.revocation_endpoint_auth_methods_supported));
      assert.ok(m.scopes_supported.includes("openid"));
      assert.ok(m.claims_supported.includes("sub"));
      assert.equal(m.authorization_response_iss_parameter_supported, true);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
    }
    // browser-based clients (MCP inspectors) get through the CORS preflight of the token endpoint
    const preflight = await ctx.app.request("/oauth/token", {
      method: "OPTIONS",
      headers: {
        origin: "https://inspector.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.equal(preflight.headers.get("access-control-allow-methods"), "GET,POST");
    assert.equal(
      preflight.headers.get("access-control-allow-headers"),
      "Authorization,Content-Type,MCP-Protocol-Version",
    );
    assert.equal(preflight.headers.get("access-control-max-age"), "600");
  } finally {
    await ctx.close();
  }
});

Deno.test("JWKS and key rotation", async (t) => {
  const ctx = await setup();
  const sql = ctx.db.sql;
  try {
    const client = await registerPublic(ctx.app);
    const browser = new Browser(ctx.app);
    const jwks = async (app = ctx.app) => {
      const res = await app.request("/oauth/jwks");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("cache-control")!, /public/);
      return (await res.json()).keys as JWK[];
    };

    let oldToken = "";
    await t.step(
      "the JWKS publishes the current key as RS256 signing key without private parts",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, client);
        oldToken = (await (await exchange(ctx, client, code, verifier)).json()).access_token;
        const keys = await jwks();
        assert.equal(keys.length, 1);
        assert.equal(keys[0].kid, decodeProtectedHeader(oldToken).kid);
        assert.equal(keys[0].use, "sig");
        assert.equal(keys[0].alg, "RS256");
        assert.equal(keys[0].kty, "RSA");
        assert.equal(keys[0].d, undefined);
        assert.equal(keys[0].p, undefined);
        const [row] = await sql<{ enc: string }[]>`select private_jwk_encrypted as enc from signing_keys`;
        assert.match(row.enc, /^v1\./, "the private key is sealed at rest");
      },
    );

    await t.step(
      "after a rotation by another instance, new tokens use the new key; the old stays published",
      async () => {
        const { kid } = await rotateSigningKey(sql, TEST_SECRET);
        const oldKid = decodeProtectedHeader(oldToken).kid;
        // the new key is published first; signing switches to it once every instance has had time to see it
        assert.equal((await createKeyStore(sql, TEST_SECRET).signing()).kid, oldKid);
        // once its activation time has come (a store whose clock runs ahead, rather than waiting)
        assert.equal((await createKeyStore(sql, TEST_SECRET, { now: afterActivation }).signing()).kid, kid);
        // this instance's cache picks the rotation up on its next refresh; a new instance sees it at once
        const fresh = testApp(sql);
        const keys = await jwks(fresh);
        assert.deepEqual(keys.map((k) => k.kid).sort(), [kid, decodeProtectedHeader(oldToken).kid].sort());
        // a token signed with the old key still works at UserInfo on the new instance
        const ui = await fresh.request("/oauth/userinfo", {
          headers: { authorization: `Bearer ${oldToken}` },
        });
        assert.equal(ui.status, 200);
      },
    );

    await t.step("an instance meeting an unknown kid reloads the keys from the database", async () => {
      let bAhead = 0; // b's clock: moved past its unknown-kid reload pause instead of sleeping through it
      const b = createKeyStore(sql, TEST_SECRET, {
        refreshSeconds: 3600,
        unknownKidReloadMs: 50,
        now: () => Date.now() + bAhead,
      });
      await b.signing(); // b caches the current key set
      const { kid } = await rotateSigningKey(sql, TEST_SECRET);
      const c = createKeyStore(sql, TEST_SECRET, { now: afterActivation });
      assert.equal((await c.signing()).kid, kid);
      const token = await signAccessToken(c, {
        issuer: "http://localhost:8000",
        userId: ctx.user.id,
        audience: "http://localhost:8000",
        clientId: client.client_id,
        scopes: ["openid"],
        grantId: crypto.randomUUID(),
        authTime: new Date(),
      });
      // b's cache is fresh (refresh interval 1 h) but the kid is unknown to it, so it reloads once
      bAhead += 51;
      const claims = await verifyAccessToken(b, "http://localhost:8000", token);
      assert.equal(claims.sub, ctx.user.id);
    });

    await t.step("retired keys leave the JWKS once their tokens have expired", async () => {
      await sql`update signing_keys set retired_at = now() - interval '3 hours' where retired_at is not null`;
      const keys = await jwks(testApp(sql));
      assert.equal(keys.length, 1);
      const [current] = await sql<{ kid: string }[]>`select kid from signing_keys where retired_at is null`;
      assert.equal(keys[0].kid, current.kid);
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("introspection is advertised; JWKS is cached for less than the publish delay of a new key", async () => {
  const ctx = await setup();
  try {
    const m = await (await ctx.app.request("/.well-known/openid-configuration")).json();
    assert.equal(m.introspection_endpoint, "http://localhost:8000/oauth/introspect");
    assert.deepEqual(m.introspection_endpoint_auth_methods_supported, [
      "client_secret_post",
      "client_secret_basic",
    ]);
    const jwks = await ctx.app.request("/oauth/jwks");
    assert.equal(jwks.headers.get("cache-control"), `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    await jwks.body?.cancel();
    assert.equal(JWKS_MAX_AGE_SECONDS, 300);
    assert.ok(KEY_PUBLISH_DELAY_SECONDS >= JWKS_MAX_AGE_SECONDS + KEY_REFRESH_SECONDS);
  } finally {
    await ctx.close();
  }
});

Deno.test("RFC 9728 §3.3: each protected-resource document names the resource of its own URL; none at the root", async () => {
  const ctx = await setup();
  try {
    // The resource a well-known URL is for: the well-known segment taken out (RFC 9728 §3.1).
    const resourceOf = (path: string) =>
      `http://localhost:8000${path.slice("/.well-known/oauth-protected-resource".length)}`;
    const mcp = await ctx.app.request("/.well-known/oauth-protected-resource/mcp");
    assert.equal(mcp.status, 200);
    assert.equal((await mcp.json()).resource, resourceOf("/.well-known/oauth-protected-resource/mcp"));
    // The root one would name the origin, where no resource takes tokens for /mcp: absent, so clients fall back
    // to the authorization server at the origin (README "Decisions where the spec was silent").
    const root = await ctx.app.request("/.well-known/oauth-protected-resource");
    assert.equal(root.status, 404);
    await root.body?.cancel();
  } finally {
    await ctx.close();
  }
});
