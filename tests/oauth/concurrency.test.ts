// Simultaneous use of one code or one refresh token: exactly one success (single-statement consumption), and
// every other attempt a clean invalid_grant — never a deadlock or a server error.
import assert from "node:assert/strict";
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

Deno.test(`${PARALLEL} parallel exchanges of one code and ${PARALLEL} parallel refreshes of one token: one success each`, async () => {
  // On embedded PGlite (one connection) the requests queue; on Postgres they race on ten connections.
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    for (let round = 0; round < ROUNDS; round++) {
      const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
      await expectOneSuccess(
        await Promise.all(Array.from({ length: PARALLEL }, () => exchange(ctx, client, code, verifier))),
      );
      const { refresh_token } = await freshTokens(ctx, client);
      await expectOneSuccess(
        await Promise.all(
          Array.from(
            { length: PARALLEL },
            () => token(ctx.app, { grant_type: "refresh_token", refresh_token, client_id: client.client_id }),
          ),
        ),
      );
    }
  } finally {
    await ctx.close();
  }
});
