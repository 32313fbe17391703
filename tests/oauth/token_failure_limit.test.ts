// Refused requests at /oauth/token and /oauth/revoke are bounded per client address (TOKEN_FAILURE_RATE_LIMIT);
// successful ones never count, so many clients refreshing from one address are not slowed.
import assert from "node:assert/strict";
import { Browser, exchange, getCode, registerConfidential, registerPublic, setup } from "./helpers.ts";

const form = { "content-type": "application/x-www-form-urlencoded" };

function from(ip: string) {
  return { remoteAddr: { hostname: ip, port: 1 } };
}

Deno.test("token endpoint: refused requests per address are limited, then 429 with Retry-After, even for the right secret", async () => {
  const ctx = await setup({ TOKEN_FAILURE_RATE_LIMIT: "3/60" });
  try {
    const conf = await registerConfidential(ctx.app);
    const refreshWith = (secret: string, ip: string) =>
      ctx.app.request("/oauth/token", {
        method: "POST",
        headers: form,
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: "nope",
          client_id: conf.client_id,
          client_secret: secret,
        }).toString(),
      }, from(ip));
    const wrongSecret = (ip: string) => refreshWith("wrong-secret", ip);
    for (let i = 0; i < 3; i++) {
      const res = await wrongSecret("198.51.100.7");
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error, "invalid_client");
    }
    // The fourth is refused before the client is looked up: even the right secret gets 429 now.
    const refused = await refreshWith(conf.client_secret!, "198.51.100.7");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "20");
    assert.equal(refused.headers.get("cache-control"), "no-store");
    assert.equal((await refused.json()).error, "too_many_requests");
    // The revocation endpoint shares the address's budget.
    const revoke = await ctx.app.request("/oauth/revoke", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ token: "x", client_id: conf.client_id, client_secret: conf.client_secret! })
        .toString(),
    }, from("198.51.100.7"));
    assert.equal(revoke.status, 429);
    // Another address has its own budget.
    assert.equal((await wrongSecret("198.51.100.8")).status, 401);
  } finally {
    await ctx.close();
  }
});

Deno.test("token endpoint: successful exchanges and refreshes from one address are never counted", async () => {
  const ctx = await setup({ TOKEN_FAILURE_RATE_LIMIT: "2/60" });
  try {
    const client = await registerPublic(ctx.app, { scope: "openid offline_access" });
    const browser = new Browser(ctx.app);
    const { code, verifier } = await getCode(ctx, browser, client, { scope: "openid offline_access" });
    const first = await exchange(ctx, client, code, verifier);
    assert.equal(first.status, 200);
    let refresh: string = (await first.json()).refresh_token;
    // Five refreshes in a row with a budget of two refusals: every one succeeds.
    for (let i = 0; i < 5; i++) {
      const res = await ctx.app.request("/oauth/token", {
        method: "POST",
        headers: form,
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refresh,
          client_id: client.client_id,
        }).toString(),
      });
      assert.equal(res.status, 200, await res.clone().text());
      refresh = (await res.json()).refresh_token;
    }
  } finally {
    await ctx.close();
  }
});
