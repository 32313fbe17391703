// The per-request MCP server: a JSON-RPC 2.0 dispatcher for both protocol eras (docs/mcp.md "Protocol eras"): the
// 2025 revisions (initialize, ping, tools/list, tools/call) and 2026-07-28 (server/discover, tools/list, tools/call,
// each request self-contained, lib/mcp/modern.ts).
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
import { errorFields, type Logger } from "../log.ts";
import { utf8Bytes } from "../json_bytes.ts";
import { unsafeInputProblem } from "../unsafe_input.ts";
import { tracedToolCall } from "../telemetry/tool_span.ts";
import { OTEL_ON } from "../telemetry/otel.ts";
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
import { type CallDetail, outcomeOf, reasonOf, recordsOf, type ToolOutcome } from "./call_detail.ts";
export type { ToolOutcome };
import { confirmationGate, type ConfirmPolicy } from "./confirm.ts";
import { denial } from "./permissions.ts";
import type { Registry } from "./registry.ts";
import { resourceMethod } from "./resources.ts";
import { appsList, declaresApps } from "./apps.ts";
import { classify, type Id, isObject, rpcErrorBody } from "./jsonrpc.ts";
import { ANSWER_MAX_BYTES, type Room, serialiseResult } from "./result_json.ts";
import { DEFAULT_SERVER_INFO, discoverJson, initialize } from "./handshake.ts";
import {
  claimsModern,
  clientCapabilitiesOf,
  type Era,
  type McpHeaders,
  MODERN_PROTOCOL_VERSION,
  modernEnvelopeProblem,
  modernResultFields,
  type ServerInfo,
  withModernFields,
} from "./modern.ts";

/** What the spec says to assume when a request carries no MCP-Protocol-Version header. */
export const DEFAULT_PROTOCOL_VERSION = "2025-03-26";
const MAX_BATCH = 50;

export interface McpCallContext {
  registry: Registry;
  caller: Caller;
  db: Db;
  log: Logger;
  requestId: string;
  /** from the MCP-Protocol-Version header, or DEFAULT_PROTOCOL_VERSION */
  protocolVersion: string;
  /** "2026" when protocolVersion is 2026-07-28 (lib/mcp/modern.ts eraOf); default "2025" */
  era?: Era;
  /** 2026: the Mcp-Method and Mcp-Name headers, checked against the body */
  headers?: McpHeaders;
  /**
   * 2026: the request's `_meta` io.modelcontextprotocol/clientCapabilities (set by handleMcpMessage once the
   * envelope is checked); 2025: null, capabilities are not known per request
   */
  clientCapabilities?: Record<string, unknown> | null;
  /**
   * the host renders MCP Apps views (lib/mcp/apps.ts): `?apps=1` on the URL (routes/mcp.ts), or in 2026 the
   * request's client capabilities declaring io.modelcontextprotocol/ui; unset: every answer is as without views
   */
  apps?: boolean;
  /** name, title, version and website (routes/mcp.ts); default DEFAULT_SERVER_INFO */
  serverInfo?: ServerInfo;
  /** SECRET_KEY (routes/mcp.ts), for state the server signs; absent in tests that build a context by hand */
  secretKey?: string;
  /** CONFIRM_WRITES (lib/mcp/confirm.ts): listed calls from clients that cannot confirm; default "off" */
  confirmWrites?: ConfirmPolicy;
  /** signs download links for large results (lib/mcp/exports.ts); absent: such results cannot be linked */
  exportLinks?: ExportLinks;
  /** told how every tools/call ended (the audit trail), with its records and reason; must not throw or wait */
  onToolCall?: (tool: string, outcome: ToolOutcome, durationMs: number, detail: CallDetail) => void;
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
  const modern = ctx.era === "2026";
  if (Array.isArray(msg)) {
    if (modern) {
      return invalid(undefined, `batches are not part of protocol version ${MODERN_PROTOCOL_VERSION}`);
    }
    return unavailableIf(outage, await handleBatch(ctx, msg, outage));
  }
  const c = classify(msg);
  switch (c.kind) {
    case "notification":
    case "response":
      return { status: 202, body: null };
    case "invalid":
      return {
        status: 400,
        body: rpcErrorBody(modern ? c.id ?? undefined : c.id, RPC.INVALID_REQUEST, c.message),
      };
    case "request": {
      if (modern) {
        const problem = modernEnvelopeProblem(c.method, c.params, ctx.headers ?? {});
        if (problem) {
          return { status: problem.status, body: rpcErrorBody(c.id, problem.code, problem.message) };
        }
        const clientCapabilities = clientCapabilitiesOf(c.params);
        ctx = { ...ctx, clientCapabilities, apps: ctx.apps || declaresApps(clientCapabilities) };
      } else if (claimsModern(c.params)) {
        return {
          status: 400,
          body: rpcErrorBody(
            c.id,
            RPC.HEADER_MISMATCH,
            `Header mismatch: the body names protocol version ${MODERN_PROTOCOL_VERSION}; send it in the ` +
              "MCP-Protocol-Version header too",
          ),
        };
      }
      if (c.method === "tools/list" && !Array.isArray(c.params)) {
        return { status: 200, body: listAnswer(ctx, c.id) };
      }
      const status = { code: 200 };
      const body = await answer(ctx, c.id, c.method, c.params, outage, {
        left: ANSWER_MAX_BYTES,
        full: false,
      }, status);
      return unavailableIf(outage, { status: status.code, body });
    }
  }
}

