// Serves the app over HTTP, every request body bounded in time (HTTP_REQUEST_TIMEOUT_MS), with one of two front
// ends (HTTP_FRONT_END):
//
// - `deno` (default): Deno's own HTTP server (what Deno.serve is built from), the fastest, with a header
//   deadline. Deno 2.9's Deno.serve has no header-read or idle timeout (a partial request stays open
//   indefinitely), so Portico accepts connections itself (Deno.listen) and hands each to Deno's per-connection
//   server (`serveHttpOnConnection`; internal, looked up at start) under a watch: a connection is closed when no
//   request has arrived within HTTP_HEADERS_TIMEOUT_MS of it opening or of its previous answer. No byte passes
//   through JavaScript: a kept-alive request costs about 2 µs of CPU more than under Deno.serve, a new
//   connection some tens of µs more (BENCHMARKS.md, "A header deadline for the default front end"). Plain
//   Deno.serve (no deadline) when HTTP_HEADERS_TIMEOUT_MS=0, when the platform chooses where Deno.serve listens
//   (DENO_SERVE_ADDRESS, as on Deno Deploy, whose edge bounds slow clients), or when this Deno lacks the
//   function (frontEndWarning says so).
// - `node`: node:http, request headers bounded the same way and a silent connection closed after
//   HTTP_IDLE_TIMEOUT_MS (including a client that reads its answer too slowly). Deno's node:http ignores its own
//   headersTimeout and requestTimeout options (measured), so the header deadline is a timer per connection here;
//   its socket `timeout` does work. Costs throughput (BENCHMARKS.md, "HTTP front ends" and the section after).
import type { Config } from "../config.ts";
import { isLoopbackListenHost } from "../net/loopback.ts";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Readable } from "node:stream";
import { guardBody } from "./body_guard.ts";

export type FetchHandler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

export interface ServeOptions {
  port: number;
  hostname: string;
  /** see Config.httpRequestTimeoutMs */
  requestTimeoutMs: number;
  /** which front end; see the module comment */
  frontEnd?: "deno" | "node";
  /** a request must arrive within this many ms of the connection opening or of its last answer (0: no limit) */
  headersTimeoutMs?: number;
  /** node front end: a connection silent this long is closed (0: no limit) */
  idleTimeoutMs?: number;
  /** Deno.serve listens where the platform says (DENO_SERVE_ADDRESS), not at port/hostname: plain Deno.serve */
  platformAddress?: boolean;
  onListen?: (addr: Deno.NetAddr) => void;
}

export function serveOptions(config: Config, onListen?: (addr: Deno.NetAddr) => void): ServeOptions {
  return {
    port: config.port,
    hostname: config.host,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    frontEnd: config.httpFrontEnd,
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    idleTimeoutMs: config.httpIdleTimeoutMs,
    platformAddress: config.denoServeAddress !== undefined,
    onListen,
  };
}

export interface RunningServer {
  addr: Deno.NetAddr;
  /** stops accepting connections and resolves when the requests in flight have been answered */
  shutdown(): Promise<void>;
}

/** Starts listening (AddrInUse and PermissionDenied are thrown from here) and returns the server. */
export async function serve(fetch: FetchHandler, opts: ServeOptions): Promise<RunningServer> {
  const limit = opts.requestTimeoutMs;
  const guarded: FetchHandler = (req, info) =>
    fetch(limit > 0 && req.body ? guardBody(req, limit) : req, info);
  if (opts.frontEnd === "node") return await serveNode(guarded, opts);
  const serveOn = serveOnConnection();
  if ((opts.headersTimeoutMs ?? 0) > 0 && !opts.platformAddress && serveOn) {
    return serveDenoWatched(guarded, opts, serveOn);
  }
  const server = Deno.serve({
    port: opts.port,
    hostname: opts.hostname,
    onListen: (addr) => opts.onListen?.(addr),
  }, guarded);
  return { addr: server.addr, shutdown: () => server.shutdown() };
}

/** Deno's per-connection HTTP server: Deno.serve's machinery for one accepted connection; closed by `signal`. */
type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: FetchHandler,
  onError: (err: unknown) => Response,
  onListen: () => void,
) => { finished: Promise<void>; shutdown(): Promise<void> };

