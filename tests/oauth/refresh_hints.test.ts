// Refresh hints (issue 17.3): a refresh of a token this instance issued signs its access and ID token while its
// statement runs. The early tokens are used only for a successful rotation with exactly the hinted claims;
// a refused refresh or a request that differs from the hint never sees them.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { refreshGrant } from "../../lib/oauth/grants/refresh_token.ts";
import { revokeGrant } from "../../lib/oauth/grants/shared.ts";
import { createKeyStore, type KeyStore } from "../../lib/oauth/keys.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";
import { REFRESH_HINTS_MAX, RefreshHints } from "../../lib/oauth/grants/refresh_hints.ts";
import { atHash } from "../../lib/oauth/tokens.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  type Registered,
  registerPublic,
  setup,
  tokenDepsFor,
} from "./helpers.ts";

/** A key store whose signer counts its signatures. */
function countingKeys(keys: KeyStore): KeyStore & { signatures: number } {
  const counting = {
    signatures: 0,
    signing: async () => {
      const s = await keys.signing();
      return {
        ...s,
        signer: {
          sign: (data: Uint8Array) => {
            counting.signatures++;
            return s.signer.sign(data);
          },
        },
      };
    },
    verificationKey: (kid: string) => keys.verificationKey(kid),
    jwks: () => keys.jwks(),
    invalidate: () => keys.invalidate(),
  };
  return counting;
}

async function firstRefreshToken(ctx: Ctx, client: Registered): Promise<string> {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client, { scope: "openid profile" });
  const res = await exchange(ctx, client, code, verifier);
  assert.equal(res.status, 200);
  return (await res.json()).refresh_token;
}

Deno.test("RefreshHints: taken once, oldest evicted first", () => {
  const hints = new RefreshHints(2);
  const hint = (userId: string) => ({
    clientId: "c",
    userId,
    grantId: "g",
    scopes: ["openid"],
    resource: null,
    authTime: new Date(0),
    amr: ["pwd"],
  });
  hints.remember("a", hint("1"));
  hints.remember("b", hint("2"));
  hints.remember("c", hint("3"));
  assert.equal(hints.size, 2);
  assert.equal(hints.take("a"), undefined);
  assert.equal(hints.take("b")?.userId, "2");
  assert.equal(hints.take("b"), undefined);
  assert.equal(new RefreshHints().max, REFRESH_HINTS_MAX);
});

