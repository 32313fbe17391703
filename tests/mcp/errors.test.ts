// Unexpected failures: logged with the request id, answered with a generic message that carries it, never the cause.
import assert from "node:assert/strict";
import { z } from "zod";
import { conflict } from "../../lib/errors.ts";
import { createLogger } from "../../lib/log.ts";
import { defineTool } from "../../lib/mcp/tool.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, mcpApp, postMcp } from "../helpers/mcp.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger("debug", (l) => lines.push(JSON.parse(l))) };
}

async function call(app: ReturnType<typeof mcpApp>, key: string, name: string, requestId: string) {
  const res = await postMcp(app, key, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: {} },
  }, {
    "x-request-id": requestId,
  });
  assert.equal(res.status, 200);
  return (await res.json()).result;
}

Deno.test("a database error (dropped table) is logged with the request id and answered without its text", async () => {
  const db = await freshDatabase(); // throwaway: the table is dropped below
  try {
    const f = await buildFixture(db.sql);
    const { lines, log } = capture();
    const app = mcpApp(db.sql, "A", { log, tools: TOOLS });
    await db.sql`drop table projects cascade`;
    const result = await call(app, f.keys.owner, "list_projects", "req-db-1");
    assert.equal(result.isError, true);
    const text: string = result.content[0].text;
    assert.equal(
      text,
      "internal_error: the tool failed unexpectedly; the failure was logged (request id req-db-1)",
    );
    assert.doesNotMatch(text, /relation|projects|does not exist|42P01/);
    const logged = lines.find((l) => l.msg === "tool failed");
    assert.ok(logged, "logged");
    assert.equal(logged.request_id, "req-db-1");
    assert.equal(logged.tool, "list_projects");
    assert.match(String(logged.error), /projects/, "the log keeps the cause");
  } finally {
    await db.close();
  }
});

Deno.test("a thrown Error stays in the log; an AppError is the caller's answer", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const Empty = z.strictObject({});
    const base = {
      area: "projects" as const,
      module: null,
      needsUser: false,
      variants: { A: Empty, B: Empty },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      description: "Test tool. Returns nothing.",
    };
    const boom = defineTool({
      ...base,
      name: "boom",
      run: () => {
        throw new Error("secret internals: password=hunter2");
      },
    });
    const clash = defineTool({
      ...base,
      name: "clash",
      run: () => Promise.reject(conflict("already there")),
    });
    const { lines, log } = capture();
    const app = mcpApp(db.sql, "B", { log, tools: [boom, clash] });
    const r = await call(app, f.keys.owner, "boom", "req-boom");
    assert.equal(r.isError, true);
    assert.doesNotMatch(r.content[0].text, /hunter2|secret/);
    assert.match(r.content[0].text, /^internal_error: .*request id req-boom/);
    assert.ok(lines.some((l) => l.request_id === "req-boom" && String(l.error).includes("hunter2")));
    const c = await call(app, f.keys.owner, "clash", "req-clash");
    assert.deepEqual(c, { content: [{ type: "text", text: "conflict: already there" }], isError: true });
  } finally {
    await db.close();
  }
});

Deno.test("a database failure while loading the caller → 500 JSON-RPC error without the cause", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    await db.sql`alter table api_keys rename to api_keys_gone`;
    const { lines, log } = capture();
    const app = mcpApp(db.sql, "A", { log, tools: TOOLS });
    const res = await postMcp(app, f.keys.owner, { jsonrpc: "2.0", id: 1, method: "ping" }, {
      "x-request-id": "req-caller",
    });
    assert.equal(res.status, 500);
    const body = await res.json();
    assert.deepEqual(body, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32603, message: "Internal error (request id req-caller)" },
    });
    assert.ok(lines.some((l) => l.request_id === "req-caller" && String(l.error).includes("api_keys")));
  } finally {
    await db.close();
  }
});

Deno.test("the database gone: 503 with Retry-After before a caller exists and inside a tool", async () => {
  const db = await freshDatabase();
  const f = await buildFixture(db.sql);
  const { log } = capture();
  // A second client on the same database, closed under the app's feet.
  const { createDb } = await import("../../lib/db/client.ts");
  const gone = createDb(db.url, { max: 1, connectTimeout: 1 });
  await gone.end();
  try {
    const app = mcpApp(gone, "A", { log, tools: TOOLS });
    const res = await postMcp(app, f.keys.owner, { jsonrpc: "2.0", id: 1, method: "ping" });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "5");
    assert.equal((await res.json()).error.code, -32603);
    // inside a tool (the caller was loaded, then the connection failed)
    const down = defineTool({
      name: "down",
      area: "projects",
      module: null,
      needsUser: false,
      variants: { A: z.strictObject({}) },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      description: "Test tool. Returns nothing.",
      run: () => {
        throw Object.assign(new Error("connect ECONNREFUSED 10.1.2.3:5432"), { code: "ECONNREFUSED" });
      },
    });
    const inside = await postMcp(mcpApp(db.sql, "A", { log, tools: [down] }), f.keys.owner, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "down", arguments: {} },
    });
    assert.equal(inside.status, 503);
    assert.equal(inside.headers.get("retry-after"), "5");
    assert.deepEqual(await inside.json(), {
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32603, message: "Service Unavailable: the database is not reachable; retry shortly" },
    });
  } finally {
    await db.close();
  }
});
