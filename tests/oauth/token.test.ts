// The token endpoint: code exchange with PKCE, replay, expiry, refresh rotation and reuse, client authentication.
import assert from "node:assert/strict";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { atHash } from "../../lib/oauth/tokens.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { Browser, exchange, getCode, registerConfidential, registerPublic, setup, token } from "./helpers.ts";

async function expectError(res: Response, status: number, error: string) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error, error, JSON.stringify(body));
  assert.equal(res.headers.get("cache-control"), "no-store");
  return body;
}

Deno.test("token endpoint", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  const browser = new Browser(app);
  try {
    const pub = await registerPublic(app);

    await t.step(
      "a code exchange returns RFC 9068 access token, ID token and refresh token, no-store",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub, { nonce: "n-123" });
        const res = await exchange(ctx, pub, code, verifier);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("cache-control"), "no-store");
        const body = await res.json();
        assert.equal(body.token_type, "Bearer");
        assert.equal(body.expires_in, 3600);
        assert.equal(body.scope, "openid profile");
        assert.match(body.refresh_token, /^prt_/);
        const header = decodeProtectedHeader(body.access_token);
        assert.equal(header.typ, "at+jwt");
        assert.equal(header.alg, "RS256");
        assert.equal(typeof header.kid, "string");
        const at = decodeJwt(body.access_token);
        assert.equal(at.iss, "http://localhost:8000");
        assert.equal(at.sub, ctx.user.id);
        assert.equal(at.aud, "http://localhost:8000");
        assert.equal(at.client_id, pub.client_id);
        assert.equal(at.scope, "openid profile");
        assert.equal(typeof at.jti, "string");
        assert.equal(at.exp! - at.iat!, 3600);
        const id = decodeJwt(body.id_token);
        assert.equal(decodeProtectedHeader(body.id_token).kid, header.kid);
        assert.equal(id.aud, pub.client_id);
        assert.equal(id.nonce, "n-123");
        assert.equal(typeof id.auth_time, "number");
        assert.equal(id.at_hash, atHash(body.access_token));
      },
    );

    await t.step("no ID token without openid; RFC 8707 resource binds aud", async () => {
      const { code, verifier } = await getCode(ctx, browser, pub, {
        scope: "profile",
        resource: "https://mcp.example.com/mcp",
      });
      const res = await exchange(ctx, pub, code, verifier, { resource: "https://mcp.example.com/mcp" });
      const body = await res.json();
      assert.equal(res.status, 200);
      assert.equal(body.id_token, undefined);
      assert.equal(body.scope, "profile");
      assert.equal(decodeJwt(body.access_token).aud, "https://mcp.example.com/mcp");
    });

    await t.step("a different resource at the token endpoint is invalid_target", async () => {
      const { code, verifier } = await getCode(ctx, browser, pub, {
        resource: "https://mcp.example.com/mcp",
      });
      await expectError(
        await exchange(ctx, pub, code, verifier, { resource: "https://other.example.com/" }),
        400,
        "invalid_target",
      );
      const { code: c2, verifier: v2 } = await getCode(ctx, browser, pub);
      await expectError(await exchange(ctx, pub, c2, v2, { resource: "not a uri" }), 400, "invalid_target");
    });

    await t.step("wrong PKCE verifier → invalid_grant; missing verifier → invalid_request", async () => {
      const { code } = await getCode(ctx, browser, pub);
      await expectError(await exchange(ctx, pub, code, "x".repeat(43)), 400, "invalid_grant");
      const { code: c2 } = await getCode(ctx, browser, pub);
      const res = await token(app, {
        grant_type: "authorization_code",
        code: c2,
        redirect_uri: "http://127.0.0.1:8976/callback",
        client_id: pub.client_id,
      });
      await expectError(res, 400, "invalid_request");
    });

    await t.step("redirect_uri differing from the authorization request → invalid_grant", async () => {
      const { code, verifier } = await getCode(ctx, browser, pub);
      await expectError(
        await exchange(ctx, pub, code, verifier, { redirect_uri: "http://127.0.0.1:9999/callback" }),
        400,
        "invalid_grant",
      );
    });

    await t.step("a replayed code is refused and the tokens issued from it are revoked", async () => {
      const { code, verifier } = await getCode(ctx, browser, pub);
      const first = await (await exchange(ctx, pub, code, verifier)).json();
      assert.ok(first.refresh_token);
      const userinfoBefore = await app.request("/oauth/userinfo", {
        headers: { authorization: `Bearer ${first.access_token}` },
      });
      assert.equal(userinfoBefore.status, 200);
      await expectError(await exchange(ctx, pub, code, verifier), 400, "invalid_grant");
      // the refresh token from the first exchange no longer works…
      const refresh = await token(app, {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: pub.client_id,
      });
      await expectError(refresh, 400, "invalid_grant");
      // …and neither does the access token at UserInfo
      const userinfo = await app.request("/oauth/userinfo", {
        headers: { authorization: `Bearer ${first.access_token}` },
      });
      assert.equal(userinfo.status, 401);
      assert.match(userinfo.headers.get("www-authenticate")!, /error="invalid_token"/);
    });

    await t.step(
      "a loopback redirect with another port: the same URI at the token endpoint succeeds",
      async () => {
        const other = "http://127.0.0.1:51234/callback";
        const { code, verifier } = await getCode(ctx, browser, pub, { redirect_uri: other });
        const res = await exchange(ctx, pub, code, verifier, { redirect_uri: other });
        assert.equal(res.status, 200);
        await res.body?.cancel();
      },
    );

    await t.step("an expired code → invalid_grant", async () => {
      const { code, verifier } = await getCode(ctx, browser, pub);
      await ctx.db.sql`update oauth_codes set expires_at = now() - interval '1 second'
        where code_hash = ${sha256Hex(code)}`;
      await expectError(await exchange(ctx, pub, code, verifier), 400, "invalid_grant");
    });

    await t.step("codes live 60 s", async () => {
      const { code } = await getCode(ctx, browser, pub);
      const [row] = await ctx.db.sql<{ s: number }[]>`
        select extract(epoch from expires_at - created_at)::int as s from oauth_codes
        where code_hash = ${sha256Hex(code)}`;
      assert.ok(row.s >= 59 && row.s <= 61, String(row.s));
    });

    await t.step("a code issued to another client → invalid_grant", async () => {
      const other = await registerPublic(app, { client_name: "Other" });
      const { code, verifier } = await getCode(ctx, browser, pub);
      await expectError(await exchange(ctx, other, code, verifier), 400, "invalid_grant");
    });

    await t.step(
      "refresh rotates; reusing a rotated token after the grace window revokes the whole family",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const first = await (await exchange(ctx, pub, code, verifier)).json();
        const r1 = await token(app, {
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: pub.client_id,
        });
        assert.equal(r1.status, 200);
        assert.equal(r1.headers.get("cache-control"), "no-store");
        const second = await r1.json();
        assert.notEqual(second.refresh_token, first.refresh_token);
        assert.ok(second.id_token, "openid grant gets an ID token on refresh too");
        // reuse of the rotated token, once the grace window (60 s by default) is over: docs/oauth.md
        await ctx.db.sql`update oauth_refresh_tokens set rotated_at = rotated_at - interval '61 seconds'
        where token_hash = ${sha256Hex(first.refresh_token)}`;
        const reuse = await token(app, {
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: pub.client_id,
        });
        await expectError(reuse, 400, "invalid_grant");
        // the family is gone: the newest token fails as well
        const newest = await token(app, {
          grant_type: "refresh_token",
          refresh_token: second.refresh_token,
          client_id: pub.client_id,
        });
        await expectError(newest, 400, "invalid_grant");
      },
    );

    await t.step("refresh with a narrower scope; a wider one is invalid_scope", async () => {
      const { code, verifier } = await getCode(ctx, browser, pub);
      const first = await (await exchange(ctx, pub, code, verifier)).json();
      const narrow = await token(app, {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: pub.client_id,
        scope: "profile",
      });
      const nb = await narrow.json();
      assert.equal(narrow.status, 200);
      assert.equal(nb.scope, "profile");
      assert.equal(nb.id_token, undefined);
      const wide = await token(app, {
        grant_type: "refresh_token",
        refresh_token: nb.refresh_token,
        client_id: pub.client_id,
        scope: "openid profile agent.purchase",
      });
      await expectError(wide, 400, "invalid_scope");
    });

    await t.step(
      "refresh lifetimes: 7 days public, 30 days confidential; each rotation a full lifetime",
      async () => {
        const conf = await registerConfidential(app);
        const pc = await getCode(ctx, browser, pub);
        const a = await (await exchange(ctx, pub, pc.code, pc.verifier)).json();
        const cc = await getCode(ctx, browser, conf);
        const b = await (await exchange(ctx, conf, cc.code, cc.verifier)).json();
        const days = async (t: string) => {
          const [row] = await ctx.db.sql<{ d: number }[]>`
          select round(extract(epoch from expires_at - created_at) / 86400)::int as d
          from oauth_refresh_tokens where token_hash = ${sha256Hex(t)}`;
          return row.d;
        };
        assert.equal(await days(a.refresh_token), 7);
        assert.equal(await days(b.refresh_token), 30);
        await ctx.db.sql`update oauth_refresh_tokens set created_at = now() - interval '3 days',
        expires_at = expires_at - interval '3 days' where token_hash = ${sha256Hex(a.refresh_token)}`;
        const rotated = await (await token(app, {
          grant_type: "refresh_token",
          refresh_token: a.refresh_token,
          client_id: pub.client_id,
        })).json();
        assert.equal(await days(rotated.refresh_token), 7);
      },
    );

    await t.step(
      "public client without the refresh_token grant: no refresh token, and the grant is refused",
      async () => {
        const noRefresh = await registerPublic(app, { grant_types: ["authorization_code"] });
        const { code, verifier } = await getCode(ctx, browser, noRefresh, { scope: "openid offline_access" });
        const body = await (await exchange(ctx, noRefresh, code, verifier)).json();
        assert.ok(body.access_token);
        assert.equal(body.refresh_token, undefined);
        assert.equal(body.scope, "openid");
        const res = await token(app, {
          grant_type: "refresh_token",
          refresh_token: "prt_x",
          client_id: noRefresh.client_id,
        });
        await expectError(res, 400, "unauthorized_client");
      },
    );

    await t.step(
      "confidential client: wrong secret → 401 invalid_client; Basic adds WWW-Authenticate",
      async () => {
        const conf = await registerConfidential(app);
        const { code, verifier } = await getCode(ctx, browser, conf);
        const wrong = await exchange(ctx, { ...conf, client_secret: "pcs_wrong" }, code, verifier);
        await expectError(wrong, 401, "invalid_client");
        const basic = await token(app, {
          grant_type: "authorization_code",
          code,
          redirect_uri: "http://127.0.0.1:8976/callback",
          code_verifier: verifier,
        }, { authorization: `Basic ${btoa(`${conf.client_id}:wrong`)}` });
        await expectError(basic, 401, "invalid_client");
        assert.match(basic.headers.get("www-authenticate")!, /^Basic realm="portico"/);
        // no secret at all
        const none = await token(app, {
          grant_type: "authorization_code",
          code,
          redirect_uri: "http://127.0.0.1:8976/callback",
          code_verifier: verifier,
          client_id: conf.client_id,
        });
        await expectError(none, 401, "invalid_client");
      },
    );

    await t.step("confidential client with correct Basic credentials succeeds", async () => {
      const conf = await registerConfidential(app, { token_endpoint_auth_method: "client_secret_basic" });
      const { code, verifier } = await getCode(ctx, browser, conf);
      const res = await token(app, {
        grant_type: "authorization_code",
        code,
        redirect_uri: "http://127.0.0.1:8976/callback",
        code_verifier: verifier,
      }, {
        authorization: `Basic ${
          btoa(`${encodeURIComponent(conf.client_id)}:${encodeURIComponent(conf.client_secret!)}`)
        }`,
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.match(body.refresh_token, /^prt_/);
      assert.equal(decodeJwt(body.access_token).client_id, conf.client_id);
    });

    await t.step(
      "unknown client, unsupported grant type, missing grant type, wrong content type",
      async () => {
        await expectError(
          await token(app, { grant_type: "authorization_code", client_id: "pcl_nope" }),
          401,
          "invalid_client",
        );
        await expectError(
          await token(app, { grant_type: "password", client_id: pub.client_id }),
          400,
          "unsupported_grant_type",
        );
        await expectError(await token(app, { client_id: pub.client_id }), 400, "invalid_request");
        const json = await app.request("/oauth/token", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ grant_type: "authorization_code" }),
        });
        await expectError(json, 400, "invalid_request");
        const repeated = await app.request("/oauth/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=refresh_token&grant_type=refresh_token",
        });
        await expectError(repeated, 400, "invalid_request");
      },
    );
    await t.step(
      "a public client may use Basic with an empty password; a public client sending a secret is refused",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const res = await token(app, {
          grant_type: "authorization_code",
          code,
          redirect_uri: "http://127.0.0.1:8976/callback",
          code_verifier: verifier,
        }, { authorization: `Basic ${btoa(`${pub.client_id}:`)}` });
        assert.equal(res.status, 200);
        await res.body?.cancel();
        const { code: c2, verifier: v2 } = await getCode(ctx, browser, pub);
        await expectError(
          await exchange(ctx, { ...pub, client_secret: "pcs_made_up" }, c2, v2),
          401,
          "invalid_client",
        );
      },
    );
  } finally {
    await ctx.close();
  }
});

