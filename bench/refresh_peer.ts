// Refresh against a peer: Portico (persisting to Postgres) and node-oidc-provider (on Node, its in-memory
// store), both signing an RS256 `at+jwt` access token and an RS256 ID token per refresh for a public client,
// driven by the same load generator (bench/load.ts) at 1, 4 and 16 connections, rounds alternating which goes
// first. Prints a markdown table for BENCHMARKS.md; asserts nothing. Beside each rate, CPU per refresh: the
// server's (all threads), of it its event loop's (main thread), PostgreSQL's (every `postgres` process on the
// machine: run it alone) and the whole host's (bench/cpu_split.ts, from /proc). `--durable-peer` adds the same
// peer keeping its tokens in PostgreSQL, each write committed before it answers (bench/peers/pg_adapter.mjs).
//
// deno run -A bench/refresh_peer.ts [--requests=1500] [--warmup=3000] [--rounds=3] [--connections=1,4,16]
//   [--log-level=info] [--signer=openssl] [--cpu-prof=DIR] [--baseline=DIR] [--durable-peer]
// deno run -A bench/refresh_peer.ts --phases [--requests=600] [--rounds=5]: where one refresh's time goes at one
//   connection, in this process without HTTP (the refresh statement, the signatures, a commit, a round trip).
// An unknown option, or a value it cannot use (`--rounds=abc`, `--connections=4,`), ends it with exit 2 before
// anything starts, naming the option (`optionError`).
import { cpuUsage } from "node:process";
import type { Sql } from "../lib/db/client.ts";
import { createClient } from "../lib/oauth/clients.ts";
import { createClientDirectory } from "../lib/oauth/client_directory.ts";
import { refreshGrant } from "../lib/oauth/grants/refresh_token.ts";
import type { TokenDeps } from "../lib/oauth/grants/shared.ts";
import { createKeyStore, ensureSigningKey } from "../lib/oauth/keys.ts";
import { RefreshHints } from "../lib/oauth/grants/refresh_hints.ts";
import { createSigner } from "../lib/oauth/signer.ts";
import { signTokenPair } from "../lib/oauth/tokens.ts";
import { buildFixture } from "../tests/helpers/mcp.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import {
  drive,
  httpRequest,
  machineBusySeconds,
  percentile,
  type Running,
  startServer,
  type Step,
} from "./load.ts";
import { nodeVersion, PEER_VERSION, peerReady, startPeer } from "./peer_start.ts";
import { seedRefreshFamily } from "./refresh_seed.ts";
import { eventLoopSeconds, postgresSeconds } from "./cpu_split.ts";

const SECRET = "bench-secret-key-0123456789abcdef0123456789";
const decoder = new TextDecoder();

export interface RefreshPeerOptions {
  requests?: number;
  /**
   * refreshes before each round's measured ones (default 3000): the peer's JIT keeps speeding it up for its first
   * few thousand refreshes (at 4 connections 1,250 refreshes a second after 150, 1,790 after 3,000), so a short
   * warm-up measures it before it is at its best
   */
  warmup?: number;
  rounds?: number;
  connections?: number[];
  logLevel?: "debug" | "info" | "warn" | "error";
  /** Portico's SIGNER (default openssl: the server refuses to start without it rather than fall back) */
  signer?: "auto" | "openssl" | "webcrypto";
  /** a folder for the Portico server's --cpu-prof profiles, one per round */
  cpuProf?: string;
  /**
   * another checkout of Portico (e.g. `git archive` of an earlier commit) run as a third implementation in the
   * same alternating rounds: a before/after comparison that the host's noise cannot fake
   */
  baseline?: string;
  /**
   * also the peer keeping its tokens in PostgreSQL (bench/peers/pg_adapter.mjs), committing each write as
   * Portico does: the same durable work beside the in-memory peer the issue names
   */
  durablePeer?: boolean;
}

interface Impl {
  name: string;
  path: string;
  clientId: string;
  /** starts the server; returns it with one starting refresh token per connection */
  start(connections: number): Promise<Running & { chains: string[] }>;
}

async function seedPortico(sql: Sql, chains: number): Promise<{ clientId: string; tokens: string[] }> {
  const f = await buildFixture(sql);
  return await seedRefreshChains(sql, f.users.owner, chains, SECRET);
}

