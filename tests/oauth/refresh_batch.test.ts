// Refreshes in one statement (lib/oauth/grants/refresh_batch.ts and refresh_statements.ts; docs/oauth.md
// "Refreshes in one statement"): refreshes that arrive while the instance's statements run go together, each gets
// exactly what it would have got alone, two of one family in one statement are a rotation and a retry, and a
// statement Postgres refuses is sent again member by member so that no refresh fails for another's sake.
import assert from "node:assert/strict";
import { sha256Hex } from "../../lib/crypto.ts";
import {
  batchRefreshes,
  REFRESH_BATCHES_IN_FLIGHT,
  type RefreshBatcher,
  refreshOne,
} from "../../lib/oauth/grants/refresh_batch.ts";
import {
  type RefreshMember,
  refreshStatement,
  ROTATION_STATEMENT_MARK,
  rotationStatement,
} from "../../lib/oauth/grants/refresh_statements.ts";
import { LOCKED_PATH_MARK } from "../../lib/oauth/grants/refresh_family.ts";
import { mintRefreshToken, readRefreshToken } from "../../lib/oauth/grants/refresh_format.ts";
import { refreshGrant } from "../../lib/oauth/grants/refresh_token.ts";
import type { TokenDeps } from "../../lib/oauth/grants/shared.ts";
import postgres from "postgres";
import { TEST_SECRET, testApp } from "../helpers/app.ts";
import { countingSql } from "../helpers/db.ts";
import { familyState } from "../helpers/refresh_family.ts";
import { settles, waitingOnLock } from "../helpers/wait.ts";
import {
  type Ctx,
  expectError,
  refreshWith,
  type Registered,
  registerPublic,
  setup,
  startGrant,
  tokenDepsFor,
} from "./helpers.ts";

function tokenDeps(ctx: Ctx, inFlight: number): TokenDeps & { refreshBatcher: RefreshBatcher } {
  const deps = tokenDepsFor(ctx.db.sql);
  return Object.assign(deps, { refreshBatcher: batchRefreshes(deps, inFlight) });
}

/** The statement's input for a refresh of `token` by a public client, as refreshGrant builds it. */
function memberFor(client: Registered, token: string): RefreshMember {
  const presented = readRefreshToken(TEST_SECRET, token)!;
  return {
    clientId: client.client_id,
    secretHash: null,
    viaBody: true,
    familyId: presented.familyId,
    generation: presented.generation,
    tokenHash: sha256Hex(token),
    freshHash: sha256Hex(mintRefreshToken(TEST_SECRET, presented.familyId, presented.generation + 1)),
    asked: null,
    resource: null,
  };
}

/**
 * Holds a row on a connection of its own (`lock` selects it FOR UPDATE in a transaction) until `release()`, as
 * another instance, an operator or a revocation would; `end()` releases it and closes the connection.
 */
async function holdRow(ctx: Ctx, lock: (tx: postgres.TransactionSql) => Promise<unknown>) {
  const other = postgres(ctx.db.url, { max: 1, onnotice: () => {} });
  const { promise: holding, resolve: held } = Promise.withResolvers<void>();
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const tx = other.begin(async (tx) => {
    await lock(tx);
    held();
    await released;
  });
  await Promise.race([holding, tx]);
  return {
    /** lets the row go and waits for the other transaction to end */
    async release() {
      release();
      await tx;
    },
    async end() {
      release();
      await tx.catch(() => {});
      await other.end({ timeout: 5 });
    },
  };
}

type Held = Awaited<ReturnType<typeof holdRow>>;

/**
 * A test that holds rows on other connections (`hold`, as holdRow): it needs a server, which serves two
 * connections at once. Every row held is let go and every connection closed, however the test ends.
 */
function heldRowTest(
  name: string,
  fn: (
    ctx: Ctx,
    hold: (lock: (tx: postgres.TransactionSql) => Promise<unknown>) => Promise<Held>,
  ) => Promise<void>,
) {
  Deno.test({
    name,
    ignore: !Deno.env.get("DATABASE_URL"),
    fn: async () => {
      const ctx = await setup();
      const held: Held[] = [];
      try {
        await fn(ctx, async (lock) => {
          const h = await holdRow(ctx, lock);
          held.push(h);
          return h;
        });
      } finally {
        for (const h of held) await h.end();
        await ctx.close();
      }
    },
  });
}

async function families(ctx: Ctx, client: Registered, n: number) {
  const out: { token: string; grantId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const { first, grantId } = await startGrant(ctx, client);
    out.push({ token: first.refresh_token, grantId });
  }
  return out;
}

