// RFC 7009 revocation and the UserInfo endpoint (RFC 6750 errors).
import assert from "node:assert/strict";
import { subscribeAgent, unlockAgent } from "../../lib/accounts.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  registerConfidential,
  type Registered,
  registerPublic,
  setup,
  token,
} from "./helpers.ts";

function revoke(ctx: Ctx, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return ctx.app.request("/oauth/revoke", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

async function tokensFor(ctx: Ctx, client: Registered, extra: Record<string, string> = {}) {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client, extra);
  const res = await exchange(ctx, client, code, verifier);
  assert.equal(res.status, 200);
  return await res.json();
}

function refresh(ctx: Ctx, client: Registered, refreshToken: string) {
  return token(ctx.app, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
    ...(client.client_secret ? { client_secret: client.client_secret } : {}),
  });
}

function userinfo(ctx: Ctx, accessToken: string, method = "GET") {
  return ctx.app.request("/oauth/userinfo", { method, headers: { authorization: `Bearer ${accessToken}` } });
}

Deno.test("revocation", async (t) => {
  const ctx = await setup();
  try {
    const pub = await registerPublic(ctx.app);
    const conf = await registerConfidential(ctx.app);

    await t.step("revoking a refresh token revokes its family (rotated successors included)", async () => {
      const first = await tokensFor(ctx, pub);
      const second = await (await refresh(ctx, pub, first.refresh_token)).json();
      const res = await revoke(ctx, {
        token: second.refresh_token,
        token_type_hint: "refresh_token",
        client_id: pub.client_id,
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal((await refresh(ctx, pub, second.refresh_token)).status, 400);
      assert.equal((await userinfo(ctx, second.access_token)).status, 401);
    });

    // RFC 7009 §2.1: the server "verifies whether the token was issued to the client making the revocation
    // request. If this validation fails, the request is refused and the client is informed of the error".
    // (Until issue 28.7 this answered 200 and revoked nothing, silently; this step pinned that.)
    await t.step(
      "a live token of another client is refused (400 invalid_request) and stays live",
      async () => {
        const theirs = await tokensFor(ctx, conf);
        const notYours = {
          error: "invalid_request",
          error_description: "the token was not issued to this client",
        };
        for (const hint of [undefined, "refresh_token", "access_token"]) {
          for (const presented of [theirs.refresh_token, theirs.access_token]) {
            const res = await revoke(ctx, {
              token: presented,
              client_id: pub.client_id,
              ...(hint ? { token_type_hint: hint } : {}),
            });
            assert.equal(res.status, 400, `${hint} ${presented.slice(0, 4)}`);
            assert.equal(res.headers.get("cache-control"), "no-store");
            assert.deepEqual(await res.json(), notYours);
          }
        }
        // Nothing of theirs was revoked: the access token still introspects active and reads UserInfo, and the
        // refresh token still refreshes.
        const introspected = await ctx.app.request("/oauth/introspect", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            token: theirs.access_token,
            client_id: conf.client_id,
            client_secret: conf.client_secret!,
          }).toString(),
        });
        assert.equal(introspected.status, 200);
        const described = await introspected.json();
        assert.equal(described.active, true);
        assert.equal(described.client_id, conf.client_id);
        assert.equal((await userinfo(ctx, theirs.access_token)).status, 200);
        const [grant] = await ctx.db.sql<{ revoked_at: Date | null }[]>`
        select g.revoked_at from oauth_grants g
         where ${sha256Hex(theirs.refresh_token)}::text = any(g.refresh_hashes)`;
        assert.equal(grant.revoked_at, null);
        const stillWorks = await refresh(ctx, conf, theirs.refresh_token);
        assert.equal(stillWorks.status, 200);
        const fresh = await stillWorks.json();

        // What is no longer a live token of theirs is not an error (RFC 7009 §2.2): a rotated refresh token,
        // an expired one, and, once their grant is revoked, its access and refresh tokens — 200, nothing happens.
        const rotated = await revoke(ctx, { token: theirs.refresh_token, client_id: pub.client_id });
        assert.equal(rotated.status, 200);
        assert.equal((await userinfo(ctx, fresh.access_token)).status, 200, "the family lives on");
        const old = await tokensFor(ctx, conf);
        await ctx.db.sql`update oauth_grants set refresh_expires_at = now() - interval '1 second'
                       where ${sha256Hex(old.refresh_token)}::text = any(refresh_hashes)`;
        assert.equal((await revoke(ctx, { token: old.refresh_token, client_id: pub.client_id })).status, 200);
        const ownRevoke = await revoke(ctx, {
          token: fresh.refresh_token,
          client_id: conf.client_id,
          client_secret: conf.client_secret!,
        });
        assert.equal(ownRevoke.status, 200);
        for (const presented of [fresh.refresh_token, fresh.access_token]) {
          assert.equal((await revoke(ctx, { token: presented, client_id: pub.client_id })).status, 200);
        }
        // Unknown and malformed tokens: 200.
        for (const presented of ["prt_unknown", "not.a.jwt", "x"]) {
          const res = await revoke(ctx, { token: presented, client_id: pub.client_id });
          assert.equal(res.status, 200, presented);
        }
      },
    );

    await t.step("unknown and already-revoked tokens → 200", async () => {
      assert.equal((await revoke(ctx, { token: "prt_unknown", client_id: pub.client_id })).status, 200);
      const t1 = await tokensFor(ctx, pub);
      assert.equal((await revoke(ctx, { token: t1.refresh_token, client_id: pub.client_id })).status, 200);
      assert.equal((await revoke(ctx, { token: t1.refresh_token, client_id: pub.client_id })).status, 200);
    });

    await t.step("revoking an access token ends its grant", async () => {
      const t1 = await tokensFor(ctx, pub);
      const res = await revoke(ctx, {
        token: t1.access_token,
        token_type_hint: "access_token",
        client_id: pub.client_id,
      });
      assert.equal(res.status, 200);
      assert.equal((await userinfo(ctx, t1.access_token)).status, 401);
      assert.equal((await refresh(ctx, pub, t1.refresh_token)).status, 400);
    });

    await t.step("the client authenticates as at the token endpoint", async () => {
      const t1 = await tokensFor(ctx, conf);
      const wrong = await revoke(ctx, {
        token: t1.refresh_token,
        client_id: conf.client_id,
        client_secret: "pcs_bad",
      });
      assert.equal(wrong.status, 401);
      assert.equal((await wrong.json()).error, "invalid_client");
      const basicWrong = await revoke(ctx, { token: t1.refresh_token }, {
        authorization: `Basic ${btoa(`${conf.client_id}:bad`)}`,
      });
      assert.equal(basicWrong.status, 401);
      assert.match(basicWrong.headers.get("www-authenticate")!, /^Basic/);
      // conf registered client_secret_post: its right secret sent as Basic is refused (docs/oauth.md).
      const otherMethod = await revoke(ctx, { token: t1.refresh_token }, {
        authorization: `Basic ${btoa(`${conf.client_id}:${conf.client_secret}`)}`,
      });
      assert.equal(otherMethod.status, 401);
      assert.equal((await otherMethod.json()).error, "invalid_client");
      const ok = await revoke(ctx, {
        token: t1.refresh_token,
        client_id: conf.client_id,
        client_secret: conf.client_secret!,
      });
      assert.equal(ok.status, 200);
      assert.equal((await refresh(ctx, conf, t1.refresh_token)).status, 400);
      const missing = await revoke(ctx, { client_id: pub.client_id });
      assert.equal(missing.status, 400);
      assert.equal((await missing.json()).error, "invalid_request");
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("userinfo", async (t) => {
  const ctx = await setup();
  try {
    const pub = await registerPublic(ctx.app);
    await ctx.db.sql`update users set plan = 'pro', credits = 42 where id = ${ctx.user.id}`;
    await unlockAgent(ctx.db.sql, ctx.user.id, ctx.agentId);
    await subscribeAgent(ctx.db.sql, ctx.user.id, ctx.agentId, "monthly");

    await t.step(
      "GET and POST with profile: the account, plan, credits, agents and subscriptions",
      async () => {
        const t1 = await tokensFor(ctx, pub);
        for (const method of ["GET", "POST"]) {
          const res = await userinfo(ctx, t1.access_token, method);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("cache-control"), "no-store");
          const body = await res.json();
          assert.equal(body.sub, ctx.user.id);
          assert.equal(body.email, "dana@example.com");
          assert.equal(body.email_verified, true);
          assert.equal(body.name, "Dana");
          assert.equal(body.plan, "pro");
          assert.equal(body.credits, 42);
          assert.deepEqual(body.unlocked_agents, [{ id: ctx.agentId, name: "Research Assistant" }]);
          assert.equal(body.agent_subscriptions.length, 1);
          assert.equal(body.agent_subscriptions[0].agent_id, ctx.agentId);
          assert.equal(body.agent_subscriptions[0].agent_name, "Research Assistant");
          assert.equal(body.agent_subscriptions[0].plan, "monthly");
          assert.equal(body.agent_subscriptions[0].status, "active");
          assert.ok(!Number.isNaN(Date.parse(body.agent_subscriptions[0].current_period_end)));
        }
        const form = await ctx.app.request("/oauth/userinfo", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ access_token: t1.access_token }).toString(),
        });
        assert.equal(form.status, 200);
        await form.body?.cancel();
      },
    );

    await t.step("openid without profile: only sub", async () => {
      const t1 = await tokensFor(ctx, pub, { scope: "openid" });
      assert.deepEqual(await (await userinfo(ctx, t1.access_token)).json(), { sub: ctx.user.id });
    });

    await t.step("no token → 401 with a bare Bearer challenge", async () => {
      const res = await ctx.app.request("/oauth/userinfo");
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="portico"');
      await res.body?.cancel();
    });

    await t.step("invalid or expired token → 401 invalid_token", async () => {
      const res = await userinfo(ctx, "not.a.token");
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate")!, /^Bearer realm="portico", error="invalid_token"/);
      assert.equal((await res.json()).error, "invalid_token");
      const t1 = await tokensFor(ctx, pub);
      const [h, p] = t1.access_token.split(".");
      const payload = JSON.parse(atob(p.replace(/-/g, "+").replace(/_/g, "/")));
      payload.exp = 1;
      const forged = `${h}.${btoa(JSON.stringify(payload)).replace(/=+$/, "")}.${
        t1.access_token.split(".")[2]
      }`;
      assert.equal((await userinfo(ctx, forged)).status, 401);
      // an ID token is not an access token (typ differs)
      assert.equal((await userinfo(ctx, t1.id_token)).status, 401);
    });

    await t.step("null claims are omitted: no picture until the account has one", async () => {
      const t1 = await tokensFor(ctx, pub);
      const body = await (await userinfo(ctx, t1.access_token)).json();
      assert.equal(body.name, "Dana");
      assert.equal("picture" in body, false, JSON.stringify(body));
      assert.equal(Object.values(body).includes(null), false);
      await ctx.db.sql`update users set picture = 'https://img.example/dana.png' where id = ${ctx.user.id}`;
      try {
        const withPicture = await (await userinfo(ctx, t1.access_token)).json();
        assert.equal(withPicture.picture, "https://img.example/dana.png");
      } finally {
        await ctx.db.sql`update users set picture = null where id = ${ctx.user.id}`;
      }
      // the ID token carries no null claim either
      const idClaims = JSON.parse(atob(t1.id_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
      assert.equal(Object.values(idClaims).includes(null), false, JSON.stringify(idClaims));
    });

    await t.step(
      "a token for another audience (/mcp, another resource) → 401; the issuer's is accepted",
      async () => {
        for (const resource of ["http://localhost:8000/mcp", "https://api.example.com/"]) {
          const t1 = await tokensFor(ctx, pub, { resource });
          const res = await userinfo(ctx, t1.access_token);
          assert.equal(res.status, 401);
          assert.match(
            res.headers.get("www-authenticate")!,
            /^Bearer realm="portico", error="invalid_token", error_description="the access token is not for UserInfo/,
          );
          assert.equal((await res.json()).error, "invalid_token");
        }
        for (const resource of ["http://localhost:8000", "http://localhost:8000/oauth/userinfo"]) {
          const t1 = await tokensFor(ctx, pub, { resource });
          assert.equal((await userinfo(ctx, t1.access_token)).status, 200, resource);
        }
      },
    );

    await t.step("a token without openid → 403 insufficient_scope", async () => {
      const t1 = await tokensFor(ctx, pub, { scope: "profile" });
      const res = await userinfo(ctx, t1.access_token);
      assert.equal(res.status, 403);
      assert.match(res.headers.get("www-authenticate")!, /error="insufficient_scope"/);
      assert.equal((await res.json()).error, "insufficient_scope");
    });
  } finally {
    await ctx.close();
  }
});