/**
 * A public client and `chains` refresh-token families of `userId` (openid profile offline_access), each with its
 * starting token, and a signing key under `secret`: what a refresh load needs (also bench/serve_front.ts).
 */
export async function seedRefreshChains(
  sql: Sql,
  userId: string,
  chains: number,
  secret: string,
): Promise<{ clientId: string; tokens: string[] }> {
  const client = await createClient(sql, {
    name: "Bench public client",
    redirectUris: ["http://127.0.0.1:8976/callback"],
    confidential: false,
    scopes: ["openid", "profile", "offline_access"],
    grantTypes: ["authorization_code", "refresh_token"],
    selfRegistered: false,
  });
  const scopes = ["openid", "profile", "offline_access"];
  const tokens: string[] = [];
  for (let i = 0; i < chains; i++) {
    tokens.push(await seedRefreshFamily(sql, secret, { clientId: client.clientId, userId, scopes }));
  }
  await ensureSigningKey(sql, secret);
  return { clientId: client.clientId, tokens };
}

function refreshStep(port: number, impl: Impl, chain: string[]): Step {
  return async (conn, worker) => {
    const a = await conn.request(httpRequest(
      "POST",
      port,
      impl.path,
      {
        "Content-Type": "application/x-www-form-urlencoded",
      },
      `grant_type=refresh_token&client_id=${encodeURIComponent(impl.clientId)}&refresh_token=${
        encodeURIComponent(chain[worker])
      }`,
    ));
    const text = decoder.decode(a.body);
    if (a.status !== 200) throw new Error(`HTTP ${a.status}: ${text.slice(0, 300)}`);
    const json = JSON.parse(text);
    if (!json.access_token || !json.id_token || !json.refresh_token) throw new Error(`incomplete: ${text}`);
    chain[worker] = json.refresh_token;
    return a.body.length;
  };
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
  /** the server's main thread (its event loop) per refresh */
  loopMs: number;
  /** every PostgreSQL process's CPU per refresh (0 for the in-memory peer) */
  pgMs: number;
  /** the whole machine's busy CPU per refresh: server, PostgreSQL, the load generator, the kernel */
  hostCpuMs: number;
}

