// JSON-RPC error codes and the shapes of tool results, including errors that name their rule.
import type { z } from "zod";
import { AppError } from "../errors.ts";

/**
 * JSON-RPC 2.0 codes; MCP's own (-32002 resource not found in the 2025 revisions; -32020…-32022 of 2026-07-28,
 * whose range -32020…-32099 is the specification's alone); and the two this server uses for HTTP-level refusals
 * (-32001 401, -32003 403: the "legacy" sub-range -32000…-32019, kept for the clients that know them).
 */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32003,
  RESOURCE_NOT_FOUND: -32002,
  HEADER_MISMATCH: -32020,
  MISSING_CLIENT_CAPABILITY: -32021,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/** A JSON-RPC error the dispatcher turns into an error response for the current request. */
export class RpcError extends Error {
  override name = "RpcError";
  constructor(readonly code: number, message: string, readonly data?: Record<string, unknown>) {
    super(message);
  }
}

export interface TextContent {
  type: "text";
  text: string;
}

/** An MCP embedded resource (a file handed back inline, e.g. a CSV export). */
export interface EmbeddedResource {
  type: "resource";
  resource: { uri: string; mimeType: string; text: string };
}

/**
 * An MCP resource link (protocol 2025-06-18): where to fetch a file too large to send inline. Clients of
 * 2025-03-26, which has no such block, get it as text (`forProtocol`).
 */
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  mimeType: string;
  /** bytes of the resource, when known */
  size?: number;
  description?: string;
}

export type ContentBlock = TextContent | EmbeddedResource | ResourceLink;

export interface ToolResult {
  content: Array<ContentBlock>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool result with content blocks of the tool's choosing; see toolContent(). */
export class ToolContent {
  constructor(
    readonly content: Array<ContentBlock>,
    readonly structuredContent?: Record<string, unknown>,
  ) {}
}

/**
 * For tools whose answer is not (only) JSON text, e.g. a file as an embedded resource: return
 * `toolContent([...blocks], structured?)` from `run` and the blocks are sent as they are.
 */
export function toolContent(
  content: Array<ContentBlock>,
  structuredContent?: Record<string, unknown>,
): ToolContent {
  return new ToolContent(content, structuredContent);
}

/** A tool's return value as a result: JSON text always, structuredContent for plain objects. */
export function toolSuccess(value: unknown): ToolResult {
  if (value instanceof ToolContent) {
    return value.structuredContent
      ? { content: value.content, structuredContent: value.structuredContent }
      : { content: value.content };
  }
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  const text = JSON.stringify(value ?? null);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return { content: [{ type: "text", text }], structuredContent: value as Record<string, unknown> };
  }
  return { content: [{ type: "text", text }] };
}

/** Protocol versions without `resource_link` content blocks. */
const WITHOUT_RESOURCE_LINKS: ReadonlySet<string> = new Set(["2025-03-26"]);

/** A result as a client of `protocolVersion` can read it: resource links become text naming the URL. */
export function forProtocol(result: ToolResult, protocolVersion: string): ToolResult {
  if (
    !WITHOUT_RESOURCE_LINKS.has(protocolVersion) || !result.content.some((b) => b.type === "resource_link")
  ) {
    return result;
  }
  const content = result.content.map((b): ContentBlock =>
    b.type !== "resource_link" ? b : {
      type: "text",
      text: `${b.name} (${b.mimeType}${b.size === undefined ? "" : `, ${b.size} bytes`}): ${b.uri}` +
        (b.description ? `\n${b.description}` : ""),
    }
  );
  return { ...result, content };
}

/** `code: message` as an error result: something the caller can act on. */
export function toolFailure(err: AppError): ToolResult {
  return { content: [{ type: "text", text: err.toString() }], isError: true };
}

/** An unexpected failure: nothing of the cause, only the request id to find it in the logs. */
export function toolCrash(requestId: string): ToolResult {
  return {
    content: [{
      type: "text",
      text: `internal_error: the tool failed unexpectedly; the failure was logged (request id ${requestId})`,
    }],
    isError: true,
  };
}

/** zod issues as one invalid_input message naming each field: `invalid_input: startDate: must be …; …`. */
export function inputError(error: z.ZodError): AppError {
  const parts = error.issues.slice(0, 10).map((issue) => {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
    }
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return new AppError("invalid_input", parts.join("; "));
}
