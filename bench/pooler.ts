// What DATABASE_POOLER=transaction costs: a warm /mcp tools/call and a refresh, with postgres.js's named
// (prepared once per connection) statements against unnamed ones (parsed on every execution), on one database in
// the same run, alternating rounds; and, when /usr/sbin/pgbouncer is there, the same through a PgBouncer in
// transaction mode (the hop's own cost). Wall time per request, and CPU per request of this process, the
// database's backends and PgBouncer together (from /proc: neighbours on a shared host barely move it). Needs
// DATABASE_URL (Postgres). Prints; asserts nothing.
//
// Export: benchPooler().
import { createDb, type Sql } from "../lib/db/client.ts";
import { TEST_SECRET, testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { havePgBouncer, type PgBouncer, startPgBouncer } from "../tests/helpers/pgbouncer.ts";
import { processCpuSeconds } from "./load.ts";
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

/** Wall and CPU ms per operation of each contender in each round. */
interface Samples {
  wall: number[];
  cpu: number[];
  /** the database's share of `cpu` (backends and PgBouncer) */
  db: number[];
}

/**
 * Contenders take turns in slices, every other round in reverse. `cpuSeconds` reads the CPU used so far by
 * everything that serves a request (this process, the database backends, the pooler).
 */
async function rounds(
  ops: Record<string, Op>,
  cpuSeconds: () => Promise<{ total: number; db: number }>,
): Promise<Record<string, Samples>> {
  const entries = Object.entries(ops);
  const out: Record<string, Samples> = {};
  for (const [name, op] of entries) {
    out[name] = { wall: [], cpu: [], db: [] };
    for (let i = 0; i < 50; i++) await op(); // warm-up: statements prepared, code compiled
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, op] of r % 2 === 0 ? entries : [...entries].reverse()) {
      let n = 0;
      const cpu0 = await cpuSeconds();
      const start = performance.now();
      while (performance.now() - start < SLICE_MS) {
        await op();
        n++;
      }
      const wall = performance.now() - start;
      out[name].wall.push(wall / n);
      const cpu1 = await cpuSeconds();
      out[name].cpu.push((cpu1.total - cpu0.total) * 1000 / n);
      out[name].db.push((cpu1.db - cpu0.db) * 1000 / n);
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
    // The backends of this database other than the one asking, and PgBouncer: their CPU plus this process's.
    const admin = createDb(db.url, { max: 1 });
    pools.push(admin);
    const name = new URL(db.url).pathname.slice(1);
    const cpuSeconds = async () => {
      const rows = await admin<{ pid: number }[]>`
        select pid from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
      const pids = [...rows.map((r) => r.pid), ...(bouncer ? [bouncer.pid] : [])];
      const db = pids.reduce((t, pid) => t + (processCpuSeconds(pid) || 0), 0);
      return { total: db + processCpuSeconds(Deno.pid), db };
    };
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
      const r = await rounds(ops, cpuSeconds);
      const ratio = (name: string, k: keyof Samples) => median(r[name][k].map((x, i) => x / r.named[k][i]));
      const line = (label: string, name: string) =>
        console.log(
          `    ${label.padEnd(30)} wall ${median(r[name].wall).toFixed(3)} ms (${
            ratio(name, "wall").toFixed(2)
          }×)   CPU ${median(r[name].cpu).toFixed(3)} ms (${
            ratio(name, "cpu").toFixed(2)
          }×, of which database ${median(r[name].db).toFixed(3)} ms)`,
        );
      console.log(`  ${label}  (× named: median of per-round ratios)`);
      line("named (prepare: true)", "named");
      line("unnamed (prepare: false)", "unnamed");
      if (r.pgbouncer) line("unnamed through PgBouncer", "pgbouncer");
    }
  } finally {
    for (const p of pools) await p.end({ timeout: 5 });
    await bouncer?.stop();
    await db.close();
  }
}

if (import.meta.main) await benchPooler();
