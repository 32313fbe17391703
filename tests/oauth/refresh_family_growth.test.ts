// A refresh's work does not grow with its family's history (migration 00022): a grant refreshed all day keeps one
// rotated row per refresh until it expires, and the refresh statement must not read them. The real statement
// Portico sends is captured and explained (EXPLAIN ANALYZE, in a transaction rolled back) beside 2,000 rotated
// rows of the same family; without oauth_refresh_tokens_family_live its `superseded` step read every one of them.
import assert from "node:assert/strict";
import postgres from "postgres";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { testApp } from "../helpers/app.ts";
import { Browser, exchange, getCode, registerPublic, setup, token } from "./helpers.ts";

class Rollback extends Error {}

interface PlanNode {
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** Rows of oauth_refresh_tokens the plan touched: returned by a scan or read and then filtered out. */
function tokenRowsRead(node: PlanNode): number {
  let n = 0;
  if (node["Relation Name"] === "oauth_refresh_tokens") {
    n += (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1) + (node["Rows Removed by Filter"] ?? 0) +
      (node["Rows Removed by Index Recheck"] ?? 0);
  }
  for (const child of node.Plans ?? []) n += tokenRowsRead(child);
  return n;
}

Deno.test("refresh: the statement reads the family's live tokens, not its 2,000 rotated ones", async () => {
  const ctx = await setup();
  const seen: { query: string; params: unknown[] }[] = [];
  const counted = postgres(ctx.db.url, {
    max: 1,
    onnotice: () => {},
    debug: (_c: number, query: string, params: unknown[]) => seen.push({ query, params }),
  });
  // deno-lint-ignore no-explicit-any
  const app = testApp(counted as any);
  try {
    const client = await registerPublic(ctx.app);
    const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
    const first = await (await exchange(ctx, client, code, verifier)).json();
    const [{ family }] = await ctx.db.sql<{ family: string }[]>`
      select family_id as family from oauth_refresh_tokens where token_hash = ${
      sha256Hex(first.refresh_token)
    }`;
    // a long history: 2,000 rotated tokens of this family
    await ctx.db.sql`
      insert into oauth_refresh_tokens (token_hash, family_id, client_id, user_id, scopes, auth_time, expires_at,
                                        rotated_at)
      select md5(g::text || ${family}), t.family_id, t.client_id, t.user_id, t.scopes, t.auth_time,
             now() + interval '20 days', now() - interval '2 days'
        from oauth_refresh_tokens t, generate_series(1, 2000) g
       where t.token_hash = ${sha256Hex(first.refresh_token)}`;
    await ctx.db.sql`analyze oauth_refresh_tokens`;

    seen.length = 0;
    const res = await token(app, {
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(res.status, 200);
    const second = await res.json();
    const statement = seen.find((s) => s.query.includes("superseded as ("));
    assert.ok(statement, "the refresh statement was captured");

    // The same statement for the next refresh of the chain (the token just issued, a fresh successor).
    const swap = new Map<unknown, string>([
      [sha256Hex(first.refresh_token), sha256Hex(second.refresh_token)],
      [sha256Hex(second.refresh_token), sha256Hex(randomToken("prt_"))],
    ]);
    const params = statement.params.map((p) => swap.get(p) ?? p);
    assert.equal(params.filter((p, i) => p !== statement.params[i]).length, 2);
    let plan: PlanNode | undefined;
    await ctx.db.sql.begin(async (tx) => {
      const [row] = await tx.unsafe(`explain (analyze, format json) ${statement.query}`, params as never[]);
      plan = (row["QUERY PLAN"] as { Plan: PlanNode }[])[0].Plan;
      throw new Rollback();
    }).catch((e) => {
      if (!(e instanceof Rollback)) throw e;
    });
    assert.ok(plan);
    const read = tokenRowsRead(plan);
    // the presented token, its successor's uniqueness check, the rotation and the live siblings: a handful
    assert.ok(read < 20, `the refresh statement read ${read} rows of oauth_refresh_tokens`);
  } finally {
    await counted.end({ timeout: 5 });
    await ctx.close();
  }
});
