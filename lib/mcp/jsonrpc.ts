// JSON-RPC 2.0 as /mcp reads and writes it: ids, the kinds of message, and error responses.

export type Id = string | number;

/**
 * A JSON-RPC error response; `id` null when the request's id could not be read (the 2025 revisions), left out
 * when undefined (2026-07-28, whose schema makes it optional and whose clients refuse a null one).
 */
export function rpcErrorBody(
  id: Id | null | undefined,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify(id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error });
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is Id {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

export type Classified =
  | { kind: "request"; id: Id; method: string; params: unknown }
  | { kind: "notification" }
  | { kind: "response" }
  | { kind: "invalid"; id: Id | null; message: string };

export function classify(msg: unknown): Classified {
  if (!isObject(msg) || msg.jsonrpc !== "2.0") {
    const id = isObject(msg) && isId(msg.id) ? msg.id : null;
    return { kind: "invalid", id, message: "Invalid Request: not a JSON-RPC 2.0 message" };
  }
  if (typeof msg.method === "string") {
    if (!("id" in msg)) return { kind: "notification" };
    if (!isId(msg.id)) {
      return { kind: "invalid", id: null, message: "Invalid Request: id must be a string or number" };
    }
    if (msg.params !== undefined && !isObject(msg.params) && !Array.isArray(msg.params)) {
      return { kind: "invalid", id: msg.id, message: "Invalid Request: params must be an object" };
    }
    // By position (an array) is JSON-RPC, but no MCP method takes it: refused per request (-32602).
    return { kind: "request", id: msg.id, method: msg.method, params: msg.params };
  }
  // A response to a server-initiated request; this server sends none, so it is accepted and ignored.
  if (isId(msg.id) && ("result" in msg || "error" in msg)) return { kind: "response" };
  return { kind: "invalid", id: isId(msg.id) ? msg.id : null, message: "Invalid Request: no method" };
}
