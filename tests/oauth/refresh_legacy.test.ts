// Refresh tokens issued before migration 00031 keep working (docs/oauth.md "Tokens issued before the in-place
// rotation"): rows of oauth_refresh_legacy, found by hash. The live one of a family refreshes once into the grant
// row (a new-format successor, the sign-in carried over); from then on every legacy row of the family counts as
// rotated — a replay is a retry within the window or reuse, as for any rotated token. The sweeper deletes legacy
// rows a day after their expiry.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { createClient } from "../../lib/oauth/clients.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { readRefreshToken } from "../../lib/oauth/grants/refresh_format.ts";
import { sweep, sweepOptions } from "../../lib/oauth/sweeper.ts";
import { TEST_SCRYPT, TEST_SECRET, testApp } from "../helpers/app.ts";
import { emptyDatabase } from "../helpers/db.ts";
import { familyState } from "../helpers/refresh_family.ts";
import { type Ctx, expectError, type Registered, registerPublic, setup, token } from "./helpers.ts";

const AUTH_TIME = new Date("2026-03-01T08:30:00Z");

interface LegacyToken {
  token: string;
  rotated?: boolean;
  revoked?: boolean;
  expiresIn?: string;
}

/**
 * A grant as migration 00031 leaves one made before it (no refresh state in its row) and its refresh tokens as
 * rows of oauth_refresh_legacy, the way the code before it wrote them. Returns the grant id.
 */
async function legacyFamily(ctx: Ctx, client: Registered, tokens: LegacyToken[]): Promise<string> {
  const sql = ctx.db.sql;
  const scopes = ["openid", "profile"];
  const [grant] = await sql<{ id: string }[]>`
    insert into oauth_grants (client_id, user_id, scopes, created_at)
    values (${client.client_id}, ${ctx.user.id}, ${scopes}, now() - interval '2 days') returning id`;
  for (const t of tokens) {
    await sql`
      insert into oauth_refresh_legacy (token_hash, family_id, client_id, user_id, scopes, auth_time, amr, expires_at,
                                        rotated_at, revoked_at, created_at)
      values (${
      sha256Hex(t.token)
    }, ${grant.id}, ${client.client_id}, ${ctx.user.id}, ${scopes}, ${AUTH_TIME},
              ${["pwd", "otp", "mfa"]}, now() + ${t.expiresIn ?? "20 days"}::interval,
              case when ${t.rotated ?? false}::boolean then now() - interval '1 day' end,
              case when ${
      t.revoked ?? false
    }::boolean then now() - interval '1 day' end, now() - interval '2 days')`;
  }
  return grant.id;
}

function refresh(app: Ctx["app"], client: Registered, refreshToken: string) {
  return token(app, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
  });
}

