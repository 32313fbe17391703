// Real HTTP for pressure tests: an app served by Deno.serve on loopback, or `deno run main.ts` as a child process,
// each reached through a fetch-backed `request()` so the app.request()-based helpers work over the wire.
import type { Hono } from "hono";
import { parseConfig } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SCRYPT, TEST_SECRET } from "./app.ts";
import type { RequestTarget } from "./mcp.ts";
import { HANG_MS } from "./wait.ts";

/** A server reachable over HTTP; `request` takes a path (or a URL whose path is used) like app.request. */
export interface HttpTarget extends RequestTarget {
  /** http://127.0.0.1:<port> */
  base: string;
  request(input: string | Request, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * fetch() against `base`, never following redirects, with the body read at once: a test can drop any response
 * without leaking its connection, and 30 requests in flight are still 30 concurrent requests on the server.
 */
export function fetcher(base: string): (input: string | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const given = new URL(typeof input === "string" ? input : input.url, "http://localhost:8000");
    const res = await fetch(`${base}${given.pathname}${given.search}`, { redirect: "manual", ...init });
    const body = await res.arrayBuffer();
    const empty = [101, 204, 205, 304].includes(res.status);
    return new Response(empty ? null : body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

export interface ServedApp extends HttpTarget {
  /** the most requests the handler had in flight at once since the last call (which resets it) */
  takePeak(): number;
  /**
   * Holds the next requests at the door and lets them in together once `ready(held)` says so (it is asked at
   * each arrival and whenever `recheck()` is called): requests that overlap for certain, however the host
   * schedules them.
   */
  gate(ready: (held: number) => boolean): { recheck(): void };
}

/** Serves `app` on 127.0.0.1 at a free port, counting requests in flight to show that they overlapped. */
export function serveApp(app: Hono<AppEnv>): ServedApp {
  let inFlight = 0, peak = 0;
  let door: { ready: (held: number) => boolean; held: Array<() => void> } | undefined;
  const recheck = () => {
    if (door && door.ready(door.held.length)) {
      const { held } = door;
      door = undefined;
      for (const go of held) go();
    }
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req, info) => {
    peak = Math.max(peak, ++inFlight);
    try {
      if (door) {
        const d = door;
        await new Promise<void>((go) => {
          d.held.push(go);
          recheck();
        });
      }
      return await app.fetch(req, info);
    } finally {
      inFlight--;
    }
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    base,
    request: fetcher(base),
    close: () => server.shutdown(),
    takePeak() {
      const p = peak;
      peak = inFlight;
      return p;
    },
    gate(ready) {
      door = { ready, held: [] };
      return { recheck };
    },
  };
}

/**
 * The fetch-backed target typed as the Hono app the OAuth test helpers (tests/oauth/helpers.ts) expect: they only
 * call `request(path, init)`; the third argument (a fake peer address) is ignored — the real peer is 127.0.0.1.
 */
export function asApp(target: HttpTarget): Hono<AppEnv> {
  return target as unknown as Hono<AppEnv>;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The arguments of `deno task start` after `deno` (its permissions exactly), read from deno.json. */
export async function startTaskArgs(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const words = (config.tasks.start as string).split(/\s+/);
  if (words[0] !== "deno") throw new Error(`deno task start is not a deno command: ${config.tasks.start}`);
  return words.slice(1);
}

/**
 * Starts `deno run main.ts` with `env` on a free loopback port and waits until /healthz answers 200; with
 * `startTask`, with exactly `deno task start`'s permissions.
 */
export async function spawnServer(
  env: Record<string, string>,
  opts: { startTask?: boolean } = {},
): Promise<HttpTarget> {
  const port = freePort();
  const root = new URL("../../", import.meta.url);
  const child = new Deno.Command(Deno.execPath(), {
    args: opts.startTask
      ? await startTaskArgs()
      : ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys", "main.ts"],
    cwd: root,
    env: { HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "error", NO_COLOR: "1", ...env },
    clearEnv: false,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const base = `http://127.0.0.1:${port}`;
  const request = fetcher(base);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const close = async () => {
    if (!exited) child.kill("SIGTERM");
    await status;
    await stderr;
  };
  const deadline = Date.now() + HANG_MS; // a hang: a loaded host may need more than the 30 s this was
  while (true) {
    if (exited) throw new Error(`main.ts exited at start-up: ${await stderr}`);
    try {
      if ((await request("/healthz")).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`main.ts did not answer /healthz within ${HANG_MS / 1000} s: ${await stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, request, close };
}

/**
 * The browser tests' server: a Portico app on a free loopback port whose ISSUER is that address. The app needs
 * its issuer (with the port) before it exists, so the listener starts first and answers 503 until the app is
 * built. `env` adds configuration (branding, trusted prefixes …). Passwords cost TEST_SCRYPT, as everywhere in tests.
 */
export function serveAtIssuer(
  sql: Sql,
  env: Record<string, string> = {},
): { issuer: string; server: Deno.HttpServer<Deno.NetAddr>; app: Hono<AppEnv> } {
  let handler: (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response> =
    () => new Response("starting", { status: 503 });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req, info) => handler(req, info),
  );
  const issuer = `http://127.0.0.1:${server.addr.port}`;
  const app = createApp({
    config: parseConfig({ ISSUER: issuer, SECRET_KEY: TEST_SECRET, ...env }),
    sql,
    log: silentLogger,
    secretKey: TEST_SECRET,
    scrypt: TEST_SCRYPT,
  });
  handler = (req, info) => app.fetch(req, info);
  return { issuer, server, app };
}
