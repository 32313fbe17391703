// Lifetimes and cleanup (docs/oauth.md "Lifetimes and cleanup"): the refresh family's absolute end, and the
// sweeper keeping every table flat across create → expire → sweep cycles without touching what is alive.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { runAdmin } from "../../lib/admin/cli.ts";
import { parseConfig } from "../../lib/config.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import type { Sql } from "../../lib/db/client.ts";
import { createClient, setClientTrusted } from "../../lib/oauth/clients.ts";
import { sweep, sweepOptions } from "../../lib/oauth/sweeper.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  REDIRECT,
  registerConfidential,
  type Registered,
  registerPublic,
  setup,
  token,
} from "./helpers.ts";

const TABLES = [
  "oauth_codes",
  "browser_sessions",
  "browser_session_accounts",
  "oauth_grants",
  "oauth_refresh_legacy",
  "rate_limits",
  "rate_buckets",
  "oauth_clients",
  "oauth_client_registrations",
  "oauth_consents",
  "oauth_spent_tickets",
] as const;

async function counts(sql: Sql): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    // table names come from the constant above, not from input
    const [row] = await sql.unsafe<{ n: number }[]>(`select count(*)::int as n from ${table}`);
    out[table] = row.n;
  }
  return out;
}

function refresh(ctx: Ctx, client: Registered, refreshToken: string) {
  return token(ctx.app, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: client.client_id,
    ...(client.client_secret ? { client_secret: client.client_secret } : {}),
  });
}

async function flow(ctx: Ctx, client: Registered) {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
  const res = await exchange(ctx, client, code, verifier);
  assert.equal(res.status, 200);
  const body = await res.json();
  return { ...body, grantId: decodeJwt(body.access_token).grant_id as string };
}

Deno.test("refresh family cap: REFRESH_FAMILY_MAX_DAYS bounds every token of the family", async () => {
  const ctx = await setup({ REFRESH_FAMILY_MAX_DAYS: "5" });
  try {
    const pub = await registerPublic(ctx.app);
    const conf = await registerConfidential(ctx.app);
    // A current token's expiry is its family's (the grant row's, migration 00031).
    const days = async (refreshToken: string) => {
      const [row] = await ctx.db.sql<{ d: number }[]>`
        select round(extract(epoch from refresh_expires_at - created_at) / 86400)::int as d
          from oauth_grants where ${sha256Hex(refreshToken)}::text = any(refresh_hashes)`;
      return row.d;
    };
    // 7 d (public) and 30 d (confidential) per token, but never past 5 d from the code exchange.
    const a = await flow(ctx, pub);
    const b = await flow(ctx, conf);
    assert.equal(await days(a.refresh_token), 5);
    assert.equal(await days(b.refresh_token), 5);
    // Three days on, a rotation still gets only what is left of the family's life (2 days).
    await ctx.db
      .sql`update oauth_grants set created_at = created_at - interval '3 days' where id = ${a.grantId}`;
    const rotated = await refresh(ctx, pub, a.refresh_token);
    assert.equal(rotated.status, 200);
    const next = await rotated.json();
    const [left] = await ctx.db.sql<{ h: number }[]>`
      select round(extract(epoch from refresh_expires_at - now()) / 3600)::int as h
        from oauth_grants where ${sha256Hex(next.refresh_token)}::text = any(refresh_hashes)`;
    assert.equal(left.h, 48);
    // Past the cap: invalid_grant. The family is over, not stolen: nothing is revoked.
    await ctx.db
      .sql`update oauth_grants set created_at = created_at - interval '3 days' where id = ${a.grantId}`;
    const over = await refresh(ctx, pub, next.refresh_token);
    assert.equal(over.status, 400);
    assert.equal((await over.json()).error, "invalid_grant");
    const [g] = await ctx.db.sql<{ revoked: boolean }[]>`
      select revoked_at is not null as revoked from oauth_grants where id = ${a.grantId}`;
    assert.equal(g.revoked, false);
    // The default is 90 days.
    assert.equal(parseConfig({}).refreshFamilyMaxDays, 90);
  } finally {
    await ctx.close();
  }
});

