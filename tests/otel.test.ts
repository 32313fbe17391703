// OpenTelemetry (issue 31.4): `main.ts` with the start task's permissions and OTEL_DENO=true exports, to a local
// OTLP/HTTP listener (http/json), the spans, metrics and logs of one /mcp tools/call and one refresh; with
// OTEL_DENO unset it exports nothing and wraps nothing (docs/operations.md "OpenTelemetry").
import assert from "node:assert/strict";
import postgres from "postgres";
import { sha256Hex } from "../lib/crypto.ts";
import { OTEL_ON } from "../lib/telemetry/otel.ts";
import { statementSummary } from "../lib/telemetry/sql.ts";
import { startTelemetry } from "../lib/telemetry/setup.ts";
import { seedRefreshChains } from "../bench/refresh_peer.ts";
import { freshDatabase, type TestDb } from "./helpers/db.ts";
import { buildFixture, mcpHeaders } from "./helpers/mcp.ts";

const SECRET = "otel-test-secret-key-0123456789abcdef0123";
const ROOT = new URL("../", import.meta.url);
const TIMEOUT_MS = 120_000;

// deno-lint-ignore no-explicit-any
type Json = any;

/** Collects what an OTLP/HTTP exporter sends (http/json), by signal. */
function otlpListener() {
  const got = { traces: [] as Json[], metrics: [] as Json[], logs: [] as Json[], requests: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    got.requests++;
    const signal = new URL(req.url).pathname.replace("/v1/", "") as "traces" | "metrics" | "logs";
    const text = await req.text();
    if (signal in got) got[signal].push(JSON.parse(text));
    return new Response("{}", { headers: { "content-type": "application/json" } });
  });
  return { got, endpoint: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

/** The permission flags of deno.json's start task: the test runs main.ts as `deno task start` does. */
async function startFlags(): Promise<string[]> {
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks;
  const words = (tasks.start as string).split(/\s+/);
  assert.equal(words[0], "deno");
  assert.equal(words[1], "run");
  assert.equal(words.at(-1), "main.ts");
  return words.slice(2, -1);
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** main.ts as `deno task start` runs it; waits for /healthz. `stop()` ends it and returns its stdout. */
async function startPortico(db: TestDb, env: Record<string, string>) {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...await startFlags(), "main.ts"],
    cwd: ROOT,
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      ISSUER: base,
      DATABASE_URL: db.url,
      SECRET_KEY: SECRET,
      LOG_LEVEL: "info",
      NO_COLOR: "1",
      MCP_RATE_LIMIT: "1/3600", // the second call of a key is refused: a 429 to count
      ...env,
    },
    clearEnv: false,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  let exited = false;
  const status = child.status.then((s) => (exited = true, s));
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    if (exited) throw new Error(`main.ts exited at start-up: ${await stderr}`);
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`main.ts did not answer /healthz: ${await stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    async stop(): Promise<{ stdout: string; stderr: string }> {
      if (!exited) child.kill("SIGTERM");
      await status;
      return { stdout: await stdout, stderr: await stderr };
    },
  };
}

interface World {
  db: TestDb;
  apiKey: string;
  clientId: string;
  refreshToken: string;
  /** values that must never appear in a SQL span */
  secrets: string[];
}

async function world(): Promise<World | undefined> {
  const db = await freshDatabase();
  if (!db.server) {
    await db.close();
    return undefined;
  }
  const f = await buildFixture(db.sql);
  const { clientId, tokens } = await seedRefreshChains(db.sql, f.users.owner, 1, SECRET);
  return {
    db,
    apiKey: f.keys.owner,
    clientId,
    refreshToken: tokens[0],
    secrets: [
      f.keys.owner,
      sha256Hex(f.keys.owner),
      tokens[0],
      sha256Hex(tokens[0]),
      clientId,
      f.users.owner,
    ],
  };
}

const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "list_projects", arguments: {} },
});

/** One tools/call (200, not an error), a second that the 1/3600 limit refuses (429), and one refresh (200). */
async function drive(base: string, w: World): Promise<void> {
  const call = (id: string) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: mcpHeaders(w.apiKey, { "x-request-id": id }),
      body: CALL,
    });
  const first = await call("otel-mcp-1");
  const body = await first.json();
  assert.equal(first.status, 200, JSON.stringify(body));
  assert.equal(body.result.isError, undefined, JSON.stringify(body));
  const second = await call("otel-mcp-2");
  await second.body?.cancel();
  assert.equal(second.status, 429);
  const refresh = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": "otel-refresh-1" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      client_id: w.clientId,
      refresh_token: w.refreshToken,
    }),
  });
  const tokens = await refresh.json();
  assert.equal(refresh.status, 200, JSON.stringify(tokens));
  assert.ok(tokens.access_token && tokens.id_token && tokens.refresh_token);
}

// ---------------------------------------------------------------------------------------------------------
// Reading the export

interface Span {
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attrs: Record<string, unknown>;
}

function value(v: Json): unknown {
  if (v === undefined) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return v.doubleValue;
  if ("boolValue" in v) return v.boolValue;
  return JSON.stringify(v);
}

function attrsOf(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a: Json) => [a.key, value(a.value)]));
}

function spans(got: { traces: Json[] }): Span[] {
  return got.traces.flatMap((t) =>
    t.resourceSpans.flatMap((rs: Json) =>
      rs.scopeSpans.flatMap((ss: Json) =>
        ss.spans.map((s: Json) => ({
          scope: ss.scope.name,
          name: s.name,
          kind: s.kind,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          attrs: attrsOf(s.attributes),
        }))
      )
    )
  );
}

interface Point {
  metric: string;
  value: number;
  attrs: Record<string, unknown>;
}

/** Every data point of every export (sums and gauges), the latest last. */
function points(got: { metrics: Json[] }): Point[] {
  return got.metrics.flatMap((m) =>
    m.resourceMetrics.flatMap((rm: Json) =>
      rm.scopeMetrics.flatMap((sm: Json) =>
        sm.metrics.flatMap((metric: Json) =>
          (metric.sum ?? metric.gauge)?.dataPoints.map((p: Json) => ({
            metric: metric.name,
            value: Number(p.asInt ?? p.asDouble ?? 0),
            attrs: attrsOf(p.attributes),
          })) ?? []
        )
      )
    )
  );
}

interface LogRecord {
  severity: string;
  body: string;
  traceId: string;
  spanId: string;
}

function logs(got: { logs: Json[] }): LogRecord[] {
  return got.logs.flatMap((l) =>
    l.resourceLogs.flatMap((rl: Json) =>
      rl.scopeLogs.flatMap((sl: Json) =>
        sl.logRecords.map((r: Json) => ({
          severity: r.severityText,
          body: String(r.body?.stringValue ?? ""),
          traceId: r.traceId ?? "",
          spanId: r.spanId ?? "",
        }))
      )
    )
  );
}

/** The access line record of `requestId`, parsed, with its record. */
function accessLine(records: LogRecord[], requestId: string): { line: Json; record: LogRecord } | undefined {
  for (const record of records) {
    if (!record.body.includes(requestId)) continue;
    try {
      const line = JSON.parse(record.body);
      if (line.msg === "request" && line.request_id === requestId) return { line, record };
    } catch {
      // not one of Portico's lines
    }
  }
  return undefined;
}

function requestSpan(all: Span[], requestId: string): Span | undefined {
  return all.find((s) => s.kind === 2 && s.attrs["portico.request_id"] === requestId);
}

function sum(all: Point[], metric: string, match: Record<string, unknown>): number | undefined {
  const found = all.filter((p) =>
    p.metric === metric && Object.entries(match).every(([k, v]) => p.attrs[k] === v)
  );
  return found.length === 0 ? undefined : found.at(-1)!.value;
}

const METRICS_WANTED: [string, Record<string, unknown>][] = [
  ["portico.http.requests", {
    "http.route": "/mcp",
    "http.request.method": "POST",
    "http.response.status_code": 200,
  }],
  ["portico.http.requests", { "http.route": "/mcp", "http.response.status_code": 429 }],
  ["portico.http.requests", { "http.route": "/oauth/token", "http.response.status_code": 200 }],
  ["portico.rate_limit.refusals", { "http.route": "/mcp" }],
  ["portico.mcp.tool_calls", { "gen_ai.tool.name": "list_projects", "portico.tool.outcome": "ok" }],
  ["portico.oauth.refreshes", { "portico.refresh.outcome": "ok" }],
];

/** Everything the test checks has arrived (the exporters send every 100-200 ms here). */
function complete(got: { traces: Json[]; metrics: Json[]; logs: Json[] }): boolean {
  const all = spans(got);
  const mcp = requestSpan(all, "otel-mcp-1");
  const refresh = requestSpan(all, "otel-refresh-1");
  if (!mcp || !refresh) return false;
  if (!all.some((s) => s.traceId === mcp.traceId && s.name === "tools/call list_projects")) return false;
  if (all.filter((s) => s.traceId === refresh.traceId && s.name === "jwt.sign").length < 2) return false;
  const p = points(got);
  if (METRICS_WANTED.some(([m, a]) => !sum(p, m, a))) return false;
  if (
    !["portico.db.connections.open", "portico.db.statements.in_flight", "portico.audit.dropped"].every((m) =>
      p.some((x) => x.metric === m)
    )
  ) return false;
  const l = logs(got);
  return accessLine(l, "otel-mcp-1") !== undefined && accessLine(l, "otel-refresh-1") !== undefined;
}

const SQL_ATTRS = new Set([
  "db.system.name",
  "db.operation.name",
  "db.collection.name",
  "db.query.summary",
  "portico.db.statement",
  "error.type",
]);

Deno.test({
  name: "OTel on: request, SQL, tool-call and signature spans, the metrics, and log lines in the trace",
  sanitizeResources: false,
  sanitizeOps: false,
}, async (t) => {
  const w = await world();
  if (!w) {
    t.step({ name: "needs DATABASE_URL (a Postgres server): skipped", ignore: true, fn() {} });
    return;
  }
  const otlp = otlpListener();
  let out: { stdout: string; stderr: string } | undefined;
  try {
    const portico = await startPortico(w.db, {
      OTEL_DENO: "true",
      OTEL_SERVICE_NAME: "portico",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_BLRP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "200",
    });
    try {
      await drive(portico.base, w);
      const deadline = Date.now() + TIMEOUT_MS;
      while (!complete(otlp.got) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    } finally {
      out = await portico.stop();
    }
    const all = spans(otlp.got);

    // The request spans: Deno's HTTP server span, named by route, with the request id.
    const mcp = requestSpan(all, "otel-mcp-1");
    const refresh = requestSpan(all, "otel-refresh-1");
    assert.ok(mcp, `no request span with portico.request_id: ${JSON.stringify(all.map((s) => s.name))}`);
    assert.ok(refresh);
    assert.equal(mcp.name, "POST /mcp");
    assert.equal(mcp.attrs["http.route"], "/mcp");
    assert.equal(refresh.name, "POST /oauth/token");
    assert.equal(refresh.attrs["http.route"], "/oauth/token");
    assert.equal(requestSpan(all, "otel-mcp-2")?.attrs["http.response.status_code"], "429");

    // The tool-call span: child of the request span, with tool and outcome.
    const tool = all.find((s) => s.traceId === mcp.traceId && s.name === "tools/call list_projects");
    assert.ok(tool);
    assert.equal(tool.scope, "portico");
    assert.equal(tool.parentSpanId, mcp.spanId);
    assert.equal(tool.attrs["gen_ai.tool.name"], "list_projects");
    assert.equal(tool.attrs["mcp.method.name"], "tools/call");
    assert.equal(tool.attrs["portico.tool.outcome"], "ok");

    // SQL spans: named by statement, under the tool call and the refresh, never a value in any attribute.
    const sqlSpans = all.filter((s) => s.attrs["db.system.name"] === "postgresql");
    const inTool = sqlSpans.filter((s) => s.parentSpanId === tool.spanId);
    assert.ok(inTool.some((s) => s.name === "SELECT projects"), JSON.stringify(inTool.map((s) => s.name)));
    const inRefresh = sqlSpans.filter((s) => s.traceId === refresh.traceId);
    assert.ok(
      inRefresh.some((s) => s.name === "WITH oauth_grants,oauth_clients"),
      JSON.stringify(inRefresh.map((s) => s.name)),
    );
    for (const s of sqlSpans) {
      assert.equal(s.kind, 3, "a client span");
      assert.match(s.name, /^[A-Z]+( [a-z_][a-z0-9_$.,]*)?$/);
      assert.equal(s.attrs["db.query.summary"], s.name);
      assert.match(String(s.attrs["portico.db.statement"]), /^[0-9a-f]{8}$/);
      for (const [k, v] of Object.entries(s.attrs)) {
        assert.ok(SQL_ATTRS.has(k), `unexpected attribute ${k} on ${s.name}`);
        for (const secret of w.secrets) {
          assert.ok(!String(v).includes(secret), `${k} of ${s.name} holds a value`);
        }
      }
    }

    // Signature spans: the access token and the ID token of the refresh.
    const signs = all.filter((s) => s.traceId === refresh.traceId && s.name === "jwt.sign");
    assert.deepEqual(signs.map((s) => s.attrs["jwt.typ"]).sort(), ["JWT", "at+jwt"]);
    for (const s of signs) assert.equal(s.attrs["jwt.alg"], "RS256");

    // Metrics.
    const p = points(otlp.got);
    for (const [metric, attrs] of METRICS_WANTED) {
      assert.ok((sum(p, metric, attrs) ?? 0) >= 1, `${metric} ${JSON.stringify(attrs)}`);
    }
    assert.ok(p.some((x) => x.metric === "portico.db.connections.open" && x.value >= 1));
    assert.ok(p.some((x) => x.metric === "portico.db.statements.in_flight"));
    for (const kind of ["authenticated", "refused"]) {
      assert.equal(sum(p, "portico.audit.dropped", { "portico.audit.kind": kind }), 0);
    }
    assert.ok(p.some((x) => x.metric === "portico.audit.buffered"));

    // Logs: Portico's access lines are OpenTelemetry log records in the request's trace, and name it.
    const records = logs(otlp.got);
    for (const [id, span] of [["otel-mcp-1", mcp], ["otel-refresh-1", refresh]] as const) {
      const found = accessLine(records, id);
      assert.ok(found, `no log record for ${id}`);
      assert.equal(found.record.severity, "INFO");
      assert.equal(found.record.traceId, span.traceId);
      assert.equal(found.line.trace_id, span.traceId);
      assert.equal(found.line.span_id, span.spanId);
      // stdout still has the line, once.
      assert.equal(out.stdout.split("\n").filter((l) => l.includes(`"request_id":"${id}"`)).length, 1);
    }
  } finally {
    await otlp.close();
    await w.db.close();
  }
});

Deno.test({
  name:
    "OTel off (OTEL_DENO unset): nothing is exported, no log line names a trace, postgres.js is not wrapped",
  sanitizeResources: false,
  sanitizeOps: false,
}, async (t) => {
  assert.equal(OTEL_ON, false, "this test process runs without OTEL_DENO");
  const w = await world();
  if (!w) {
    t.step({ name: "needs DATABASE_URL (a Postgres server): skipped", ignore: true, fn() {} });
    return;
  }
  const otlp = otlpListener();
  try {
    // In this process: starting telemetry leaves postgres.js's Query untouched.
    const sql = postgres(w.db.url, { max: 1 });
    const before = Object.getPrototypeOf(sql`select 1`).handle;
    startTelemetry({ sql });
    assert.equal(Object.getPrototypeOf(sql`select 1`).handle, before);
    await sql.end();

    // A server with the exporter's endpoint set but OTEL_DENO unset: it runs to its exit (when an exporter
    // would flush) and the listener hears nothing.
    const portico = await startPortico(w.db, {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "200",
    });
    let out;
    try {
      await drive(portico.base, w);
    } finally {
      out = await portico.stop();
    }
    assert.equal(otlp.got.requests, 0);
    const line = out.stdout.split("\n").find((l) => l.includes(`"request_id":"otel-mcp-1"`));
    assert.ok(line, out.stdout.slice(0, 2000));
    assert.equal(JSON.parse(line).trace_id, undefined);
    assert.ok(!out.stdout.includes("opentelemetry on"));
  } finally {
    await otlp.close();
    await w.db.close();
  }
});

Deno.test("a statement's summary: keyword and first table, quotes and case folded, no values", () => {
  assert.deepEqual(
    { ...statementSummary("select id from oauth_clients where id = $1"), hash: "" },
    { name: "SELECT oauth_clients", operation: "SELECT", table: "oauth_clients", hash: "" },
  );
  assert.equal(statementSummary('\n  insert into "API_keys" (a) values ($1)').name, "INSERT api_keys");
  assert.equal(
    statementSummary("with x as (update oauth_refresh_tokens set a = $1) select 1").name,
    "WITH oauth_refresh_tokens",
  );
  assert.equal(statementSummary("select id from tasks where id = $1 for update").name, "SELECT tasks");
  assert.equal(
    statementSummary("insert into t (a) values ($1) on conflict (a) do update set a = $2").name,
    "INSERT t",
  );
  assert.equal(statementSummary("begin isolation level serializable").name, "BEGIN");
  // A leading comment (the refresh statement names itself with one) is not the keyword.
  assert.equal(
    statementSummary("\n  -- portico: refresh (x.ts)\n  with m as (select 1) update oauth_grants set a = 1")
      .name,
    "WITH oauth_grants",
  );
  assert.equal(statementSummary("/* a */ select 1").name, "SELECT");
  assert.equal(statementSummary("select 1").name, "SELECT");
  assert.match(statementSummary("select 1").hash, /^[0-9a-f]{8}$/);
  assert.notEqual(statementSummary("select 1").hash, statementSummary("select 2").hash);
});
