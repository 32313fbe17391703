// Request id + access log, security headers, the 1 MiB body limit, refusal of text Postgres cannot store, and
// error answers without internals (503 temporarily_unavailable while the database is away; pages: pages.ts).
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { routePath } from "hono/route";
import { trace } from "@opentelemetry/api";
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_AFTER } from "../db/errors.ts";
import { BodyTimeoutError, CLIENT_CLOSED_REQUEST, isClientAbort } from "./body_guard.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";
import { countRequest, OTEL_ON } from "../telemetry/otel.ts";
import { requestAnswered, requestStarted } from "./in_flight.ts";
import { decodeUtf8, unsafeInputProblem } from "../unsafe_input.ts";
import type { AppEnv } from "./types.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A well-formed incoming X-Request-Id, or a new one. */
function requestIdOf(incoming: string | null | undefined): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/**
 * Takes a well-formed incoming X-Request-Id or makes one, echoes it, and logs one line per request. With
 * OpenTelemetry on, also names Deno's request span after the route pattern, gives it the request id, and counts
 * the request (`tracedRequestContext`).
 */
export function requestContext(log: Logger): MiddlewareHandler<AppEnv> {
  if (OTEL_ON) return tracedRequestContext(log);
  return async (c, next) => {
    const id = requestIdOf(c.req.header("x-request-id"));
    c.set("requestId", id);
    const start = performance.now();
    requestStarted();
    try {
      await next();
    } finally {
      requestAnswered();
    }
    // Set on the response directly: c.header() after the handler re-wraps the body as a stream (~0.5 ms for
    // a 100 KB tools/list answer, measured in bench/mcp.ts). An answer built complete already carries it.
    if (complete.get(c.res) !== id) c.res.headers.set("X-Request-Id", id);
    log.access(id, c.req.method, c.req.path, c.res.status, performance.now() - start);
  };
}

/**
 * requestContext with OpenTelemetry on: the active span (Deno's HTTP server span) gets `portico.request_id` at
 * once and, once answered, `http.route` (the route pattern, "/*" when no route answered) and the name
 * "METHOD route"; `portico.http.requests` and, for a 429, `portico.rate_limit.refusals` count the answer.
 */
function tracedRequestContext(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header("x-request-id"));
    c.set("requestId", id);
    const span = trace.getActiveSpan();
    span?.setAttribute("portico.request_id", id);
    const start = performance.now();
    requestStarted();
    try {
      await next();
    } finally {
      requestAnswered();
    }
    const route = routePath(c);
    span?.setAttribute("http.route", route);
    span?.updateName(`${c.req.method} ${route}`);
    countRequest(route, c.req.method, c.res.status);
    if (complete.get(c.res) !== id) c.res.headers.set("X-Request-Id", id);
    log.access(id, c.req.method, c.req.path, c.res.status, performance.now() - start);
  };
}

/**
 * What securityHeaders() adds to every answer, as a list: the one home of these values, for the middleware and
 * for answers built complete (`completeResponse`).
 */
export function securityHeaderList(opts: { https: boolean }): readonly (readonly [string, string])[] {
  return [
    ["X-Content-Type-Options", "nosniff"],
    ["X-Frame-Options", "DENY"],
    ["Referrer-Policy", "no-referrer"],
    ["Cross-Origin-Opener-Policy", "same-origin"],
    // form-action is left out on purpose: Chromium applies it to the redirect after the consent POST,
    // which must be able to reach the client's registered redirect URI.
    [
      "Content-Security-Policy",
      "default-src 'none'; style-src 'self'; img-src 'self' data: https:; frame-ancestors 'none'; base-uri 'none'",
    ],
    ...(opts.https ? [["Strict-Transport-Security", "max-age=31536000"] as const] : []),
  ];
}

const SECURITY_HTTP = securityHeaderList({ https: false });
const SECURITY_HTTPS = securityHeaderList({ https: true });

