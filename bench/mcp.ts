// Cost per request of /mcp against the SDK's documented stateless pattern and against the bare SQL it runs.
//
// Run with `deno task bench` (DATABASE_URL for Postgres, else embedded PGlite). Prints ratios; asserts nothing.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { McpVariant } from "../lib/config.ts";
import type { Sql } from "../lib/db/client.ts";
import { silentLogger } from "../lib/log.ts";
import { type Caller, loadCaller } from "../lib/mcp/caller.ts";
import { createMcpRateLimits } from "../lib/mcp/rate_limit.ts";
import { createSharedLimiter } from "../lib/rate_limit/mod.ts";
import { toolSuccess } from "../lib/mcp/errors.ts";
import { registryFor } from "../lib/mcp/registry.ts";
import { listProjects } from "../lib/workspace/projects.ts";
import { TOOLS } from "../tools/mod.ts";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";

const VARIANT: McpVariant = "A";
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "list_projects", arguments: { limit: 20 } },
});

/** The same two requests in MCP 2026-07-28: the per-request envelope and its headers (lib/mcp/modern.ts). */
const META_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};
const LIST_2026 = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: { _meta: META_2026 },
});
const CALL_2026 = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "list_projects", arguments: { limit: 20 }, _meta: META_2026 },
});

// Answers are read as bytes, as Deno.serve would write them to the socket: a string body costs its UTF-8
// encoding there, so reading text() here would hide it.

/** Milliseconds per call: the median slice, and the best one (closest to the cost on an idle machine). */
interface Timing {
  median: number;
  best: number;
}

/**
 * Milliseconds per call of each function: the contenders run in turns (round-robin slices) and each one's
 * median slice is kept, so load that comes and goes on the machine hits them all alike.
 */
async function measureAll(
  fns: Record<string, () => Promise<unknown>>,
  rounds = 10,
  sliceMs = 150,
): Promise<Record<string, Timing>> {
  const samples: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(fns)) {
    samples[name] = [];
    for (let i = 0; i < 100; i++) await fn(); // warm-up
  }
  const entries = Object.entries(fns);
  for (let r = 0; r < rounds; r++) {
    // Every other round in reverse order: no contender always follows the same one (and its garbage).
    for (const [name, fn] of r % 2 === 0 ? entries : [...entries].reverse()) {
      let n = 0;
      const start = performance.now();
      while (performance.now() - start < sliceMs) {
        for (let i = 0; i < 10; i++) await fn();
        n += 10;
      }
      samples[name].push((performance.now() - start) / n);
    }
  }
  const out: Record<string, Timing> = {};
  for (const [name, xs] of Object.entries(samples)) {
    xs.sort((a, b) => a - b);
    out[name] = { median: xs[Math.floor(xs.length / 2)], best: xs[0] };
  }
  return out;
}

function post(body: string, key: string): Request {
  return new Request("http://localhost:8000/mcp", { method: "POST", headers: mcpHeaders(key), body });
}

/** A 2026-07-28 POST: its version, Mcp-Method and (tools/call) Mcp-Name headers, read from the body once. */
const headers2026 = new Map<string, [string, string | null]>();
function post2026(body: string, key: string): Request {
  let h = headers2026.get(body);
  if (!h) {
    const msg = JSON.parse(body);
    headers2026.set(body, h = [msg.method, msg.params?.name ?? null]);
  }
  const headers = mcpHeaders(key, {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": h[0],
    "mcp-name": h[1],
  });
  return new Request("http://localhost:8000/mcp", { method: "POST", headers, body });
}

async function expectOk(res: Response): Promise<void> {
  const text = await res.text();
  const body = res.status === 200 ? JSON.parse(text) : null;
  if (!body || body.error || body.result?.isError) {
    throw new Error(`unexpected answer ${res.status}: ${text.slice(0, 200)}`);
  }
}

