// Start-up time and memory of the real server: time from process start to the first `/healthz` 200 on Postgres
// (main.ts under `deno task start`'s permissions, restarted several times), and its resident memory after start
// and through minutes of mixed load (tools/list, tools/call by key and by Bearer token, refresh, JWKS) with the
// audit log on. Prints markdown for BENCHMARKS.md; asserts nothing.
//
// deno run -A bench/memory_start.ts [--restarts=5] [--minutes=1] [--connections=8]
import { freshDatabase } from "../tests/helpers/db.ts";
import {
  bearerTokens,
  CALL,
  checkList,
  checkProjects,
  drive,
  freePort,
  jwksStep,
  LIST,
  mcpStep,
  refreshStep,
  seed,
  type Step,
} from "./load.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SECRET = "bench-secret-key-0123456789abcdef0123456789";
const START_PERMISSIONS = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks.start as string;

interface Server {
  pid: number;
  port: number;
  /** milliseconds from spawn to the first /healthz 200 */
  readyMs: number;
  stop(): Promise<void>;
}

/** Runs main.ts with exactly the flags of `deno task start`. */
async function startMain(databaseUrl: string): Promise<Server> {
  const flags = START_PERMISSIONS.split(/\s+/).filter((f) => f.startsWith("--"));
  const port = freePort();
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...flags, "main.ts"],
    cwd: ROOT,
    env: {
      DATABASE_URL: databaseUrl,
      SECRET_KEY: SECRET,
      PORT: String(port),
      ISSUER: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "info",
      // the load is one process on one address with a handful of keys: the limiter would refuse it
      MCP_RATE_LIMIT: "0",
      MCP_UNAUTH_RATE_LIMIT: "0",
    },
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      await r.body?.cancel();
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 60_000) throw new Error("main.ts did not answer /healthz within 60 s");
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - t0;
  return {
    pid: child.pid,
    port,
    readyMs,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export async function benchMemoryStart(
  opts: { restarts?: number; minutes?: number; connections?: number } = {},
): Promise<void> {
  const restarts = opts.restarts ?? 5;
  const minutes = opts.minutes ?? 1;
  const connections = opts.connections ?? 8;
  const db = await freshDatabase();
  if (!db.server) {
    console.log("memory/start: needs DATABASE_URL (a Postgres server); skipped");
    await db.close();
    return;
  }
  try {
    const s = await seed(db.sql, connections);
    console.log(`\nStart-up and memory (bench/memory_start.ts) — ${new Date().toISOString()}`);
    const times: number[] = [];
    for (let i = 0; i < restarts; i++) {
      const server = await startMain(db.url);
      times.push(server.readyMs);
      await server.stop();
    }
    times.sort((a, b) => a - b);
    console.log(
      `  process start → first /healthz 200 (deno task start's permissions, Postgres, migrated): median ${
        times[Math.floor(times.length / 2)].toFixed(0)
      } ms, min ${times[0].toFixed(0)} ms, max ${
        times[times.length - 1].toFixed(0)
      } ms over ${restarts} starts`,
    );

    const server = await startMain(db.url);
    try {
      await new Promise((r) => setTimeout(r, 1000));
      const idle = rssMiB(server.pid);
      const p = server.port;
      const steps: Step[] = [
        mcpStep(p, s.ownerKeys, LIST(1), checkList(s.toolCount)),
        mcpStep(p, s.ownerKeys, CALL(2), checkProjects),
        mcpStep(p, bearerTokens(p, s), CALL(2), checkProjects),
        refreshStep(p, s, s.refreshTokens.slice(0, connections)),
        jwksStep(p),
      ];
      const mixed: Step = (conn, worker, seq) => steps[seq % steps.length](conn, worker, seq);
      const samples: number[] = [];
      let requests = 0;
      const end = performance.now() + minutes * 60_000;
      while (performance.now() < end) {
        const m = await drive(p, 1_000_000, connections, 10, mixed);
        if (m.errors) throw new Error(`mixed load: ${m.firstError}`);
        requests += m.requests;
        samples.push(rssMiB(server.pid));
      }
      const peak = Math.max(...samples);
      console.log(
        `  RSS after start (idle 1 s): ${
          idle.toFixed(0)
        } MiB; after ${minutes} min of mixed load at ${connections} ` +
          `connections (${requests} requests: tools/list, tools/call by key and by Bearer, refresh, JWKS; audit ` +
          `log on): ${samples[samples.length - 1].toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    await db.close();
  }
}

function flag(name: string): string | undefined {
  return Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

if (import.meta.main) {
  const num = (n: string) => flag(n) === undefined ? undefined : Number(flag(n));
  await benchMemoryStart({
    restarts: num("restarts"),
    minutes: num("minutes"),
    connections: num("connections"),
  });
}