/** Answers built with every header the middleware adds: the request id they carry, by response. */
const complete = new WeakMap<Response, string>();
/** Which security header list an answer built complete carries (https or not). */
const completeHttps = new WeakMap<Response, boolean>();

/** Whether `res` was built by `completeResponse` (every header already on it: leave its headers unread). */
export function builtComplete(res: Response): boolean {
  return complete.has(res);
}

/**
 * An answer built with all its headers at once — its own, the security headers and X-Request-Id — which
 * requestContext() and securityHeaders() then leave untouched. Why: reading `response.headers` after the
 * Response was made makes Deno drop the answer it prepared for the socket at construction (header list and
 * encoded body) and prepare it again when serving; on /mcp tools/call that was ~10% of the server's CPU per
 * call (BENCHMARKS.md, issue 17.5). Without a request id (no requestContext mounted) it is an ordinary Response.
 */
export function completeResponse(
  c: Context<AppEnv>,
  https: boolean,
  status: number,
  body: BodyInit | null,
  headers: readonly (readonly [string, string])[],
): Response {
  const id = c.get("requestId") as string | undefined;
  if (id === undefined) return new Response(body, { status, headers: headers as [string, string][] });
  const all = [...headers, ...(https ? SECURITY_HTTPS : SECURITY_HTTP), ["X-Request-Id", id]] as [
    string,
    string,
  ][];
  const res = new Response(body, { status, headers: all });
  complete.set(res, id);
  completeHttps.set(res, https);
  return res;
}

/** Adds the security headers to an answer not built complete with them (a page's own CSP is kept). */
function addSecurityHeaders(res: Response, https: boolean): void {
  if (completeHttps.get(res) === https) return;
  const h = res.headers;
  for (const [name, value] of https ? SECURITY_HTTPS : SECURITY_HTTP) {
    if (name !== "Content-Security-Policy" || !h.has(name)) h.set(name, value);
  }
}

/** Headers every answer carries; pages tighten nothing further since this is already strict. */
export function securityHeaders(opts: { https: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    addSecurityHeaders(c.res, opts.https);
  };
}

function payloadTooLarge(c: Context<AppEnv>, maxSize: number): Response {
  return c.json(
    { error: "payload_too_large", error_description: `request body exceeds ${maxSize} bytes` },
    413,
  );
}

/**
 * Bodies over 1 MiB are refused with 413 before any handler parses them; `answers` gives a path its own 413
 * (/mcp answers JSON-RPC).
 */
export function limitBody(
  maxSize = MAX_BODY_BYTES,
  answers: Record<string, (c: Context<AppEnv>, maxSize: number) => Response> = {},
): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Context<AppEnv>) => (answers[c.req.path] ?? payloadTooLarge)(c, maxSize);
  const streamed = bodyLimit({ maxSize, onError: tooLarge });
  return (c, next) => {
    // A declared length is checked as Hono's bodyLimit checks it, without first opening the body as a stream
    // (which Hono's `c.req.raw.body` test does: ~2 µs a request). Chunked or undeclared bodies are counted by it.
    const raw = c.req.raw;
    const length = raw.headers.get("content-length");
    if (
      length !== null && !raw.headers.has("transfer-encoding") && raw.method !== "GET" &&
      raw.method !== "HEAD"
    ) {
      return parseInt(length, 10) > maxSize ? Promise.resolve(tooLarge(c)) : next();
    }
    return streamed(c, next);
  };
}

/**
 * For every route but /mcp (which answers JSON-RPC errors itself): a query string or a JSON, form or text body
 * holding invalid UTF-8, a NUL character, or JSON nested deeper than MAX_INPUT_DEPTH is refused with 400
 * invalid_request before any handler reads it. Without this, U+FFFD replacements would be stored silently and a
 * NUL would reach Postgres as a database error (500).
 */
