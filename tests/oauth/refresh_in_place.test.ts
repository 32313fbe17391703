// Refresh in place (migration 00031; docs/oauth.md "Refresh tokens: storage and format"): a family's state is its
// grant row, a rotation is one HOT update of that row, and the token carries its family and generation under a
// tag. What the tag decides and what it never decides: a forged token or one of an unknown family changes
// nothing; an older generation whose tag verifies is reuse; a token minted under another SECRET_KEY still
// refreshes while it is current (by its hash); a family holds at most 100 current tokens.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { decodeJwt } from "jose";
import postgres from "postgres";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";
import { FAMILY_CURRENT_MAX } from "../../lib/oauth/grants/refresh_family.ts";
import { mintRefreshToken, readRefreshToken } from "../../lib/oauth/grants/refresh_format.ts";
import { refreshGrant } from "../../lib/oauth/grants/refresh_token.ts";
import { TEST_SECRET, testApp } from "../helpers/app.ts";
import { familyState, tokenStanding } from "../helpers/refresh_family.ts";
import {
  type Ctx,
  expectError,
  type Registered,
  registerPublic,
  setup,
  startGrant,
  token,
  tokenDepsFor,
} from "./helpers.ts";

const OTHER_SECRET = "another-secret-key-0123456789abcdef012345678";

// deno-lint-ignore no-explicit-any
type Tokens = any;

function refresh(app: Ctx["app"], client: Registered, refreshToken: string) {
  return token(app, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
  });
}

