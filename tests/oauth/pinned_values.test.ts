// Values the refresh rules are about, pinned exactly: auth_time is the stored sign-in time on every refresh, and
// a narrowed refresh leaves the grant's scope as it was for the next refresh.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { Browser, exchange, getCode, registerPublic, setup, token } from "./helpers.ts";

Deno.test("refresh: auth_time equals the stored sign-in time, unchanged across refreshes", async () => {
  const ctx = await setup();
  try {
    const browser = new Browser(ctx.app);
    const pub = await registerPublic(ctx.app);
    const { code, verifier } = await getCode(ctx, browser, pub);
    const [signIn] = await ctx.db.sql<{ t: number }[]>`
      select floor(extract(epoch from auth_time))::int as t from browser_session_accounts
       where user_id = ${ctx.user.id}`;
    let body = await (await exchange(ctx, pub, code, verifier)).json();
    assert.equal(decodeJwt(body.id_token).auth_time, signIn.t, "the code exchange names the sign-in");
    for (let i = 0; i < 2; i++) {
      const res = await token(ctx.app, {
        grant_type: "refresh_token",
        refresh_token: body.refresh_token,
        client_id: pub.client_id,
      });
      assert.equal(res.status, 200);
      body = await res.json();
      assert.equal(decodeJwt(body.id_token).auth_time, signIn.t, `refresh ${i + 1}: still the sign-in time`);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("refresh: a narrowed refresh does not narrow the next one", async () => {
  const ctx = await setup();
  try {
    const browser = new Browser(ctx.app);
    const pub = await registerPublic(ctx.app);
    const { code, verifier } = await getCode(ctx, browser, pub);
    const first = await (await exchange(ctx, pub, code, verifier)).json();
    assert.equal(first.scope, "openid profile");
    const narrow = await (await token(ctx.app, {
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: pub.client_id,
      scope: "profile",
    })).json();
    assert.equal(narrow.scope, "profile");
    const next = await token(ctx.app, {
      grant_type: "refresh_token",
      refresh_token: narrow.refresh_token,
      client_id: pub.client_id,
    });
    assert.equal(next.status, 200);
    const nb = await next.json();
    assert.equal(nb.scope, "openid profile", "without scope, the next refresh gets the whole grant again");
    assert.equal(decodeJwt(nb.access_token).scope, "openid profile");
    assert.ok(nb.id_token, "openid is back, so is the ID token");
    const asked = await token(ctx.app, {
      grant_type: "refresh_token",
      refresh_token: nb.refresh_token,
      client_id: pub.client_id,
      scope: "openid profile",
    });
    assert.equal(asked.status, 200, "the granted scope may be asked for explicitly after a narrowing");
  } finally {
    await ctx.close();
  }
});
