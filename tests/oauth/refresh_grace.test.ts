// Refresh retries and parallel refreshes (docs/oauth.md "Refresh retries and parallel refreshes"): within the
// grace window a just-rotated token gets a sibling successor; the first successor used wins; everything else —
// reuse after the window, after a successor was used, or of a losing sibling — revokes the family.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { sha256Hex } from "../../lib/crypto.ts";
import { createDb, type Sql } from "../../lib/db/client.ts";
import { testApp } from "../helpers/app.ts";
import { TEST_CONNECT_TIMEOUT_S, TEST_STATEMENT_TIMEOUT_MS } from "../helpers/db.ts";
import { familyState, tokenStanding } from "../helpers/refresh_family.ts";
import {
  type Ctx,
  registerConfidential,
  type Registered,
  registerPublic,
  setup,
  startGrant,
  token,
} from "./helpers.ts";

const PARALLEL = 30;

/** The family's state (its grant row): revoked, generation, current token hashes, the one rotated last. */
const family = familyState;

/** Moves the rotation of the token rotated last `seconds` into the past (time passes). */
async function ageRotation(sql: Sql, rotated: string, seconds: number): Promise<void> {
  const [row] = await sql<{ id: string }[]>`
    update oauth_grants set refresh_rotated_at = refresh_rotated_at - make_interval(secs => ${seconds})
     where refresh_rotated_hash = ${sha256Hex(rotated)} returning id`;
  assert.ok(row, "the token is the one its family rotated last");
}

// deno-lint-ignore no-explicit-any
type Tokens = any;

function refresh(ctx: Ctx, client: Registered, refreshToken: string) {
  return token(ctx.app, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
    ...(client.client_secret ? { client_secret: client.client_secret } : {}),
  });
}

