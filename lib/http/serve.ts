// Serves the app over HTTP with Deno.serve, every request body bounded in time (HTTP_REQUEST_TIMEOUT_MS).
//
// Header and idle timeouts for slow clients are not enforced in-process: Deno 2.9's Deno.serve has no option for
// them, and its node:http (which accepts headersTimeout, requestTimeout, keepAliveTimeout) does not apply them
// either — measured, a partial request stayed open past 8 s with all three at 1-2 s — while costing throughput.
// The proxy in front (Deno Deploy's edge, nginx, Caddy, a cloud load balancer) enforces them; docs/operations.md
// "Timeouts" says which settings, BENCHMARKS.md has the figures.
import type { Config } from "../config.ts";
import { guardBody } from "./body_guard.ts";

export type FetchHandler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

export interface ServeOptions {
  port: number;
  hostname: string;
  /** see Config.httpRequestTimeoutMs */
  requestTimeoutMs: number;
  onListen?: (addr: Deno.NetAddr) => void;
}

export function serveOptions(config: Config, onListen?: (addr: Deno.NetAddr) => void): ServeOptions {
  return {
    port: config.port,
    hostname: config.host,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    onListen,
  };
}

/** Starts listening at once (AddrInUse and PermissionDenied are thrown from here) and returns the server. */
export function serve(fetch: FetchHandler, opts: ServeOptions): Deno.HttpServer<Deno.NetAddr> {
  const limit = opts.requestTimeoutMs;
  return Deno.serve({
    port: opts.port,
    hostname: opts.hostname,
    onListen: (addr) => opts.onListen?.(addr),
  }, (req, info) => fetch(limit > 0 && req.body ? guardBody(req, limit) : req, info));
}