Deno.test("sweeper: tables stay flat across create → expire → sweep cycles; live and operator rows stay", async () => {
  const ctx = await setup();
  const sql = ctx.db.sql;
  const opts = sweepOptions(parseConfig({}));
  try {
    // What must survive every sweep, however old: an operator client nobody used, a trusted self-registered
    // one, and a self-registered client unused for 400 days that still holds a live grant.
    const operator = await createClient(sql, {
      name: "Operator app",
      redirectUris: [REDIRECT],
      confidential: false,
      scopes: ["openid", "profile"],
      grantTypes: ["authorization_code", "refresh_token"],
      selfRegistered: false,
    });
    const trusted = await registerPublic(ctx.app, { client_name: "Trusted" });
    await setClientTrusted(sql, trusted.client_id, true);
    const keeper = await registerPublic(ctx.app, { client_name: "Keeper" });
    const live = await flow(ctx, keeper);
    const protectedClients = [operator.clientId, trusted.client_id, keeper.client_id];
    await sql`update oauth_clients set created_at = now() - interval '400 days',
                                       last_used_at = now() - interval '400 days'
               where client_id = any(${protectedClients})`;
    // Everything else from setup (sessions, rate rows) goes in the first sweep; start from there.
    await sql`update browser_sessions set expires_at = now() - interval '1 second'`;
    await sql`update rate_limits set window_start = window_start - interval '3 days'`;
    await sql`update rate_buckets set tat = now() - interval '1 second'`;
    await sql`update oauth_spent_tickets set expires_at = now() - interval '1 second'`;
    await sweep(sql, opts);
    const baseline = await counts(sql);

    let latest = live.refresh_token;
    const deletedPerCycle = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      // Create: registrations (clients, fingerprints, rate buckets), sign-ins (sessions, brake rows), codes,
      // grants and refresh tokens — one family rotated, one revoked, one code never exchanged.
      const used = await registerPublic(ctx.app, { client_name: `Used ${cycle}` });
      await registerPublic(ctx.app, { client_name: `Never used ${cycle}` });
      const rotated = await flow(ctx, used);
      assert.equal((await refresh(ctx, used, rotated.refresh_token)).status, 200);
      const revoked = await flow(ctx, used);
      const rv = await ctx.app.request("/oauth/revoke", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: revoked.refresh_token, client_id: used.client_id }).toString(),
      });
      assert.equal(rv.status, 200);
      await getCode(ctx, new Browser(ctx.app), used); // a code nobody exchanges
      // The live family keeps rotating.
      const next = await refresh(ctx, keeper, latest);
      assert.equal(next.status, 200);
      latest = (await next.json()).refresh_token;
      assert.ok((await counts(sql)).oauth_grants > baseline.oauth_grants);

      // Expire everything but the protected rows: time passes.
      await sql`update oauth_codes set expires_at = now() - interval '2 days'
                 where client_id <> all(${protectedClients})`;
      await sql`update browser_sessions set expires_at = now() - interval '1 second'`;
      await sql`update oauth_grants set created_at = now() - interval '2 days',
                                        revoked_at = revoked_at - interval '2 days'
                 where client_id <> all(${protectedClients})`;
      // Their refresh tokens were issued 9 days ago and expired 2 days ago (a family's state is its grant row).
      await sql`update oauth_grants set refresh_issued_at = now() - interval '9 days',
                                        refresh_expires_at = now() - interval '2 days'
                 where client_id <> all(${protectedClients})`;
      await sql`update rate_limits set window_start = window_start - interval '3 days'`;
      await sql`update rate_buckets set tat = now() - interval '1 second'`;
      assert.ok((await counts(sql)).oauth_spent_tickets > baseline.oauth_spent_tickets);
      await sql`update oauth_spent_tickets set expires_at = now() - interval '1 second'`;
      await sql`update oauth_clients set created_at = now() - interval '31 days', last_used_at = null
                 where client_id <> all(${protectedClients})`;

      deletedPerCycle.push(await sweep(sql, opts));
      assert.deepEqual(await counts(sql), baseline, `cycle ${cycle}`);
    }
    // Each cycle deleted the same: 2 clients, 2 grants (rotated, revoked), 3 codes; no refresh-token rows (a
    // rotation leaves none: a family's tokens are its grant row's state; only legacy rows are swept) …
    assert.deepEqual(deletedPerCycle[1], deletedPerCycle[2]);
    assert.equal(deletedPerCycle[1].refresh_tokens, 0);
    assert.equal(deletedPerCycle[1].clients, 2);
    assert.equal(deletedPerCycle[1].grants, 2);
    assert.equal(deletedPerCycle[1].codes, 3);

    // The protected rows are all there and the live family still works.
    const left = await sql<{ client_id: string }[]>`
      select client_id from oauth_clients where client_id = any(${protectedClients})`;
    assert.equal(left.length, 3);
    const again = await refresh(ctx, keeper, latest);
    assert.equal(again.status, 200);
  } finally {
    await ctx.close();
  }
});

