// OpenTelemetry through Deno's built-in exporter (`OTEL_DENO=true`): whether it is on, Portico's tracer and
// meter, and the counters every part of Portico reports to (docs/operations.md "OpenTelemetry").
//
// On or off is decided once, at load, by the runtime itself: Deno registers its provider as the global
// @opentelemetry/api 1.x provider only when its OpenTelemetry is on (it then answers as API version 1.999.999,
// which every 1.x API accepts). Off, nothing here is created and callers take their plain paths: no spans, no
// wrapping, no counters (each caller checks OTEL_ON once, when it is built, or in one branch).
//
// Exports: OTEL_ON, tracer(), countRequest, countToolCall, countRefresh, observeGauges, traceFields, SpanKind,
// SpanStatusCode.
import {
  type Attributes,
  type Counter,
  metrics,
  type ObservableResult,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";

export { SpanKind, SpanStatusCode };

/** The key under which @opentelemetry/api 1.x finds the global providers (Deno sets it when OTel is on). */
const API_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** Deno's OpenTelemetry is on in this process (OTEL_DENO=true when it started). */
export const OTEL_ON: boolean = (globalThis as Record<symbol, unknown>)[API_GLOBAL] !== undefined;

const SCOPE = "portico";

let tracerOnce: Tracer | undefined;

/** Portico's tracer; call only when OTEL_ON. */
export function tracer(): Tracer {
  return tracerOnce ??= trace.getTracer(SCOPE);
}

interface Instruments {
  requests: Counter;
  refusals: Counter;
  toolCalls: Counter;
  refreshes: Counter;
}

let instruments: Instruments | undefined;

function made(): Instruments {
  if (instruments) return instruments;
  const meter = metrics.getMeter(SCOPE);
  instruments = {
    requests: meter.createCounter("portico.http.requests", {
      description: "HTTP requests answered, by route pattern, method and status",
    }),
    refusals: meter.createCounter("portico.rate_limit.refusals", {
      description: "requests refused with 429 Too Many Requests, by route pattern",
    }),
    toolCalls: meter.createCounter("portico.mcp.tool_calls", {
      description: "MCP tools/call requests, by tool and outcome",
    }),
    refreshes: meter.createCounter("portico.oauth.refreshes", {
      description: "refresh_token grants at /oauth/token, by outcome (ok or the OAuth error code)",
    }),
  };
  return instruments;
}

/** One answered HTTP request (and a rate-limit refusal when it is a 429). */
export function countRequest(route: string, method: string, status: number): void {
  const i = made();
  i.requests.add(1, {
    "http.route": route,
    "http.request.method": method,
    "http.response.status_code": status,
  });
  if (status === 429) i.refusals.add(1, { "http.route": route });
}

/** One tools/call: `tool` is a registered tool's name or "(unknown)" (the attribute stays bounded). */
export function countToolCall(tool: string, outcome: string): void {
  made().toolCalls.add(1, { "gen_ai.tool.name": tool, "portico.tool.outcome": outcome });
}

/** One refresh_token grant: "ok" or the OAuth error code it was refused with ("error": anything else). */
export function countRefresh(outcome: string): void {
  made().refreshes.add(1, { "portico.refresh.outcome": outcome });
}

/** A gauge read at each export: `read` returns its points (value and attributes). */
export interface GaugeSpec {
  name: string;
  description: string;
  /** "gauge": a level (may go down); "counter": a running total since start (monotonic) */
  kind: "gauge" | "counter";
  read(): readonly (readonly [number, Attributes?])[];
}

/** Registers gauges read at each metric export; does nothing when OTel is off. */
export function observeGauges(specs: readonly GaugeSpec[]): void {
  if (!OTEL_ON) return;
  const meter = metrics.getMeter(SCOPE);
  for (const spec of specs) {
    const observe = (result: ObservableResult) => {
      for (const [value, attrs] of spec.read()) result.observe(value, attrs);
    };
    const instrument = spec.kind === "gauge"
      ? meter.createObservableGauge(spec.name, { description: spec.description })
      : meter.createObservableCounter(spec.name, { description: spec.description });
    instrument.addCallback(observe);
  }
}

/**
 * The trace and span ids of the active span, for a log line (`trace_id`, `span_id`), or undefined outside any
 * span. Only when OTEL_ON.
 */
export function traceFields(): { trace_id: string; span_id: string } | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx ? { trace_id: ctx.traceId, span_id: ctx.spanId } : undefined;
}
