// Load benchmark: real servers on loopback under fixed concurrency, each endpoint beside its baseline.
//
// `deno task bench` (with the others) or alone: `deno run -A bench/load.ts [--requests=3000] [--warmup=300]
// [--concurrency=32] [--rounds=1] [--max-seconds=25] [--log-level=info] [--only=TEXT] [--cpu-prof=DIR]
// [--baseline=DIR]` (DIR: another checkout, whose Portico tools/call row runs in the same rounds).
// Uses a fresh database on DATABASE_URL's server, or embedded PGlite when DATABASE_URL is unset (one
// connection, served from this process: numbers are not comparable). Every server runs in its own subprocess
// (bench/load_server.ts); this process only generates load, over raw HTTP/1.1 keep-alive connections so the
// client costs as little CPU as possible. Bounded in requests and in time; all traffic goes to 127.0.0.1.
// Prints markdown tables (recorded in BENCHMARKS.md); asserts nothing.
import { exportJWK, generateKeyPair } from "jose";
import { createApiKey } from "../lib/api_keys.ts";
import { randomToken } from "../lib/crypto.ts";
import type { Sql } from "../lib/db/client.ts";
import { silentLogger } from "../lib/log.ts";
import { loadCaller } from "../lib/mcp/caller.ts";
import { registryFor } from "../lib/mcp/registry.ts";
import { LATEST_PROTOCOL_VERSION } from "../lib/mcp/handshake.ts";
import { createClient } from "../lib/oauth/clients.ts";
import { createKeyStore, ensureSigningKey, type KeyStore } from "../lib/oauth/keys.ts";
import { createSigner } from "../lib/oauth/signer.ts";
import { signAccessToken, signIdToken } from "../lib/oauth/tokens.ts";
import { TOOLS } from "../tools/mod.ts";
import { buildFixture } from "../tests/helpers/mcp.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import type { ServerMode, ServerSpec } from "./load_server.ts";
import { seedRefreshFamily } from "./refresh_seed.ts";

export interface LoadOptions {
  /** measured requests per row */
  requests?: number;
  /** requests per row before measuring (JIT, pools, caches), not counted */
  warmup?: number;
  /** concurrent keep-alive connections */
  concurrency?: number;
  /** a row stops after this many seconds of measuring even if its requests are not all done */
  maxSeconds?: number;
  /** the servers' LOG_LEVEL (the app's default is info: one access-log line per request) */
  logLevel?: ServerSpec["logLevel"];
  /** only the rows whose "endpoint implementation" contains this text, or one of several separated by `|` (and
   * the signing rows) */
  only?: string;
  /** a directory: each server writes a V8 CPU profile there (`deno run --cpu-prof`) */
  cpuProf?: string;
  /** rounds per endpoint, alternating its implementations; each row reports its median round */
  rounds?: number;
  /** another checkout of Portico (e.g. `git archive` of an earlier commit): its tools/call row runs beside */
  baseline?: string;
}

export interface Row {
  endpoint: string;
  impl: string;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  bytes: number;
  /** CPU the server process spent per measured request, in ms (noise from neighbours barely moves it) */
  cpuMs: number;
  /** CPU of the Postgres backends serving the server, per request, in ms (NaN on PGlite) */
  dbCpuMs: number;
  /** CPU of this process (the load generator; on PGlite also the database) per request, in ms */
  clientCpuMs: number;
  /** cores kept busy meanwhile by everything else on the machine (other people's work, Postgres's own) */
  otherCores: number;
}

const SECRET = "bench-secret-key-0123456789abcdef0123456789";
const PROJECTS = 50;
const KEYS = 50;
const SERVER_PATH = new URL("./load_server.ts", import.meta.url).pathname;
const REPO = new URL("..", import.meta.url).pathname;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------------------------------------
// A minimal HTTP/1.1 keep-alive client: one request at a time per connection, Content-Length or chunked.

export interface Answer {
  status: number;
  /** valid until the next request on the same connection */
  body: Uint8Array;
}

const CRLFCRLF = [13, 10, 13, 10];

export class HttpConn {
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;
  constructor(readonly conn: Deno.TcpConn) {}

