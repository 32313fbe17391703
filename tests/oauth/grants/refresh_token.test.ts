// The refresh_token grant (lib/oauth/grants/refresh_token.ts): rotation and reuse, narrowing, lifetimes, the
// audience a grant keeps, and the successor's scope on every path that issues one.
import { LOCKED_PATH_MARK } from "../../../lib/oauth/grants/refresh_family.ts";
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import postgres from "postgres";
import { sha256Hex } from "../../../lib/crypto.ts";
import { withTx } from "../../../lib/db/tx.ts";
import { RefreshHints } from "../../../lib/oauth/grants/refresh_hints.ts";
import { refreshGrant } from "../../../lib/oauth/grants/refresh_token.ts";
import { testApp } from "../../helpers/app.ts";
import { tokenStanding } from "../../helpers/refresh_family.ts";
import { waitingOnLock } from "../../helpers/wait.ts";
import {
  Browser,
  exchange,
  expectError,
  getCode,
  refreshWith,
  registerConfidential,
  type Registered,
  registerPublic,
  setup,
  token,
  tokenDepsFor,
} from "../helpers.ts";

Deno.test("refresh_token grant", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  const browser = new Browser(app);
  try {
    const pub = await registerPublic(app);

    await t.step(
      "refresh rotates; reusing a rotated token after the grace window revokes the whole family",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const first = await (await exchange(ctx, pub, code, verifier)).json();
        const r1 = await token(app, {
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: pub.client_id,
        });
        assert.equal(r1.status, 200);
        assert.equal(r1.headers.get("cache-control"), "no-store");
        const second = await r1.json();
        assert.notEqual(second.refresh_token, first.refresh_token);
        assert.ok(second.id_token, "openid grant gets an ID token on refresh too");
        // reuse of the rotated token, once the grace window (60 s by default) is over: docs/oauth.md
        await ctx.db
          .sql`update oauth_grants set refresh_rotated_at = refresh_rotated_at - interval '61 seconds'
        where refresh_rotated_hash = ${sha256Hex(first.refresh_token)}`;
        const reuse = await token(app, {
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: pub.client_id,
        });
        await expectError(reuse, 400, "invalid_grant");
        // the family is gone: the newest token fails as well
        const newest = await token(app, {
          grant_type: "refresh_token",
          refresh_token: second.refresh_token,
          client_id: pub.client_id,
        });
        await expectError(newest, 400, "invalid_grant");
      },
    );

    await t.step("refresh with a narrower scope; a wider one is invalid_scope", async () => {
      const { code, verifier } = await getCode(ctx, browser, pub);
      const first = await (await exchange(ctx, pub, code, verifier)).json();
      const narrow = await token(app, {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: pub.client_id,
        scope: "profile",
      });
      const nb = await narrow.json();
      assert.equal(narrow.status, 200);
      assert.equal(nb.scope, "profile");
      assert.equal(nb.id_token, undefined);
      const wide = await token(app, {
        grant_type: "refresh_token",
        refresh_token: nb.refresh_token,
        client_id: pub.client_id,
        scope: "openid profile agent.purchase",
      });
      await expectError(wide, 400, "invalid_scope");
    });

    await t.step(
      "refresh lifetimes: 7 days public, 30 days confidential; each rotation a full lifetime",
      async () => {
        const conf = await registerConfidential(app);
        const pc = await getCode(ctx, browser, pub);
        const a = await (await exchange(ctx, pub, pc.code, pc.verifier)).json();
        const cc = await getCode(ctx, browser, conf);
        const b = await (await exchange(ctx, conf, cc.code, cc.verifier)).json();
        // A current token's lifetime: its family's (the grant row's) expiry, from its issue.
        const days = async (t: string) => {
          const [row] = await ctx.db.sql<{ d: number }[]>`
          select round(extract(epoch from refresh_expires_at - refresh_issued_at) / 86400)::int as d
          from oauth_grants where ${sha256Hex(t)}::text = any(refresh_hashes)`;
          return row.d;
        };
        assert.equal(await days(a.refresh_token), 7);
        assert.equal(await days(b.refresh_token), 30);
        await ctx.db.sql`update oauth_grants set refresh_issued_at = now() - interval '3 days',
        refresh_expires_at = refresh_expires_at - interval '3 days'
        where ${sha256Hex(a.refresh_token)}::text = any(refresh_hashes)`;
        const rotated = await (await token(app, {
          grant_type: "refresh_token",
          refresh_token: a.refresh_token,
          client_id: pub.client_id,
        })).json();
        assert.equal(await days(rotated.refresh_token), 7);
      },
    );

    await t.step(
      "public client without the refresh_token grant: no refresh token, and the grant is refused",
      async () => {
        const noRefresh = await registerPublic(app, { grant_types: ["authorization_code"] });
        const { code, verifier } = await getCode(ctx, browser, noRefresh, { scope: "openid offline_access" });
        const body = await (await exchange(ctx, noRefresh, code, verifier)).json();
        assert.ok(body.access_token);
        assert.equal(body.refresh_token, undefined);
        assert.equal(body.scope, "openid");
        const res = await token(app, {
          grant_type: "refresh_token",
          refresh_token: "prt_x",
          client_id: noRefresh.client_id,
        });
        await expectError(res, 400, "unauthorized_client");
      },
    );
  } finally {
    await ctx.close();
  }
});

