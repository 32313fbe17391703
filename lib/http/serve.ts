// Serves the app over HTTP, every request body bounded in time (HTTP_REQUEST_TIMEOUT_MS), with one of two front
// ends (HTTP_FRONT_END):
//
// - `deno` (default): Deno.serve, the fastest. Deno 2.9's Deno.serve has no header-read or idle timeout, so a
//   slow client can hold a connection open; the proxy in front (Deno Deploy's edge, nginx, Caddy, a load
//   balancer) bounds that. docs/operations.md "Timeouts".
// - `node`: node:http, for a port exposed with no proxy: request headers must arrive within
//   HTTP_HEADERS_TIMEOUT_MS of the connection opening (or of the previous answer on a kept-alive connection) and
//   a silent connection is closed after HTTP_IDLE_TIMEOUT_MS. Deno's node:http ignores its own headersTimeout
//   and requestTimeout options (measured), so the header deadline is a timer per connection here; its socket
//   `timeout` does work. Costs throughput (BENCHMARKS.md, "HTTP front ends").
import type { Config } from "../config.ts";
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
  /** node front end: request headers must arrive within this many ms (0: no limit) */
  headersTimeoutMs?: number;
  /** node front end: a connection silent this long is closed (0: no limit) */
  idleTimeoutMs?: number;
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
  const server = Deno.serve({
    port: opts.port,
    hostname: opts.hostname,
    onListen: (addr) => opts.onListen?.(addr),
  }, guarded);
  return { addr: server.addr, shutdown: () => server.shutdown() };
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
 * The start-up warning for a Deno.serve front end listening beyond loopback with no proxy configured: slow
 * clients are then unbounded (the operator should front it or choose HTTP_FRONT_END=node).
 */
export function frontEndWarning(config: Config): string | undefined {
  const loopback = /^(127\.|localhost$|::1$|\[::1\]$)/.test(config.host);
  if (config.httpFrontEnd !== "deno" || loopback || config.trustedProxies.length > 0) return undefined;
  return `listening on ${config.host} with HTTP_FRONT_END=deno and no TRUSTED_PROXIES: Deno.serve does not ` +
    `time out slow request headers or idle connections; put a proxy in front or set HTTP_FRONT_END=node`;
}