export function refuseUnsafeText(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.path === "/mcp") return await next();
    const refuse = (what: string) =>
      c.json({ error: "invalid_request", error_description: what }, 400, { "Cache-Control": "no-store" });
    const query = new URL(c.req.url).searchParams;
    for (const [k, v] of query) {
      if (k.includes("\u0000") || v.includes("\u0000")) {
        return refuse("query parameters must not contain NUL characters (U+0000)");
      }
    }
    if (!c.req.raw.body || c.req.method === "GET" || c.req.method === "HEAD") return await next();
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type === "multipart/form-data") {
      // Read through Hono's body cache, so the handler's parseBody() sees the same values.
      const form = await c.req.parseBody({ all: true }).catch(() => null);
      if (form === null) return refuse("the form body is malformed");
      const problem = unsafeInputProblem(form);
      if (problem) return refuse(`form field ${problem}`);
      return await next();
    }
    const kind = type === "application/x-www-form-urlencoded"
      ? "form"
      : type === "application/json" || type.endsWith("+json")
      ? "json"
      : type.startsWith("text/")
      ? "text"
      : null;
    if (kind === null) return await next();
    const text = decodeUtf8(await c.req.arrayBuffer());
    if (text === null) return refuse("the body is not valid UTF-8");
    if (kind === "form") {
      for (const [k, v] of new URLSearchParams(text)) {
        if (k.includes("\u0000") || v.includes("\u0000")) {
          return refuse(`form field ${k.replaceAll("\u0000", "")} must not contain NUL characters (U+0000)`);
        }
      }
    } else if (kind === "json") {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return await next(); // the handler answers malformed JSON in its own terms
      }
      const problem = unsafeInputProblem(value);
      if (problem) return refuse(problem);
    } else if (text.includes("\u0000")) {
      return refuse("the body must not contain NUL characters (U+0000)");
    }
    return await next();
  };
}

/**
 * Answers a database outage: RFC 6749 temporarily_unavailable as JSON here; page sub-apps (lib/http/pages.ts)
 * pass one that shows a page.
 */
export type OutageAnswer = (c: Context<AppEnv>) => Response;

function outageJson(c: Context<AppEnv>): Response {
  return c.json({
    error: "temporarily_unavailable",
    error_description: `the service is temporarily unavailable; retry in ${UNAVAILABLE_RETRY_AFTER} s`,
  }, 503);
}

/**
 * The app's error handler, and (with `outage`) a page sub-app's: Hono runs a sub-app's own handler for the errors
 * of that sub-app's routes, so which answers are pages is decided where the routes are declared, not by path here.
 */
export function onError(log: Logger, outage: OutageAnswer = outageJson): ErrorHandler<AppEnv> {
  return (err, c: Context<AppEnv>) => {
    const requestId = c.get("requestId") ?? "unknown";
    // The sender's doing, not ours: never an error line or a 500 (lib/http/body_guard.ts).
    if (isClientAbort(err)) {
      log.info("client aborted", { request_id: requestId, path: c.req.path });
      return c.body(null, CLIENT_CLOSED_REQUEST as 400);
    }
    if (err instanceof BodyTimeoutError) {
      log.info("request body timed out", { request_id: requestId, path: c.req.path });
      return c.json({ error: "request_timeout", error_description: err.message }, 408, {
        Connection: "close",
      });
    }
    if (isDatabaseUnavailable(err)) {
      // RFC 6749 temporarily_unavailable: the client may retry; nothing of the cause leaves the server.
      log.warn("database unavailable", { request_id: requestId, path: c.req.path, ...errorFields(err) });
      c.header("Retry-After", String(UNAVAILABLE_RETRY_AFTER));
      c.header("Cache-Control", "no-store");
      return outage(c);
    }
    log.error("unhandled error", { request_id: requestId, path: c.req.path, ...errorFields(err) });
    return c.json(
      { error: "server_error", error_description: `internal error (request id ${requestId})` },
      500,
    );
  };
}

export const notFound: NotFoundHandler<AppEnv> = (c) =>
  c.json({ error: "not_found", error_description: `no route for ${c.req.method} ${c.req.path}` }, 404);
