// RFC 7662 token introspection: who may ask, what an active answer carries, and that revocation, expiry,
// disabled accounts and foreign tokens all read as `{"active":false}` and nothing more.
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { setUserDisabled } from "../../lib/accounts.ts";
import { createKeyStore } from "../../lib/oauth/keys.ts";
import { TEST_SECRET, testApp } from "../helpers/app.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  ISSUER,
  registerConfidential,
  type Registered,
  registerPublic,
  setup,
} from "./helpers.ts";

type App = ReturnType<typeof testApp>;

function post(app: App, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Introspects `token` as `client`, with its secret in the body unless `basic`. */
function introspect(app: App, client: Registered, token: string, basic = false) {
  return basic
    ? post(app, "/oauth/introspect", { token }, {
      authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
    })
    : post(app, "/oauth/introspect", {
      token,
      client_id: client.client_id,
      client_secret: client.client_secret!,
    });
}

async function tokensFor(ctx: Ctx, client: Registered, extra: Record<string, string> = {}) {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client, extra);
  const res = await exchange(ctx, client, code, verifier);
  assert.equal(res.status, 200);
  return await res.json();
}

function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(
    new TextDecoder().decode(Uint8Array.fromBase64(jwt.split(".")[1], { alphabet: "base64url" })),
  );
}

async function assertInactive(res: Response) {
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.deepEqual(await res.json(), { active: false });
}