function invalid(id: Id | null | undefined, what: string): McpAnswer {
  return { status: 400, body: rpcErrorBody(id, RPC.INVALID_REQUEST, `Invalid Request: ${what}`) };
}

/** 503 + Retry-After when a message met the database gone (a batch keeps its other answers in the body). */
function unavailableIf(outage: Outage, a: McpAnswer): McpAnswer {
  return outage.seen ? { ...a, status: 503, retryAfter: UNAVAILABLE_RETRY_AFTER } : a;
}

const encoder = new TextEncoder();
const CLOSE = encoder.encode("}");

/**
 * tools/list as bytes: the caller's pre-encoded list between a small envelope, nothing re-encoded. A 2026 answer
 * adds its fields where the list's closing brace was.
 */
function listAnswer(ctx: McpCallContext, id: Id): Uint8Array<ArrayBuffer> {
  const view = ctx.registry.view(ctx.caller);
  const list = ctx.apps ? appsList(view).listBytes : view.listBytes;
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  const tail = ctx.era === "2026" ? modernListTail(ctx.serverInfo ?? DEFAULT_SERVER_INFO) : CLOSE;
  const body = ctx.era === "2026" ? list.subarray(0, list.length - 1) : list;
  const out = new Uint8Array(head.length + body.length + tail.length);
  out.set(head);
  out.set(body, head.length);
  out.set(tail, head.length + body.length);
  return out;
}

const listTails = new WeakMap<ServerInfo, Uint8Array>();

