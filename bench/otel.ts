// What OpenTelemetry costs (issue 31.4): a warm /mcp tools/call and a refresh against two `main.ts` processes on
// one database, started with the start task's permissions, one with OTEL_DENO=true exporting (http/protobuf, the
// default; batch and metric intervals left at Deno's defaults) to a sink in this process, one with it off.
// Sequential requests over one keep-alive connection each, alternating slices, every other round in reverse.
// Wall ms per request, and CPU ms per request of each server process (its exporter threads included), from
// /proc. Needs DATABASE_URL (Postgres). Prints; asserts nothing.
//
// deno run -A --config deno.test.json bench/otel.ts, or `deno task bench --bench=otel`. Export: benchOtel().
import { freshDatabase, type TestDb } from "../tests/helpers/db.ts";
import { buildFixture } from "../tests/helpers/mcp.ts";
import { freePort, HttpConn, httpRequest, processCpuSeconds } from "./load.ts";
import { seedRefreshChains } from "./refresh_peer.ts";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const ROUNDS = 20;
const SLICE_MS = 300;
const SECRET = "bench-otel-secret-key-0123456789abcdef012";
const ROOT = new URL("../", import.meta.url);
const decoder = new TextDecoder();
const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "list_projects", arguments: { limit: 20 } },
});

interface Server {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

async function startFlags(): Promise<string[]> {
  const start: string = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks.start;
  return start.split(/\s+/).slice(2, -1); // between `deno run` and `main.ts`
}

async function startPortico(db: TestDb, env: Record<string, string>): Promise<Server> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...await startFlags(), "main.ts"],
    cwd: ROOT,
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      ISSUER: `http://127.0.0.1:${port}`,
      DATABASE_URL: db.url,
      SECRET_KEY: SECRET,
      LOG_LEVEL: "info", // the production default: one access line per request
      MCP_RATE_LIMIT: "0",
      NO_COLOR: "1",
      ...env,
    },
    stdin: "null",
    stdout: "null",
    stderr: "null", // with OTel on, warn and error lines go to stderr
  }).spawn();
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) break;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("main.ts did not answer /healthz within 60 s");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

type Op = () => Promise<void>;
type Side = "off" | "on";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Wall ms per request of each side, per round, and each server process's CPU ms per request over all rounds
 * (a span is exported after its request, in a batch up to seconds later: only the whole run holds that work).
 */
async function rounds(
  ops: Record<Side, Op>,
  pids: Record<Side, number>,
): Promise<{ wall: Record<Side, number[]>; cpu: Record<Side, number> }> {
  const sides = ["off", "on"] as const;
  const wall: Record<Side, number[]> = { off: [], on: [] };
  const count: Record<Side, number> = { off: 0, on: 0 };
  for (const side of sides) for (let i = 0; i < 100; i++) await ops[side]();
  const cpu0 = { off: processCpuSeconds(pids.off), on: processCpuSeconds(pids.on) };
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      let n = 0;
      const start = performance.now();
      while (performance.now() - start < SLICE_MS) {
        await ops[side]();
        n++;
      }
      wall[side].push((performance.now() - start) / n);
      count[side] += n;
    }
  }
  const cpu = (side: Side) => (processCpuSeconds(pids[side]) - cpu0[side]) * 1000 / count[side];
  return { wall, cpu: { off: cpu("off"), on: cpu("on") } };
}

export async function benchOtel(): Promise<void> {
  const db = await freshDatabase();
  const servers: Server[] = [];
  const conns: HttpConn[] = [];
  let exported = 0;
  const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    exported += (await req.arrayBuffer()).byteLength;
    return new Response(null, { status: 200 });
  });
  try {
    if (!db.server) {
      console.log("\notel: skipped (needs DATABASE_URL: Postgres)");
      return;
    }
    const f = await buildFixture(db.sql);
    for (let i = 0; i < 20; i++) {
      await db.sql`insert into projects (workspace_id, company_id, name)
                   values (${f.workspaceId}, ${f.companies.a}, ${`Project ${i}`})`;
    }
    const chains = await seedRefreshChains(db.sql, f.users.owner, 2, SECRET);
    const off = await startPortico(db, {});
    servers.push(off);
    const on = await startPortico(db, {
      OTEL_DENO: "true",
      OTEL_SERVICE_NAME: "portico-bench",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.addr.port}`,
    });
    servers.push(on);
    const ops = {} as Record<Side, { mcp: Op; refresh: Op }>;
    for (const [i, [label, server]] of ([["off", off], ["on", on]] as const).entries()) {
      const conn = await HttpConn.open(server.port);
      conns.push(conn);
      const call = httpRequest("POST", server.port, "/mcp", {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION,
        "x-api-key": f.keys.owner,
      }, CALL);
      let rt = chains.tokens[i];
      ops[label] = {
        async mcp() {
          const a = await conn.request(call);
          const text = decoder.decode(a.body);
          if (a.status !== 200 || text.includes('"isError":true')) throw new Error(text.slice(0, 200));
        },
        async refresh() {
          const a = await conn.request(httpRequest("POST", server.port, "/oauth/token", {
            "Content-Type": "application/x-www-form-urlencoded",
          }, `grant_type=refresh_token&client_id=${chains.clientId}&refresh_token=${rt}`));
          const body = JSON.parse(decoder.decode(a.body));
          if (a.status !== 200) throw new Error(JSON.stringify(body));
          rt = body.refresh_token;
        },
      };
    }
    console.log(
      `\nOpenTelemetry on (OTEL_DENO=true, exporting to a local sink) against off: two main.ts processes, ` +
        `sequential requests, ${ROUNDS} alternating rounds of ${SLICE_MS} ms; wall: median of rounds, ` +
        `× the median of per-round ratios; CPU: the server process over all rounds`,
    );
    for (const kind of ["mcp", "refresh"] as const) {
      const r = await rounds({ off: ops.off[kind], on: ops.on[kind] }, { off: off.pid, on: on.pid });
      const ratio = median(r.wall.on.map((x, i) => x / r.wall.off[i]));
      console.log(
        `  ${kind === "mcp" ? "tools/call list_projects" : "refresh"}: off wall ${
          median(r.wall.off).toFixed(3)
        } ms, CPU ${r.cpu.off.toFixed(3)} ms; on wall ${median(r.wall.on).toFixed(3)} ms (${
          ratio.toFixed(2)
        }×), ` +
          `CPU ${r.cpu.on.toFixed(3)} ms (${(r.cpu.on / r.cpu.off).toFixed(2)}×)`,
      );
    }
    console.log(`  (the sink received ${(exported / 1024).toFixed(0)} KiB of OTLP so far)`);
  } finally {
    for (const c of conns) c.close();
    for (const s of servers) await s.stop();
    await sink.shutdown();
    await db.close();
  }
}

if (import.meta.main) await benchOtel();
