// Front ends compared (issue 13, timeouts; issue 28.5, a header deadline for the default front end), rounds
// alternating which goes first:
//
//   bare Deno.serve    Deno.serve itself, nothing of Portico's
//   deno, no deadline  lib/http/serve.ts HTTP_FRONT_END=deno, HTTP_HEADERS_TIMEOUT_MS=0 (the default before 28.5)
//   deno + deadline    lib/http/serve.ts HTTP_FRONT_END=deno, the default: Deno's per-connection server + a timer
//   byte guard         option (b) of 28.5, a prototype kept only to measure it (bench/byte_guard.ts): each request's
//                      head watched for its end under a deadline, every byte spliced to an internal Deno.serve
//   node               lib/http/serve.ts HTTP_FRONT_END=node (node:http, header and idle deadlines)
//
// Part 1, in this process: a trivial handler (GET, POST 1 KB, GET on a new connection each time) driven by
// bench/load.ts's raw HTTP/1.1 client, 16 connections: the front end's own cost per request and per connection,
// in CPU µs (server and client; the client's share is the same for every front end, so differences are the
// front end's).
// Part 2, the real app in a server subprocess per front end (bench/load_server.ts, built as main.ts builds it,
// Postgres at DATABASE_URL) driven by bench/load.ts's raw HTTP/1.1 client: `tools/call list_projects` by API key
// on kept-alive connections and on a new connection each time, and the refresh-token grant; requests/s and the
// server process's CPU per request (which a busy host barely moves).
//
// deno run -A --config deno.test.json bench/serve_front.ts [--rounds=5] [--trivial-requests=20000] [--requests=1500]
//   [--pairs=N]: instead, N paired rounds of "deno, no deadline" and "deno + deadline" only (the 28.5 decision)
//   [--only=trivial|app]: one of the two parts
// Prints markdown tables of medians and of the median per-round ratio to "deno, no deadline"; asserts nothing.
import { serve } from "../lib/http/serve.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { serveByteGuard } from "./byte_guard.ts";
import {
  type Answer,
  drive,
  HttpConn,
  httpRequest,
  processCpuSeconds,
  type Running,
  startServer,
  type Step,
} from "./load.ts";
import type { ServerFront } from "./load_server.ts";
import { seedRefreshChains } from "./refresh_peer.ts";

const CONNECTIONS = 16;
const BODY = "x".repeat(1024);
const HEADERS_MS = 10_000;

type Handler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;
interface Front {
  name: string;
  start(handler: Handler): Promise<{ port: number; shutdown(): Promise<void> }>;
}

async function trivial(req: Request): Promise<Response> {
  if (req.body) await req.arrayBuffer();
  return new Response("ok");
}

const OPTS = { hostname: "127.0.0.1", port: 0, requestTimeoutMs: 30_000, onListen() {} };

const FRONTS: Front[] = [
  {
    name: "bare Deno.serve",
    start(handler) {
      const s = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
      return Promise.resolve({ port: s.addr.port, shutdown: () => s.shutdown() });
    },
  },
  {
    name: "deno, no deadline",
    async start(handler) {
      const s = await serve(handler, { ...OPTS, frontEnd: "deno", headersTimeoutMs: 0 });
      return { port: s.addr.port, shutdown: s.shutdown };
    },
  },
  {
    name: "deno + deadline",
    async start(handler) {
      const s = await serve(handler, { ...OPTS, frontEnd: "deno", headersTimeoutMs: HEADERS_MS });
      return { port: s.addr.port, shutdown: s.shutdown };
    },
  },
  {
    name: "byte guard",
    start: (handler) => serveByteGuard(handler, HEADERS_MS),
  },
  {
    name: "node",
    async start(handler) {
      const s = await serve(handler, {
        ...OPTS,
        frontEnd: "node",
        headersTimeoutMs: HEADERS_MS,
        idleTimeoutMs: 60_000,
      });
      return { port: s.addr.port, shutdown: s.shutdown };
    },
  },
];

