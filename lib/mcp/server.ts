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
import { utf8Bytes } from "../json_bytes.ts";
import { escapeInSlices, SLICE_CHARS, yieldToEventLoop } from "../json_slices.ts";
import { unsafeInputProblem } from "../unsafe_input.ts";
import type { Caller } from "./caller.ts";
import {
  forProtocol,
  inputError,
  RPC,
  RpcError,
  toolCrash,
  toolFailure,
  type ToolResult,
  toolSuccess,
} from "./errors.ts";
import type { ExportLinks } from "./exports.ts";
import { denial } from "./permissions.ts";
import type { Registry } from "./registry.ts";
import {
  listResources,
  listResourceTemplates,
  readResourceJson,
  resourceErrorBody,
  ResourceNotFound,
  ResourceTooLarge,
} from "./resources.ts";

export const SERVER_NAME = "portico";
export const SERVER_VERSION = "0.1.0";
/** Newest first; initialize answers the client's version when listed here, else the newest. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];
/** What the spec says to assume when a request carries no MCP-Protocol-Version header. */
export const DEFAULT_PROTOCOL_VERSION = "2025-03-26";
const MAX_BATCH = 50;
/**
 * The most bytes (UTF-8) one HTTP answer of /mcp carries, a batch's answers together: a tool result over what is
 * left is replaced by a notice, and batch members after the limit is reached are not run. Tools that can grow
 * (export_contacts) cut themselves below it first and say how to get the rest.
 */
export const ANSWER_MAX_BYTES = 16 * 1024 * 1024;

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
  /** signs download links for large results (lib/mcp/exports.ts); absent: such results cannot be linked */
  exportLinks?: ExportLinks;
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

