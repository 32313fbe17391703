// Simultaneous use of one code or one refresh token: exactly one success (single-statement consumption).
import assert from "node:assert/strict";
import { Browser, exchange, getCode, registerPublic, setup, token } from "./helpers.ts";

Deno.test("20 parallel exchanges of one code and 20 parallel refreshes of one token: one success each", async () => {
  const ctx = await setup();
  try {
    // On embedded PGlite (one connection) the requests queue; on Postgres they truly race on 10 connections.
    const client = await registerPublic(ctx.app);
    const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => exchange(ctx, client, code, verifier)),
    );
    const bodies = await Promise.all(results.map((r) => r.json()));
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 1, `statuses: ${results.map((r) => r.status)}`);
    for (const [i, r] of results.entries()) {
      if (r.status !== 200) assert.equal(bodies[i].error, "invalid_grant");
    }
    const refreshToken = bodies[results.findIndex((r) => r.status === 200)].refresh_token;

    // The replays above revoked the grant; start a new one for the refresh race.
    const again = await getCode(ctx, new Browser(ctx.app), client);
    const fresh = await (await exchange(ctx, client, again.code, again.verifier)).json();
    assert.ok(refreshToken);
    const refreshes = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          token(ctx.app, {
            grant_type: "refresh_token",
            refresh_token: fresh.refresh_token,
            client_id: client.client_id,
          }),
      ),
    );
    const statuses = refreshes.map((r) => r.status);
    await Promise.all(refreshes.map((r) => r.body?.cancel()));
    assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses}`);
    assert.equal(statuses.filter((s) => s === 400).length, 19);
  } finally {
    await ctx.close();
  }
});