Deno.test("refresh batch: refreshes that arrive while a statement runs go in the next one, each rotated as alone", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    const started = await families(ctx, client, 6);
    const deps = tokenDeps(ctx, 1);
    const creds = { clientId: client.client_id, via: "body" as const };
    const answers = await Promise.all(
      started.map((f) => refreshGrant(deps, creds, { refreshToken: f.token })),
    );
    // The first went alone; the five that arrived meanwhile went together.
    assert.deepEqual(
      { statements: deps.refreshBatcher.statements, refreshes: deps.refreshBatcher.refreshes },
      {
        statements: 2,
        refreshes: 6,
      },
    );
    for (const [i, f] of started.entries()) {
      const successor = answers[i].refresh_token!;
      assert.equal(readRefreshToken(TEST_SECRET, successor)!.familyId, f.grantId);
      assert.deepEqual(await familyState(ctx.db.sql, f.grantId), {
        revoked: false,
        generation: readRefreshToken(TEST_SECRET, f.token)!.generation + 1,
        current: [sha256Hex(successor)],
        rotated: sha256Hex(f.token),
      });
    }
    // A token of the batch, presented again after the window would be reuse; within it, a retry's sibling.
    const again = await refreshGrant(deps, creds, { refreshToken: started[3].token });
    assert.equal((await familyState(ctx.db.sql, started[3].grantId)).current.length, 2);
    assert.ok(again.refresh_token);
  } finally {
    await ctx.close();
  }
});

Deno.test("refresh batch: two refreshes of one token in one statement are a rotation and a retry's sibling", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    const [a, b] = await families(ctx, client, 2);
    const deps = tokenDeps(ctx, 1);
    const creds = { clientId: client.client_id, via: "body" as const };
    // `a` occupies the one statement in flight; both refreshes of `b`'s token wait and go in one statement.
    const [, x, y] = await Promise.all([
      refreshGrant(deps, creds, { refreshToken: a.token }),
      refreshGrant(deps, creds, { refreshToken: b.token }),
      refreshGrant(deps, creds, { refreshToken: b.token }),
    ]);
    // a's rotation statement, then b's: it rotated one of the two; the other went to the checking statement.
    assert.deepEqual(
      { statements: deps.refreshBatcher.statements, refreshes: deps.refreshBatcher.refreshes },
      {
        statements: 3,
        refreshes: 3,
      },
    );
    // One was rotated by the rotation statement; the other, written by none of its updates, found the token
    // rotated a moment ago in the checking statement: a retry within the window, so a sibling.
    assert.notEqual(x.refresh_token, y.refresh_token);
    assert.deepEqual(await familyState(ctx.db.sql, b.grantId), {
      revoked: false,
      generation: readRefreshToken(TEST_SECRET, b.token)!.generation + 1,
      current: [sha256Hex(x.refresh_token!), sha256Hex(y.refresh_token!)].sort(),
      rotated: sha256Hex(b.token),
    });
    // At the statement itself: of two members of one family, exactly one is issued.
    const fresh = (await families(ctx, client, 1))[0];
    const rows = await refreshStatement(deps, [
      memberFor(client, fresh.token),
      memberFor(client, fresh.token),
    ]);
    assert.deepEqual(rows.map((r) => r.issued).sort(), [false, true]);
    // The same at the rotation statement: it rotates exactly one of the two.
    const again = (await families(ctx, client, 1))[0];
    const rotated = await rotationStatement(deps, [
      memberFor(client, again.token),
      memberFor(client, again.token),
    ]);
    assert.equal(rotated.size, 1);
    assert.equal((await familyState(ctx.db.sql, again.grantId)).current.length, 1);
  } finally {
    await ctx.close();
  }
});

Deno.test("refresh batch: a statement Postgres refuses is sent again member by member; none fails for another", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    const [a, b, c] = await families(ctx, client, 3);
    const deps = tokenDeps(ctx, 1);
    // A member whose family id is no uuid (refreshGrant never builds one: the id comes from the token) makes
    // Postgres refuse the whole statement (22P02); sent again alone, the others are answered as alone.
    const broken = { ...memberFor(client, c.token), familyId: "not-a-uuid" };
    const results = await Promise.allSettled([
      refreshOne(deps, memberFor(client, a.token)),
      refreshOne(deps, memberFor(client, b.token)),
      refreshOne(deps, broken),
    ]);
    assert.equal(results[0].status, "fulfilled");
    assert.equal(results[1].status, "fulfilled");
    assert.equal(results[2].status, "rejected");
    assert.equal(((results[2] as PromiseRejectedResult).reason as { code: string }).code, "22P02");
    assert.equal((results[1] as PromiseFulfilledResult<{ issued: boolean }>).value.issued, true);
    // one alone, the batch of two that failed, and each of those two again
    assert.equal(deps.refreshBatcher.statements, 4);
    assert.equal((await familyState(ctx.db.sql, b.grantId)).rotated, sha256Hex(b.token));
    assert.equal((await familyState(ctx.db.sql, c.grantId)).rotated, null);
  } finally {
    await ctx.close();
  }
});