/** (a) The SDK's documented stateless pattern: a new McpServer with every tool registered, per request. */
async function sdkStateless(sql: Sql, req: Request): Promise<Response> {
  const auth = await loadCaller(sql, req.headers.get("x-api-key") ?? undefined, VARIANT, silentLogger);
  if (!auth.ok) return new Response(null, { status: auth.status });
  const caller: Caller = auth.caller;
  const server = new McpServer({ name: "portico", version: "0.1.0" });
  for (const tool of TOOLS) {
    const schema = tool.variants[VARIANT];
    if (!schema) continue;
    server.registerTool(tool.name, {
      description: typeof tool.description === "string" ? tool.description : tool.description[VARIANT],
      inputSchema: schema,
      annotations: tool.annotations,
    }, async (input: unknown) => {
      const value = await tool.run(
        { db: sql, caller, variant: VARIANT, requestId: "bench", log: silentLogger },
        // deno-lint-ignore no-explicit-any
        input as any,
      );
      // deno-lint-ignore no-explicit-any
      return toolSuccess(value) as any;
    });
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const res = await transport.handleRequest(req);
  await server.close();
  return res;
}

/** The low-level SDK Server + transport with precomputed listings (the alternative to lib/mcp/server.ts). */
async function sdkLowLevel(sql: Sql, req: Request): Promise<Response> {
  const auth = await loadCaller(sql, req.headers.get("x-api-key") ?? undefined, VARIANT, silentLogger);
  if (!auth.ok) return new Response(null, { status: auth.status });
  const caller = auth.caller;
  const registry = registryFor(TOOLS, VARIANT);
  const view = registry.view(caller);
  const server = new Server({ name: "portico", version: "0.1.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => JSON.parse(view.listJson));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (r: { params: { name: string; arguments?: Record<string, unknown> } }) => {
      const tool = view.tools.get(r.params.name)!;
      const input = tool.schema.parse(r.params.arguments ?? {});
      const value = await tool.def.run({
        db: sql,
        caller,
        variant: VARIANT,
        requestId: "b",
        log: silentLogger,
      }, input);
      // deno-lint-ignore no-explicit-any
      return toolSuccess(value) as any;
    },
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const res = await transport.handleRequest(req);
  await server.close();
  return res;
}

function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

export async function benchMcp(): Promise<void> {
  // A fresh, migrated database of its own (Postgres at DATABASE_URL, else in-memory PGlite): never real data.
  const db = await freshDatabase();
  try {
    await runWith(db.sql, db.server ? "Postgres" : "embedded PGlite, one connection");
  } finally {
    await db.close();
  }
}

async function runWith(sql: Sql, where: string): Promise<void> {
  const f = await buildFixture(sql);
  const key = f.keys.owner;
  for (let i = 0; i < 20; i++) {
    await sql`insert into projects (workspace_id, company_id, name, budget)
              values (${f.workspaceId}, ${i % 2 ? f.companies.a : f.companies.b}, ${`Project ${i}`}, ${
      i * 100
    })`;
  }
  const app = testApp(sql, { MCP_VARIANT: VARIANT });
  const auth = await loadCaller(sql, key, VARIANT, silentLogger);
  if (!auth.ok) throw new Error("bench key refused");
  const caller = auth.caller;

  for (const req of [LIST_2026, CALL_2026]) await expectOk(await app.fetch(post2026(req, key)));
  for (const req of [LIST, CALL]) {
    await expectOk(await app.fetch(post(req, key)));
    await expectOk(await sdkStateless(sql, post(req, key)));
    await expectOk(await sdkLowLevel(sql, post(req, key)));
  }

  const bareCaller = () => loadCaller(sql, key, VARIANT, silentLogger);
  const results: Record<string, Record<string, Timing>> = {
    "tools/list": await measureAll({
      pipeline: async () => await (await app.fetch(post(LIST, key))).arrayBuffer(),
      pipeline2026: async () => await (await app.fetch(post2026(LIST_2026, key))).arrayBuffer(),
      sdkStateless: async () => await (await sdkStateless(sql, post(LIST, key))).arrayBuffer(),
      sdkLowLevel: async () => await (await sdkLowLevel(sql, post(LIST, key))).arrayBuffer(),
      bareSql: bareCaller,
    }),
    "tools/call list_projects": await measureAll({
      pipeline: async () => await (await app.fetch(post(CALL, key))).arrayBuffer(),
      pipeline2026: async () => await (await app.fetch(post2026(CALL_2026, key))).arrayBuffer(),
      sdkStateless: async () => await (await sdkStateless(sql, post(CALL, key))).arrayBuffer(),
      sdkLowLevel: async () => await (await sdkLowLevel(sql, post(CALL, key))).arrayBuffer(),
      bareSql: async () => {
        await bareCaller();
        await listProjects(sql, caller, { limit: 20 });
      },
    }),
  };

  // Issue 31: the caller statement with the shared rate limit's unit taken inside it, against the statement
  // alone (as before the limits were shared) and against the unit taken by a second statement.
  const limits = createMcpRateLimits({
    db: sql,
    perCredential: { max: 1_000_000_000, windowSeconds: 60 },
    unauthenticated: { max: 1_000_000_000, windowSeconds: 60 },
  });
  const second = createSharedLimiter(sql, { max: 1_000_000_000, windowSeconds: 60 });
  const admitted = limits.admit(key, "127.0.0.1");
  if (!admitted.ok) throw new Error("bench key limited");
  const charge = limits.charge(admitted, 1);
  const statements = await measureAll({
    alone: bareCaller,
    charged: () => loadCaller(sql, key, VARIANT, silentLogger, undefined, charge),
    secondStatement: async () => {
      await bareCaller();
      await second.take(`key:${caller.keyId}`);
    },
  });

  console.log(`\nMCP per request through app.fetch (${where}, variant ${VARIANT}, ${TOOLS.length} tools)`);
  const row = (label: string, value: string) => console.log(`    ${label.padEnd(40)} ${value}`);
  const both = (f: (t: Record<string, number>) => number, unit: (n: number) => string) => {
    return (r: Record<string, Timing>) => {
      const pick = (k: "median" | "best") => Object.fromEntries(Object.entries(r).map(([n, t]) => [n, t[k]]));
      return `${unit(f(pick("median")))}   (best round ${unit(f(pick("best")))})`;
    };
  };
  const ratio = (n: number) => `${n.toFixed(1)}×`;
  console.log("    (median of interleaved rounds; the best round is what an idle machine does)");
  for (const [name, r] of Object.entries(results)) {
    console.log(`\n  ${name}`);
    row("pipeline (app.fetch)", both((t) => t.pipeline, fmt)(r));
    row("pipeline, MCP 2026-07-28", both((t) => t.pipeline2026, fmt)(r));
    row(
      "2026-07-28 / 2025 (goal ≤ 1.05×)",
      both((t) => t.pipeline2026 / t.pipeline, (n) => `${n.toFixed(3)}×`)(r),
    );
    row("(a) SDK McpServer per request", both((t) => t.sdkStateless, fmt)(r));
    row("    low-level SDK Server + transport", both((t) => t.sdkLowLevel, fmt)(r));
    row(
      `(b) bare SQL (caller query${name.startsWith("tools/call") ? " + list" : ""})`,
      both((t) => t.bareSql, fmt)(r),
    );
    row("pipeline beyond the SQL (goal < 300 µs)", both((t) => t.pipeline - t.bareSql, fmt)(r));
    row(
      `(a) / pipeline${name === "tools/list" ? " (goal ≥ 10×)" : ""}`,
      both((t) => t.sdkStateless / t.pipeline, ratio)(r),
    );
    row("low-level SDK / pipeline", both((t) => t.sdkLowLevel / t.pipeline, ratio)(r));
  }
  console.log("\n  the caller statement and the shared rate limit (issue 31)");
  row("caller statement alone (no limit)", both((t) => t.alone, fmt)(statements));
  row("caller statement taking the unit (CTE)", both((t) => t.charged, fmt)(statements));
  row("caller statement + a second statement", both((t) => t.secondStatement, fmt)(statements));
  row("CTE - alone", both((t) => t.charged - t.alone, fmt)(statements));
  row("second statement - alone", both((t) => t.secondStatement - t.alone, fmt)(statements));
}