/**
 * `serveHttpOnConnection` from Deno's internals (ext/http 00_serve.ts, exposed on `Deno[Deno.internal]`; present in
 * Deno 2.9.6), or undefined when this Deno has no such function of that shape. tests/http/slow_clients.test.ts
 * fails on a Deno where it went away (the default front end then keeps a slowloris connection open).
 */
export function serveOnConnection(): ServeOnConnection | undefined {
  const deno = Deno as unknown as Record<PropertyKey, unknown>;
  const internal = deno[deno.internal as PropertyKey] as Record<string, unknown> | undefined;
  const f = internal?.serveHttpOnConnection;
  return typeof f === "function" && f.length === 5 ? f as ServeOnConnection : undefined;
}

/** One accepted connection of the `deno` front end with a header deadline. */
interface Watched {
  /** requests on it not yet fully answered */
  inFlight: number;
  /** performance.now() when it opened or when its last request was answered */
  idleSince: number;
  cut: AbortController;
  shutdown(): Promise<void>;
}

/**
 * The `deno` front end with a header deadline: connections accepted here, each served by Deno's own
 * per-connection server, and closed when no request has arrived within `headersMs` of the connection opening or
 * of the last answer (dripping header bytes does not extend it: the watch sees requests, not bytes). A sweep
 * every quarter deadline (every second at most) checks every connection, so one is cut between 1 and 1.25
 * deadlines after it went idle; a timer set and cleared per request instead cost 5 µs of CPU a request.
 */
function serveDenoWatched(
  fetch: FetchHandler,
  opts: ServeOptions,
  serveOn: ServeOnConnection,
): RunningServer {
  const headersMs = opts.headersTimeoutMs!;
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port });
  const live = new Set<Watched>();
  let closing = false;
  const onError = () => new Response(null, { status: 500 }); // the app answers its own errors; a last resort
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const w of live) if (w.inFlight === 0 && now - w.idleSince >= headersMs) w.cut.abort();
  }, Math.max(10, Math.min(1000, headersMs / 4)));

  function watch(conn: Deno.Conn): void {
    const cut = new AbortController();
    const w: Watched = { inFlight: 0, idleSince: performance.now(), cut, shutdown: () => server.shutdown() };
    // The next request on a kept-alive connection (or the next stream of an HTTP/2 one) has the deadline again
    // once every request on it has been answered.
    const answered = () => {
      if (--w.inFlight === 0) w.idleSince = performance.now();
    };
    const server = serveOn(
      conn,
      cut.signal,
      (req, info) => {
        w.inFlight++;
        info.completed.then(answered, answered);
        return fetch(req, info);
      },
      onError,
      () => {},
    );
    live.add(w);
    server.finished.catch(() => {}).finally(() => live.delete(w));
  }

  const accepting = (async () => {
    while (!closing) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (err) {
        if (closing || err instanceof Deno.errors.BadResource || err instanceof Deno.errors.Interrupted) {
          return;
        }
        // e.g. out of file descriptors: one failed accept must not end the loop; wait a moment and go on
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      watch(conn);
    }
  })();
  const addr = listener.addr;
  opts.onListen?.(addr);
  return {
    addr,
    async shutdown() {
      closing = true;
      clearInterval(sweep);
      listener.close();
      await accepting;
      await Promise.all([...live].map((w) => w.shutdown().catch(() => {})));
    },
  };
}

const HEADER_TIMER = Symbol("headerTimer");
type TimedSocket = Socket & { [HEADER_TIMER]?: ReturnType<typeof setTimeout> };

function armHeaderDeadline(socket: TimedSocket, ms: number): void {
  clearTimeout(socket[HEADER_TIMER]);
  if (ms > 0) socket[HEADER_TIMER] = setTimeout(() => socket.destroy(), ms);
}

