// The per-request MCP server: a JSON-RPC 2.0 dispatcher for initialize, ping, tools/list and tools/call.
//
// Why not the SDK's Server + WebStandardStreamableHTTPServerTransport: measured per request (bench/mcp.ts) the
// pair costs ~100-150 µs (a new Server and transport, a zod parse of every message, promise plumbing) against
// ~10 µs here; the transport also answers 406 to `Accept: application/json` alone and negotiates the 2024
// protocol versions, both of which this server must not do. The wire format is checked against the official
// SDK client in tests/mcp/sdk_client.test.ts.
import type { McpVariant } from "../config.ts";
import type { Db } from "../db/client.ts";
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_AFTER } from "../db/errors.ts";
import { AppError, invalidInput } from "../errors.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";
import { unsafeInputProblem } from "../unsafe_input.ts";
import type { Caller } from "./caller.ts";
import { inputError, RPC, RpcError, toolCrash, toolFailure, type ToolResult, toolSuccess } from "./errors.ts";
import { denial } from "./permissions.ts";
import type { Registry } from "./registry.ts";

export const SERVER_NAME = "portico";
export const SERVER_VERSION = "0.1.0";
/** Newest first; initialize answers the client's version when listed here, else the newest. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];
/** What the spec says to assume when a request carries no MCP-Protocol-Version header. */
export const DEFAULT_PROTOCOL_VERSION = "2025-03-26";
const MAX_BATCH = 50;

const INSTRUCTIONS =
  "Portico workspace tools. Every answer is scoped to the workspace (and companies) of the " +
  "API key. Errors start with a code word: invalid_input, not_found, access_denied, unavailable, conflict.";

export interface McpCallContext {
  registry: Registry;
  caller: Caller;
  db: Db;
  log: Logger;
  requestId: string;
  /** from the MCP-Protocol-Version header, or DEFAULT_PROTOCOL_VERSION */
  protocolVersion: string;
  /** told how every tools/call ended (the audit trail); must not throw or wait */
  onToolCall?: (tool: string, outcome: ToolOutcome, durationMs: number) => void;
}

/** The HTTP answer: status and JSON (text or UTF-8 bytes), or no body (202). */
export interface McpAnswer {
  status: number;
  body: string | Uint8Array<ArrayBuffer> | null;
  /** seconds for a Retry-After header (503: the database went away during the request) */
  retryAfter?: number;
}

/** The JSON-RPC error message of every 503 answer. */
export const UNAVAILABLE_MESSAGE = "Service Unavailable: the database is not reachable; retry shortly";

/**
 * A tool's query found the database gone. Not a tool result: the whole HTTP answer becomes 503 with Retry-After,
 * so clients and load balancers treat it as the outage it is, like a failure while loading the caller.
 */
class DatabaseGone extends Error {
  override name = "DatabaseGone";
}

/** Per HTTP request: whether some message of it met the database gone. */
interface Outage {
  seen: boolean;
}

type Id = string | number;

export function isSupportedVersion(v: string): boolean {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(v);
}

