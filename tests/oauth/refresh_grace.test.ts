// Refresh retries and parallel refreshes (docs/oauth.md "Refresh retries and parallel refreshes"): within the
// grace window a just-rotated token gets a sibling successor; the first successor used wins; everything else —
// reuse after the window, after a successor was used, or of a losing sibling — revokes the family.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { sha256Hex } from "../../lib/crypto.ts";
import { createDb, type Sql } from "../../lib/db/client.ts";
import { testApp } from "../helpers/app.ts";
import { TEST_CONNECT_TIMEOUT_S, TEST_STATEMENT_TIMEOUT_MS } from "../helpers/db.ts";
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

const PARALLEL = 30;

interface Member {
  token_hash: string;
  parent: string | null;
  rotated: boolean;
  revoked: boolean;
}

/** The grant's state and its refresh tokens, oldest first; `parent` is the parent's token hash. */
async function family(sql: Sql, grantId: string): Promise<{ revoked: boolean; tokens: Member[] }> {
  const [g] = await sql<{ revoked: boolean }[]>`
    select revoked_at is not null as revoked from oauth_grants where id = ${grantId}`;
  const tokens = await sql<Member[]>`
    select rt.token_hash, p.token_hash as parent, rt.rotated_at is not null as rotated,
           rt.revoked_at is not null as revoked
      from oauth_refresh_tokens rt left join oauth_refresh_tokens p on p.id = rt.parent_id
     where rt.family_id = ${grantId} order by rt.created_at, rt.id`;
  return { revoked: g.revoked, tokens: [...tokens] };
}

// deno-lint-ignore no-explicit-any
type Tokens = any;