export async function benchRefreshPeer(opts: RefreshPeerOptions = {}): Promise<void> {
  const requests = opts.requests ?? 1500;
  const warmup = opts.warmup ?? 3000;
  const rounds = opts.rounds ?? 3;
  const connections = opts.connections ?? [1, 4, 16];
  const logLevel = opts.logLevel ?? "info";
  const signer = opts.signer ?? "openssl";
  if (!await peerReady()) {
    console.log("refresh peer: Node or the npm registry is unavailable; skipped");
    return;
  }
  const db = await freshDatabase();
  if (!db.server) {
    console.log("refresh peer: needs DATABASE_URL (a Postgres server); skipped");
    await db.close();
    return;
  }
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const max = Math.max(...connections);
    const seeded = await seedPortico(db.sql, max);
    const porticoChains = seeded.tokens;
    const portico: Impl = {
      name: "Portico (Postgres)",
      path: "/oauth/token",
      clientId: seeded.clientId,
      async start() {
        const s = await startServer({
          mode: "portico",
          databaseUrl: db.url,
          pool: 10,
          secretKey: SECRET,
          logLevel,
          ownerKey: "",
          signer,
        }, opts.cpuProf ?? "");
        return { ...s, chains: porticoChains };
      },
    };
    // The baseline gets a database of its own, migrated and seeded by its own code: the two checkouts' schemas
    // and token formats may differ (migration 00031 moved refresh tokens into the grant row).
    const base = opts.baseline ? await baselineChains(opts.baseline, max) : undefined;
    if (base) cleanups.push(() => base.db.close());
    const baseline: Impl | undefined = base
      ? {
        ...portico,
        name: `Portico baseline (${opts.baseline})`,
        clientId: base.clientId,
        async start() {
          const s = await startServer(
            {
              mode: "portico",
              databaseUrl: base.db.url,
              pool: 10,
              secretKey: SECRET,
              logLevel,
              ownerKey: "",
              signer,
            },
            "",
            opts.baseline,
          );
          return { ...s, chains: base.tokens };
        },
      }
      : undefined;
    const peer: Impl = {
      name: `node-oidc-provider ${PEER_VERSION} (Node ${await nodeVersion()}, in-memory)`,
      path: "/token",
      clientId: "bench-public",
      start: (c) => startPeer(c),
    };
    // The same peer keeping its tokens in PostgreSQL, on a database of its own (ratio: Portico ÷ it).
    const peerDb = opts.durablePeer ? await freshDatabase() : undefined;
    if (peerDb) cleanups.push(() => peerDb.close());
    const durablePeer: Impl | undefined = peerDb
      ? {
        ...peer,
        name: `node-oidc-provider ${PEER_VERSION} on PostgreSQL (node-postgres)`,
        start: (c) => startPeer(c, peerDb.url),
      }
      : undefined;
    console.log(`\nRefresh against node-oidc-provider (bench/refresh_peer.ts) — ${new Date().toISOString()}`);
    console.log(
      `  ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}, Portico LOG_LEVEL ${logLevel}, SIGNER ${signer}; ` +
        `per round ${warmup} warm-up + ${requests} measured refreshes; ${rounds} rounds alternating; median`,
    );
    const perRound: string[] = [];
    const lines: string[] = [
      "| connections | implementation | refresh/s | p50 ms | p99 ms | server CPU ms/refresh | of it, event loop | PostgreSQL CPU ms/refresh | host CPU ms/refresh | Portico ÷ peer |",
      "|---|---|---|---|---|---|---|---|---|---|",
    ];
    for (const c of connections) {
      const impls = [portico, peer, baseline, durablePeer].filter((i): i is Impl => i !== undefined);
      const got = new Map<string, Result[]>(impls.map((i) => [i.name, []]));
      for (let r = 0; r < rounds; r++) {
        // Each round a different order: every implementation goes first, last, and in between.
        for (const impl of impls.map((_, i) => impls[(i + r) % impls.length])) {
          const server = await impl.start(c);
          try {
            const step = refreshStep(server.port, impl, server.chains);
            const warm = await drive(server.port, warmup, c, 30, step);
            if (warm.errors) throw new Error(`${impl.name}: ${warm.firstError}`);
            const cpu0 = server.cpuSeconds();
            const loop0 = eventLoopSeconds(server.pid);
            const pg0 = postgresSeconds();
            const host0 = machineBusySeconds();
            const m = await drive(server.port, requests, c, 30, step);
            const host = machineBusySeconds() - host0;
            const pg = postgresSeconds() - pg0;
            const loop = eventLoopSeconds(server.pid) - loop0;
            if (m.errors) throw new Error(`${impl.name}: ${m.firstError}`);
            const sorted = m.latencies.slice().sort();
            const res = {
              rps: m.requests / m.seconds,
              p50: percentile(sorted, 0.5),
              p99: percentile(sorted, 0.99),
              cpuMs: (server.cpuSeconds() - cpu0) * 1000 / m.requests,
              loopMs: loop * 1000 / m.requests,
              pgMs: Math.max(0, pg) * 1000 / m.requests,
              hostCpuMs: host * 1000 / m.requests,
            };
            got.get(impl.name)!.push(res);
            console.log(`  c=${c} round ${r + 1} ${impl.name}: ${res.rps.toFixed(0)}/s`);
          } finally {
            await server.stop();
          }
        }
      }
      const median = (xs: Result[]) =>
        xs.slice().sort((a, b) => a.rps - b.rps)[Math.floor((xs.length - 1) / 2)];
      const b = median(got.get(peer.name)!);
      for (const impl of impls) {
        const all = got.get(impl.name)!;
        const x = median(all);
        const p = median(got.get(portico.name)!);
        const ratio = impl === peer
          ? ""
          : impl === durablePeer
          ? `Portico ÷ it: **${(p.rps / x.rps).toFixed(2)}×**`
          : `**${(x.rps / b.rps).toFixed(2)}×**`;
        lines.push(
          `| ${c} | ${impl.name} | ${x.rps.toFixed(0)} | ${x.p50.toFixed(2)} | ${x.p99.toFixed(2)} | ${
            x.cpuMs.toFixed(2)
          } | ${x.loopMs.toFixed(2)} | ${x.pgMs.toFixed(2)} | ${x.hostCpuMs.toFixed(2)} | ${ratio} |`,
        );
      }
      // Per round, so the spread is on record: refresh/s of each implementation in round order.
      for (const impl of impls) {
        perRound.push(`c=${c} ${impl.name}: ${got.get(impl.name)!.map((x) => x.rps.toFixed(0)).join(", ")}`);
      }
    }
    console.log(`\n${lines.join("\n")}\n\nrefresh/s per round (in round order):\n${perRound.join("\n")}\n`);
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await db.close();
  }
}