Deno.test("introspection (RFC 7662)", async (t) => {
  const ctx = await setup();
  try {
    const conf = await registerConfidential(ctx.app);
    const other = await registerConfidential(ctx.app);
    const pub = await registerPublic(ctx.app);

    await t.step(
      "an active token of the asking client: exactly the RFC 7662 fields, nothing secret",
      async () => {
        const t1 = await tokensFor(ctx, conf);
        const claims = claimsOf(t1.access_token);
        // The client registered client_secret_post: as at the token endpoint, Basic is refused (RFC 7591 §2).
        const basic = await introspect(ctx.app, conf, t1.access_token, true);
        assert.equal(basic.status, 401);
        assert.equal((await basic.json()).error, "invalid_client");
        {
          const res = await introspect(ctx.app, conf, t1.access_token);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("cache-control"), "no-store");
          assert.deepEqual(await res.json(), {
            active: true,
            scope: claims.scope,
            client_id: conf.client_id,
            sub: ctx.user.id,
            aud: ISSUER,
            iss: ISSUER,
            exp: claims.exp,
            iat: claims.iat,
            token_type: "Bearer",
            jti: claims.jti,
          });
        }
      },
    );

    await t.step(
      "a revoked grant's access token is inactive (revoked by the client at /oauth/revoke)",
      async () => {
        const t1 = await tokensFor(ctx, conf);
        assert.equal((await (await introspect(ctx.app, conf, t1.access_token)).json()).active, true);
        const revoked = await post(ctx.app, "/oauth/revoke", {
          token: t1.access_token,
          token_type_hint: "access_token",
          client_id: conf.client_id,
          client_secret: conf.client_secret!,
        });
        assert.equal(revoked.status, 200);
        await assertInactive(await introspect(ctx.app, conf, t1.access_token));
        // …and a refresh token revoked the same way ends the access tokens of its grant
        const t2 = await tokensFor(ctx, conf);
        await post(ctx.app, "/oauth/revoke", {
          token: t2.refresh_token,
          client_id: conf.client_id,
          client_secret: conf.client_secret!,
        });
        await assertInactive(await introspect(ctx.app, conf, t2.access_token));
      },
    );

    await t.step(
      "another client's token, a refresh token, garbage and an unknown JWT: active false",
      async () => {
        const theirs = await tokensFor(ctx, other);
        await assertInactive(await introspect(ctx.app, conf, theirs.access_token));
        // the owner still sees it active: the refusal above was about who asked
        assert.equal((await (await introspect(ctx.app, other, theirs.access_token)).json()).active, true);
        await assertInactive(await introspect(ctx.app, other, theirs.refresh_token));
        await assertInactive(await introspect(ctx.app, conf, "garbage"));
        await assertInactive(await introspect(ctx.app, conf, theirs.id_token));
        const [h, p] = theirs.access_token.split(".");
        await assertInactive(await introspect(ctx.app, other, `${h}.${p}.AAAA`));
      },
    );

    await t.step("an expired token and a disabled person's token: active false", async () => {
      const t1 = await tokensFor(ctx, conf);
      const keys = createKeyStore(ctx.db.sql, TEST_SECRET);
      const { kid, key } = await keys.signing();
      const claims = claimsOf(t1.access_token);
      const now = Math.floor(Date.now() / 1000);
      const expired = await new SignJWT({ ...claims, iat: now - 7200, exp: now - 3600 })
        .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid })
        .sign(key);
      await assertInactive(await introspect(ctx.app, conf, expired));
      assert.equal((await (await introspect(ctx.app, conf, t1.access_token)).json()).active, true);
      await setUserDisabled(ctx.db.sql, ctx.user.id, true);
      try {
        await assertInactive(await introspect(ctx.app, conf, t1.access_token));
      } finally {
        await setUserDisabled(ctx.db.sql, ctx.user.id, false);
      }
    });

    await t.step("only authenticated confidential clients may ask", async () => {
      const t1 = await tokensFor(ctx, pub);
      const publicAsks = await post(ctx.app, "/oauth/introspect", {
        token: t1.access_token,
        client_id: pub.client_id,
      });
      assert.equal(publicAsks.status, 401);
      assert.equal((await publicAsks.json()).error, "invalid_client");
      const publicBasic = await post(ctx.app, "/oauth/introspect", { token: t1.access_token }, {
        authorization: `Basic ${btoa(`${pub.client_id}:`)}`,
      });
      assert.equal(publicBasic.status, 401);
      assert.match(publicBasic.headers.get("www-authenticate")!, /^Basic/);
      const nobody = await post(ctx.app, "/oauth/introspect", { token: t1.access_token });
      assert.equal(nobody.status, 401);
      assert.equal((await nobody.json()).error, "invalid_client");
      const wrong = await post(ctx.app, "/oauth/introspect", {
        token: t1.access_token,
        client_id: conf.client_id,
        client_secret: "pcs_wrong",
      });
      assert.equal(wrong.status, 401);
      assert.equal((await wrong.json()).error, "invalid_client");
      const missing = await post(ctx.app, "/oauth/introspect", {
        client_id: conf.client_id,
        client_secret: conf.client_secret!,
      });
      assert.equal(missing.status, 400);
      assert.equal((await missing.json()).error, "invalid_request");
      const json = await ctx.app.request("/oauth/introspect", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: t1.access_token }),
      });
      assert.equal(json.status, 400);
      assert.equal((await json.json()).error, "invalid_request");
    });

    await t.step(
      "a resource server (RESOURCE_SERVERS) may introspect the tokens issued for its resource",
      async () => {
        assert.throws(
          () => testApp(ctx.db.sql, { RESOURCE_SERVERS: "pcl_x" }),
          /RESOURCE_SERVERS must be comma-separated client_id=resource pairs/,
        );
        const rs = await registerConfidential(ctx.app);
        const api = "https://api.example.com/v1";
        const app = testApp(ctx.db.sql, { RESOURCE_SERVERS: `${rs.client_id}=${api}` });
        const forApi = await tokensFor(ctx, conf, { resource: api });
        assert.equal(claimsOf(forApi.access_token).aud, api);
        const res = await introspect(app, rs, forApi.access_token);
        const body = await res.json();
        assert.equal(body.active, true);
        assert.equal(body.client_id, conf.client_id);
        assert.equal(body.aud, api);
        // a token for another audience stays opaque to it, and another app instance without the setting refuses
        await assertInactive(await introspect(app, rs, (await tokensFor(ctx, conf)).access_token));
        await assertInactive(await introspect(ctx.app, rs, forApi.access_token));
        // revoked at the authorization server → inactive for the resource server too
        await post(app, "/oauth/revoke", {
          token: forApi.refresh_token,
          client_id: conf.client_id,
          client_secret: conf.client_secret!,
        });
        await assertInactive(await introspect(app, rs, forApi.access_token));
      },
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("introspection is rate limited per client address (INTROSPECTION_RATE_LIMIT), before any lookup", async () => {
  const ctx = await setup({ INTROSPECTION_RATE_LIMIT: "2/60" });
  try {
    const conf = await registerConfidential(ctx.app);
    const at = (ip: string) =>
      ctx.app.request("/oauth/introspect", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          token: "x",
          client_id: conf.client_id,
          client_secret: conf.client_secret!,
        })
          .toString(),
      }, { remoteAddr: { hostname: ip, port: 1 } });
    assert.equal((await at("203.0.113.1")).status, 200);
    assert.equal((await at("203.0.113.1")).status, 200);
    const refused = await at("203.0.113.1");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "30");
    assert.equal((await refused.json()).error, "too_many_requests");
    assert.equal((await at("203.0.113.2")).status, 200); // another address has its own budget
  } finally {
    await ctx.close();
  }
});
