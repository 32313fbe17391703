// Three instances on one database behind a round-robin proxy against one instance (issue 31, point 3).
//
// `deno task bench --bench=instances` or alone: `deno run --config deno.test.json -A bench/instances.ts
// [--rounds=3] [--requests=2000] [--concurrency=16]`. Needs DATABASE_URL (a fresh database on its server).
// Every server is `deno task start` (its permissions exactly, tests/helpers/serve.ts); the proxy is
// tests/helpers/round_robin.ts, in this process, which also drives the load with fetch over keep-alive
// connections: a warm /mcp mix per request in turn (tools/call list_projects, tools/call get_context, ping,
// tools/list), 8 API keys (8 rate-limit buckets), limits on (1,000,000 per minute). Rows, alternating in every
// round: one instance direct, one instance behind the proxy (the proxy's own cost), three behind the proxy.
// Prints a markdown table (recorded in BENCHMARKS.md) with the host's load; asserts nothing.
import { TEST_RATE_LIMITS, TEST_SECRET } from "../tests/helpers/app.ts";
import { DATABASE_URL, freshDatabase } from "../tests/helpers/db.ts";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { roundRobin } from "../tests/helpers/round_robin.ts";
import { type HttpTarget, spawnServer } from "../tests/helpers/serve.ts";

const MIX = [
  { method: "tools/call", params: { name: "list_projects", arguments: { limit: 2 } } },
  { method: "tools/call", params: { name: "get_context", arguments: {} } },
  { method: "ping" },
  { method: "tools/list" },
];

function flag(name: string, fallback: number): number {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
}

/** `requests` warm /mcp calls at `concurrency`, in the mix's order: requests per second. */
async function drive(at: HttpTarget, keys: string[], requests: number, concurrency: number): Promise<number> {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let i = next++; i < requests; i = next++) {
      const res = await fetch(`${at.base}/mcp`, {
        method: "POST",
        headers: mcpHeaders(keys[i % keys.length]),
        body: JSON.stringify({ jsonrpc: "2.0", id: i, ...MIX[i % MIX.length] }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) failed++;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  if (failed > 0) throw new Error(`${failed} of ${requests} requests failed`);
  return requests / seconds;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchInstances(): Promise<void> {
  if (!DATABASE_URL) {
    console.log("bench/instances.ts: needs DATABASE_URL (three processes on one PostgreSQL); skipped");
    return;
  }
  const rounds = flag("rounds", 3);
  const requests = flag("requests", 2000);
  const concurrency = flag("concurrency", 16);
  const db = await freshDatabase();
  const f = await buildFixture(db.sql);
  const keys = [f.keys.owner];
  for (let i = 0; i < 7; i++) keys.push(await f.key({ user: f.users.owner, name: `bench-${i}` }));
  const env = {
    DATABASE_URL: db.url,
    SECRET_KEY: TEST_SECRET,
    ISSUER: "http://localhost:8000",
    TRUSTED_PROXIES: "127.0.0.1",
    ...TEST_RATE_LIMITS,
  };
  const instances = await Promise.all([0, 1, 2].map(() => spawnServer(env, { startTask: true })));
  const oneBehind = roundRobin([instances[0]]);
  const threeBehind = roundRobin(instances);
  const rows: { name: string; at: HttpTarget; rates: number[] }[] = [
    { name: "one instance, direct", at: instances[0], rates: [] },
    { name: "one instance behind the proxy", at: oneBehind, rates: [] },
    { name: "three instances behind the proxy", at: threeBehind, rates: [] },
  ];
  const load = () => Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
  const loadBefore = load();
  try {
    // Warm every instance (keys cached, statements prepared) before measuring.
    for (const at of instances) await drive(at, keys, 400, concurrency);
    for (let round = 0; round < rounds; round++) {
      // Alternate the order, so a neighbour's burst of load hits the rows alike.
      const order = round % 2 === 0 ? rows : [...rows].reverse();
      for (const row of order) row.rates.push(await drive(row.at, keys, requests, concurrency));
    }
  } finally {
    await Promise.all([oneBehind.close(), threeBehind.close()]);
    await Promise.all(instances.map((i) => i.close()));
    await db.close();
  }
  const base = median(rows[1].rates);
  console.log(
    `\nThree instances behind a round-robin proxy (bench/instances.ts) — ${new Date().toISOString()}`,
  );
  console.log(
    `  ${navigator.hardwareConcurrency} CPUs; ${concurrency} connections; ${requests} warm /mcp calls per row ` +
      `(mix: ${MIX.map((m) => m.params?.name ?? m.method).join(", ")}); ${rounds} alternating rounds, median`,
  );
  console.log(`  load average before: ${loadBefore}; after: ${load()}\n`);
  console.log("| setup | requests/s (median) | rounds | vs one instance behind the proxy |");
  console.log("| --- | --: | --- | --: |");
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${median(row.rates).toFixed(0)} | ${row.rates.map((r) => r.toFixed(0)).join(", ")} | ${
        (median(row.rates) / base).toFixed(2)
      }× |`,
    );
  }
}

if (import.meta.main) await benchInstances();