/** A request on a connection of its own (`Connection: close`), the connection `drive` hands over left unused. */
function onNewConnection(port: number, bytes: Uint8Array, check: (a: Answer) => number): Step {
  return async () => {
    const own = await HttpConn.open(port);
    try {
      return check(await own.request(bytes));
    } finally {
      own.close();
    }
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const BASE = "deno, no deadline";
const SECRET = "bench-secret-key-0123456789abcdef0123456789";

/**
 * Prints a table: each cell's median per front end and the median of its per-round ratios to BASE (or, with
 * `diff`, of its per-round differences from BASE).
 */
function table(
  results: Map<string, Map<string, number[]>>,
  fronts: string[],
  unit: string,
  digits = 0,
  diff = false,
): void {
  const vs = diff
    ? `+ "${BASE}", the median of the per-round differences`
    : `× "${BASE}", the median of the per-round ratios`;
  console.log(`\n${unit}: median (${vs})\n`);
  console.log(`| cell | ${fronts.join(" | ")} |`);
  console.log(`| ---- | ${fronts.map(() => "---").join(" | ")} |`);
  for (const [cell, byFront] of results) {
    const baseline = byFront.get(BASE)!;
    const row = fronts.map((name) => {
      const xs = byFront.get(name);
      if (!xs) return "—";
      const m = median(xs);
      const shown = digits ? m.toFixed(digits) : Math.round(m).toLocaleString("en");
      if (diff) {
        const d = median(xs.map((x, i) => x - baseline[i]));
        return `${shown} (${d >= 0 ? "+" : "−"}${Math.abs(d).toFixed(digits)})`;
      }
      return `${shown} (${median(xs.map((x, i) => x / baseline[i])).toFixed(2)}×)`;
    });
    console.log(`| ${cell} | ${row.join(" | ")} |`);
  }
}

function record(results: Map<string, Map<string, number[]>>, cell: string, front: string, x: number): void {
  const byFront = results.get(cell) ?? new Map<string, number[]>();
  results.set(cell, byFront);
  byFront.set(front, [...byFront.get(front) ?? [], x]);
}

/** Part 1: the trivial handler, in this process: requests/s and this process's CPU per request. */
async function trivialRounds(rounds: number, requests: number, only?: string[]): Promise<void> {
  const ok = (a: Answer) => {
    if (a.status !== 200) throw new Error(`HTTP ${a.status}`);
    return a.body.length;
  };
  const cells: Array<{ name: string; count: number; step: (port: number) => Step }> = [
    {
      name: "GET",
      count: requests,
      step: (port) => async (conn) => ok(await conn.request(httpRequest("GET", port, "/", {}))),
    },
    {
      name: "POST 1 KB",
      count: requests,
      step: (port) => async (conn) => ok(await conn.request(httpRequest("POST", port, "/", {}, BODY))),
    },
    {
      name: "GET, new connection",
      count: Math.ceil(requests / 4),
      step: (port) => onNewConnection(port, httpRequest("GET", port, "/", { Connection: "close" }), ok),
    },
  ];
  const running: Array<{ name: string; port: number; shutdown(): Promise<void> }> = [];
  const fronts = FRONTS.filter((f) => !only || only.includes(f.name));
  for (const front of fronts) running.push({ name: front.name, ...await front.start(trivial) });
  for (const cell of cells) {
    for (const r of running) {
      await drive(r.port, Math.ceil(cell.count / 10), CONNECTIONS, 30, cell.step(r.port));
    }
  }
  const rate = new Map<string, Map<string, number[]>>();
  const cpu = new Map<string, Map<string, number[]>>();
  for (let round = 1; round <= rounds; round++) {
    const order = running.map((_, i) => running[(i + round - 1) % running.length]);
    for (const cell of cells) {
      const line: string[] = [];
      for (const r of order) {
        const cpu0 = processCpuSeconds(Deno.pid);
        const m = await drive(r.port, cell.count, CONNECTIONS, 60, cell.step(r.port));
        if (m.errors) throw new Error(`${cell.name} (${r.name}): ${m.firstError}`);
        const us = (processCpuSeconds(Deno.pid) - cpu0) * 1e6 / m.requests;
        record(rate, cell.name, r.name, m.requests / m.seconds);
        record(cpu, cell.name, r.name, us);
        line.push(`${r.name} ${Math.round(m.requests / m.seconds)}/s ${us.toFixed(1)} µs`);
      }
      console.log(`round ${round}  ${cell.name.padEnd(20)} ${line.join(" · ")}`);
    }
  }
  for (const r of running) await r.shutdown();
  const names = fronts.map((f) => f.name);
  table(rate, names, "trivial handler (server and client in this process), requests/s");
  table(cpu, names, "trivial handler, CPU µs per request (server and client in this process)", 1, true);
}

/** Part 2: the app in a subprocess per front end. */
async function appRounds(rounds: number, requests: number, only?: ServerFront[]): Promise<void> {
  const db = await freshDatabase();
  if (!db.server) {
    console.log("front ends, app part: needs DATABASE_URL (a Postgres server); skipped");
    await db.close();
    return;
  }
  const fronts: ServerFront[] = only ?? ["deno, no deadline", "deno + deadline", "byte guard", "node"];
  const servers = new Map<ServerFront, Running>();
  try {
    const f = await buildFixture(db.sql);
    const chains = await seedRefreshChains(db.sql, f.users.owner, CONNECTIONS, SECRET);
    for (const front of fronts) {
      servers.set(
        front,
        await startServer({
          mode: "portico",
          databaseUrl: db.url,
          pool: 10,
          secretKey: SECRET,
          logLevel: "info",
          ownerKey: "",
          front,
        }, ""),
      );
    }
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_projects", arguments: {} },
    });
    const mcp = Object.fromEntries(mcpHeaders(f.keys.owner));
    const expect200 = (a: Answer) => {
      const text = new TextDecoder().decode(a.body);
      if (a.status !== 200 || text.includes('"isError":true')) {
        throw new Error(`${a.status}: ${text.slice(0, 200)}`);
      }
      return text;
    };
    const cells: Array<{ name: string; step: (port: number) => Step }> = [
      {
        name: "tools/call",
        step: (port) => async (conn) =>
          expect200(await conn.request(httpRequest("POST", port, "/mcp", mcp, call))).length,
      },
      {
        name: "tools/call, new connection",
        step: (port) =>
          onNewConnection(
            port,
            httpRequest("POST", port, "/mcp", { ...mcp, Connection: "close" }, call),
            (a) => expect200(a).length,
          ),
      },
      {
        name: "refresh",
        step: (port) => async (conn, worker) => {
          const body = `grant_type=refresh_token&client_id=${encodeURIComponent(chains.clientId)}` +
            `&refresh_token=${encodeURIComponent(chains.tokens[worker])}`;
          const text = expect200(
            await conn.request(httpRequest("POST", port, "/oauth/token", {
              "Content-Type": "application/x-www-form-urlencoded",
            }, body)),
          );
          chains.tokens[worker] = JSON.parse(text).refresh_token;
          return text.length;
        },
      },
    ];
    for (const cell of cells) {
      for (const [, s] of servers) {
        await drive(s.port, Math.ceil(requests / 10), CONNECTIONS, 30, cell.step(s.port));
      }
    }
    const rate = new Map<string, Map<string, number[]>>();
    const cpu = new Map<string, Map<string, number[]>>();
    for (let round = 1; round <= rounds; round++) {
      const order = fronts.map((_, i) => fronts[(i + round - 1) % fronts.length]);
      for (const cell of cells) {
        const line: string[] = [];
        for (const front of order) {
          const s = servers.get(front)!;
          const cpu0 = s.cpuSeconds();
          const m = await drive(s.port, requests, CONNECTIONS, 60, cell.step(s.port));
          if (m.errors) throw new Error(`${cell.name} (${front}): ${m.firstError}`);
          const r = m.requests / m.seconds;
          const ms = (s.cpuSeconds() - cpu0) * 1000 / m.requests;
          record(rate, cell.name, front, r);
          record(cpu, cell.name, front, ms);
          line.push(`${front} ${Math.round(r)}/s ${ms.toFixed(2)} ms`);
        }
        console.log(`round ${round}  ${cell.name.padEnd(28)} ${line.join(" · ")}`);
      }
    }
    table(rate, fronts, "the app (server subprocess), requests/s");
    table(cpu, fronts, "the app (server subprocess), server CPU ms per request", 2);
  } finally {
    for (const [, s] of servers) await s.stop();
    await db.close();
  }
}

