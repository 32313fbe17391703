// What /mcp answers instead of serving a request it cannot take, before any credential or database work: an
// unsupported MCP-Protocol-Version, a body that is not JSON, a bad toolset selection in the URL, a method other
// than POST. Each is a JSON-RPC error body (id null) with its HTTP status.
import { RPC } from "./errors.ts";
import { isSupportedVersion, rpcErrorBody, SUPPORTED_PROTOCOL_VERSIONS } from "./server.ts";

/** An answer given instead of serving the request: HTTP status, JSON-RPC error body, extra headers. */
export interface Refusal {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A MCP-Protocol-Version header this server does not speak (none sent: the default version). */
export function refuseVersion(header: string | undefined): Refusal | undefined {
  if (header === undefined || isSupportedVersion(header)) return undefined;
  return {
    status: 400,
    body: rpcErrorBody(
      null,
      RPC.INVALID_REQUEST,
      `Bad Request: unsupported MCP-Protocol-Version ${header} (supported: ${
        SUPPORTED_PROTOCOL_VERSIONS.join(", ")
      })`,
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