  static async open(port: number): Promise<HttpConn> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.setNoDelay(true);
    return new HttpConn(conn);
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // already closed (the server went away)
    }
  }

  async #fill(): Promise<void> {
    if (this.#end === this.#buf.length) {
      if (this.#start > 0) {
        this.#buf.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      } else {
        const bigger = new Uint8Array(this.#buf.length * 2);
        bigger.set(this.#buf);
        this.#buf = bigger;
      }
    }
    const n = await this.conn.read(this.#buf.subarray(this.#end));
    if (n === null) throw new Error("the server closed the connection");
    this.#end += n;
  }

  #find(seq: number[], from: number): number {
    const b = this.#buf;
    outer: for (let i = from; i <= this.#end - seq.length; i++) {
      for (let j = 0; j < seq.length; j++) if (b[i + j] !== seq[j]) continue outer;
      return i;
    }
    return -1;
  }

  /** Ensures `n` unread bytes are buffered. */
  async #need(n: number): Promise<void> {
    while (this.#end - this.#start < n) {
      if (this.#start + n > this.#buf.length && this.#start > 0) {
        this.#buf.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      }
      await this.#fill();
    }
  }

  /** Reads up to and including `seq`; returns the bytes before it as latin1 text. */
  async #readUntil(seq: number[]): Promise<string> {
    let at: number;
    let from = this.#start;
    while ((at = this.#find(seq, from)) < 0) {
      from = Math.max(this.#start, this.#end - seq.length + 1);
      const before = this.#start;
      await this.#fill();
      from -= before - this.#start; // #fill may have compacted
    }
    let text = "";
    for (let i = this.#start; i < at; i++) text += String.fromCharCode(this.#buf[i]);
    this.#start = at + seq.length;
    return text;
  }

  async request(bytes: Uint8Array): Promise<Answer> {
    let written = 0;
    while (written < bytes.length) written += await this.conn.write(bytes.subarray(written));
    const head = await this.#readUntil(CRLFCRLF);
    const status = Number(head.slice(9, 12));
    let length = -1;
    let chunked = false;
    for (const line of head.split("\r\n")) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).toLowerCase();
      if (name === "content-length") length = Number(line.slice(colon + 1));
      else if (name === "transfer-encoding") chunked = line.toLowerCase().includes("chunked");
    }
    if (!chunked) {
      if (length < 0) throw new Error("response without Content-Length or chunked encoding");
      await this.#need(length);
      const body = this.#buf.subarray(this.#start, this.#start + length);
      this.#start += length;
      return { status, body: body.slice() };
    }
    const parts: Uint8Array[] = [];
    for (;;) {
      const size = parseInt(await this.#readUntil([13, 10]), 16);
      if (size === 0) {
        await this.#readUntil([13, 10]);
        break;
      }
      await this.#need(size + 2);
      parts.push(this.#buf.slice(this.#start, this.#start + size));
      this.#start += size + 2;
    }
    const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let off = 0;
    for (const p of parts) {
      body.set(p, off);
      off += p.length;
    }
    return { status, body };
  }
}

export function httpRequest(
  method: string,
  port: number,
  path: string,
  headers: Record<string, string>,
  body = "",
): Uint8Array {
  let head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  if (method === "POST") head += `Content-Length: ${encoder.encode(body).length}\r\n`;
  return encoder.encode(`${head}\r\n${body}`);
}

// ---------------------------------------------------------------------------------------------------------
// Servers

export interface Running {
  port: number;
  /** the server's process id */
  pid: number;
  /** CPU seconds (user + system, every thread) the server process has used so far; NaN off Linux */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** CPU seconds the whole machine spent busy (every core, every process) so far; NaN off Linux. */
/** CPU seconds the whole machine has been busy (every core, every process, the kernel), from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n", 1)[0];
    const t = line.split(/\s+/).slice(1, 9).map(Number); // user nice system idle iowait irq softirq steal
    return (t.reduce((a, b) => a + b, 0) - t[3] - t[4]) / 100;
  } catch {
    return NaN;
  }
}

/** utime + stime of a process from /proc (clock ticks of 1/100 s on Linux). */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Starts a server subprocess on a free port; its issuer is its own origin, as in a local deployment. */
export async function startServer(
  spec: Omit<ServerSpec, "port" | "issuer">,
  cpuProf: string,
  /** another checkout to run the server from (a before/after comparison in one run); default this one */
  repo = REPO,
): Promise<Running> {
  const port = freePort();
  const full: ServerSpec = { ...spec, port, issuer: `http://127.0.0.1:${port}` };
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config=deno.test.json", // load_server.ts imports the MCP SDK, a bench-only package
      ...(cpuProf
        ? ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`, `--cpu-prof-name=${spec.mode}-${port}.cpuprofile`]
        : []),
      repo === REPO ? SERVER_PATH : `${repo.replace(/\/$/, "")}/bench/load_server.ts`,
      JSON.stringify(full),
    ],
    cwd: repo,
    stdin: "piped", // closed when this process ends, which ends the server (see load_server.ts)
    stdout: "null", // the access log: written, as in production, but not kept
    stderr: "inherit",
  }).spawn();
  let exited = false;
  const status = child.status.then((s) => (exited = true, s));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`the ${spec.mode} server exited before listening`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the ${spec.mode} server did not listen within 60 s`);
    }
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    port,
    pid: child.pid,
    cpuSeconds: () => processCpuSeconds(child.pid),
    async stop() {
      // Closing stdin asks the server to exit (which also writes a --cpu-prof profile); a kill if it hangs.
      await child.stdin.close().catch(() => {});
      const timer = setTimeout(() => exited || child.kill("SIGKILL"), 5000);
      await status;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Load

/** One worker's request: returns the answer's size; throws on a wrong answer. */
export type Step = (conn: HttpConn, worker: number, seq: number) => Promise<number>;

export interface Measured {
  requests: number;
  errors: number;
  seconds: number;
  latencies: Float64Array;
  bytes: number;
  firstError?: string;
}

export async function drive(
  port: number,
  count: number,
  concurrency: number,
  maxSeconds: number,
  step: Step,
): Promise<Measured> {
  const latencies = new Float64Array(count);
  let issued = 0;
  let done = 0;
  let errors = 0;
  let bytes = 0;
  let firstError: string | undefined;
  const conns = await Promise.all(Array.from({ length: concurrency }, () => HttpConn.open(port)));
  const start = performance.now();
  const stopAt = start + maxSeconds * 1000;
  // A server that stops answering: closing the connections fails the pending reads, and the workers stop.
  const watchdog = setTimeout(() => conns.forEach((c) => c.close()), (maxSeconds + 30) * 1000);
  await Promise.all(conns.map(async (conn, worker) => {
    let broken = false;
    while (!broken && issued < count && performance.now() < stopAt) {
      const seq = issued++;
      const t = performance.now();
      try {
        bytes = await step(conn, worker, seq);
        latencies[done++] = performance.now() - t;
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
        broken = true; // a worker stops at its first wrong answer (a refresh chain cannot go on)
      }
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  clearTimeout(watchdog);
  for (const c of conns) c.close();
  return { requests: done, errors, seconds, latencies: latencies.subarray(0, done), bytes, firstError };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

interface Plan {
  endpoint: string;
  impl: string;
  /** a fresh step per phase; it may keep state per worker (refresh chains) across phases */
  step: Step;
}

async function measureRow(
  server: Running,
  plan: Plan,
  o: Required<LoadOptions>,
  backends: () => Promise<number[]>,
): Promise<Row> {
  const warm = await drive(server.port, o.warmup, o.concurrency, o.maxSeconds, plan.step);
  if (warm.errors > 0) {
    throw new Error(`${plan.endpoint} (${plan.impl}): warm-up answer refused: ${warm.firstError}`);
  }
  // The server's pool is open after the warm-up; its backends are the database's other connections.
  const pids = await backends();
  const dbCpu = () => pids.length ? pids.reduce((t, pid) => t + processCpuSeconds(pid), 0) : NaN;
  const cpu0 = server.cpuSeconds();
  const db0 = dbCpu();
  const own0 = processCpuSeconds(Deno.pid);
  const busy0 = machineBusySeconds();
  const m = await drive(server.port, o.requests, o.concurrency, o.maxSeconds, plan.step);
  const cpu = server.cpuSeconds() - cpu0;
  const db = dbCpu() - db0;
  const own = processCpuSeconds(Deno.pid) - own0;
  const others = machineBusySeconds() - busy0 - cpu - (Number.isFinite(db) ? db : 0) - own;
  const sorted = m.latencies.slice().sort();
  const row: Row = {
    endpoint: plan.endpoint,
    impl: plan.impl,
    requests: m.requests,
    errors: m.errors,
    rps: m.requests / m.seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    bytes: m.bytes,
    cpuMs: cpu * 1000 / m.requests,
    dbCpuMs: db * 1000 / m.requests,
    clientCpuMs: own * 1000 / m.requests,
    otherCores: Math.max(0, others / m.seconds),
  };
  if (m.firstError) console.error(`  ${plan.endpoint} (${plan.impl}): first error: ${m.firstError}`);
  return row;
}

// ---------------------------------------------------------------------------------------------------------
// Seed

export interface Seed {
  ownerKeys: string[];
  clientId: string;
  clientSecret: string;
  /** one starting refresh token per chain; each refresh row takes `concurrency` of them */
  refreshTokens: string[];
  /** tools in the owner's tools/list */
  toolCount: number;
  /** OAuth grants of the owner bound to the workspace (as consent stores them), and the key to sign with */
  bearer: {
    clientId: string;
    userId: string;
    grantIds: string[];
    signing: Awaited<ReturnType<KeyStore["signing"]>>;
  };
}

export async function seed(sql: Sql, chains: number): Promise<Seed> {
  const f = await buildFixture(sql);
  const ownerKeys = [f.keys.owner];
  for (let i = 1; i < KEYS; i++) {
    ownerKeys.push(
      (await createApiKey(sql, { workspaceId: f.workspaceId, userId: f.users.owner, name: `bench ${i}` }))
        .key,
    );
  }
  const clientIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const [c] = await sql<{ id: string }[]>`
      insert into clients (workspace_id, company_id, name)
      values (${f.workspaceId}, ${i % 2 ? f.companies.a : f.companies.b}, ${`Client ${i}`}) returning id`;
    clientIds.push(c.id);
  }
  for (let i = 0; i < PROJECTS; i++) {
    await sql`
      insert into projects (workspace_id, company_id, client_id, name, description, budget, estimated_hours,
                            start_date, end_date, status)
      values (${f.workspaceId}, ${i % 2 ? f.companies.a : f.companies.b},
              ${i % 2 ? clientIds[i % clientIds.length] : null}, ${`Project ${i} — website relaunch`},
              ${"A project description of moderate length. ".repeat(3)}, ${1000 + i * 250}, ${40 + i},
              ${"2026-01-05"}, ${"2026-12-18"}, ${["in_progress", "completed", "invoiced"][i % 3]})`;
  }

  const client = await createClient(sql, {
    name: "Bench MCP client",
    redirectUris: ["http://127.0.0.1:8976/callback"],
    confidential: true,
    authMethod: "client_secret_basic",
    scopes: ["openid", "profile"],
    grantTypes: ["authorization_code", "refresh_token"],
    selfRegistered: false,
  });
  const refreshTokens: string[] = [];
  for (let i = 0; i < chains; i++) {
    // One grant (family) per chain, as if each worker were its own connected app installation.
    refreshTokens.push(
      await seedRefreshFamily(sql, SECRET, {
        clientId: client.clientId,
        userId: f.users.owner,
        scopes: ["openid", "profile"],
      }),
    );
  }
  await ensureSigningKey(sql, SECRET);
  // Bearer callers: the owner through an operator MCP client, one grant per key (as many distinct tokens).
  const mcpClient = await createClient(sql, {
    name: "Bench OAuth MCP client",
    redirectUris: ["http://127.0.0.1:8976/callback"],
    confidential: false,
    scopes: ["workspace"],
    grantTypes: ["authorization_code", "refresh_token"],
    selfRegistered: false,
  });
  const grantIds: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const [g] = await sql<{ id: string }[]>`
      insert into oauth_grants (client_id, user_id, scopes, workspace_id)
      values (${mcpClient.clientId}, ${f.users.owner}, ${["workspace"]}, ${f.workspaceId}) returning id`;
    grantIds.push(g.id);
  }
  const signing = await createKeyStore(sql, SECRET).signing();
  const owner = await loadCaller(sql, f.keys.owner, "A", silentLogger);
  if (!owner.ok) throw new Error("the seeded owner key was refused");
  return {
    ownerKeys,
    clientId: client.clientId,
    clientSecret: client.clientSecret!,
    refreshTokens,
    toolCount: registryFor(TOOLS, "A").view(owner.caller).tools.size,
    bearer: { clientId: mcpClient.clientId, userId: f.users.owner, grantIds, signing },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Steps

export const LIST = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });
export const CALL = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "list_projects", arguments: {} },
  });

/**
 * An MCP step over the seeded credentials (API keys, or "Bearer <token>" values); the first answer of each server
 * is checked in full, the rest by size.
 */
export function mcpStep(
  port: number,
  credentials: string[] | Promise<string[]>,
  body: string,
  check: (json: unknown) => string | null,
): Step {
  const built = Promise.resolve(credentials).then((creds) =>
    creds.map((cred) =>
      httpRequest("POST", port, "/mcp", {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION,
        ...(cred.startsWith("Bearer ") ? { Authorization: cred } : { "x-api-key": cred }),
      }, body)
    )
  );
  let requests: Uint8Array[] | undefined;
  let expected = -1;
  return async (conn, _worker, seq) => {
    requests ??= await built;
    const a = await conn.request(requests[seq % requests.length]);
    if (a.status !== 200) throw new Error(`HTTP ${a.status}: ${decoder.decode(a.body.subarray(0, 300))}`);
    if (expected < 0) {
      const problem = check(JSON.parse(decoder.decode(a.body)));
      if (problem) throw new Error(problem);
      expected = a.body.length;
    } else if (a.body.length !== expected) {
      throw new Error(`answer of ${a.body.length} bytes, expected ${expected}: ${decoder.decode(a.body)}`);
    }
    return a.body.length;
  };
}

/** Access tokens for the server on `port` (its issuer is its own origin), one per seeded grant. */
export function bearerTokens(port: number, s: Seed): Promise<string[]> {
  const issuer = `http://127.0.0.1:${port}`;
  const keys = { signing: () => Promise.resolve(s.bearer.signing) } as KeyStore;
  return Promise.all(s.bearer.grantIds.map(async (grantId) =>
    `Bearer ${await signAccessToken(keys, {
      issuer,
      userId: s.bearer.userId,
      audience: `${issuer}/mcp`,
      clientId: s.bearer.clientId,
      scopes: ["workspace"],
      grantId,
      authTime: new Date(),
    })}`
  ));
}

// deno-lint-ignore no-explicit-any
export function checkList(count: number): (json: any) => string | null {
  return (json) => {
    const n = json?.result?.tools?.length;
    return n === count ? null : `tools/list answered ${n} tools, expected ${count}`;
  };
}

// deno-lint-ignore no-explicit-any
export function checkProjects(json: any): string | null {
  if (json?.result?.isError) return `list_projects failed: ${json.result.content?.[0]?.text}`;
  const rows = JSON.parse(json?.result?.content?.[0]?.text ?? "null");
  return Array.isArray(rows) && rows.length === PROJECTS
    ? null
    : `list_projects answered ${rows?.length} projects, expected ${PROJECTS}`;
}

/**
 * Refresh: each worker follows its own chain, presenting the refresh token the previous answer returned;
 * `chain` (one starting token per worker) is updated in place, so the chains continue across rounds.
 */
export function refreshStep(port: number, s: Seed, chain: string[]): Step {
  const basic = `Basic ${btoa(`${s.clientId}:${s.clientSecret}`)}`;
  return async (conn, worker) => {
    const a = await conn.request(httpRequest("POST", port, "/oauth/token", {
      "Content-Type": "application/x-www-form-urlencoded",
      Authorization: basic,
    }, `grant_type=refresh_token&refresh_token=${encodeURIComponent(chain[worker])}`));
    const text = decoder.decode(a.body);
    if (a.status !== 200) throw new Error(`HTTP ${a.status}: ${text.slice(0, 300)}`);
    const json = JSON.parse(text);
    if (!json.access_token || !json.id_token || !json.refresh_token) throw new Error(`incomplete: ${text}`);
    chain[worker] = json.refresh_token;
    return a.body.length;
  };
}

export function jwksStep(port: number): Step {
  const req = httpRequest("GET", port, "/oauth/jwks", { Accept: "application/json" });
  return async (conn) => {
    const a = await conn.request(req);
    if (a.status !== 200 || !decoder.decode(a.body).includes('"kty":"RSA"')) {
      throw new Error(`HTTP ${a.status}: ${decoder.decode(a.body).slice(0, 300)}`);
    }
    return a.body.length;
  };
}

// ---------------------------------------------------------------------------------------------------------
// Baseline (c): RS256 signatures alone, in this process

/** The two signatures of one refresh (access token + ID token, same claims, same key size), per second. */
async function signaturesAlone(requests: number, concurrency: number): Promise<Row> {
  const { privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  // As the key store signs: through the signer seam (OpenSSL when FFI is granted, WebCrypto otherwise).
  const signer = await createSigner().importKey(await exportJWK(privateKey));
  const keys = { signing: () => Promise.resolve({ kid: "bench-kid-0123456789ab", key: privateKey, signer }) };
  const issuer = "http://127.0.0.1:8000";
  const userId = crypto.randomUUID();
  const clientId = randomToken("pcl_", 16);
  const grantId = crypto.randomUUID();
  const pair = async () => {
    const authTime = new Date();
    const accessToken = await signAccessToken(keys as unknown as KeyStore, {
      issuer,
      userId,
      audience: issuer,
      clientId,
      scopes: ["openid", "profile"],
      grantId,
      authTime,
    });
    await signIdToken(keys as unknown as KeyStore, {
      issuer,
      userId,
      clientId,
      authTime,
      amr: ["pwd"],
      accessToken,
    });
  };
  for (let i = 0; i < 50; i++) await pair();
  const latencies = new Float64Array(requests);
  let issued = 0;
  let done = 0;
  const cpu0 = processCpuSeconds(Deno.pid);
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < requests) {
      issued++;
      const t = performance.now();
      await pair();
      latencies[done++] = performance.now() - t;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  const cpu = processCpuSeconds(Deno.pid) - cpu0;
  const sorted = latencies.slice().sort();
  return {
    endpoint: "/oauth/token refresh",
    impl: `(c) 2 × RS256 SignJWT in-process, ${concurrency} in flight`,
    requests,
    errors: 0,
    rps: requests / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    bytes: 0,
    cpuMs: cpu * 1000 / requests,
    dbCpuMs: NaN,
    clientCpuMs: NaN,
    otherCores: NaN,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Report

function fmtMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

function cpuCell(ms: number): string {
  return Number.isFinite(ms) ? ms.toFixed(3) : "—";
}

function table(rows: Row[]): string {
  const lines = [
    "| endpoint | implementation | req/s | p50 ms | p99 ms | CPU ms/req: server | Postgres | load generator | other load (cores) | requests | errors | answer bytes |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.endpoint} | ${r.impl} | ${Math.round(r.rps).toLocaleString("en-US")} | ${fmtMs(r.p50)} | ${
        fmtMs(r.p99)
      } | ${cpuCell(r.cpuMs)} | ${cpuCell(r.dbCpuMs)} | ${cpuCell(r.clientCpuMs)} | ${
        Number.isFinite(r.otherCores) ? r.otherCores.toFixed(2) : "—"
      } | ${r.requests} | ${r.errors} | ${r.bytes ? r.bytes.toLocaleString("en-US") : "—"} |`,
    );
  }
  return lines.join("\n");
}

const call = "/mcp tools/call list_projects";
const list = "/mcp tools/list";
const refresh = "/oauth/token refresh";
const jwks = "/oauth/jwks";
const PORTICO = "Portico";
const PORTICO_BEARER = "Portico, OAuth access token (Bearer)";
const sdkImpl = "(a) SDK McpServer per request";
const bareImpl = "(b) bare Deno.serve + postgres.js";
const BARE_REFRESH = "(b) bare: same SQL + 2 signatures";
const BARE_JWKS = "(b) bare: the same bytes, precomputed";

/** The goals of issue 9 and two informative ratios, as a markdown table; rows not run are left out. */
function ratios(rows: Row[], signOne: Row, signMany: Row): string {
  const find = (endpoint: string, impl: string) =>
    rows.find((r) => r.endpoint === endpoint && r.impl === impl);
  const lines = [
    "| ratio | by req/s | by server CPU per request | goal (req/s) | |",
    "|---|--:|--:|--:|---|",
  ];
  // Rounded down, so a value shown as the goal has met it.
  const pct = (v: number) => Number.isFinite(v) ? `${Math.floor(v * 100)}%` : "—";
  const times = (v: number) => Number.isFinite(v) ? `${(Math.floor(v * 10) / 10).toFixed(1)}×` : "—";
  /** Portico against a baseline: throughput ratio, and the inverse ratio of CPU spent per request. */
  const add = (
    label: string,
    p: Row | undefined,
    base: Row | undefined,
    goal: number | null,
    unit: "%" | "×",
  ) => {
    if (!p || !base) return;
    const byRps = p.rps / base.rps;
    const byCpu = base.cpuMs / p.cpuMs;
    const show = unit === "%" ? pct : times;
    const verdict = goal === null ? "" : byRps >= goal ? "met" : "**missed**";
    lines.push(
      `| ${label} | ${show(byRps)} | ${show(byCpu)} | ${
        goal === null ? "—" : `≥ ${show(goal)}`
      } | ${verdict} |`,
    );
  };
  for (const [label, endpoint] of [["tools/call list_projects", call], ["tools/list", list]]) {
    add(`/mcp ${label} vs (b) bare ceiling`, find(endpoint, PORTICO), find(endpoint, bareImpl), 0.7, "%");
    add(
      `/mcp ${label} vs (a) McpServer per request`,
      find(endpoint, PORTICO),
      find(endpoint, sdkImpl),
      10,
      "×",
    );
  }
  // A Bearer token costs at most its signature check more than a key (issue 12): verified signatures are cached.
  add(
    "/mcp tools/call with an OAuth token vs with an API key",
    find(call, PORTICO_BEARER),
    find(call, PORTICO),
    null,
    "%",
  );
  // The signing ceiling: the faster of one and many in flight, and the cheaper CPU per pair of the two.
  const signatures: Row = {
    ...signOne,
    rps: Math.max(signOne.rps, signMany.rps),
    cpuMs: Math.min(signOne.cpuMs, signMany.cpuMs),
  };
  add("/oauth/token refresh vs (c) its 2 signatures alone", find(refresh, PORTICO), signatures, 0.6, "%");
  add(
    "/oauth/token refresh vs (b) bare SQL + signatures",
    find(refresh, PORTICO),
    find(refresh, BARE_REFRESH),
    null,
    "%",
  );
  add("/oauth/jwks vs (b) the same bytes", find(jwks, PORTICO), find(jwks, BARE_JWKS), null, "%");
  return lines.join("\n");
}

async function postgresVersion(sql: Sql): Promise<string> {
  const [r] = await sql<{ v: string }[]>`select current_setting('server_version') as v`;
  return r.v;
}

function cpuModel(): string {
  try {
    const m = Deno.readTextFileSync("/proc/cpuinfo").match(/^model name\s*:\s*(.*)$/m);
    return m ? m[1] : "unknown CPU";
  } catch {
    return "unknown CPU";
  }
}

/** Runs every row and prints the tables; returns the rows. */
export async function benchLoad(opts: LoadOptions = {}): Promise<Row[]> {
  const o: Required<LoadOptions> = {
    requests: opts.requests ?? 3000,
    warmup: opts.warmup ?? 300,
    concurrency: opts.concurrency ?? 32,
    maxSeconds: opts.maxSeconds ?? 25,
    logLevel: opts.logLevel ?? "info",
    only: opts.only ?? "",
    cpuProf: opts.cpuProf ?? "",
    rounds: opts.rounds ?? 1,
    baseline: opts.baseline ?? "",
  };
  const load0 = Deno.loadavg();
  const db = await freshDatabase();
  const where = db.server
    ? `Postgres ${await postgresVersion(db.sql)} on DATABASE_URL's server (fresh database)`
    : `embedded PGlite (DATABASE_URL unset): ONE connection, served from the load generator's own process — ` +
      `not comparable with a Postgres run`;
  const pool = db.server ? 10 : 1;
  const rows: Row[] = [];
  try {
    const s = await seed(db.sql, o.concurrency * 2);
    // Embedded PGlite serves one connection at a time: the servers need it.
    if (!db.server) await db.sql.end({ timeout: 5 });

    console.log(`\nLoad benchmark (bench/load.ts) — ${new Date().toISOString()}`);
    console.log(
      `  ${navigator.hardwareConcurrency} × ${cpuModel()}, ${
        (Deno.systemMemoryInfo().total / 2 ** 30).toFixed(0)
      } GiB, Deno ${Deno.version.deno}, ${where}`,
    );
    console.log(
      `  seed: ${PROJECTS} projects, ${KEYS} API keys (owner), ${s.toolCount} tools in tools/list (variant A), ` +
        `1 confidential OAuth client (openid profile: 2 signatures per refresh)`,
    );
    console.log(
      `  each server its own subprocess on 127.0.0.1 (postgres.js pool ${pool}, LOG_LEVEL ${o.logLevel}); ` +
        `${o.concurrency} keep-alive connections; per row ${o.warmup} warm-up + ${o.requests} measured ` +
        `requests (at most ${o.maxSeconds} s)` +
        (o.rounds > 1 ? `; ${o.rounds} alternating rounds, median shown` : ""),
    );
    console.log(`  load average at start: ${load0.map((l) => l.toFixed(2)).join(" ")}`);

    const base = {
      databaseUrl: db.url,
      pool,
      secretKey: SECRET,
      logLevel: o.logLevel,
      ownerKey: s.ownerKeys[0],
    };
    // Postgres backends of the bench database other than this process's (which sit idle meanwhile).
    const backends = async () =>
      db.server
        ? (await db.sql<{ pid: number }[]>`
            select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`)
          .map((r) => r.pid)
        : [];
    type Impl = { mode: ServerMode; impl: string; step: (port: number) => Step; repo?: string };
    const chainsA = s.refreshTokens.slice(0, o.concurrency);
    const chainsB = s.refreshTokens.slice(o.concurrency, 2 * o.concurrency);
    const groups: { endpoint: string; impls: Impl[] }[] = [
      {
        endpoint: call,
        impls: [
          { mode: "portico", impl: PORTICO, step: (p) => mcpStep(p, s.ownerKeys, CALL(2), checkProjects) },
          {
            mode: "portico",
            impl: PORTICO_BEARER,
            step: (p) => mcpStep(p, bearerTokens(p, s), CALL(2), checkProjects),
          },
          { mode: "mcp_sdk", impl: sdkImpl, step: (p) => mcpStep(p, s.ownerKeys, CALL(2), checkProjects) },
          { mode: "bare", impl: bareImpl, step: (p) => mcpStep(p, s.ownerKeys, CALL(2), checkProjects) },
          ...(o.baseline
            ? [{
              mode: "portico" as const,
              impl: `${PORTICO} baseline (${o.baseline})`,
              repo: o.baseline,
              step: (p: number) => mcpStep(p, s.ownerKeys, CALL(2), checkProjects),
            }]
            : []),
        ],
      },
      {
        endpoint: list,
        impls: [
          {
            mode: "portico",
            impl: PORTICO,
            step: (p) => mcpStep(p, s.ownerKeys, LIST(1), checkList(s.toolCount)),
          },
          {
            mode: "mcp_sdk",
            impl: sdkImpl,
            step: (p) => mcpStep(p, s.ownerKeys, LIST(1), checkList(s.toolCount)),
          },
          {
            mode: "bare",
            impl: bareImpl,
            step: (p) => mcpStep(p, s.ownerKeys, LIST(1), checkList(s.toolCount)),
          },
        ],
      },
      {
        endpoint: refresh,
        impls: [
          { mode: "portico", impl: PORTICO, step: (p) => refreshStep(p, s, chainsA) },
          { mode: "bare", impl: BARE_REFRESH, step: (p) => refreshStep(p, s, chainsB) },
        ],
      },
      {
        endpoint: jwks,
        impls: [{ mode: "portico", impl: PORTICO, step: jwksStep }, {
          mode: "bare",
          impl: BARE_JWKS,
          step: jwksStep,
        }],
      },
    ];
    // Rounds alternate the implementations of an endpoint, so a neighbour's burst of load hits them alike;
    // each implementation's row is its median round by req/s.
    for (const group of groups) {
      const impls = group.impls.filter((i) =>
        !o.only || o.only.split("|").some((text) => `${group.endpoint} ${i.impl}`.includes(text))
      );
      const runs = new Map<string, Row[]>(impls.map((i) => [i.impl, []]));
      for (let round = 1; round <= o.rounds; round++) {
        for (const i of impls) {
          const server = await startServer({ ...base, mode: i.mode }, i.repo ? "" : o.cpuProf, i.repo);
          try {
            const r = await measureRow(
              server,
              {
                endpoint: group.endpoint,
                impl: i.impl,
                step: i.step(server.port),
              },
              o,
              backends,
            );
            runs.get(i.impl)!.push(r);
            console.log(
              `  ${group.endpoint.padEnd(30)} ${i.impl.padEnd(44)} ${o.rounds > 1 ? `round ${round} ` : ""}${
                Math.round(r.rps).toString().padStart(6)
              } req/s  p50 ${fmtMs(r.p50)} ms  p99 ${fmtMs(r.p99)} ms  other load ${
                r.otherCores.toFixed(2)
              } cores${r.errors ? `  ${r.errors} ERRORS` : ""}`,
            );
          } finally {
            await server.stop();
          }
        }
      }
      for (const i of impls) {
        const sorted = runs.get(i.impl)!.sort((x, y) => x.rps - y.rps);
        rows.push(sorted[Math.floor((sorted.length - 1) / 2)]);
      }
    }

    // Signatures alone: one in flight (one core's worth), then as many in flight as the HTTP rows.
    const signOne = await signaturesAlone(Math.min(o.requests, 1000), 1);
    const signMany = await signaturesAlone(Math.min(o.requests, 1000), o.concurrency);
    rows.push(signOne, signMany);
    const load1 = Deno.loadavg();

    console.log(`\n${table(rows)}\n`);
    console.log(ratios(rows, signOne, signMany));
    console.log(`\n  load average at end: ${load1.map((l) => l.toFixed(2)).join(" ")}`);
  } finally {
    await db.close();
  }
  return rows;
}

function flag(name: string): string | undefined {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}

if (import.meta.main) {
  const num = (name: string) => flag(name) === undefined ? undefined : Number(flag(name));
  await benchLoad({
    requests: num("requests"),
    warmup: num("warmup"),
    concurrency: num("concurrency"),
    maxSeconds: num("max-seconds"),
    logLevel: flag("log-level") as LoadOptions["logLevel"],
    only: flag("only"),
    cpuProf: flag("cpu-prof"),
    rounds: num("rounds"),
    baseline: flag("baseline"),
  });
}
