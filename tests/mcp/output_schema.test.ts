// outputSchema (MCP 2025-06-18): declared for fixed-shape results and validated by the official SDK client.
import assert from "node:assert/strict";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildRegistry } from "../../lib/mcp/registry.ts";
import { defineTool } from "../../lib/mcp/tool.ts";
import { pageOutput } from "../../lib/mcp/output.ts";
import { TOOLS } from "../../tools/mod.ts";
import { TOTAL_COUNT_WINDOW } from "../../lib/workspace/page.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, mcpApp, type RequestTarget } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
/** list_subtasks needs a parent: a task of the fixture's workspace. */
const [{ id: parentTask }] = await db.sql<{ id: string }[]>`
  insert into tasks (workspace_id, title) values (${f.workspaceId}, 'Parent') returning id`;

/** The list tools that answer the Page of lib/workspace/page.ts as structuredContent. */
const PAGE_TOOLS = [
  "list_tasks",
  "list_subtasks",
  "list_clients",
  "list_contacts",
  "list_activities",
  "list_ai_activities",
  "list_workspace_documents",
  "list_recordings",
  "list_time_logs",
  "list_appointments",
  "list_invoices",
  "list_calendars",
  "list_time_categories",
];

async function connect(app: RequestTarget, key: string) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => app.request(req),
  );
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), {
    requestInit: { headers: { "x-api-key": key } },
  });
  const client = new Client({ name: "portico-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    async close() {
      await client.close().catch(() => {});
      await server.shutdown();
    },
  };
}

Deno.test("outputSchema: the page list tools and get_booking_settings declare one; array answers do not", () => {
  const reg = buildRegistry(TOOLS, "A");
  const declared = [...reg.all.values()].filter((t) => t.listing.outputSchema).map((t) => t.name).sort();
  assert.deepEqual(declared, [...PAGE_TOOLS, "get_booking_settings"].sort());
  const page = reg.all.get("list_tasks")!.listing.outputSchema as { properties: object; type: string };
  assert.equal(page.type, "object");
  // the three keyset lists (list_contacts, list_tasks, list_activities) add nextCursor; the others do not.
  // No `required` (docs/mcp.md "Portable schemas"): the fields are typed, their presence is not promised.
  assert.deepEqual(Object.keys(page.properties), [
    "items",
    "total",
    "totalAtLeast",
    "hasMore",
    "nextOffset",
    "nextCursor",
  ]);
  assert.equal("required" in page, false);
  const invoices = reg.all.get("list_invoices")!.listing.outputSchema as { properties: object };
  assert.ok("sums" in invoices.properties);
  assert.equal("nextCursor" in invoices.properties, false);
  for (const name of ["list_projects"]) {
    assert.equal(
      reg.all.get(name)!.listing.outputSchema,
      undefined,
      `${name} answers an array, not an object`,
    );
  }
});

Deno.test("the SDK client lists outputSchema and validates every declared tool's result against it", async () => {
  const c = await connect(mcpApp(db.sql, "A"), f.keys.owner);
  try {
    const { tools } = await c.client.listTools();
    const withSchema = tools.filter((t: { outputSchema?: unknown }) => t.outputSchema)
      .map((t: { name: string }) => t.name).sort();
    assert.deepEqual(withSchema, [...PAGE_TOOLS, "get_booking_settings"].sort());
    for (const name of [...PAGE_TOOLS, "get_booking_settings"]) {
      const args = name === "list_subtasks" ? { parentTaskId: parentTask } : {};
      const r = await c.client.callTool({ name, arguments: args });
      assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
      assert.equal(typeof r.structuredContent, "object", name);
    }
    const page = await c.client.callTool({ name: "list_tasks", arguments: { limit: 1 } });
    const sc = page.structuredContent as { limit: number; offset: number };
    assert.equal(sc.limit, 1);
    assert.equal(sc.offset, 0);
  } finally {
    await c.close();
  }
});

Deno.test("the SDK client refuses a result that does not match the declared outputSchema", async () => {
  // a stand-in whose answer breaks its own schema: proves the client checks, so the tests above mean something
  const liar = defineTool({
    name: "list_tasks",
    title: "List tasks",
    area: "tasks",
    module: "tasks",
    needsUser: false,
    variants: { A: z.strictObject({}) },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    outputSchema: pageOutput(),
    description: "Test stand-in. Returns a page whose hasMore is not a boolean.",
    run: () => ({ items: [], total: 0, limit: 10, offset: 0, hasMore: "no", nextOffset: null }),
  });
  const c = await connect(mcpApp(db.sql, "A", { tools: [liar] }), f.keys.owner);
  try {
    await c.client.listTools();
    await assert.rejects(
      c.client.callTool({ name: "list_tasks", arguments: {} }),
      /Structured content does not match the tool's output schema/,
    );
  } finally {
    await c.close();
  }
});

Deno.test("the SDK client accepts a page whose count stopped at its window (total null, totalAtLeast)", async () => {
  // Lists count at most TOTAL_COUNT_WINDOW past the page (lib/workspace/page.ts): such a page must still match.
  const capped = defineTool({
    name: "list_time_logs",
    title: "List time logs",
    area: "time_tracking",
    module: "time_tracking",
    needsUser: true,
    variants: { A: z.strictObject({}) },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    outputSchema: pageOutput(),
    description: "Test stand-in. Returns a page whose total was not counted to the end.",
    run: () => ({
      items: [{}],
      total: null,
      totalAtLeast: 1101,
      limit: 100,
      offset: 0,
      hasMore: true,
      nextOffset: 1,
    }),
  });
  const c = await connect(mcpApp(db.sql, "A", { tools: [capped] }), f.keys.owner);
  try {
    await c.client.listTools();
    const r = await c.client.callTool({ name: "list_time_logs", arguments: {} });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    assert.deepEqual(r.structuredContent, {
      items: [{}],
      total: null,
      totalAtLeast: 1101,
      limit: 100,
      offset: 0,
      hasMore: true,
      nextOffset: 1,
    });
  } finally {
    await c.close();
  }
});

Deno.test("the SDK client accepts a page whose total is null with totalAtLeast (over 1,000 matches past it)", async () => {
  // limit 1 counts at most 1 + TOTAL_COUNT_WINDOW matches; 1,100 contacts run past that
  await db.sql`
    insert into contacts (workspace_id, first_name, last_name, created_by)
    select ${f.workspaceId}, 'Bulk' || g, 'Contact' || g, ${f.users.owner} from generate_series(1, 1100) g`;
  const c = await connect(mcpApp(db.sql, "A"), f.keys.owner);
  try {
    await c.client.listTools();
    const r = await c.client.callTool({ name: "list_contacts", arguments: { limit: 1 } });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    const sc = r.structuredContent as Record<string, unknown>;
    assert.equal(sc.total, null);
    assert.equal(sc.totalAtLeast, 1 + TOTAL_COUNT_WINDOW);
    assert.deepEqual([sc.hasMore, sc.nextOffset], [true, 1]);
  } finally {
    await c.close();
  }
});