Deno.test("sweeper: bounded batches, several sweepers at once, and `admin sweep`", async (t) => {
  const ctx = await setup();
  const sql = ctx.db.sql;
  const opts = sweepOptions(parseConfig({}));
  const expiredCodes = async (n: number) => {
    const client = await registerPublic(ctx.app);
    await sql`
      insert into oauth_codes (code_hash, client_id, user_id, redirect_uri, scopes, code_challenge, auth_time,
                               expires_at)
      select 'h' || g || '-' || ${client.client_id}, ${client.client_id}, ${ctx.user.id}, ${REDIRECT},
             '{openid}', 'c', now(), now() - interval '2 days'
        from generate_series(1, ${n}) g`;
  };
  const codeCount = async () => (await sql<{ n: number }[]>`select count(*)::int as n from oauth_codes`)[0].n;
  try {
    await t.step(
      "a cycle deletes at most maxBatches × batchRows rows of a table; the next goes on",
      async () => {
        await expiredCodes(25);
        const first = await sweep(sql, { ...opts, batchRows: 4, maxBatches: 2 });
        assert.equal(first.codes, 8);
        assert.equal(await codeCount(), 17);
        const second = await sweep(sql, { ...opts, batchRows: 4 });
        assert.equal(second.codes, 17);
        assert.equal(await codeCount(), 0);
      },
    );

    await t.step("three sweepers at once share the rows: each deleted exactly once", async () => {
      await expiredCodes(60);
      const results = await Promise.all([1, 2, 3].map(() => sweep(sql, { ...opts, batchRows: 5 })));
      assert.equal(results.reduce((n, r) => n + r.codes, 0), 60);
      assert.equal(await codeCount(), 0);
    });

    await t.step("`admin sweep` runs one cycle and prints what it deleted", async () => {
      await expiredCodes(3);
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin(["sweep", "--json"], {
        sql,
        secretKey: TEST_SECRET,
        config: parseConfig({ UNUSED_CLIENT_DAYS: "1" }),
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      assert.equal(code, 0, err.join(" "));
      const result = JSON.parse(out.join("\n"));
      assert.equal(result.codes, 3);
      assert.deepEqual(Object.keys(result).sort(), [
        "clients",
        "codes",
        "grants",
        "rate_buckets",
        "rate_limits",
        "refresh_tokens",
        "sessions",
        "spent_tickets",
      ]);
      assert.equal(await codeCount(), 0);
      // An unknown word next to it is still a usage error.
      assert.equal(
        await runAdmin(["sweep", "now"], { sql, secretKey: TEST_SECRET, out: () => {}, err: () => {} }),
        2,
      );
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("lifecycle settings: defaults and refusals", () => {
  const c = parseConfig({});
  assert.deepEqual(
    [c.refreshReuseGraceSeconds, c.refreshFamilyMaxDays, c.sweepIntervalSeconds, c.unusedClientDays],
    [60, 90, 3600, 30],
  );
  assert.equal(
    parseConfig({ SWEEP_INTERVAL_SECONDS: "0", REFRESH_REUSE_GRACE_SECONDS: "0" }).sweepIntervalSeconds,
    0,
  );
  const refused: Array<[Record<string, string>, string]> = [
    [{ SWEEP_INTERVAL_SECONDS: "30" }, "config error: SWEEP_INTERVAL_SECONDS must be 0 (off) or at least 60"],
    [
      { REFRESH_REUSE_GRACE_SECONDS: "601" },
      "config error: REFRESH_REUSE_GRACE_SECONDS must be between 0 and 600",
    ],
    [{ REFRESH_FAMILY_MAX_DAYS: "0" }, "config error: REFRESH_FAMILY_MAX_DAYS must be between 1 and 3650"],
    [{ UNUSED_CLIENT_DAYS: "1.5" }, "config error: UNUSED_CLIENT_DAYS must be a whole number"],
  ];
  for (const [env, message] of refused) assert.throws(() => parseConfig(env), { message });
});