Deno.test("refresh batch: a value one JSON document cannot carry goes alone, and the others are not held up", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    const [a, b, c] = await families(ctx, client, 3);
    const deps = tokenDeps(ctx, 1);
    const creds = { clientId: client.client_id, via: "body" as const };
    const results = await Promise.allSettled([
      refreshGrant(deps, creds, { refreshToken: a.token }),
      refreshGrant(deps, creds, { refreshToken: b.token, scope: "openid\u0000" }),
      refreshGrant(deps, creds, { refreshToken: c.token, scope: "profile \ud800" }),
      refreshGrant(deps, creds, { refreshToken: b.token, scope: "openid" }),
    ]);
    for (const r of [results[1], results[2]]) {
      assert.equal(r.status, "rejected");
      assert.equal(((r as PromiseRejectedResult).reason as { error?: string }).error, "invalid_scope");
    }
    assert.equal(results[0].status, "fulfilled");
    assert.equal(results[3].status, "fulfilled");
    // At the token endpoint the form already refuses a U+0000 (invalid_request); a quote, outside the scope
    // syntax, is invalid_scope. Neither reaches a statement.
    const fresh = (await families(ctx, client, 1))[0];
    await expectError(
      await refreshWith(ctx.app, client, fresh.token, { scope: "openid\u0000" }),
      400,
      "invalid_request",
    );
    await expectError(
      await refreshWith(ctx.app, client, fresh.token, { scope: 'open"id' }),
      400,
      "invalid_scope",
    );
    assert.equal((await familyState(ctx.db.sql, fresh.grantId)).rotated, null, "nothing changed");
    // neither odd request went through the batcher: one alone, then the narrowed refresh of b
    assert.deepEqual(
      { statements: deps.refreshBatcher.statements, refreshes: deps.refreshBatcher.refreshes },
      {
        statements: 2,
        refreshes: 2,
      },
    );
  } finally {
    await ctx.close();
  }
});

heldRowTest(
  "refresh batch: a family another transaction holds goes to the locked path and holds up no other refresh",
  async (ctx, hold) => {
    const client = await registerPublic(ctx.app);
    const [a, b] = await families(ctx, client, 2);
    const deps = tokenDeps(ctx, 1);
    const creds = { clientId: client.client_id, via: "body" as const };
    // Another transaction holds a's grant row (as a revocation or another instance's locked path would).
    const held = await hold((tx) => tx`select 1 from oauth_grants where id = ${a.grantId} for update`);
    const first = refreshGrant(deps, creds, { refreshToken: a.token });
    // The one statement in flight skipped the held row: what waits for it is a's locked path, on a connection
    // of its own. (Waiting in the statement, it would hold up every refresh of the instance behind it.)
    await waitingOnLock(ctx.db.sql, "a's refresh waits on the held grant row", 1, "%portico: refresh%");
    const [waiting] = await ctx.db.sql<{ query: string }[]>`
    select query from pg_stat_activity
     where wait_event_type = 'Lock' and datname = current_database() and query like '%portico: refresh%'`;
    assert.ok(waiting.query.includes(LOCKED_PATH_MARK), waiting.query.slice(0, 200));
    // b's refresh is answered while a's row is still held.
    const second = await settles(refreshGrant(deps, creds, { refreshToken: b.token }), "b's refresh");
    assert.equal((await familyState(ctx.db.sql, b.grantId)).rotated, sha256Hex(b.token));
    assert.equal((await familyState(ctx.db.sql, a.grantId)).rotated, null, "a is not rotated while held");
    await held.release();
    const answer = await first;
    assert.deepEqual(await familyState(ctx.db.sql, a.grantId), {
      revoked: false,
      generation: readRefreshToken(TEST_SECRET, a.token)!.generation + 1,
      current: [sha256Hex(answer.refresh_token!)],
      rotated: sha256Hex(a.token),
    });
    assert.ok(second.refresh_token);
    // a: the rotation and the checking statement (both skipped its row), then the locked path; b: the rotation.
    assert.deepEqual(
      { statements: deps.refreshBatcher.statements, refreshes: deps.refreshBatcher.refreshes },
      { statements: 3, refreshes: 2 },
    );
  },
);

