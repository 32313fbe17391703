// Simultaneous use of one code: exactly one success (single-statement consumption), every other attempt a clean
// invalid_grant. One refresh token: with the grace window (default) every attempt succeeds with a successor of
// its own; without it (REFRESH_REUSE_GRACE_SECONDS=0) exactly one. Never a deadlock or a server error.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { sha256Hex } from "../../lib/crypto.ts";
import { testApp } from "../helpers/app.ts";
import { familyState } from "../helpers/refresh_family.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  type Registered,
  registerPublic,
  setup,
  token,
} from "./helpers.ts";

const PARALLEL = 20;
const ROUNDS = 3;

async function expectOneSuccess(responses: Response[]) {
  const statuses = responses.map((r) => r.status);
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses}`);
  for (const [i, body] of bodies.entries()) {
    if (statuses[i] !== 200) {
      assert.equal(statuses[i], 400, JSON.stringify(body));
      assert.equal(body.error, "invalid_grant", JSON.stringify(body));
    }
  }
}

async function freshTokens(ctx: Ctx, client: Registered) {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
  return await (await exchange(ctx, client, code, verifier)).json();
}

Deno.test(`${PARALLEL} parallel exchanges of one code and ${PARALLEL} parallel refreshes of one token`, async () => {
  // On embedded PGlite (one connection) the requests queue; on Postgres they race on ten connections.
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    const noGrace = { ...ctx, app: testApp(ctx.db.sql, { REFRESH_REUSE_GRACE_SECONDS: "0" }) };
    const refreshAll = (c: Ctx, refresh_token: string) =>
      Promise.all(
        Array.from(
          { length: PARALLEL },
          () => token(c.app, { grant_type: "refresh_token", refresh_token, client_id: client.client_id }),
        ),
      );
    for (let round = 0; round < ROUNDS; round++) {
      const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
      await expectOneSuccess(
        await Promise.all(Array.from({ length: PARALLEL }, () => exchange(ctx, client, code, verifier))),
      );
      // docs/oauth.md "Refresh retries": within the window each parallel refresh gets a sibling successor.
      const first = await freshTokens(ctx, client);
      const all = await refreshAll(ctx, first.refresh_token);
      const bodies = await Promise.all(all.map((r) => r.json()));
      assert.deepEqual(all.map((r) => r.status), Array(PARALLEL).fill(200), JSON.stringify(bodies[0]));
      assert.equal(new Set(bodies.map((b) => b.refresh_token)).size, PARALLEL);
      // One rotation and PARALLEL - 1 siblings: the family's current tokens are exactly the answers' ones.
      const family = await familyState(ctx.db.sql, decodeJwt(first.access_token).grant_id as string);
      assert.equal(family.revoked, false);
      assert.deepEqual(family.current, bodies.map((b) => sha256Hex(b.refresh_token)).sort());
      assert.equal(family.current.length, PARALLEL);
      // Without the window: one success, the others are reuse.
      const second = await freshTokens(noGrace, client);
      await expectOneSuccess(await refreshAll(noGrace, second.refresh_token));
    }
  } finally {
    await ctx.close();
  }
});
