// The span and the count of one MCP tools/call when OpenTelemetry is on (lib/mcp/server.ts calls it only then).
//
// Exports: tracedToolCall.
import { countToolCall, SpanKind, SpanStatusCode, tracer } from "./otel.ts";

/**
 * Runs `call` inside a span "tools/call <tool>" (its SQL statements become the span's children) with
 * `mcp.method.name`, `gen_ai.tool.name` and, once known, `portico.tool.outcome` (ok, error, denied, invalid,
 * unavailable, crash, asked, declined); counts the call in `portico.mcp.tool_calls`. `tool` is a registered
 * tool's name or "(unknown)", never the text a client sent for an unknown one.
 */
export function tracedToolCall<T>(
  tool: string,
  call: (report: (outcome: string) => void) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(`tools/call ${tool}`, {
    kind: SpanKind.INTERNAL,
    attributes: { "mcp.method.name": "tools/call", "gen_ai.tool.name": tool },
  }, async (span) => {
    let outcome = "crash";
    try {
      return await call((how) => outcome = how);
    } finally {
      span.setAttribute("portico.tool.outcome", outcome);
      if (outcome === "crash" || outcome === "unavailable") span.setStatus({ code: SpanStatusCode.ERROR });
      countToolCall(tool, outcome);
      span.end();
    }
  });
}
