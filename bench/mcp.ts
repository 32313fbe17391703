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

/** Mean milliseconds per call of `fn` after a warm-up, over at least `minMs` of wall time. */
async function measure(fn: () => Promise<unknown>, minMs = 1500): Promise<number> {
  for (let i = 0; i < 200; i++) await fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    for (let i = 0; i < 50; i++) await fn();
    n += 50;
  }
  return (performance.now() - start) / n;
}

function post(body: string, key: string): Request {
  return new Request("http://localhost:8000/mcp", { method: "POST", headers: mcpHeaders(key), body });
}

async function expectOk(res: Response): Promise<void> {
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true') || text.includes('"error"')) {
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

  for (const req of [LIST, CALL]) {
    await expectOk(await app.fetch(post(req, key)));
    await expectOk(await sdkStateless(sql, post(req, key)));
    await expectOk(await sdkLowLevel(sql, post(req, key)));
  }

  const results: Record<string, Record<string, number>> = {
    "tools/list": {},
    "tools/call list_projects": {},
  };
  const bareCaller = () => loadCaller(sql, key, VARIANT, silentLogger);
  results["tools/list"] = {
    pipeline: await measure(async () => await (await app.fetch(post(LIST, key))).text()),
    sdkStateless: await measure(async () => await (await sdkStateless(sql, post(LIST, key))).text()),
    sdkLowLevel: await measure(async () => await (await sdkLowLevel(sql, post(LIST, key))).text()),
    bareSql: await measure(bareCaller),
  };
  results["tools/call list_projects"] = {
    pipeline: await measure(async () => await (await app.fetch(post(CALL, key))).text()),
    sdkStateless: await measure(async () => await (await sdkStateless(sql, post(CALL, key))).text()),
    sdkLowLevel: await measure(async () => await (await sdkLowLevel(sql, post(CALL, key))).text()),
    bareSql: await measure(async () => {
      await bareCaller();
      await listProjects(sql, caller, { limit: 20 });
    }),
  };

  console.log(`\nMCP per request through app.fetch (${where}, variant ${VARIANT}, ${TOOLS.length} tools)`);
  const row = (label: string, value: string) => console.log(`    ${label.padEnd(40)} ${value}`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`\n  ${name}`);
    row("pipeline (app.fetch)", fmt(r.pipeline));
    row("(a) SDK McpServer per request", fmt(r.sdkStateless));
    row("    low-level SDK Server + transport", fmt(r.sdkLowLevel));
    row(`(b) bare SQL (caller query${name.startsWith("tools/call") ? " + list" : ""})`, fmt(r.bareSql));
    row("pipeline beyond the SQL", `${fmt(r.pipeline - r.bareSql)}  (goal < 300 µs)`);
    row(
      "(a) / pipeline",
      `${(r.sdkStateless / r.pipeline).toFixed(1)}×${name === "tools/list" ? "  (goal ≥ 10×)" : ""}`,
    );
    row("low-level SDK / pipeline", `${(r.sdkLowLevel / r.pipeline).toFixed(1)}×`);
  }
}