export async function benchServeFront(
  opts: { rounds?: number; trivialRequests?: number; requests?: number; pairs?: number; only?: string } = {},
): Promise<void> {
  const rounds = opts.rounds ?? 5;
  if (opts.pairs) {
    // Only the decision of 28.5: the default front end without and with its deadline, many paired rounds (the
    // spread of one round on a shared host is ±50%; the median of many pairs is what resolves a few %).
    console.log(
      `\n## front ends, paired: "${BASE}" and "deno + deadline", ${opts.pairs} rounds — ` +
        `${new Date().toISOString()}, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`,
    );
    if (opts.only !== "app") {
      await trivialRounds(opts.pairs, opts.trivialRequests ?? 20_000, [BASE, "deno + deadline"]);
    }
    if (opts.only !== "trivial") {
      await appRounds(opts.pairs, opts.requests ?? 1500, [BASE, "deno + deadline"]);
    }
    return;
  }
  console.log(
    `\n## front ends (${CONNECTIONS} connections, ${rounds} rounds) — ${new Date().toISOString()}, ` +
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`,
  );
  if (opts.only !== "app") await trivialRounds(rounds, opts.trivialRequests ?? 20_000);
  if (opts.only !== "trivial") await appRounds(rounds, opts.requests ?? 1500);
}

if (import.meta.main) {
  const arg = (name: string) =>
    Number(Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]) || undefined;
  await benchServeFront({
    rounds: arg("rounds"),
    trivialRequests: arg("trivial-requests"),
    requests: arg("requests"),
    pairs: arg("pairs"),
    only: Deno.args.find((a) => a.startsWith("--only="))?.slice("--only=".length),
  });
}