// Issue 14.1 and 14.7: a refused refresh changes nothing; a grant's audience is fixed at its first issuance.
// REFRESH_REUSE_GRACE_SECONDS=0, so a retry that succeeds proves the token was not rotated by the refusal.
// Issue 14.1 and 14.7: a refused request consumes nothing; a grant's audience is fixed at its first issuance.
// REFRESH_REUSE_GRACE_SECONDS=0, so a retry that succeeds proves the token was not rotated by the refusal.
Deno.test("refresh_token grant: validation before rotation, audience bound at first issuance", async (t) => {
  const ctx = await setup({ REFRESH_REUSE_GRACE_SECONDS: "0" });
  const app = ctx.app;
  const browser = new Browser(app);
  const rotated = (refreshToken: string) => tokenStanding(ctx.db.sql, refreshToken);
  const refresh = (client: { client_id: string }, refreshToken: string, extra: Record<string, string> = {}) =>
    refreshWith(app, client, refreshToken, extra);
  try {
    const pub = await registerPublic(app);

    await t.step(
      "a refresh refused with invalid_scope or invalid_target leaves the token usable",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub, {
          resource: "https://mcp.example.com/mcp",
        });
        const first = await (await exchange(ctx, pub, code, verifier)).json();
        await expectError(
          await refresh(pub, first.refresh_token, { scope: "openid agent.purchase" }),
          400,
          "invalid_scope",
        );
        assert.deepEqual(await rotated(first.refresh_token), { standing: "current", familyRevoked: false });
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "https://other.example.com/mcp" }),
          400,
          "invalid_target",
        );
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "not a uri" }),
          400,
          "invalid_target",
        );
        assert.deepEqual(await rotated(first.refresh_token), { standing: "current", familyRevoked: false });
        // The retry is a normal rotation, not reuse: 200, and the family lives on.
        const retry = await refresh(pub, first.refresh_token, { scope: "openid" });
        assert.equal(retry.status, 200);
        const body = await retry.json();
        assert.equal(body.scope, "openid");
        assert.equal(decodeJwt(body.access_token).aud, "https://mcp.example.com/mcp");
        assert.equal((await refresh(pub, body.refresh_token)).status, 200);
      },
    );

    await t.step(
      "a grant bound to no resource: a refresh may repeat its audience (the issuer), never change it",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const first = await (await exchange(ctx, pub, code, verifier)).json();
        assert.equal(decodeJwt(first.access_token).aud, "http://localhost:8000");
        const moved = await expectError(
          await refresh(pub, first.refresh_token, { resource: "https://elsewhere.example.com/api" }),
          400,
          "invalid_target",
        );
        assert.match(moved.error_description, /http:\/\/localhost:8000/);
        assert.deepEqual(await rotated(first.refresh_token), { standing: "current", familyRevoked: false });
        const same = await refresh(pub, first.refresh_token, { resource: "http://localhost:8000" });
        assert.equal(same.status, 200);
        const body = await same.json();
        assert.equal(decodeJwt(body.access_token).aud, "http://localhost:8000");
        const plain = await (await refresh(pub, body.refresh_token)).json();
        assert.equal(decodeJwt(plain.access_token).aud, "http://localhost:8000");
      },
    );

    await t.step(
      "a resource named first at the token endpoint binds the grant; refreshes keep it",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const first =
          await (await exchange(ctx, pub, code, verifier, { resource: "https://mcp.example.com/mcp" }))
            .json();
        assert.equal(decodeJwt(first.access_token).aud, "https://mcp.example.com/mcp");
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "https://other.example.com/mcp" }),
          400,
          "invalid_target",
        );
        await expectError(
          await refresh(pub, first.refresh_token, { resource: "http://localhost:8000" }),
          400,
          "invalid_target",
        );
        const plain = await (await refresh(pub, first.refresh_token)).json();
        assert.equal(decodeJwt(plain.access_token).aud, "https://mcp.example.com/mcp");
      },
    );
  } finally {
    await ctx.close();
  }
});

