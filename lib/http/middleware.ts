// Request id + access log, security headers, the 1 MiB body limit, and error answers without internals.
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";
import type { AppEnv } from "./types.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a well-formed incoming X-Request-Id or makes one, echoes it, and logs one line per request. */
export function requestContext(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", id);
    const start = performance.now();
    await next();
    // Set on the response directly: c.header() after the handler re-wraps the body as a stream (~0.5 ms for
    // a 100 KB tools/list answer, measured in bench/mcp.ts).
    c.res.headers.set("X-Request-Id", id);
    log.info("request", {
      request_id: id,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 10) / 10,
    });
  };
}

/** Headers every answer carries; pages tighten nothing further since this is already strict. */
export function securityHeaders(opts: { https: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "no-referrer");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    if (!h.has("Content-Security-Policy")) {
      // form-action is left out on purpose: Chromium applies it to the redirect after the consent POST,
      // which must be able to reach the client's registered redirect URI.
      h.set(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; img-src 'self' data: https:; frame-ancestors 'none'; base-uri 'none'",
      );
    }
    if (opts.https) h.set("Strict-Transport-Security", "max-age=31536000");
  };
}

/** Bodies over 1 MiB are refused with 413 before any handler parses them. */
export function limitBody(maxSize = MAX_BODY_BYTES): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize,
    onError: (c) =>
      c.json(
        { error: "payload_too_large", error_description: `request body exceeds ${maxSize} bytes` },
        413,
      ),
  });
}

export function onError(log: Logger): ErrorHandler<AppEnv> {
  return (err, c: Context<AppEnv>) => {
    const requestId = c.get("requestId") ?? "unknown";
    log.error("unhandled error", { request_id: requestId, path: c.req.path, ...errorFields(err) });
    return c.json(
      { error: "server_error", error_description: `internal error (request id ${requestId})` },
      500,
    );
  };
}

export const notFound: NotFoundHandler<AppEnv> = (c) =>
  c.json({ error: "not_found", error_description: `no route for ${c.req.method} ${c.req.path}` }, 404);