/** `,<2026 fields>}}`: what follows the tool list (without its closing brace) in a 2026 answer. */
function modernListTail(info: ServerInfo): Uint8Array {
  let tail = listTails.get(info);
  if (!tail) listTails.set(info, tail = encoder.encode(`,${modernResultFields(info, "tools/list")}}}`));
  return tail;
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
  status?: { code: number },
): Promise<string> {
  try {
    const kind = { resultType: "complete" };
    let result = await dispatch(ctx, method, params, room, kind);
    if (ctx.era === "2026") {
      result = withModernFields(
        result,
        modernResultFields(ctx.serverInfo ?? DEFAULT_SERVER_INFO, method, kind.resultType),
      );
    }
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  } catch (err) {
    if (err instanceof RpcError) {
      // 2026-07-28: a method not served is 404, a capability the request lacks 400; others stay in-band.
      if (status && ctx.era === "2026") {
        if (err.code === RPC.METHOD_NOT_FOUND) status.code = 404;
        if (err.code === RPC.MISSING_CLIENT_CAPABILITY) status.code = 400;
      }
      return rpcErrorBody(id, err.code, err.message, err.data);
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
  /** set to "input_required" when a tools/call asks the person first (lib/mcp/confirm.ts) */
  kind: { resultType: string } = { resultType: "complete" },
): Promise<string> {
  if (Array.isArray(params)) {
    throw new RpcError(
      RPC.INVALID_PARAMS,
      "Invalid params: params must be an object (by name), not an array",
    );
  }
  const modern = ctx.era === "2026";
  const notFound = () => new RpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`);
  switch (method) {
    case "initialize":
      if (modern) throw notFound(); // 2026-07-28 has no handshake: server/discover
      return JSON.stringify(initialize(ctx.serverInfo, params, ctx.apps));
    case "ping":
      if (modern) throw notFound();
      return "{}";
    case "server/discover":
      if (!modern) throw notFound();
      return discoverJson(ctx.serverInfo ?? DEFAULT_SERVER_INFO, ctx.apps);
    case "tools/list": {
      const view = ctx.registry.view(ctx.caller);
      return ctx.apps ? appsList(view).listJson : view.listJson;
    }
    case "tools/call": {
      const result = await callTool(ctx, params);
      if (result instanceof InputRequired) {
        kind.resultType = "input_required";
        return JSON.stringify(result.result);
      }
      return await serialiseResult(result, params, room);
    }
    case "resources/list":
    case "resources/templates/list":
    case "resources/read":
      try {
        return await resourceMethod(ctx, method, params, room);
      } catch (err) {
        // The database went away mid-read: the whole answer is the 503 it is for tools/call too.
        if (isDatabaseUnavailable(err)) throw new DatabaseGone();
        throw err;
      }
    default:
      throw notFound();
  }
}

/** A tools/call that asks the person before it runs: its 2026 `input_required` result (lib/mcp/confirm.ts). */
class InputRequired {
  constructor(readonly result: { inputRequests: Record<string, unknown>; requestState: string }) {}
}

/**
 * Runs tools/call and reports its outcome to ctx.onToolCall (also for refused and unknown tools); with
 * OpenTelemetry on, inside a span that names the tool and the outcome (lib/telemetry/tool_span.ts).
 */
function callTool(ctx: McpCallContext, params: unknown): Promise<ToolResult | InputRequired> {
  if (!OTEL_ON) return callToolPlain(ctx, params);
  const name = isObject(params) && typeof params.name === "string" ? params.name : "";
  return tracedToolCall(
    ctx.registry.all.has(name) ? name : "(unknown)",
    (report) => callToolPlain(ctx, params, report),
  );
}

async function callToolPlain(
  ctx: McpCallContext,
  params: unknown,
  report?: (outcome: ToolOutcome) => void,
): Promise<ToolResult | InputRequired> {
  const start = performance.now();
  const name = isObject(params) && typeof params.name === "string" ? params.name : "";
  let outcome: ToolOutcome = "crash";
  const detail: CallDetail = { reason: "internal_error" };
  try {
    const [result, how] = await runTool(ctx, params, detail);
    outcome = how;
    return result;
  } catch (err) {
    if (err instanceof RpcError) [outcome, detail.reason] = ["invalid", "invalid_params"];
    if (err instanceof DatabaseGone) [outcome, detail.reason] = ["unavailable", "unavailable"];
    throw err;
  } finally {
    report?.(outcome);
    ctx.onToolCall?.(name, outcome, performance.now() - start, detail);
  }
}

/** Runs one call; fills `detail` (records, reason, confirmed) for the audit trail as it goes. */
async function runTool(
  ctx: McpCallContext,
  params: unknown,
  detail: CallDetail,
): Promise<[ToolResult | InputRequired, ToolOutcome]> {
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
  detail.records = recordsOf(args);
  const refused = denial(tool.def, ctx.caller, variant);
  if (refused) {
    detail.reason = reasonOf(refused, true);
    return [toolFailure(refused), outcomeOf(refused)];
  }

  // Before zod: a NUL character would pass every string rule and then fail in Postgres as a database error.
  detail.reason = "invalid_input";
  const unsafe = unsafeInputProblem(args);
  if (unsafe) return [toolFailure(invalidInput(unsafe)), "invalid"];

  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) return [toolFailure(inputError(parsed.error)), "invalid"];
  delete detail.reason;
  try {
    // Deleting or moving money: the person confirms first, or the operator's policy decides (docs/mcp.md).
    const gate = await confirmationGate({
      db: ctx.db,
      secretKey: ctx.secretKey,
      caller: ctx.caller,
      era: ctx.era ?? "2025",
      clientCapabilities: ctx.clientCapabilities ?? null,
      tool: tool.name,
      args,
      input: parsed.data as Record<string, unknown>,
      inputResponses: params.inputResponses,
      requestState: params.requestState,
      policy: ctx.confirmWrites ?? "off",
    });
    if (gate.kind === "input_required") return [new InputRequired(gate.result), "asked"];
    if (gate.kind === "done") {
      detail.reason = gate.result.isError ? "confirmation_required" : "not_confirmed";
      return [gate.result, gate.result.isError ? "denied" : "declined"];
    }
    if (gate.confirmed) detail.confirmed = true;
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
    detail.records = recordsOf(args, value);
    return [forProtocol(toolSuccess(value), ctx.protocolVersion), "ok"];
  } catch (err) {
    if (err instanceof RpcError) throw err; // a refused requestState (-32602): nothing ran
    if (err instanceof AppError) {
      detail.reason = reasonOf(err);
      return [toolFailure(err), outcomeOf(err)];
    }
    detail.reason = "internal_error";
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