/**
 * A baseline checkout's own database and refresh chains, made by that checkout's code (its test database helper,
 * its fixture and its `seedRefreshChains`), so its server finds the schema and tokens it expects.
 */
async function baselineChains(
  dir: string,
  chains: number,
): Promise<{ db: { url: string; close(): Promise<void> }; clientId: string; tokens: string[] }> {
  const root = new URL(`file://${dir.replace(/\/$/, "")}/`);
  const load = (path: string) => import(new URL(path, root).href);
  const { freshDatabase: baseDatabase } = await load("tests/helpers/db.ts");
  const { buildFixture: baseFixture } = await load("tests/helpers/mcp.ts");
  const { seedRefreshChains: baseSeed } = await load("bench/refresh_peer.ts");
  const db = await baseDatabase();
  try {
    const f = await baseFixture(db.sql);
    const seeded = await baseSeed(db.sql, f.users.owner, chains, SECRET);
    return { db, clientId: seeded.clientId, tokens: seeded.tokens };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * One refresh's phases at one connection, in this process (no HTTP): the whole `refreshGrant` with and without
 * hints (signing during the statement, or after it), and its parts alone — the two signatures, a `select 1`
 * round trip and a one-row update that commits (the WAL flush every durable rotation waits for). Slices of each
 * alternate; medians of the per-slice medians.
 */
export async function benchRefreshPhases(opts: { requests?: number; rounds?: number; signer?: string }) {
  const n = opts.requests ?? 600;
  const rounds = opts.rounds ?? 5;
  const db = await freshDatabase();
  if (!db.server) {
    console.log("refresh phases: needs DATABASE_URL (a Postgres server); skipped");
    await db.close();
    return;
  }
  try {
    const seeded = await seedPortico(db.sql, 1);
    const signer = createSigner({ choice: (opts.signer ?? "openssl") as "openssl" });
    const keys = createKeyStore(db.sql, SECRET, { signer });
    const base: TokenDeps = {
      sql: db.sql,
      keys,
      issuer: "http://127.0.0.1:8000",
      refreshGraceSeconds: 60,
      familyMaxDays: 90,
      secretKey: SECRET,
      findClient: createClientDirectory(db.sql).find,
    };
    const hinted = { ...base, refreshHints: new RefreshHints() };
    const creds = { clientId: seeded.clientId, via: "body" as const };
    let token = seeded.tokens[0];
    const [grant] = await db.sql<{ id: string }[]>`select id from oauth_grants limit 1`;
    const claims = {
      issuer: base.issuer,
      userId: "00000000-0000-0000-0000-000000000000",
      audience: base.issuer,
      clientId: seeded.clientId,
      scopes: ["openid", "profile", "offline_access"],
      grantId: grant.id,
      authTime: new Date(),
      amr: ["pwd"],
      idToken: true,
    };
    const phases: [string, () => Promise<unknown>][] = [
      ["refreshGrant, hints (signs during the statement)", async () => {
        token = (await refreshGrant(hinted, creds, { refreshToken: token })).refresh_token!;
      }],
      ["refreshGrant, no hints (signs after the statement)", async () => {
        token = (await refreshGrant(base, creds, { refreshToken: token })).refresh_token!;
      }],
      ["access + ID token signed (two signatures, in turn)", () => signTokenPair(keys, claims)],
      ["select 1 (a round trip)", () => db.sql`select 1`],
      [
        "update of one row, committed (WAL flush)",
        () => db.sql`update oauth_grants set revoked_at = null where id = ${grant.id}`,
      ],
    ];
    const got = new Map<string, number[]>(phases.map(([name]) => [name, []]));
    // This process's CPU (all threads: the signer's pool included) per operation, summed over every slice.
    const cpu = new Map<string, number>(phases.map(([name]) => [name, 0]));
    for (const [, fn] of phases) for (let i = 0; i < 30; i++) await fn(); // warm
    const slice = Math.ceil(n / rounds);
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < phases.length; k++) {
        const [name, fn] = phases[(k + r) % phases.length];
        const ms: number[] = [];
        const c0 = cpuUsage();
        for (let i = 0; i < slice; i++) {
          const t0 = performance.now();
          await fn();
          ms.push(performance.now() - t0);
        }
        const c1 = cpuUsage();
        cpu.set(name, cpu.get(name)! + (c1.user + c1.system - c0.user - c0.system) / 1000);
        ms.sort((a, b) => a - b);
        got.get(name)!.push(ms[Math.floor(ms.length / 2)]);
      }
    }
    console.log(
      `\nRefresh phases at one connection (bench/refresh_peer.ts --phases) — ${new Date().toISOString()}`,
    );
    console.log(`  ${rounds} slices of ${slice} per phase, alternating; signer ${signer.kind}\n`);
    console.log("| phase | median ms | slice medians ms | CPU ms/op (this process) |\n|---|--:|---|--:|");
    for (const [name] of phases) {
      const xs = got.get(name)!;
      const sorted = xs.slice().sort((a, b) => a - b);
      console.log(
        `| ${name} | ${sorted[Math.floor((sorted.length - 1) / 2)].toFixed(2)} | ${
          xs.map((x) => x.toFixed(2)).join(", ")
        } | ${(cpu.get(name)! / (slice * rounds)).toFixed(2)} |`,
      );
    }
  } finally {
    await db.close();
  }
}