async function userinfoStatus(ctx: Ctx, accessToken: string): Promise<number> {
  const res = await ctx.app.request("/oauth/userinfo", {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  await res.body?.cancel();
  return res.status;
}

/** Statuses and error codes of `n` simultaneous refreshes of one token. */
async function burst(ctx: Ctx, client: Registered, refreshToken: string) {
  const responses = await Promise.all(
    Array.from({ length: PARALLEL }, () => refresh(ctx, client, refreshToken)),
  );
  const bodies: Tokens[] = await Promise.all(responses.map((r) => r.json()));
  for (const r of responses) assert.equal(r.headers.get("cache-control"), "no-store");
  return {
    ok: bodies.filter((_, i) => responses[i].status === 200),
    refused: bodies.filter((_, i) => responses[i].status !== 200).map((b, i) => `${i}:${b.error}`),
    statuses: responses.map((r) => r.status),
  };
}

Deno.test("refresh grace window", async (t) => {
  const ctx = await setup();
  // Real Postgres: a pool of 40 so the 30 requests really run at once (PGlite has one connection: they queue,
  // and the outcome must be the same).
  const pool = ctx.db.server
    ? createDb(ctx.db.url, {
      max: 40,
      connectTimeout: TEST_CONNECT_TIMEOUT_S,
      statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
    })
    : ctx.db.sql;
  const racing: Ctx = { ...ctx, app: testApp(pool) };
  const noGrace: Ctx = { ...ctx, app: testApp(pool, { REFRESH_REUSE_GRACE_SECONDS: "0" }) };
  const sql = ctx.db.sql;
  try {
    const pub = await registerPublic(ctx.app);

    await t.step(
      `${PARALLEL} simultaneous presentations: ${PARALLEL} × 200, one rotation and ${
        PARALLEL - 1
      } siblings, family live`,
      async () => {
        const { first, grantId } = await startGrant(ctx, pub);
        const out = await burst(racing, pub, first.refresh_token);
        assert.deepEqual(out.statuses, Array(PARALLEL).fill(200));
        const successors = out.ok.map((b) => sha256Hex(b.refresh_token));
        assert.equal(new Set(successors).size, PARALLEL);
        // Every access token is the grant's and works.
        for (const b of out.ok) assert.equal(decodeJwt(b.access_token).grant_id, grantId);
        // The first token rotated; its 30 successors (one rotation, 29 siblings) are the current tokens.
        assert.deepEqual(await family(sql, grantId), {
          revoked: false,
          generation: 2,
          current: successors.sort(),
          rotated: sha256Hex(first.refresh_token),
        });
        assert.equal(await userinfoStatus(ctx, out.ok[7].access_token), 200);
      },
    );

    await t.step(
      `REFRESH_REUSE_GRACE_SECONDS=0: ${PARALLEL} simultaneous presentations give 1 × 200, ${
        PARALLEL - 1
      } × 400 invalid_grant, family revoked`,
      async () => {
        const { first, grantId } = await startGrant(ctx, pub);
        const out = await burst(noGrace, pub, first.refresh_token);
        assert.equal(out.ok.length, 1, `statuses: ${out.statuses}`);
        assert.deepEqual(out.statuses.filter((s) => s === 400).length, PARALLEL - 1);
        assert.deepEqual(new Set(out.refused.map((r) => r.split(":")[1])), new Set(["invalid_grant"]));
        assert.deepEqual(await family(sql, grantId), {
          revoked: true,
          generation: 2,
          current: [sha256Hex(out.ok[0].refresh_token)],
          rotated: sha256Hex(first.refresh_token),
        });
      },
    );

    await t.step(
      `${PARALLEL} simultaneous presentations of a token whose successor was used: ${PARALLEL} × 400, family revoked`,
      async () => {
        const { first, grantId } = await startGrant(ctx, pub);
        const second = await (await refresh(ctx, pub, first.refresh_token)).json();
        const third = await refresh(ctx, pub, second.refresh_token);
        assert.equal(third.status, 200);
        const thirdBody = await third.json();
        const out = await burst(racing, pub, first.refresh_token);
        assert.deepEqual(out.statuses, Array(PARALLEL).fill(400));
        assert.deepEqual(new Set(out.refused.map((r) => r.split(":")[1])), new Set(["invalid_grant"]));
        assert.deepEqual(await family(sql, grantId), {
          revoked: true,
          generation: 3,
          current: [sha256Hex(thirdBody.refresh_token)],
          rotated: sha256Hex(second.refresh_token),
        });
        assert.equal((await refresh(ctx, pub, thirdBody.refresh_token)).status, 400);
        assert.equal(await userinfoStatus(ctx, thirdBody.access_token), 401);
      },
    );

    await t.step(
      "a retry within the window: the winner's tokens survive; the first successor used wins; the other one, presented later, revokes the family",
      async () => {
        const { first, grantId } = await startGrant(ctx, pub);
        const winner = await (await refresh(ctx, pub, first.refresh_token)).json();
        const retry = await refresh(ctx, pub, first.refresh_token); // e.g. the answer above was lost
        assert.equal(retry.status, 200);
        const loser = await retry.json();
        assert.notEqual(loser.refresh_token, winner.refresh_token);
        // The winner's access and refresh tokens still work.
        assert.equal(await userinfoStatus(ctx, winner.access_token), 200);
        const next = await refresh(ctx, pub, winner.refresh_token);
        assert.equal(next.status, 200);
        const nextBody = await next.json();
        assert.deepEqual(
          await Promise.all(
            [first, winner, loser, nextBody].map((b) => tokenStanding(sql, b.refresh_token)),
          ),
          [
            { standing: "older", familyRevoked: false }, // first
            { standing: "rotated", familyRevoked: false }, // the winner's, used
            { standing: "superseded", familyRevoked: false }, // the retry's sibling, superseded by that use
            { standing: "current", familyRevoked: false }, // the current one
          ],
        );
        assert.deepEqual((await family(sql, grantId)).current, [sha256Hex(nextBody.refresh_token)]);
        // The superseded sibling presented afterwards: two branches were used, so the family ends.
        const stale = await refresh(ctx, pub, loser.refresh_token);
        assert.equal(stale.status, 400);
        assert.equal((await stale.json()).error, "invalid_grant");
        assert.equal((await family(sql, grantId)).revoked, true);
        assert.equal((await refresh(ctx, pub, nextBody.refresh_token)).status, 400);
        assert.equal(await userinfoStatus(ctx, nextBody.access_token), 401);
      },
    );

    await t.step("reuse after the window revokes everything, the winner's tokens included", async () => {
      const conf = await registerConfidential(ctx.app);
      const { first, grantId } = await startGrant(ctx, conf);
      const winner = await (await refresh(ctx, conf, first.refresh_token)).json();
      await ageRotation(sql, first.refresh_token, 61);
      const late = await refresh(ctx, conf, first.refresh_token);
      assert.equal(late.status, 400);
      assert.equal((await late.json()).error, "invalid_grant");
      assert.deepEqual(await family(sql, grantId), {
        revoked: true,
        generation: 2,
        current: [sha256Hex(winner.refresh_token)],
        rotated: sha256Hex(first.refresh_token),
      });
      assert.equal((await refresh(ctx, conf, winner.refresh_token)).status, 400);
      assert.equal(await userinfoStatus(ctx, winner.access_token), 401);
    });

    await t.step("the window is the configured one: 30 s, a retry 31 s later is reuse", async () => {
      const short = { ...ctx, app: testApp(sql, { REFRESH_REUSE_GRACE_SECONDS: "30" }) };
      const { first, grantId } = await startGrant(ctx, pub);
      await (await refresh(short, pub, first.refresh_token)).body?.cancel();
      // 20 s in: well inside (29 s assumed the retry came within a second of this update; a loaded host need
      // not); 31 s in (past 30, short of the default 60): reuse
      await ageRotation(sql, first.refresh_token, 20);
      assert.equal((await refresh(short, pub, first.refresh_token)).status, 200);
      await ageRotation(sql, first.refresh_token, 11);
      assert.equal((await refresh(short, pub, first.refresh_token)).status, 400);
      assert.equal((await family(sql, grantId)).revoked, true);
    });

    await t.step("another client presenting the token: invalid_grant, nothing revoked", async () => {
      const other = await registerPublic(ctx.app, { client_name: "Other" });
      const { first, grantId } = await startGrant(ctx, pub);
      const winner = await (await refresh(ctx, pub, first.refresh_token)).json();
      const res = await refresh(ctx, other, first.refresh_token);
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error, "invalid_grant");
      assert.equal((await family(sql, grantId)).revoked, false);
      assert.equal((await refresh(ctx, pub, winner.refresh_token)).status, 200);
    });
  } finally {
    if (pool !== ctx.db.sql) await pool.end({ timeout: 5 });
    await ctx.close();
  }
});