async function start(ctx: Ctx, client: Registered): Promise<{ first: Tokens; grantId: string }> {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
  const res = await exchange(ctx, client, code, verifier);
  assert.equal(res.status, 200);
  const first = await res.json();
  return { first, grantId: decodeJwt(first.access_token).grant_id as string };
}

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
        const { first, grantId } = await start(ctx, pub);
        const out = await burst(racing, pub, first.refresh_token);
        assert.deepEqual(out.statuses, Array(PARALLEL).fill(200));
        const successors = out.ok.map((b) => sha256Hex(b.refresh_token));
        assert.equal(new Set(successors).size, PARALLEL);
        // Every access token is the grant's and works.
        for (const b of out.ok) assert.equal(decodeJwt(b.access_token).grant_id, grantId);
        const fam = await family(sql, grantId);
        assert.equal(fam.revoked, false);
        assert.deepEqual(fam.tokens[0], {
          token_hash: sha256Hex(first.refresh_token),
          parent: null,
          rotated: true,
          revoked: false,
        });
        assert.deepEqual(
          fam.tokens.slice(1).sort((a, b) => a.token_hash.localeCompare(b.token_hash)),
          successors.sort().map((h) => ({
            token_hash: h,
            parent: sha256Hex(first.refresh_token),
            rotated: false,
            revoked: false,
          })),
        );
        assert.equal(await userinfoStatus(ctx, out.ok[7].access_token), 200);
      },
    );

    await t.step(
      `REFRESH_REUSE_GRACE_SECONDS=0: ${PARALLEL} simultaneous presentations give 1 × 200, ${
        PARALLEL - 1
      } × 400 invalid_grant, family revoked`,
      async () => {
        const { first, grantId } = await start(ctx, pub);
        const out = await burst(noGrace, pub, first.refresh_token);
        assert.equal(out.ok.length, 1, `statuses: ${out.statuses}`);
        assert.deepEqual(out.statuses.filter((s) => s === 400).length, PARALLEL - 1);
        assert.deepEqual(new Set(out.refused.map((r) => r.split(":")[1])), new Set(["invalid_grant"]));
        const fam = await family(sql, grantId);
        assert.deepEqual(fam, {
          revoked: true,
          tokens: [
            { token_hash: sha256Hex(first.refresh_token), parent: null, rotated: true, revoked: true },
            {
              token_hash: sha256Hex(out.ok[0].refresh_token),
              parent: sha256Hex(first.refresh_token),
              rotated: false,
              revoked: true,
            },
          ],
        });
      },
    );

    await t.step(
      `${PARALLEL} simultaneous presentations of a token whose successor was used: ${PARALLEL} × 400, family revoked`,
      async () => {
        const { first, grantId } = await start(ctx, pub);
        const second = await (await refresh(ctx, pub, first.refresh_token)).json();
        const third = await refresh(ctx, pub, second.refresh_token);
        assert.equal(third.status, 200);
        const thirdBody = await third.json();
        const out = await burst(racing, pub, first.refresh_token);
        assert.deepEqual(out.statuses, Array(PARALLEL).fill(400));
        assert.deepEqual(new Set(out.refused.map((r) => r.split(":")[1])), new Set(["invalid_grant"]));
        const fam = await family(sql, grantId);
        assert.equal(fam.revoked, true);
        assert.deepEqual(fam.tokens.map((m) => m.revoked), [true, true, true]);
        assert.equal((await refresh(ctx, pub, thirdBody.refresh_token)).status, 400);
        assert.equal(await userinfoStatus(ctx, thirdBody.access_token), 401);
      },
    );

    await t.step(
      "a retry within the window: the winner's tokens survive; the first successor used wins; the other one, presented later, revokes the family",
      async () => {
        const { first, grantId } = await start(ctx, pub);
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
        let fam = await family(sql, grantId);
        assert.equal(fam.revoked, false);
        assert.deepEqual(fam.tokens.map((m) => [m.rotated, m.revoked]), [
          [true, false], // first
          [true, false], // the winner's, used
          [false, true], // the retry's sibling, superseded when the winner's was used
          [false, false], // the current one
        ]);
        // The superseded sibling presented afterwards: two branches were used, so the family ends.
        const stale = await refresh(ctx, pub, loser.refresh_token);
        assert.equal(stale.status, 400);
        assert.equal((await stale.json()).error, "invalid_grant");
        fam = await family(sql, grantId);
        assert.equal(fam.revoked, true);
        assert.equal((await refresh(ctx, pub, nextBody.refresh_token)).status, 400);
        assert.equal(await userinfoStatus(ctx, nextBody.access_token), 401);
      },
    );

    await t.step("reuse after the window revokes everything, the winner's tokens included", async () => {
      const conf = await registerConfidential(ctx.app);
      const { first, grantId } = await start(ctx, conf);
      const winner = await (await refresh(ctx, conf, first.refresh_token)).json();
      await sql`update oauth_refresh_tokens set rotated_at = rotated_at - interval '61 seconds'
        where token_hash = ${sha256Hex(first.refresh_token)}`;
      const late = await refresh(ctx, conf, first.refresh_token);
      assert.equal(late.status, 400);
      assert.equal((await late.json()).error, "invalid_grant");
      const fam = await family(sql, grantId);
      assert.deepEqual(fam, {
        revoked: true,
        tokens: [
          { token_hash: sha256Hex(first.refresh_token), parent: null, rotated: true, revoked: true },
          {
            token_hash: sha256Hex(winner.refresh_token),
            parent: sha256Hex(first.refresh_token),
            rotated: false,
            revoked: true,
          },
        ],
      });
      assert.equal((await refresh(ctx, conf, winner.refresh_token)).status, 400);
      assert.equal(await userinfoStatus(ctx, winner.access_token), 401);
    });

    await t.step("the window is the configured one: 30 s, a retry 31 s later is reuse", async () => {
      const short = { ...ctx, app: testApp(sql, { REFRESH_REUSE_GRACE_SECONDS: "30" }) };
      const { first, grantId } = await start(ctx, pub);
      await (await refresh(short, pub, first.refresh_token)).body?.cancel();
      // 20 s in: well inside (29 s assumed the retry came within a second of this update; a loaded host need
      // not); 31 s in (past 30, short of the default 60): reuse
      await sql`update oauth_refresh_tokens set rotated_at = rotated_at - interval '20 seconds'
        where token_hash = ${sha256Hex(first.refresh_token)}`;
      assert.equal((await refresh(short, pub, first.refresh_token)).status, 200);
      await sql`update oauth_refresh_tokens set rotated_at = rotated_at - interval '11 seconds'
        where token_hash = ${sha256Hex(first.refresh_token)}`;
      assert.equal((await refresh(short, pub, first.refresh_token)).status, 400);
      assert.equal((await family(sql, grantId)).revoked, true);
    });

    await t.step("another client presenting the token: invalid_grant, nothing revoked", async () => {
      const other = await registerPublic(ctx.app, { client_name: "Other" });
      const { first, grantId } = await start(ctx, pub);
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