// The successor refresh token keeps the grant's full scope (RFC 6749 §6): a `scope` narrowing applies to the one
// access token it asks for. Four places issue a successor — the statement's rotation and its in-window sibling,
// the locked path's rotation and its sibling — and the instance notes a hint for it; each is pinned here, by the
// stored scope and by what the successor may ask for next.
Deno.test("refresh_token grant: the successor keeps the granted scope, on every path", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  const browser = new Browser(app);
  // A second app on its own connection, counting the statements it sends: the locked path is more than one.
  let queries: string[] = [];
  const counted = postgres(ctx.db.url, {
    max: 1,
    onnotice: () => {},
    debug: (_conn: number, query: string) => queries.push(query),
  });
  // deno-lint-ignore no-explicit-any
  const countedApp = testApp(counted as any);
  const GRANTED = ["openid", "profile"];
  // A refresh token's scope is its family's (the grant row's): the token must be a current one of a family that
  // holds the scope.
  const storedScopes = async (refreshToken: string) => {
    const [row] = await ctx.db.sql<{ scopes: string[] }[]>`
      select scopes from oauth_grants where ${sha256Hex(refreshToken)}::text = any(refresh_hashes)`;
    return row.scopes;
  };
  const refresh = (
    via: typeof app,
    client: { client_id: string },
    refreshToken: string,
    extra: Record<string, string> = {},
  ) =>
    token(via, {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: client.client_id,
      ...extra,
    });
  const start = async (client: Registered) => {
    const { code, verifier } = await getCode(ctx, browser, client);
    const first = await (await exchange(ctx, client, code, verifier)).json();
    assert.deepEqual(await storedScopes(first.refresh_token), GRANTED);
    return { first, grantId: decodeJwt(first.access_token).grant_id as string };
  };
  /** A narrowed refresh's successor: stored with the full scope, and it may ask for the rest of it next. */
  const expectFullSuccessor = async (narrowed: { scope: string; refresh_token: string }) => {
    assert.equal(narrowed.scope, "profile");
    assert.deepEqual(await storedScopes(narrowed.refresh_token), GRANTED);
    const next = await refresh(app, pub, narrowed.refresh_token, { scope: "openid" });
    assert.equal(next.status, 200, await next.clone().text());
    const body = await next.json();
    assert.equal(body.scope, "openid");
    assert.ok(body.id_token, "openid was granted, so the successor still gets an ID token");
    assert.deepEqual(await storedScopes(body.refresh_token), GRANTED);
  };
  /** Runs `request` while another connection holds the family's lock, and lets go once it waits there. */
  const whileFamilyLocked = async (grantId: string, request: () => Promise<Response>): Promise<Response> => {
    const other = postgres(ctx.db.url, { max: 1, onnotice: () => {} });
    const { promise: holding, resolve: held } = Promise.withResolvers<void>();
    const { promise: release, resolve: letGo } = Promise.withResolvers<void>();
    // A change to the family that commits while the refresh waits for it: the statement skips the held row (it
    // never waits behind another transaction) and the locked path waits for it, then reads the change.
    const tx = withTx(other, async (tx) => {
      await tx`update oauth_grants set revoked_at = null where id = ${grantId}`;
      held();
      await release;
    });
    try {
      await holding;
      const pending = request();
      await waitingOnLock(ctx.db.sql, "the locked path waits on the grant row", 1, `%${LOCKED_PATH_MARK}%`);
      letGo();
      await tx;
      return await pending;
    } finally {
      letGo();
      await tx.catch(() => {});
      await other.end({ timeout: 5 });
    }
  };
  let pub: Registered;
  try {
    pub = await registerPublic(app);
    // Warm the counting app: it loads its signing key once, with statements of its own.
    const warm = await refresh(countedApp, pub, (await start(pub)).first.refresh_token);
    assert.equal(warm.status, 200);
    await warm.body?.cancel();

    await t.step("the one statement: a narrowed rotation and a narrowed retry in the window", async () => {
      const { first } = await start(pub);
      queries = [];
      const res = await refresh(countedApp, pub, first.refresh_token, { scope: "profile" });
      assert.equal(res.status, 200);
      assert.equal(queries.length, 1, "the statement path");
      const narrowed = await res.json();
      assert.equal(narrowed.id_token, undefined);
      assert.equal(narrowed.scope, "profile");
      assert.deepEqual(await storedScopes(narrowed.refresh_token), GRANTED);
      // A retry of the rotated token (a lost response): a sibling successor, from the same statement.
      queries = [];
      const retry = await refresh(countedApp, pub, first.refresh_token, { scope: "profile" });
      assert.equal(retry.status, 200);
      assert.equal(queries.length, 1, "the statement path");
      // (Using the sibling supersedes the first successor: each is checked before it is used or superseded.)
      await expectFullSuccessor(await retry.json());
    });

    await t.step({
      name: "the locked path: a narrowed rotation after a concurrent change to the family",
      ignore: !ctx.db.server, // needs two connections at once
      fn: async () => {
        const { first, grantId } = await start(pub);
        queries = [];
        const res = await whileFamilyLocked(
          grantId,
          () => refresh(countedApp, pub, first.refresh_token, { scope: "profile" }),
        );
        assert.equal(res.status, 200, await res.clone().text());
        assert.ok(queries.length > 1, "the locked path (the statement did nothing)");
        await expectFullSuccessor(await res.json());
      },
    });

    await t.step({
      name: "the locked path: a narrowed retry in the window after a concurrent change gets a full sibling",
      ignore: !ctx.db.server,
      fn: async () => {
        const { first, grantId } = await start(pub);
        const rotated = await refresh(app, pub, first.refresh_token);
        assert.equal(rotated.status, 200);
        await rotated.body?.cancel();
        queries = [];
        const retry = await whileFamilyLocked(
          grantId,
          () => refresh(countedApp, pub, first.refresh_token, { scope: "profile" }),
        );
        assert.equal(retry.status, 200, await retry.clone().text());
        assert.ok(queries.length > 1, "the locked path (the statement did nothing)");
        await expectFullSuccessor(await retry.json());
      },
    });

    await t.step("the hint noted for a narrowed refresh's successor carries the granted scope", async () => {
      const { first } = await start(pub);
      const hints = new RefreshHints();
      const deps = tokenDepsFor(ctx.db.sql, { refreshHints: hints });
      const creds = { clientId: pub.client_id, via: "body" as const };
      const narrowed = await refreshGrant(deps, creds, {
        refreshToken: first.refresh_token,
        scope: "profile",
      });
      assert.equal(narrowed.scope, "profile");
      assert.deepEqual(hints.take(sha256Hex(narrowed.refresh_token!))?.scopes, GRANTED);
      await expectFullSuccessor({ scope: narrowed.scope, refresh_token: narrowed.refresh_token! });
    });
  } finally {
    await counted.end({ timeout: 5 });
    await ctx.close();
  }
});