Deno.test("refresh hints", async (t) => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    const keys = countingKeys(createKeyStore(ctx.db.sql, TEST_SECRET));
    const hints = new RefreshHints();
    const deps = tokenDepsFor(ctx.db.sql, { keys, refreshHints: hints });
    const creds = { clientId: client.client_id, via: "body" as const };
    const refresh = (refreshToken: string, extra: { scope?: string; resource?: string } = {}) =>
      refreshGrant(deps, creds, { refreshToken, ...extra });

    await t.step("a hinted refresh signs two tokens, once, with the stored claims", async () => {
      const first = await firstRefreshToken(ctx, client);
      // Issued by the app, not by these deps: no hint, signed after the statement.
      const second = await refresh(first);
      assert.equal(hints.size, 1);
      keys.signatures = 0;
      const third = await refresh(second.refresh_token!);
      assert.equal(keys.signatures, 2); // the early access and ID token were used, none signed again
      const claims = decodeJwt(third.access_token);
      const before = decodeJwt(second.access_token);
      for (const name of ["sub", "aud", "client_id", "scope", "grant_id", "auth_time"]) {
        assert.deepEqual(claims[name], before[name], name);
      }
      assert.equal(third.scope, "openid profile");
      const id = decodeJwt(third.id_token!);
      assert.equal(id.aud, client.client_id);
      assert.equal(id.at_hash, atHash(third.access_token));
      assert.equal(hints.size, 1); // the successor's hint; the used one was taken
    });

    await t.step(
      "a narrowed refresh is signed early for the narrowed scope; the next gets the full scope",
      async () => {
        const first = await firstRefreshToken(ctx, client);
        const second = await refresh(first);
        keys.signatures = 0;
        const narrowed = await refresh(second.refresh_token!, { scope: "profile" });
        assert.equal(keys.signatures, 1); // no openid: no ID token
        assert.equal(decodeJwt(narrowed.access_token).scope, "profile");
        assert.equal(narrowed.id_token, undefined);
        keys.signatures = 0;
        const full = await refresh(narrowed.refresh_token!);
        assert.equal(keys.signatures, 2);
        assert.equal(decodeJwt(full.access_token).scope, "openid profile");
      },
    );

    await t.step(
      "a family revoked after the hint was noted: invalid_grant, the early tokens unused",
      async () => {
        const first = await firstRefreshToken(ctx, client);
        const second = await refresh(first);
        const grantId = decodeJwt(second.access_token).grant_id as string;
        await ctx.db.sql.begin((tx) => revokeGrant(tx, grantId));
        keys.signatures = 0;
        const size = hints.size;
        await assert.rejects(
          refresh(second.refresh_token!),
          (err: unknown) => err instanceof OAuthError && err.error === "invalid_grant",
        );
        // Signed early (the ID token may still be on its way when the refusal returns), then dropped.
        assert.ok(keys.signatures >= 1, `${keys.signatures}`);
        assert.equal(hints.size, size - 1); // its hint taken, nothing remembered for a refused refresh
      },
    );

    await t.step("a request that differs from the hint signs nothing early", async () => {
      const first = await firstRefreshToken(ctx, client);
      const second = await refresh(first);
      keys.signatures = 0;
      await assert.rejects(
        refresh(second.refresh_token!, { scope: "openid admin" }),
        (err: unknown) => err instanceof OAuthError && err.error === "invalid_scope",
      );
      await assert.rejects(
        refresh(second.refresh_token!, { resource: "https://elsewhere.example/api" }),
        (err: unknown) => err instanceof OAuthError && err.error === "invalid_target",
      );
      assert.equal(keys.signatures, 0);
      // The hint was taken by the first attempt: the token still rotates, signed after its statement.
      const ok = await refresh(second.refresh_token!);
      assert.equal(keys.signatures, 2);
      assert.equal(decodeJwt(ok.access_token).scope, "openid profile");
    });

    await t.step(
      "tokens signed early for claims the family no longer has are dropped and signed again",
      async () => {
        const first = await firstRefreshToken(ctx, client);
        const second = await refresh(first);
        const grantId = decodeJwt(second.access_token).grant_id as string;
        // After the hint was noted, the family's sign-in changes (as a person signing in again would have it).
        const signedIn = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
        await ctx.db.sql`update oauth_grants set auth_time = ${signedIn}, amr = ${[
          "pwd",
          "otp",
        ]} where id = ${grantId}`;
        keys.signatures = 0;
        const third = await refresh(second.refresh_token!);
        // Two signed early for the hinted claims, dropped; two for the claims the statement returned.
        assert.equal(keys.signatures, 4);
        const id = decodeJwt(third.id_token!);
        assert.equal(id.auth_time, signedIn.getTime() / 1000);
        assert.deepEqual(id.amr, ["pwd", "otp"]);
      },
    );

    await t.step("a replay of a rotated hinted token revokes the family and signs nothing", async () => {
      const grace = { ...deps, refreshGraceSeconds: 0 };
      const first = await firstRefreshToken(ctx, client);
      const second = await refreshGrant(grace, creds, { refreshToken: first });
      const third = await refreshGrant(grace, creds, { refreshToken: second.refresh_token! });
      keys.signatures = 0;
      await assert.rejects(
        refreshGrant(grace, creds, { refreshToken: second.refresh_token! }),
        (err: unknown) => err instanceof OAuthError && err.error === "invalid_grant",
      );
      assert.equal(keys.signatures, 0);
      await assert.rejects(
        refreshGrant(grace, creds, { refreshToken: third.refresh_token! }),
        (err: unknown) => err instanceof OAuthError && err.error === "invalid_grant",
      );
    });
  } finally {
    await ctx.close();
  }
});
