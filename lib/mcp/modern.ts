// MCP 2026-07-28, the stateless revision, beside the 2025 ones (docs/mcp.md "Protocol eras"): which era a request
// speaks, the checks of a 2026 request's envelope (per-request `_meta`, the Mcp-Method / Mcp-Name headers), the
// fields every 2026 result carries, and server/discover.
import { RPC } from "./errors.ts";

/** The one modern revision served; `initialize` never answers it (a 2026 client opens with server/discover). */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** Every revision served, newest first: what an unsupported MCP-Protocol-Version is told (`-32022` data). */
export const ALL_PROTOCOL_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] as const;

export type Era = "2025" | "2026";

export function eraOf(protocolVersion: string): Era {
  return protocolVersion === MODERN_PROTOCOL_VERSION ? "2026" : "2025";
}

/** The reserved `_meta` keys of 2026-07-28 (basic/index.mdx, "Reserved keys"). */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** What the server says about itself: `serverInfo` (2025, in initialize) and the 2026 results' `_meta`. */
export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  websiteUrl?: string;
}

/** The Mcp-Method and Mcp-Name headers of a request (2026-07-28 requires them on every request). */
export interface McpHeaders {
  method?: string;
  name?: string;
}

/** Methods whose Mcp-Name header carries a body value: the tool's name, the resource's URI, the prompt's name. */
const NAME_SOURCE: Record<string, "name" | "uri"> = {
  "tools/call": "name",
  "resources/read": "uri",
  "prompts/get": "name",
};

/** A 2026 request refused before dispatch: HTTP status, JSON-RPC code and message. */
export interface EnvelopeProblem {
  status: 400;
  code: number;
  message: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A header value as sent: values that are not header-safe travel as `=?base64?<base64 of UTF-8>?=`
 * (streamable-http.mdx, "Standard Request Headers"); null when such a value does not decode.
 */
export function decodeHeaderValue(value: string): string | null {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  if (!m) return value;
  try {
    const bytes = Uint8Array.from(atob(m[1]), (ch) => ch.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The request's client capabilities (2026: required in `_meta`), or null when the envelope lacks them. */
export function clientCapabilitiesOf(params: unknown): Record<string, unknown> | null {
  if (!isObject(params) || !isObject(params._meta)) return null;
  const caps = params._meta[META.clientCapabilities];
  return isObject(caps) ? caps : null;
}

/**
 * Checks a 2026-07-28 request's envelope, in the order of the revision's rules: the required `_meta` keys
 * (-32602), the version they name against the header (-32020), then Mcp-Method and, for tools/call,
 * resources/read and prompts/get, Mcp-Name against the body (-32020). Null when it may be dispatched.
 */
export function modernEnvelopeProblem(
  method: string,
  params: unknown,
  headers: McpHeaders,
): EnvelopeProblem | null {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
  const version = meta?.[META.protocolVersion];
  if (meta === undefined || typeof version !== "string" || !isObject(meta[META.clientCapabilities])) {
    return {
      status: 400,
      code: RPC.INVALID_PARAMS,
      message: `Invalid params: a ${MODERN_PROTOCOL_VERSION} request carries params._meta with ` +
        `"${META.protocolVersion}" and "${META.clientCapabilities}"`,
    };
  }
  if (version !== MODERN_PROTOCOL_VERSION) {
    return mismatch(
      `MCP-Protocol-Version header value '${MODERN_PROTOCOL_VERSION}' does not match _meta value`,
    );
  }
  if (headers.method === undefined) return mismatch("the Mcp-Method header is missing");
  if (headers.method !== method) {
    return mismatch(`Mcp-Method header value '${headers.method}' does not match body value`);
  }
  const source = NAME_SOURCE[method];
  if (source === undefined) return null;
  const bodyValue = isObject(params) ? params[source] : undefined;
  if (headers.name === undefined) return mismatch("the Mcp-Name header is missing");
  const name = decodeHeaderValue(headers.name);
  if (name === null) return mismatch("the Mcp-Name header holds invalid base64");
  if (name !== bodyValue) {
    return mismatch(`Mcp-Name header value does not match body value of params.${source}`);
  }
  return null;
}

function mismatch(what: string): EnvelopeProblem {
  return { status: 400, code: RPC.HEADER_MISMATCH, message: `Header mismatch: ${what}` };
}

/** A 2025 request (no or a 2025 header) whose body claims the modern revision: the header and body disagree. */
export function claimsModern(params: unknown): boolean {
  return isObject(params) && isObject(params._meta) &&
    params._meta[META.protocolVersion] === MODERN_PROTOCOL_VERSION;
}

/** Results that may be cached (caching.mdx): they carry ttlMs and cacheScope. */
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/**
 * How long a 2026 client may reuse an answer. Lists and reads depend on the credential's role, modules and
 * companies, which may change at any moment: 0 (always stale). server/discover changes only with a deploy.
 */
export const TTL_MS: Record<string, number> = { "server/discover": 3_600_000 };

const suffixes = new WeakMap<ServerInfo, Map<string, string>>();

/**
 * The fields a 2026 result adds after its own (without the leading comma): `resultType`, caching hints for
 * cacheable methods, and `_meta` with serverInfo. Built once per server and method.
 */
export function modernResultFields(info: ServerInfo, method: string, resultType = "complete"): string {
  let perMethod = suffixes.get(info);
  if (!perMethod) suffixes.set(info, perMethod = new Map());
  const key = `${method}\u0000${resultType}`;
  let fields = perMethod.get(key);
  if (fields === undefined) {
    const cache = CACHEABLE.has(method) && resultType === "complete"
      ? `,"ttlMs":${TTL_MS[method] ?? 0},"cacheScope":"private"`
      : "";
    fields = `"resultType":${JSON.stringify(resultType)}${cache},"_meta":${
      JSON.stringify({ [META.serverInfo]: info })
    }`;
    perMethod.set(key, fields);
  }
  return fields;
}

/** A result object's JSON text with the 2026 fields added at its end. */
export function withModernFields(resultJson: string, fields: string): string {
  if (resultJson === "{}") return `{${fields}}`;
  return `${resultJson.slice(0, -1)},${fields}}`;
}