async function refreshed(app: Ctx["app"], client: Registered, refreshToken: string): Promise<Tokens> {
  const res = await refresh(app, client, refreshToken);
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

Deno.test("refresh token format: family, generation and tag; one spelling; old tokens are not of it", () => {
  const family = crypto.randomUUID();
  const t = mintRefreshToken(TEST_SECRET, family, 7);
  assert.match(t, /^prt_[A-Za-z0-9_-]{91}$/);
  assert.deepEqual(readRefreshToken(TEST_SECRET, t), { familyId: family, generation: 7, tagValid: true });
  // Under another SECRET_KEY the structure reads, the tag does not verify.
  assert.deepEqual(readRefreshToken(OTHER_SECRET, t), { familyId: family, generation: 7, tagValid: false });
  // Any changed byte of the signed part breaks the tag (here: the generation).
  const bytes = Buffer.from(t.slice(4), "base64url");
  bytes.writeUInt32BE(6, 16);
  assert.deepEqual(readRefreshToken(TEST_SECRET, `prt_${bytes.toString("base64url")}`), {
    familyId: family,
    generation: 6,
    tagValid: false,
  });
  // A second spelling of the same bytes (the last character's unused bits set) is not a token.
  const last = t.at(-1)!;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const sibling = t.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
  assert.equal(readRefreshToken(TEST_SECRET, sibling), undefined);
  // Tokens issued before migration 00031 (32 random bytes), and other strings: not of this format.
  for (
    const other of [randomToken("prt_"), "prt_x", "", t.slice(0, -1), `${t}A`, t.replace("prt_", "pco_")]
  ) {
    assert.equal(readRefreshToken(TEST_SECRET, other), undefined, other);
  }
  // Generation 0 is never minted; the largest one leaves room for a successor.
  assert.throws(() => mintRefreshToken(TEST_SECRET, family, 0));
  const top = Buffer.from(t.slice(4), "base64url");
  top.writeUInt32BE(2 ** 31 - 1, 16);
  assert.equal(readRefreshToken(TEST_SECRET, `prt_${top.toString("base64url")}`), undefined);
});

Deno.test("refresh in place: a chain of refreshes is one grant row and no token rows; each rotation is one HOT update", async () => {
  const ctx = await setup();
  // The refreshes on one connection of their own, so its statistics can be flushed before they are read.
  const one = postgres(ctx.db.url, { max: 1, onnotice: () => {} });
  // deno-lint-ignore no-explicit-any
  const app = testApp(one as any);
  const updates = async () => {
    await one`select pg_stat_force_next_flush()`;
    const [row] = await one<{ upd: number; hot: number }[]>`
      select n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_user_tables where relname = 'oauth_grants'`;
    return row;
  };
  try {
    const client = await registerPublic(ctx.app);
    const { first, grantId } = await startGrant(ctx, client);
    // Warm the app (its signing key) with one refresh, then count from there.
    let previous = first.refresh_token;
    let latest = (await refreshed(app, client, previous)).refresh_token;
    const before = await updates();
    // As many rotations as the row's page holds versions of the row (about 450 bytes each) without pruning:
    // whether Postgres may prune the dead versions at a given moment depends on the other transactions of the
    // server (a busy test host holds it back), and an update that finds its page full cannot be HOT. What is
    // pinned here is that nothing else stops it: no rotation touches an indexed column.
    const N = 12;
    for (let i = 0; i < N; i++) {
      previous = latest;
      latest = (await refreshed(app, client, previous)).refresh_token;
    }
    // A retry of the token rotated last (a lost answer): a sibling, the same kind of write.
    const sibling = (await refreshed(app, client, previous)).refresh_token;
    const after = await updates();
    assert.deepEqual(
      { upd: after.upd - before.upd, hot: after.hot - before.hot },
      { upd: N + 1, hot: N + 1 },
      "each rotation and the sibling: one update of the grant row, every one HOT",
    );
    const [rows] = await ctx.db.sql<{ grants: number; legacy: number }[]>`
      select (select count(*)::int from oauth_grants where client_id = ${client.client_id}) as grants,
             (select count(*)::int from oauth_refresh_legacy) as legacy`;
    assert.deepEqual(rows, { grants: 1, legacy: 0 });
    assert.deepEqual(await familyState(ctx.db.sql, grantId), {
      revoked: false,
      generation: N + 2,
      current: [sha256Hex(latest), sha256Hex(sibling)].sort(),
      rotated: sha256Hex(previous),
    });
    // Nothing indexed changes: a rotation never touches an index (the grant's indexed columns, as created).
    const [indexed] = await ctx.db.sql<{ columns: string[] }[]>`
      select to_json(array(
        select distinct a.attname::text from pg_index i
          join pg_attribute a on a.attrelid = i.indrelid
           and (a.attnum = any(i.indkey) or pg_get_expr(i.indpred, i.indrelid) like '%' || a.attname || '%'
                or pg_get_expr(i.indexprs, i.indrelid) like '%' || a.attname || '%')
         where i.indrelid = 'oauth_grants'::regclass and a.attnum > 0 order by 1)) as columns`;
    assert.deepEqual(indexed.columns, [
      "client_id",
      "code_hash",
      "created_at",
      "id",
      "user_id",
      "workspace_id",
    ]);
  } finally {
    await one.end({ timeout: 5 });
    await ctx.close();
  }
});

Deno.test("refresh in place: what the tag decides", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  const sql = ctx.db.sql;
  try {
    const pub = await registerPublic(app);

    await t.step(
      "a forged tag naming a live family and an older generation: invalid_grant, nothing revoked",
      async () => {
        const { first, grantId } = await startGrant(ctx, pub);
        const second = await refreshed(app, pub, first.refresh_token);
        const third = await refreshed(app, pub, second.refresh_token);
        const stateBefore = await familyState(sql, grantId);
        for (
          const forged of [
            mintRefreshToken(OTHER_SECRET, grantId, 1),
            mintRefreshToken(OTHER_SECRET, grantId, 2),
          ]
        ) {
          assert.equal(readRefreshToken(TEST_SECRET, forged)?.tagValid, false);
          await expectError(await refresh(app, pub, forged), 400, "invalid_grant");
          // Revocation (RFC 7009) does not take it for a token of the family either: 200, nothing happens.
          const revoked = await app.request("/oauth/revoke", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ token: forged, client_id: pub.client_id }).toString(),
          });
          assert.equal(revoked.status, 200);
        }
        assert.deepEqual(await familyState(sql, grantId), stateBefore);
        assert.equal((await refresh(app, pub, third.refresh_token)).status, 200);
      },
    );

    await t.step(
      "a family id that names no grant, or another family's: invalid_grant, nothing changes",
      async () => {
        const a = await startGrant(ctx, pub);
        const b = await startGrant(ctx, pub);
        await expectError(
          await refresh(app, pub, mintRefreshToken(TEST_SECRET, crypto.randomUUID(), 1)),
          400,
          "invalid_grant",
        );
        // A's real token with B's family id spliced in: the tag no longer verifies, and its hash is nobody's.
        const bytes = Buffer.from(a.first.refresh_token.slice(4), "base64url");
        Buffer.from(b.grantId.replaceAll("-", ""), "hex").copy(bytes, 0);
        const spliced = `prt_${bytes.toString("base64url")}`;
        assert.deepEqual(readRefreshToken(TEST_SECRET, spliced), {
          familyId: b.grantId,
          generation: 1,
          tagValid: false,
        });
        await expectError(await refresh(app, pub, spliced), 400, "invalid_grant");
        for (const { first, grantId } of [a, b]) {
          assert.deepEqual(await tokenStanding(sql, first.refresh_token), {
            standing: "current",
            familyRevoked: false,
          });
          assert.equal((await familyState(sql, grantId)).generation, 1);
          assert.equal((await refresh(app, pub, first.refresh_token)).status, 200);
        }
      },
    );

    await t.step("an older generation whose tag verifies is reuse: the whole family is revoked", async () => {
      const { first, grantId } = await startGrant(ctx, pub);
      const second = await refreshed(app, pub, first.refresh_token);
      const third = await refreshed(app, pub, second.refresh_token);
      // A generation-1 token of this family that this server's key signed (its hash was never stored): the tag
      // proves it was issued here, the generation that it is no longer current.
      await expectError(
        await refresh(app, pub, mintRefreshToken(TEST_SECRET, grantId, 1)),
        400,
        "invalid_grant",
      );
      assert.equal((await familyState(sql, grantId)).revoked, true);
      await expectError(await refresh(app, pub, third.refresh_token), 400, "invalid_grant");
    });

    await t.step(
      `at most ${FAMILY_CURRENT_MAX} current tokens: a retry past them is refused, nothing else changes`,
      async () => {
        const { first, grantId } = await startGrant(ctx, pub);
        const winner = await refreshed(app, pub, first.refresh_token);
        const siblings: string[] = [];
        for (let i = 1; i < FAMILY_CURRENT_MAX; i++) {
          siblings.push((await refreshed(app, pub, first.refresh_token)).refresh_token);
        }
        const full = await familyState(sql, grantId);
        assert.equal(full.current.length, FAMILY_CURRENT_MAX);
        await expectError(await refresh(app, pub, first.refresh_token), 400, "invalid_grant");
        assert.deepEqual(await familyState(sql, grantId), full);
        // The tokens issued keep working: the first one used wins, as always.
        const next = await refreshed(app, pub, siblings[42]);
        assert.deepEqual(await familyState(sql, grantId), {
          revoked: false,
          generation: 3,
          current: [sha256Hex(next.refresh_token)],
          rotated: sha256Hex(siblings[42]),
        });
        assert.deepEqual(await tokenStanding(sql, winner.refresh_token), {
          standing: "superseded",
          familyRevoked: false,
        });
      },
    );

    await t.step(
      "after a SECRET_KEY change a current token still refreshes, by its hash; only hashes judge it",
      async () => {
        const { first, grantId } = await startGrant(ctx, pub);
        const second = await refreshed(app, pub, first.refresh_token);
        const third = await refreshed(app, pub, second.refresh_token);
        const deps = tokenDepsFor(sql, { secretKey: OTHER_SECRET });
        const creds = { clientId: pub.client_id, via: "body" as const };
        assert.equal(readRefreshToken(OTHER_SECRET, third.refresh_token)?.tagValid, false);
        const fourth = await refreshGrant(deps, creds, { refreshToken: third.refresh_token });
        assert.equal(decodeJwt(fourth.access_token).grant_id, grantId);
        // The successor is signed under the new key.
        assert.deepEqual(readRefreshToken(OTHER_SECRET, fourth.refresh_token!), {
          familyId: grantId,
          generation: 4,
          tagValid: true,
        });
        // An older token of the old key: its tag no longer proves anything and its hash is not stored — refused,
        // never counted as reuse.
        await assert.rejects(
          refreshGrant(deps, creds, { refreshToken: first.refresh_token }),
          (err: unknown) => err instanceof OAuthError && err.error === "invalid_grant",
        );
        assert.equal((await familyState(sql, grantId)).revoked, false);
        // The token rotated last, presented again in the window: its hash proves it, a retry gets a sibling.
        const sibling = await refreshGrant(deps, creds, { refreshToken: third.refresh_token });
        assert.equal(readRefreshToken(OTHER_SECRET, sibling.refresh_token!)?.tagValid, true);
        // … and after the window, the same token is reuse — proven by its hash, the family ends.
        const [aged] = await sql`
        update oauth_grants set refresh_rotated_at = refresh_rotated_at - interval '61 seconds'
         where id = ${grantId} and refresh_rotated_hash = ${sha256Hex(third.refresh_token)} returning id`;
        assert.ok(aged);
        await assert.rejects(
          refreshGrant(deps, creds, { refreshToken: third.refresh_token }),
          (err: unknown) => err instanceof OAuthError && err.error === "invalid_grant",
        );
        assert.equal((await familyState(sql, grantId)).revoked, true);
      },
    );
  } finally {
    await ctx.close();
  }
});
