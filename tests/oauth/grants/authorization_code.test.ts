// The authorization_code grant (lib/oauth/grants/authorization_code.ts): code exchange with PKCE, the code's
// checks, single use and replay, expiry, and the first tokens of a grant.
import assert from "node:assert/strict";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { atHash } from "../../../lib/oauth/tokens.ts";
import { sha256Hex } from "../../../lib/crypto.ts";
import {
  Browser,
  exchange,
  expectError,
  getCode,
  refreshWith,
  registerPublic,
  setup,
  token,
} from "../helpers.ts";

Deno.test("authorization_code grant", async (t) => {
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
  } finally {
    await ctx.close();
  }
});

// Issue 14.1: a refused exchange consumes nothing (moved from token.test.ts with the grant).
// Issue 14.1 and 14.7: a refused request consumes nothing; a grant's audience is fixed at its first issuance.
// REFRESH_REUSE_GRACE_SECONDS=0, so a retry that succeeds proves the token was not rotated by the refusal.
Deno.test("authorization_code grant: validation before consumption", async (t) => {
  const ctx = await setup({ REFRESH_REUSE_GRACE_SECONDS: "0" });
  const app = ctx.app;
  const browser = new Browser(app);
  const refresh = (client: { client_id: string }, refreshToken: string, extra: Record<string, string> = {}) =>
    refreshWith(app, client, refreshToken, extra);
  try {
    const pub = await registerPublic(app);

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
  } finally {
    await ctx.close();
  }
});
