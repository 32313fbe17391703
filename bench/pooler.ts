// What DATABASE_POOLER=transaction costs: a warm /mcp tools/call and a refresh, with postgres.js's named
// (prepared once per connection) statements against unnamed ones (parsed on every execution), on one database in
// the same run, alternating rounds; and, when /usr/sbin/pgbouncer is there, the same through a PgBouncer in
// transaction mode (the hop's own cost). Needs DATABASE_URL (Postgres). Prints; asserts nothing.
//
// Export: benchPooler().
import { createDb, type Sql } from "../lib/db/client.ts";
import { TEST_SECRET, testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { havePgBouncer, type PgBouncer, startPgBouncer } from "../tests/helpers/pgbouncer.ts";
import { seedRefreshChains } from "./refresh_peer.ts";

const ROUNDS = 20;
const SLICE_MS = 200;
const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "list_projects", arguments: { limit: 20 } },
});

type Op = () => Promise<void>;

/** Per contender, ms per operation in each round; contenders take turns, every other round in reverse. */
async function rounds(ops: Record<string, Op>): Promise<Record<string, number[]>> {
  const entries = Object.entries(ops);
  const out: Record<string, number[]> = {};
  for (const [name, op] of entries) {
    out[name] = [];
    for (let i = 0; i < 50; i++) await op(); // warm-up: statements prepared, code compiled
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, op] of r % 2 === 0 ? entries : [...entries].reverse()) {
      let n = 0;
      const start = performance.now();
      while (performance.now() - start < SLICE_MS) {
        await op();
        n++;
      }
      out[name].push((performance.now() - start) / n);
    }
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function benchPooler(): Promise<void> {
  const db = await freshDatabase();
  let bouncer: PgBouncer | undefined;
  const pools: Sql[] = [];
  try {
    if (!db.server) {
      console.log("\npooler: skipped (needs DATABASE_URL: Postgres)");
      return;
    }
    const f = await buildFixture(db.sql);
    for (let i = 0; i < 20; i++) {
      await db.sql`insert into projects (workspace_id, company_id, name)
                   values (${f.workspaceId}, ${f.companies.a}, ${`Project ${i}`})`;
    }
    const targets: Record<string, Sql> = {
      named: createDb(db.url, { max: 10 }),
      unnamed: createDb(db.url, { max: 10, pooler: "transaction" }),
    };
    if (havePgBouncer) {
      bouncer = await startPgBouncer(db.url, { poolSize: 3 });
      targets.pgbouncer = createDb(bouncer.url, { max: 10, pooler: "transaction" });
    }
    pools.push(...Object.values(targets));
    const chains = await seedRefreshChains(db.sql, f.users.owner, Object.keys(targets).length, TEST_SECRET);
    const mcp: Record<string, Op> = {};
    const refresh: Record<string, Op> = {};
    for (const [i, [name, sql]] of Object.entries(targets).entries()) {
      const app = testApp(sql);
      mcp[name] = async () => {
        const res = await app.request("http://localhost:8000/mcp", {
          method: "POST",
          headers: mcpHeaders(f.keys.owner),
          body: CALL,
        });
        const text = await res.text();
        if (res.status !== 200 || text.includes('"isError":true')) throw new Error(text.slice(0, 200));
      };
      let rt = chains.tokens[i];
      refresh[name] = async () => {
        const res = await app.request("/oauth/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: rt,
            client_id: chains.clientId,
          })
            .toString(),
        });
        const body = await res.json();
        if (res.status !== 200) throw new Error(JSON.stringify(body));
        rt = body.refresh_token;
      };
    }
    console.log(
      `\nDATABASE_POOLER=transaction: named (prepared) against unnamed statements, sequential requests through ` +
        `app.request, ${ROUNDS} alternating rounds of ${SLICE_MS} ms; medians`,
    );
    for (const [label, ops] of [["tools/call list_projects", mcp], ["refresh", refresh]] as const) {
      const r = await rounds(ops);
      const perRound = (name: string) => median(r[name].map((ms, i) => ms / r.named[i]));
      console.log(`  ${label}`);
      console.log(`    named (prepare: true)             ${median(r.named).toFixed(3)} ms`);
      console.log(
        `    unnamed (prepare: false)          ${median(r.unnamed).toFixed(3)} ms   ${
          perRound("unnamed").toFixed(3)
        }× named (median of per-round ratios)`,
      );
      if (r.pgbouncer) {
        console.log(
          `    unnamed through PgBouncer         ${median(r.pgbouncer).toFixed(3)} ms   ${
            perRound("pgbouncer").toFixed(3)
          }× named`,
        );
      }
    }
  } finally {
    for (const p of pools) await p.end({ timeout: 5 });
    await bouncer?.stop();
    await db.close();
  }
}

if (import.meta.main) await benchPooler();