function listenError(err: NodeJS.ErrnoException, opts: ServeOptions): Error {
  if (err.code === "EADDRINUSE") return new Deno.errors.AddrInUse(err.message);
  if (err.code === "EACCES" || err.code === "EPERM") return new Deno.errors.PermissionDenied(err.message);
  if (err.code === "EADDRNOTAVAIL") {
    return new Deno.errors.AddrNotAvailable(`${opts.hostname}: ${err.message}`);
  }
  return err;
}

async function serveNode(fetch: FetchHandler, opts: ServeOptions): Promise<RunningServer> {
  const headersMs = opts.headersTimeoutMs ?? 0;
  const server = http.createServer(async (req, res) => {
    const socket = req.socket as TimedSocket;
    clearTimeout(socket[HEADER_TIMER]);
    // The next request on a kept-alive connection gets a fresh header deadline once this one is answered.
    res.on("finish", () => socket.destroyed || armHeaderDeadline(socket, headersMs));
    const abort = new AbortController();
    res.on("close", () => res.writableFinished || abort.abort());
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    const method = req.method ?? "GET";
    const request = new Request(`http://${headers.get("host") ?? opts.hostname}${req.url ?? "/"}`, {
      method,
      headers,
      body: method === "GET" || method === "HEAD"
        ? undefined
        : Readable.toWeb(req) as ReadableStream<Uint8Array>,
      signal: abort.signal,
      duplex: "half",
    } as RequestInit);
    const info = {
      remoteAddr: {
        transport: "tcp",
        hostname: socket.remoteAddress ?? "unknown",
        port: socket.remotePort ?? 0,
      },
      completed: new Promise<void>((resolve) => res.on("close", resolve)),
    } as Deno.ServeHandlerInfo<Deno.NetAddr>;
    let response: Response;
    try {
      response = await fetch(request, info);
    } catch {
      response = new Response(null, { status: 500 }); // the app answers its own errors; this is a last resort
    }
    const flat: string[] = [];
    for (const [k, v] of response.headers) flat.push(k, v);
    res.writeHead(response.status, flat);
    if (!response.body || method === "HEAD") {
      response.body?.cancel().catch(() => {});
      res.end();
      return;
    }
    try {
      for await (const chunk of response.body) {
        if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve));
        if (res.destroyed) break;
      }
    } catch {
      // the client went away while the answer streamed
    }
    res.end();
  });
  server.on("connection", (socket: TimedSocket) => {
    armHeaderDeadline(socket, headersMs);
    socket.on("close", () => clearTimeout(socket[HEADER_TIMER]));
  });
  if ((opts.idleTimeoutMs ?? 0) > 0) server.timeout = opts.idleTimeoutMs!;
  server.keepAliveTimeout = opts.idleTimeoutMs || 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(listenError(err, opts)));
    server.listen(opts.port, opts.hostname, () => resolve());
  });
  const a = server.address() as AddressInfo;
  const addr: Deno.NetAddr = { transport: "tcp", hostname: a.address, port: a.port };
  opts.onListen?.(addr);
  return {
    addr,
    shutdown: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/**
 * The start-up warning for a `deno` front end listening beyond loopback, with no proxy configured, and no header
 * deadline (HTTP_HEADERS_TIMEOUT_MS=0, or a Deno without the per-connection server): slow clients are then
 * unbounded (the operator should front it, give it a deadline or choose HTTP_FRONT_END=node).
 */
export function frontEndWarning(config: Config): string | undefined {
  const loopback = isLoopbackListenHost(config.host);
  if (config.httpFrontEnd !== "deno" || loopback || config.trustedProxies.length > 0) return undefined;
  if (config.denoServeAddress !== undefined) return undefined; // the platform listens and bounds slow clients
  const why = config.httpHeadersTimeoutMs === 0
    ? "HTTP_HEADERS_TIMEOUT_MS=0"
    : serveOnConnection()
    ? undefined
    : "this Deno has no per-connection server (Deno[Deno.internal].serveHttpOnConnection)";
  if (!why) return undefined;
  return `listening on ${config.host} with HTTP_FRONT_END=deno, no TRUSTED_PROXIES and ${why}: slow request ` +
    `headers are not timed out; put a proxy in front, set HTTP_HEADERS_TIMEOUT_MS or set HTTP_FRONT_END=node`;
}