/** Per HTTP request: the bytes its answer may still carry, and whether a result already did not fit. */
interface Room {
  left: number;
  full: boolean;
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
        body: await answer(ctx, c.id, c.method, c.params, outage, { left: ANSWER_MAX_BYTES, full: false }),
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
  const room: Room = { left: ANSWER_MAX_BYTES - 2, full: false }; // 2: the brackets
  // In order, one at a time: a batch may create a record and then change it.
  for (const m of msgs) {
    const c = classify(m);
    let one: string | undefined;
    if (c.kind === "invalid") one = rpcErrorBody(c.id, RPC.INVALID_REQUEST, c.message);
    else if (c.kind === "request") {
      if (c.method === "initialize") {
        one = rpcErrorBody(
          c.id,
          RPC.INVALID_REQUEST,
          "Invalid Request: initialize must not be part of a batch",
        );
      } else if (room.full) {
        // Not run: the answer is full. Nothing was done, so sending it again is safe.
        one = rpcErrorBody(
          c.id,
          RPC.INVALID_REQUEST,
          `Invalid Request: not run; this batch's answer is full (at most ${ANSWER_MAX_BYTES} bytes for all ` +
            "its answers together). Send it again in another request.",
        );
      } else one = await answer(ctx, c.id, c.method, c.params, outage, room);
    }
    if (one !== undefined) {
      out.push(one);
      room.left -= utf8Bytes(one) + 1;
      if (room.left <= 0) room.full = true;
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
  room: Room,
): Promise<string> {
  try {
    const result = await dispatch(ctx, method, params, room);
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  } catch (err) {
    if (err instanceof RpcError) return rpcErrorBody(id, err.code, err.message);
    if (err instanceof ResourceNotFound || err instanceof ResourceTooLarge) {
      return resourceErrorBody(id, err, "2025");
    }
    if (err instanceof DatabaseGone) {
      outage.seen = true;
      return rpcErrorBody(id, RPC.INTERNAL_ERROR, UNAVAILABLE_MESSAGE);
    }
    ctx.log.error("mcp request failed", { request_id: ctx.requestId, method, ...errorFields(err) });
    return rpcErrorBody(id, RPC.INTERNAL_ERROR, `Internal error (request id ${ctx.requestId})`);
  }
}

/** The result of one method, as JSON text; a tools/call result within the room left. */
async function dispatch(
  ctx: McpCallContext,
  method: string,
  params: unknown,
  room: Room,
): Promise<string> {
  switch (method) {
    case "initialize":
      return JSON.stringify(initialize(params));
    case "ping":
      return "{}";
    case "tools/list":
      return ctx.registry.view(ctx.caller).listJson;
    case "tools/call":
      return await serialiseResult(await callTool(ctx, params), params, room);
    case "resources/list":
      return JSON.stringify(await listResources(ctx, params));
    case "resources/templates/list":
      return JSON.stringify(listResourceTemplates(ctx));
    case "resources/read":
      return await readResourceJson(ctx, params, Math.max(room.left - ENVELOPE_BYTES, 0));
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
    capabilities: { tools: { listChanged: false }, resources: {} },
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    instructions: INSTRUCTIONS,
  };
}

/** Room for the JSON-RPC envelope around a result: `{"jsonrpc":"2.0","id":…,"result":…}` with a long id. */
const ENVELOPE_BYTES = 1024;

/**
 * The one place a tool result becomes JSON, and the one byte bound on it: a result larger than the room left is
 * not sent, and the room is marked full. In its place comes a result (not an error: the call ran, and a write
 * it made stands) whose text says how large the answer was and how to ask for less.
 */
async function serialiseResult(result: ToolResult, params: unknown, room: Room): Promise<string> {
  const limit = Math.max(room.left - ENVELOPE_BYTES, 0);
  let json: string | null = null;
  try {
    json = await resultJson(result);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err; // "Invalid string length": larger than any answer can be
  }
  // A UTF-16 unit is at most 3 UTF-8 bytes: most answers need no counting.
  const bytes = json === null ? null : json.length * 3 <= limit ? 0 : utf8Bytes(json);
  if (json !== null && bytes !== null && bytes <= limit) return json;
  room.full = true;
  const tool = isObject(params) && typeof params.name === "string" ? params.name : "the tool";
  const notice = {
    truncated: true,
    answerBytes: bytes,
    limitBytes: limit,
    message: `The answer of ${tool} was ${bytes === null ? "too large to build" : `${bytes} bytes`}, more ` +
      `than the ${limit} bytes this answer could still carry (${ANSWER_MAX_BYTES} per HTTP answer, a batch's ` +
      "answers together), so it was not sent. The call itself completed. Ask for less: a smaller limit, a " +
      "narrower filter, a later offset, or one call per request.",
  };
  return JSON.stringify({
    content: [{ type: "text", text: JSON.stringify(notice) }],
    structuredContent: notice,
  });
}

/**
 * JSON.stringify(result), except that long content texts (an exported CSV of 10 MiB) are escaped slice by
 * slice with the event loop let through between slices, and then structuredContent is serialised on its own
 * turn: escaping such an answer in one go held every other request for tens of milliseconds
 * (bench/export_stall.ts).
 */
async function resultJson(result: ToolResult): Promise<string> {
  // Most answers hold no long text: one JSON.stringify, nothing else (not even the nonce below).
  if (!result.content.some(isLong)) return JSON.stringify(result);
  const long: (() => Promise<string>)[] = [];
  const nonce = crypto.randomUUID();
  // A stand-in no tool text can hold (a NUL cannot come from Postgres, and the nonce is new), spliced out below.
  const standIn = (json: () => Promise<string>) => `\u0000${nonce}:${long.push(json) - 1}\u0000`;
  const content = result.content.map((block) => {
    if (block.type === "text" && block.text.length > SLICE_CHARS) {
      return { ...block, text: standIn(() => escapeInSlices(block.text)) };
    }
    if (block.type === "resource" && block.resource.text.length > SLICE_CHARS) {
      const text = block.resource.text;
      return { ...block, resource: { ...block.resource, text: standIn(() => escapeInSlices(text)) } };
    }
    return block;
  });
  if (long.length === 0) return JSON.stringify(result);
  const structured = result.structuredContent;
  const rest = structured === undefined ? { ...result, content } : {
    ...result,
    content,
    structuredContent: standIn(async () => {
      await yieldToEventLoop();
      return JSON.stringify(structured);
    }),
  };
  let json = JSON.stringify(rest);
  for (const [i, part] of long.entries()) {
    const marker = JSON.stringify(`\u0000${nonce}:${i}\u0000`);
    const at = json.indexOf(marker);
    json = `${json.slice(0, at)}${await part()}${json.slice(at + marker.length)}`;
  }
  return json;
}

function isLong(block: ToolResult["content"][number]): boolean {
  return (block.type === "text" && block.text.length > SLICE_CHARS) ||
    (block.type === "resource" && block.resource.text.length > SLICE_CHARS);
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
      {
        db: ctx.db,
        caller: ctx.caller,
        variant,
        requestId: ctx.requestId,
        log: ctx.log,
        exportLinks: ctx.exportLinks,
      },
      parsed.data,
    );
    return [forProtocol(toolSuccess(value), ctx.protocolVersion), "ok"];
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