// Issue 14.1 and 14.7: a refused request consumes nothing; a grant's audience is fixed at its first issuance.
// REFRESH_REUSE_GRACE_SECONDS=0, so a retry that succeeds proves the token was not rotated by the refusal.
Deno.test("token endpoint: validation before consumption, audience bound at first issuance", async (t) => {
  const ctx = await setup({ REFRESH_REUSE_GRACE_SECONDS: "0" });
  const app = ctx.app;
  const browser = new Browser(app);
  const rotated = async (refreshToken: string) => {
    const [row] = await ctx.db.sql<{ rotated: boolean; revoked: boolean }[]>`
      select rotated_at is not null as rotated, revoked_at is not null as revoked
        from oauth_refresh_tokens where token_hash = ${sha256Hex(refreshToken)}`;
    return row;
  };
  const refresh = (client: { client_id: string }, refreshToken: string, extra: Record<string, string> = {}) =>
    token(app, {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: client.client_id,
      ...extra,
    });
  try {
    const pub = await registerPublic(app);

    await t.step(
      "a refresh refused with invalid_scope or invalid_target leaves the token usable",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub, {
          resource: "https://mcp.example.com/mcp",
        });
        const first = await (await exchange(ctx, pub, code, verifier)).json();
        await expectError(
          await refresh(pub, first.refresh_token, { scope: "openid agent.purchase" }),
          400,
          "invalid_scope",
        );
        assert.deepEqual(await rotated(first.refresh_token), { rotated: false, revoked: false });
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "https://other.example.com/mcp" }),
          400,
          "invalid_target",
        );
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "not a uri" }),
          400,
          "invalid_target",
        );
        assert.deepEqual(await rotated(first.refresh_token), { rotated: false, revoked: false });
        // The retry is a normal rotation, not reuse: 200, and the family lives on.
        const retry = await refresh(pub, first.refresh_token, { scope: "openid" });
        assert.equal(retry.status, 200);
        const body = await retry.json();
        assert.equal(body.scope, "openid");
        assert.equal(decodeJwt(body.access_token).aud, "https://mcp.example.com/mcp");
        assert.equal((await refresh(pub, body.refresh_token)).status, 200);
      },
    );

    await t.step(
      "a code exchange refused (resource, verifier, redirect_uri, client) leaves the code usable",
      async () => {
        const other = await registerPublic(app, { client_name: "Other" });
        const { code, verifier } = await getCode(ctx, browser, pub, {
          resource: "https://mcp.example.com/mcp",
        });
        await expectError(
          await exchange(ctx, pub, code, verifier, { resource: "https://other.example.com/" }),
          400,
          "invalid_target",
        );
        await expectError(await exchange(ctx, pub, code, "y".repeat(43)), 400, "invalid_grant");
        await expectError(
          await exchange(ctx, pub, code, verifier, { redirect_uri: "http://127.0.0.1:9999/other" }),
          400,
          "invalid_grant",
        );
        await expectError(await exchange(ctx, other, code, verifier), 400, "invalid_grant");
        const [row] = await ctx.db.sql<{ consumed: boolean }[]>`
        select consumed_at is not null as consumed from oauth_codes where code_hash = ${sha256Hex(code)}`;
        assert.equal(row.consumed, false);
        const ok = await exchange(ctx, pub, code, verifier, { resource: "https://mcp.example.com/mcp" });
        assert.equal(ok.status, 200);
        const body = await ok.json();
        assert.equal(decodeJwt(body.access_token).aud, "https://mcp.example.com/mcp");
        // A replay after the success still revokes what the code produced.
        await expectError(await exchange(ctx, pub, code, verifier), 400, "invalid_grant");
        await expectError(await refresh(pub, body.refresh_token), 400, "invalid_grant");
      },
    );

    await t.step(
      "a grant bound to no resource: a refresh may repeat its audience (the issuer), never change it",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const first = await (await exchange(ctx, pub, code, verifier)).json();
        assert.equal(decodeJwt(first.access_token).aud, "http://localhost:8000");
        const moved = await expectError(
          await refresh(pub, first.refresh_token, { resource: "https://elsewhere.example.com/api" }),
          400,
          "invalid_target",
        );
        assert.match(moved.error_description, /http:\/\/localhost:8000/);
        assert.deepEqual(await rotated(first.refresh_token), { rotated: false, revoked: false });
        const same = await refresh(pub, first.refresh_token, { resource: "http://localhost:8000" });
        assert.equal(same.status, 200);
        const body = await same.json();
        assert.equal(decodeJwt(body.access_token).aud, "http://localhost:8000");
        const plain = await (await refresh(pub, body.refresh_token)).json();
        assert.equal(decodeJwt(plain.access_token).aud, "http://localhost:8000");
      },
    );

    await t.step(
      "a resource named first at the token endpoint binds the grant; refreshes keep it",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const first =
          await (await exchange(ctx, pub, code, verifier, { resource: "https://mcp.example.com/mcp" }))
            .json();
        assert.equal(decodeJwt(first.access_token).aud, "https://mcp.example.com/mcp");
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "https://other.example.com/mcp" }),
          400,
          "invalid_target",
        );
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "http://localhost:8000" }),
          400,
          "invalid_target",
        );
        const plain = await (await refresh(pub, first.refresh_token)).json();
        assert.equal(decodeJwt(plain.access_token).aud, "https://mcp.example.com/mcp");
      },
    );
  } finally {
    await ctx.close();
  }
});
