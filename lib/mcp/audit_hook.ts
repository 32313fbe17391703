// /mcp's part of the audit trail: every tools/call of an authenticated caller, and the denied calls of requests
// refused before any caller existed.
import type { AuditLog } from "../audit.ts";
import type { Caller } from "./caller.ts";
import type { CallDetail } from "./call_detail.ts";
import type { ToolOutcome } from "./server.ts";

type Recorder = Pick<AuditLog, "record">;

/** The dispatcher's onToolCall for this caller and request; undefined without an audit log. */
export function toolCallAudit(
  audit: Recorder | undefined,
  caller: Caller,
  requestId: string,
): ((tool: string, outcome: ToolOutcome, durationMs: number, detail: CallDetail) => void) | undefined {
  if (!audit) return undefined;
  return (tool, outcome, durationMs, detail) =>
    audit.record({
      at: new Date(),
      workspaceId: caller.workspaceId,
      keyId: caller.keyId,
      clientId: caller.clientId ?? null,
      userId: caller.userId ?? null,
      tool,
      outcome,
      durationMs,
      requestId,
      grantId: caller.grantId ?? null,
      reason: detail.reason ?? null,
      records: detail.records ?? null,
      confirmed: detail.confirmed === true,
    });
}

/**
 * A request refused before any caller existed (missing, unknown or revoked key) that asked for tools/call is
 * still a denied call for the audit trail: one row per request, however many calls its body (a batch) holds,
 * with the tool the first of them named and no workspace, key or user. Never the arguments.
 */
export function auditRefusedCall(audit: Recorder, body: string, requestId: string): void {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return;
  }
  const first = (Array.isArray(message) ? message : [message]).find((m) =>
    typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call"
  );
  if (first === undefined) return;
  const params = (first as { params?: { name?: unknown } }).params;
  audit.record({
    at: new Date(),
    workspaceId: null,
    keyId: null,
    clientId: null,
    userId: null,
    tool: typeof params?.name === "string" ? params.name : "",
    outcome: "denied",
    durationMs: 0,
    requestId,
  });
}