heldRowTest(
  "refresh batch: a client row another transaction holds leaves its hourly last-use note for the next refresh",
  async (ctx, hold) => {
    const client = await registerPublic(ctx.app);
    const [a] = await families(ctx, client, 1);
    const deps = tokenDeps(ctx, 1);
    const creds = { clientId: client.client_id, via: "body" as const };
    const lastUsed = async () =>
      (await ctx.db.sql<{ stale: boolean }[]>`
      select last_used_at < now() - interval '1 hour' as stale from oauth_clients
       where client_id = ${client.client_id}`)[0].stale;
    await ctx.db.sql`update oauth_clients set last_used_at = now() - interval '2 hours'
                    where client_id = ${client.client_id}`;
    // Another transaction holds the client's row (an operator editing the client, say).
    const held = await hold((tx) =>
      tx`select 1 from oauth_clients where client_id = ${client.client_id} for update`
    );
    // The refresh is rotated and answered while the row is held; the note waits for a later refresh.
    const first = await settles(refreshGrant(deps, creds, { refreshToken: a.token }), "the refresh");
    assert.equal((await familyState(ctx.db.sql, a.grantId)).rotated, sha256Hex(a.token));
    assert.equal(await lastUsed(), true, "the held client row is not written");
    await held.release();
    await refreshGrant(deps, creds, { refreshToken: first.refresh_token! });
    assert.equal(await lastUsed(), false, "the next refresh notes the use");
  },
);

Deno.test("refresh batch: the client's hourly last-use note rides a rotation statement only when it is due", async () => {
  const ctx = await setup();
  const { sql: counted, sent } = countingSql(ctx.db.url);
  try {
    const client = await registerPublic(ctx.app);
    const [a, b] = await families(ctx, client, 2);
    const deps = tokenDepsFor(counted);
    const creds = { clientId: client.client_id, via: "body" as const };
    const rotations = () => sent.filter((q) => q.includes(ROTATION_STATEMENT_MARK));
    const lastUsed = async () =>
      (await ctx.db.sql<{ at: Date | null }[]>`
        select last_used_at as at from oauth_clients where client_id = ${client.client_id}`)[0].at;
    await ctx.db.sql`update oauth_clients set last_used_at = null where client_id = ${client.client_id}`;
    // Unknown to this instance: the note goes with the rotation.
    const first = await refreshGrant(deps, creds, { refreshToken: a.token });
    assert.equal(rotations().length, 1);
    assert.ok(rotations()[0].includes("touched as"), "the first rotation carries the note");
    const noted = await lastUsed();
    assert.ok(noted, "last_used_at written");
    // Noted within the hour: the next rotations go without it, and leave the column as it was.
    await refreshGrant(deps, creds, { refreshToken: first.refresh_token! });
    await refreshGrant(deps, creds, { refreshToken: b.token });
    assert.equal(rotations().length, 3);
    assert.deepEqual(rotations().slice(1).map((q) => q.includes("touched as")), [false, false]);
    assert.equal((await lastUsed())?.getTime(), noted.getTime());
  } finally {
    await counted.end({ timeout: 5 });
    await ctx.close();
  }
});

Deno.test("refresh batch: the token endpoint batches its refreshes (one statement in flight, then together)", async () => {
  const ctx = await setup();
  // The app on a pool of its own that notes every statement it sends.
  const { sql: counted, sent } = countingSql(ctx.db.url, { max: 10 });
  try {
    const app = testApp(counted);
    const client = await registerPublic(ctx.app);
    const started = await families(ctx, client, REFRESH_BATCHES_IN_FLIGHT + 3);
    // Warm the app (its signing key, its client directory) so that the refreshes below arrive together.
    await (await refreshWith(app, client, (await families(ctx, client, 1))[0].token)).body?.cancel();
    sent.length = 0;
    const answers = await Promise.all(started.map((f) => refreshWith(app, client, f.token)));
    for (const res of answers) assert.equal(res.status, 200, await res.clone().text());
    const statements = sent.filter((q) => q.includes(ROTATION_STATEMENT_MARK)).length;
    // The first went alone; the three that arrived while it ran went in one statement (with four in flight, as
    // before 7ed866e, the four went alone: four statements).
    assert.equal(REFRESH_BATCHES_IN_FLIGHT, 1);
    assert.equal(statements, 2, `${statements} refresh statements`);
  } finally {
    await counted.end({ timeout: 5 });
    await ctx.close();
  }
});