Deno.test("legacy refresh tokens", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  const strict = testApp(ctx.db.sql, { REFRESH_REUSE_GRACE_SECONDS: "0" });
  const sql = ctx.db.sql;
  try {
    const pub = await registerPublic(app);

    await t.step(
      "a legacy token refreshes once into the grant row; its replay revokes the family",
      async () => {
        const legacy = randomToken("prt_");
        const older = randomToken("prt_");
        const grantId = await legacyFamily(ctx, pub, [{ token: older, rotated: true }, { token: legacy }]);
        const res = await refresh(strict, pub, legacy);
        assert.equal(res.status, 200, await res.clone().text());
        const body = await res.json();
        // A successor of the new format, generation 1 of the family, and the sign-in carried over.
        assert.deepEqual(readRefreshToken(TEST_SECRET, body.refresh_token), {
          familyId: grantId,
          generation: 1,
          tagValid: true,
        });
        assert.equal(decodeJwt(body.access_token).grant_id, grantId);
        const id = decodeJwt(body.id_token);
        assert.equal(id.auth_time, AUTH_TIME.getTime() / 1000);
        assert.deepEqual(id.amr, ["pwd", "otp", "mfa"]);
        assert.deepEqual(await familyState(sql, grantId), {
          revoked: false,
          generation: 1,
          current: [sha256Hex(body.refresh_token)],
          rotated: sha256Hex(legacy),
        });
        // The new-format successor refreshes as any token, with the same sign-in.
        const next = await (await refresh(strict, pub, body.refresh_token)).json();
        assert.equal(decodeJwt(next.id_token).auth_time, AUTH_TIME.getTime() / 1000);
        // The legacy token again: it was rotated (REFRESH_REUSE_GRACE_SECONDS=0): reuse, the family ends.
        await expectError(await refresh(strict, pub, legacy), 400, "invalid_grant");
        assert.equal((await familyState(sql, grantId)).revoked, true);
        await expectError(await refresh(strict, pub, next.refresh_token), 400, "invalid_grant");
        // Nothing wrote the legacy rows.
        const rows = await sql<{ rotated: boolean; revoked: boolean }[]>`
        select rotated_at is not null as rotated, revoked_at is not null as revoked from oauth_refresh_legacy
         where family_id = ${grantId} order by created_at, token_hash = ${sha256Hex(legacy)}`;
        assert.deepEqual(rows.map((r) => ({ ...r })), [
          { rotated: true, revoked: false },
          { rotated: false, revoked: false },
        ]);
      },
    );

    await t.step("within the window, a replay of the moved legacy token is a retry: a sibling", async () => {
      const legacy = randomToken("prt_");
      const grantId = await legacyFamily(ctx, pub, [{ token: legacy }]);
      const first = await (await refresh(app, pub, legacy)).json();
      const retry = await refresh(app, pub, legacy);
      assert.equal(retry.status, 200);
      const sibling = await retry.json();
      assert.equal(readRefreshToken(TEST_SECRET, sibling.refresh_token)?.generation, 1);
      assert.deepEqual(
        (await familyState(sql, grantId)).current,
        [sha256Hex(first.refresh_token), sha256Hex(sibling.refresh_token)].sort(),
      );
      // Once a successor is used, the legacy token is reuse.
      assert.equal((await refresh(app, pub, sibling.refresh_token)).status, 200);
      await expectError(await refresh(app, pub, legacy), 400, "invalid_grant");
      assert.equal((await familyState(sql, grantId)).revoked, true);
    });

    await t.step(
      "an older legacy token of a moved family, or a rotated one of a family not moved: reuse",
      async () => {
        const live = randomToken("prt_");
        const older = randomToken("prt_");
        const moved = await legacyFamily(ctx, pub, [{ token: older, rotated: true }, { token: live }]);
        assert.equal((await refresh(app, pub, live)).status, 200);
        await expectError(await refresh(app, pub, older), 400, "invalid_grant");
        assert.equal((await familyState(sql, moved)).revoked, true);

        const rotated = randomToken("prt_");
        const notMoved = await legacyFamily(ctx, pub, [{ token: rotated, rotated: true }, {
          token: randomToken("prt_"),
        }]);
        await expectError(await refresh(app, pub, rotated), 400, "invalid_grant");
        assert.deepEqual(await familyState(sql, notMoved), {
          revoked: true,
          generation: 0,
          current: [],
          rotated: null,
        });
      },
    );

    await t.step("refused legacy tokens change nothing: another client, expired, a wider scope", async () => {
      const other = await registerPublic(app, { client_name: "Other" });
      const legacy = randomToken("prt_");
      const expired = randomToken("prt_");
      const grantId = await legacyFamily(ctx, pub, [{ token: legacy }]);
      const expiredId = await legacyFamily(ctx, pub, [{ token: expired, expiresIn: "-1 second" }]);
      await expectError(await refresh(app, other, legacy), 400, "invalid_grant");
      await expectError(await refresh(app, pub, expired), 400, "invalid_grant");
      await expectError(
        await token(app, {
          grant_type: "refresh_token",
          refresh_token: legacy,
          client_id: pub.client_id,
          scope: "openid admin",
        }),
        400,
        "invalid_scope",
      );
      for (const id of [grantId, expiredId]) {
        assert.deepEqual(await familyState(sql, id), {
          revoked: false,
          generation: 0,
          current: [],
          rotated: null,
        });
      }
      assert.equal((await refresh(app, pub, legacy)).status, 200);
    });

    await t.step("revoking a legacy token (RFC 7009) ends its family", async () => {
      const legacy = randomToken("prt_");
      const grantId = await legacyFamily(ctx, pub, [{ token: legacy }]);
      const res = await app.request("/oauth/revoke", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: legacy, client_id: pub.client_id }).toString(),
      });
      assert.equal(res.status, 200);
      assert.equal((await familyState(sql, grantId)).revoked, true);
      await expectError(await refresh(app, pub, legacy), 400, "invalid_grant");
    });

    await t.step("the sweeper deletes legacy rows a day after their expiry, not before", async () => {
      const kept = randomToken("prt_");
      const grantId = await legacyFamily(ctx, pub, [
        { token: randomToken("prt_"), rotated: true, expiresIn: "-25 hours" },
        { token: randomToken("prt_"), rotated: true, expiresIn: "-23 hours" },
        { token: kept },
      ]);
      const before = (await sql<{ n: number }[]>`select count(*)::int as n from oauth_refresh_legacy`)[0].n;
      const swept = await sweep(sql, sweepOptions(parseConfig({})));
      assert.equal(swept.refresh_tokens, 1);
      const left = await sql<{ token_hash: string }[]>`
        select token_hash from oauth_refresh_legacy where family_id = ${grantId}`;
      assert.equal(left.length, 2);
      assert.ok(left.some((r) => r.token_hash === sha256Hex(kept)));
      assert.equal(
        (await sql<{ n: number }[]>`select count(*)::int as n from oauth_refresh_legacy`)[0].n,
        before - 1,
      );
      // The family itself is live (its legacy token can be used): the sweeper keeps the grant.
      assert.equal((await refresh(app, pub, kept)).status, 200);
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("a database from before migration 00031: its live refresh token refreshes after the upgrade", async () => {
  const db = await emptyDatabase();
  try {
    const before = MIGRATIONS.findIndex((m) => m.name === "00031_refresh_in_place.sql");
    await migrate(db.sql, MIGRATIONS.slice(0, before));
    const user = await createUser(db.sql, {
      email: "ada@example.com",
      password: "correct horse",
      name: "Ada",
    }, {
      scrypt: TEST_SCRYPT,
    });
    const client = await createClient(db.sql, {
      name: "Old app",
      redirectUris: ["http://127.0.0.1:8976/callback"],
      confidential: false,
      scopes: ["openid", "profile"],
      grantTypes: ["authorization_code", "refresh_token"],
      selfRegistered: false,
    });
    // What the code before 00031 stored for a family: the grant, a rotated token and the live one.
    const [grant] = await db.sql<{ id: string }[]>`
      insert into oauth_grants (client_id, user_id, scopes)
      values (${client.clientId}, ${user.id}, ${["openid", "profile"]}) returning id`;
    const live = randomToken("prt_");
    const rotated = randomToken("prt_");
    for (const [t, rotatedAt] of [[rotated, "now()"], [live, null]] as const) {
      await db.sql`
        insert into oauth_refresh_tokens (token_hash, family_id, client_id, user_id, scopes, auth_time, amr,
                                          expires_at, rotated_at)
        values (${sha256Hex(t)}, ${grant.id}, ${client.clientId}, ${user.id}, ${["openid", "profile"]},
                ${AUTH_TIME}, ${["pwd"]}, now() + interval '7 days',
                case when ${rotatedAt !== null}::boolean then now() end)`;
    }
    assert.deepEqual(await migrate(db.sql), ["00031_refresh_in_place.sql"]);

    const app = testApp(db.sql);
    const pub = { client_id: client.clientId };
    const res = await refresh(app, pub, live);
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(decodeJwt(body.id_token).auth_time, AUTH_TIME.getTime() / 1000);
    assert.equal(readRefreshToken(TEST_SECRET, body.refresh_token)?.familyId, grant.id);
    assert.equal((await refresh(app, pub, body.refresh_token)).status, 200);
    // The token rotated before the upgrade is still known: presenting it ends the family, as before.
    await expectError(await refresh(app, pub, rotated), 400, "invalid_grant");
    assert.equal((await familyState(db.sql, grant.id)).revoked, true);
  } finally {
    await db.close();
  }
});