function flag(name: string): string | undefined {
  return Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

const VALUE_FLAGS = [
  "requests",
  "warmup",
  "rounds",
  "connections",
  "log-level",
  "signer",
  "cpu-prof",
  "baseline",
];
const SWITCHES = ["--phases", "--durable-peer"];
const WHOLE = /^[0-9]+$/;
/**
 * What is wrong with `args`, naming the option, or undefined: an unknown option (a mistyped one would otherwise
 * run the wrong benchmark for minutes without a word) or a value the benchmark cannot use (`--rounds=abc`
 * would run no round and fail at the end).
 */
export function optionError(args: string[]): string | undefined {
  for (const a of args) {
    if (SWITCHES.includes(a)) continue;
    const name = VALUE_FLAGS.find((f) => a.startsWith(`--${f}=`));
    if (!name) return `unknown option ${a} (the head of bench/refresh_peer.ts lists them)`;
    const v = a.slice(name.length + 3);
    const ok = name === "requests" || name === "rounds"
      ? WHOLE.test(v) && Number(v) >= 1 && Number(v) <= 1_000_000
      : name === "warmup"
      ? WHOLE.test(v) && Number(v) <= 1_000_000
      : name === "connections"
      ? v.split(",").every((c) => WHOLE.test(c) && Number(c) >= 1 && Number(c) <= 1024)
      : name === "log-level"
      ? ["debug", "info", "warn", "error"].includes(v)
      : name === "signer"
      ? ["auto", "openssl", "webcrypto"].includes(v)
      : v !== "";
    if (!ok) {
      const want = {
        requests: "a whole number from 1 to 1,000,000",
        rounds: "a whole number from 1 to 1,000,000",
        warmup: "a whole number from 0 to 1,000,000",
        connections: "whole numbers from 1 to 1,024, separated by commas",
        "log-level": "debug, info, warn or error",
        signer: "auto, openssl or webcrypto",
      }[name] ?? "a path";
      return `--${name}=${v}: expected ${want}`;
    }
  }
  return undefined;
}
const problem = import.meta.main ? optionError(Deno.args) : undefined;
if (problem) {
  console.error(`refresh_peer: ${problem}`);
  Deno.exit(2);
}

if (import.meta.main && Deno.args.includes("--phases")) {
  const num = (n: string) => flag(n) === undefined ? undefined : Number(flag(n));
  await benchRefreshPhases({ requests: num("requests"), rounds: num("rounds"), signer: flag("signer") });
} else if (import.meta.main) {
  const num = (n: string) => flag(n) === undefined ? undefined : Number(flag(n));
  await benchRefreshPeer({
    requests: num("requests"),
    warmup: num("warmup"),
    rounds: num("rounds"),
    connections: flag("connections")?.split(",").map(Number),
    logLevel: flag("log-level") as RefreshPeerOptions["logLevel"],
    signer: flag("signer") as RefreshPeerOptions["signer"],
    cpuProf: flag("cpu-prof"),
    baseline: flag("baseline"),
    durablePeer: Deno.args.includes("--durable-peer"),
  });
}
