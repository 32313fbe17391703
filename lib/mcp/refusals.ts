// What /mcp answers instead of serving a request it cannot take, before any credential or database work: an
// unsupported MCP-Protocol-Version, a body that is not JSON, a bad toolset selection in the URL, a method other
// than POST. Each is a JSON-RPC error body (id null; left out for a 2026-07-28 request: routes/mcp.ts) with its
// HTTP status.
import { RPC } from "./errors.ts";
import { rpcErrorBody } from "./jsonrpc.ts";
import { isSupportedVersion } from "./handshake.ts";
import { ALL_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from "./modern.ts";

/** An answer given instead of serving the request: HTTP status, JSON-RPC error body, extra headers. */
export interface Refusal {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * A MCP-Protocol-Version header this server does not speak (none sent: the default version): 400 with
 * UnsupportedProtocolVersion (-32022) and every revision served in `data`, so a client of either era can fall
 * back at once (2026-07-28, basic/versioning.mdx; the 2025 revisions ask only for the 400).
 */
export function refuseVersion(header: string | undefined): Refusal | undefined {
  if (header === undefined || isSupportedVersion(header) || header === MODERN_PROTOCOL_VERSION) {
    return undefined;
  }
  return {
    status: 400,
    body: rpcErrorBody(
      null,
      RPC.UNSUPPORTED_PROTOCOL_VERSION,
      `Unsupported protocol version: MCP-Protocol-Version ${header.slice(0, 100)} (supported: ${
        ALL_PROTOCOL_VERSIONS.join(", ")
      })`,
      { supported: [...ALL_PROTOCOL_VERSIONS], requested: header.slice(0, 100) },
    ),
  };
}

/** A body that is not declared application/json. */
export function refuseContentType(header: string | undefined): Refusal | undefined {
  if ((header ?? "").split(";")[0].trim().toLowerCase() === "application/json") return undefined;
  return {
    status: 415,
    body: rpcErrorBody(
      null,
      RPC.INVALID_REQUEST,
      "Unsupported Media Type: Content-Type must be application/json",
    ),
  };
}

/** A toolset selection in the URL that names no toolset (docs/mcp.md "Toolsets and read-only"). */
export function refuseSelection(message: string): Refusal {
  return { status: 400, body: rpcErrorBody(null, RPC.INVALID_PARAMS, `Invalid params: ${message}`) };
}

/** GET, DELETE, PUT, PATCH: stateless, so no SSE stream to open and no session to end. */
export function methodNotAllowed(method: string): Refusal {
  return {
    status: 405,
    body: rpcErrorBody(
      null,
      RPC.INVALID_REQUEST,
      `Method Not Allowed: ${method} (this server is stateless; use POST)`,
    ),
    headers: { Allow: "POST" },
  };
}

/** Invalid UTF-8 is refused rather than read with U+FFFD replacements and stored as something else. */
export const NOT_UTF8: Refusal = {
  status: 400,
  body: rpcErrorBody(null, RPC.PARSE_ERROR, "Parse error: the body is not valid UTF-8"),
};

/** A body over the size limit (lib/http/middleware.ts limitBody): 413, as a JSON-RPC error like every answer. */
export function payloadTooLarge(maxBytes: number): Refusal {
  return {
    status: 413,
    body: rpcErrorBody(null, RPC.INVALID_REQUEST, `Payload Too Large: the body exceeds ${maxBytes} bytes`),
  };
}

/** The same answer without `"id":null`, for a 2026-07-28 request (its clients refuse a null id). */
export function withoutNullId(body: string): string {
  return body.startsWith('{"jsonrpc":"2.0","id":null,') ? `{"jsonrpc":"2.0",${body.slice(27)}` : body;
}