/** A JSON-RPC error response; `id` null when the request's id could not be read. */
export function rpcErrorBody(id: Id | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is Id {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

type Classified =
  | { kind: "request"; id: Id; method: string; params: unknown }
  | { kind: "notification" }
  | { kind: "response" }
  | { kind: "invalid"; id: Id | null; message: string };

function classify(msg: unknown): Classified {
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
    return { kind: "request", id: msg.id, method: msg.method, params: msg.params };
  }
  // A response to a server-initiated request; this server sends none, so it is accepted and ignored.
  if (isId(msg.id) && ("result" in msg || "error" in msg)) return { kind: "response" };
  return { kind: "invalid", id: isId(msg.id) ? msg.id : null, message: "Invalid Request: no method" };
}

/** Handles a POST body (text). Auth, Origin and headers were checked by the route. */
export async function handleMcpMessage(ctx: McpCallContext, bodyText: string): Promise<McpAnswer> {
  let msg: unknown;
  try {
    msg = JSON.parse(bodyText);
  } catch {
    return {
      status: 400,
      body: rpcErrorBody(null, RPC.PARSE_ERROR, "Parse error: the body is not valid JSON"),
    };
  }
  const outage: Outage = { seen: false };
  if (Array.isArray(msg)) return unavailableIf(outage, await handleBatch(ctx, msg, outage));
  const c = classify(msg);
  switch (c.kind) {
    case "notification":
    case "response":
      return { status: 202, body: null };
    case "invalid":
      return { status: 400, body: rpcErrorBody(c.id, RPC.INVALID_REQUEST, c.message) };
    case "request":
      if (c.method === "tools/list") return { status: 200, body: listAnswer(ctx, c.id) };
      return unavailableIf(outage, {
        status: 200,
        body: await answer(ctx, c.id, c.method, c.params, outage),
      });
  }
}

/** 503 + Retry-After when a message met the database gone (a batch keeps its other answers in the body). */
function unavailableIf(outage: Outage, a: McpAnswer): McpAnswer {
  return outage.seen ? { ...a, status: 503, retryAfter: UNAVAILABLE_RETRY_AFTER } : a;
}

const encoder = new TextEncoder();
const CLOSE = encoder.encode("}");

/** tools/list as bytes: the caller's pre-encoded list between a small envelope, nothing re-encoded. */
function listAnswer(ctx: McpCallContext, id: Id): Uint8Array<ArrayBuffer> {
  const list = ctx.registry.view(ctx.caller).listBytes;
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  const out = new Uint8Array(head.length + list.length + CLOSE.length);
  out.set(head);
  out.set(list, head.length);
  out.set(CLOSE, head.length + list.length);
  return out;
}

// JSON-RPC batches exist in protocol 2025-03-26 only (removed in 2025-06-18).
async function handleBatch(ctx: McpCallContext, msgs: unknown[], outage: Outage): Promise<McpAnswer> {
  if (ctx.protocolVersion !== "2025-03-26") {
    return {
      status: 400,
      body: rpcErrorBody(
        null,
        RPC.INVALID_REQUEST,
        `Invalid Request: batches are not part of protocol version ${ctx.protocolVersion}`,
      ),
    };
  }
  if (msgs.length === 0 || msgs.length > MAX_BATCH) {
    return {
      status: 400,
      body: rpcErrorBody(null, RPC.INVALID_REQUEST, `Invalid Request: a batch holds 1-${MAX_BATCH} messages`),
    };
  }
  const out: string[] = [];
  // In order, one at a time: a batch may create a record and then change it.
  for (const m of msgs) {
    const c = classify(m);
    if (c.kind === "invalid") out.push(rpcErrorBody(c.id, RPC.INVALID_REQUEST, c.message));
    else if (c.kind === "request") {
      out.push(
        c.method === "initialize"
          ? rpcErrorBody(c.id, RPC.INVALID_REQUEST, "Invalid Request: initialize must not be part of a batch")
          : await answer(ctx, c.id, c.method, c.params, outage),
      );
    }
  }
  if (out.length === 0) return { status: 202, body: null };
  return { status: 200, body: `[${out.join(",")}]` };
}

/** One request's response as JSON text (the result is spliced in as already-serialised JSON). */
async function answer(
  ctx: McpCallContext,
  id: Id,
  method: string,
  params: unknown,
  outage: Outage,
): Promise<string> {
  try {
    const result = await dispatch(ctx, method, params);
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  } catch (err) {
    if (err instanceof RpcError) return rpcErrorBody(id, err.code, err.message);
    if (err instanceof DatabaseGone) {
      outage.seen = true;
      return rpcErrorBody(id, RPC.INTERNAL_ERROR, UNAVAILABLE_MESSAGE);
    }
    ctx.log.error("mcp request failed", { request_id: ctx.requestId, method, ...errorFields(err) });
    return rpcErrorBody(id, RPC.INTERNAL_ERROR, `Internal error (request id ${ctx.requestId})`);
  }
}

/** The result of one method, as JSON text. */
async function dispatch(ctx: McpCallContext, method: string, params: unknown): Promise<string> {
  switch (method) {
    case "initialize":
      return JSON.stringify(initialize(params));
    case "ping":
      return "{}";
    case "tools/list":
      return ctx.registry.view(ctx.caller).listJson;
    case "tools/call":
      return JSON.stringify(await callTool(ctx, params));
    default:
      throw new RpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
  }
}

function initialize(params: unknown) {
  if (!isObject(params) || typeof params.protocolVersion !== "string") {
    throw new RpcError(RPC.INVALID_PARAMS, "initialize needs params.protocolVersion");
  }
  const requested = params.protocolVersion;
  return {
    protocolVersion: isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    instructions: INSTRUCTIONS,
  };
}

/** How a tools/call ended, for the audit trail. */
export type ToolOutcome = "ok" | "error" | "denied" | "unavailable" | "invalid" | "crash";

/** Runs tools/call and reports its outcome to ctx.onToolCall (also for refused and unknown tools). */
async function callTool(ctx: McpCallContext, params: unknown): Promise<ToolResult> {
  const start = performance.now();
  const name = isObject(params) && typeof params.name === "string" ? params.name : "";
  let outcome: ToolOutcome = "crash";
  try {
    const [result, how] = await runTool(ctx, params);
    outcome = how;
    return result;
  } catch (err) {
    if (err instanceof RpcError) outcome = "invalid";
    if (err instanceof DatabaseGone) outcome = "unavailable";
    throw err;
  } finally {
    ctx.onToolCall?.(name, outcome, performance.now() - start);
  }
}

function outcomeOf(err: AppError): ToolOutcome {
  if (err.code === "access_denied") return "denied";
  if (err.code === "unavailable") return "unavailable";
  if (err.code === "invalid_input") return "invalid";
  return "error";
}

async function runTool(ctx: McpCallContext, params: unknown): Promise<[ToolResult, ToolOutcome]> {
  if (!isObject(params) || typeof params.name !== "string") {
    throw new RpcError(RPC.INVALID_PARAMS, "tools/call needs params.name");
  }
  const tool = ctx.registry.all.get(params.name);
  if (!tool) throw new RpcError(RPC.INVALID_PARAMS, `Unknown tool: ${params.name}`);
  const args = params.arguments ?? {};
  if (!isObject(args)) {
    throw new RpcError(RPC.INVALID_PARAMS, "tools/call params.arguments must be an object");
  }

  // Re-checked here, not taken from the cached view: a tool absent from tools/list is still callable by name.
  const variant: McpVariant = ctx.registry.variant;
  const refused = denial(tool.def, ctx.caller, variant);
  if (refused) return [toolFailure(refused), outcomeOf(refused)];

  // Before zod: a NUL character would pass every string rule and then fail in Postgres as a database error.
  const unsafe = unsafeInputProblem(args);
  if (unsafe) return [toolFailure(invalidInput(unsafe)), "invalid"];

  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) return [toolFailure(inputError(parsed.error)), "invalid"];
  try {
    const value = await tool.def.run(
      { db: ctx.db, caller: ctx.caller, variant, requestId: ctx.requestId, log: ctx.log },
      parsed.data,
    );
    return [toolSuccess(value), "ok"];
  } catch (err) {
    if (err instanceof AppError) return [toolFailure(err), outcomeOf(err)];
    if (isDatabaseUnavailable(err)) {
      ctx.log.warn("tool: database unavailable", {
        request_id: ctx.requestId,
        tool: tool.name,
        ...errorFields(err),
      });
      throw new DatabaseGone();
    }
    ctx.log.error("tool failed", { request_id: ctx.requestId, tool: tool.name, ...errorFields(err) });
    return [toolCrash(ctx.requestId), "crash"];
  }
}
