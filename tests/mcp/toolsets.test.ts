// Toolsets and read-only connections: /mcp?toolsets=…&readonly=1 narrows a caller's tools and never widens them.
import assert from "node:assert/strict";
import { createApiKey } from "../../lib/api_keys.ts";
import { runAdmin } from "../../lib/admin/cli.ts";
import { buildRegistry } from "../../lib/mcp/registry.ts";
import { AREA_TOOLSET, inToolsets, parseSelection, toolsetOf, TOOLSETS } from "../../lib/mcp/toolsets.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { bearerFor } from "../helpers/bearer.ts";
import {
  buildFixture,
  listedTools,
  MCP_URL,
  mcpApp,
  mcpHeaders,
  type RequestTarget,
} from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };

let id = 1;
/** One JSON-RPC call to /mcp with a query string. */
async function rpcAt(
  app: RequestTarget,
  query: string,
  key: string | null,
  method: string,
  params?: unknown,
) {
  const res = await app.request(`${MCP_URL}?${query}`, {
    method: "POST",
    headers: mcpHeaders(key),
    body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function namesAt(app: RequestTarget, query: string, key: string): Promise<string[]> {
  const r = await rpcAt(app, query, key, "tools/list");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result.tools.map((t: { name: string }) => t.name);
}

async function callAt(app: RequestTarget, query: string, key: string, name: string, args: unknown = {}) {
  const r = await rpcAt(app, query, key, "tools/call", { name, arguments: args });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { isError: r.body.result.isError === true, text: r.body.result.content[0].text as string };
}

const byName = new Map(TOOLS.map((t) => [t.name, t]));

/** The tools no selection removes (toolset null): who and where the caller is, and whom it works with. */
const CONTEXT_TOOLS = ["get_context", "list_members"];

Deno.test("every tool belongs to one toolset or to the context, and every toolset has tools in variant A", () => {
  const used = new Set(TOOLS.map(toolsetOf).filter((t) => t !== null));
  assert.deepEqual([...used].sort(), [...TOOLSETS].sort());
  assert.deepEqual(TOOLS.filter((t) => toolsetOf(t) === null).map((t) => t.name), CONTEXT_TOOLS);
  assert.equal(toolsetOf(byName.get("list_clients")!), "crm");
  assert.equal(toolsetOf(byName.get("create_invoice")!), "finance");
  assert.equal(toolsetOf(byName.get("create_idea")!), "projects");
  assert.equal(toolsetOf(byName.get("list_recordings")!), "documents");
  assert.equal(toolsetOf(byName.get("create_time_log")!), "time");
  assert.equal(Object.keys(AREA_TOOLSET).length, 16);
  assert.equal(buildRegistry(TOOLS, "A").all.size, TOOLS.filter((t) => t.variants.A).length);
});

Deno.test("?toolsets=tasks,time: tools/list holds exactly the owner's tasks and time tools", async () => {
  const full = await listedTools(apps.A, f.keys.owner);
  const names = await namesAt(apps.A, "toolsets=tasks,time", f.keys.owner);
  const wanted = full.filter((n) => inToolsets(byName.get(n)!, ["tasks", "time"]));
  assert.deepEqual(names, wanted);
  assert.deepEqual(names.slice(0, 2), CONTEXT_TOOLS);
  assert.ok(
    names.includes("list_tasks") && names.includes("create_time_log") && names.includes("gantt_plan"),
  );
  assert.equal(names.includes("list_projects"), false);
  assert.equal(names.length, 18);
});

Deno.test("a tool outside the selected toolsets answers unavailable:, whatever its arguments", async () => {
  const r = await callAt(apps.A, "toolsets=tasks,time", f.keys.owner, "list_projects", {});
  assert.equal(r.isError, true);
  assert.equal(
    r.text,
    "unavailable: list_projects is in the projects toolset, outside this connection's toolsets (tasks, time)",
  );
  // bad arguments do not turn it into invalid_input: the tool is not there for this connection
  const bad = await callAt(apps.A, "toolsets=tasks", f.keys.owner, "create_invoice", { nonsense: 1 });
  assert.ok(bad.text.startsWith("unavailable: create_invoice is in the finance toolset"), bad.text);
  // inside the selection the tool works
  const ok = await callAt(apps.A, "toolsets=tasks,time", f.keys.owner, "list_tasks", {});
  assert.equal(ok.isError, false, ok.text);
});

Deno.test("readonly=1: an owner sees only read-only tools and cannot call a write tool", async () => {
  const names = await namesAt(apps.A, "readonly=1", f.keys.owner);
  const full = await listedTools(apps.A, f.keys.owner);
  assert.deepEqual(names, full.filter((n) => byName.get(n)!.annotations.readOnlyHint));
  assert.ok(names.includes("list_tasks") && names.includes("get_task"));
  assert.equal(names.includes("create_task"), false);
  const [{ count: before }] = await db.sql`select count(*)::int as count from tasks`;
  const r = await callAt(apps.A, "readonly=1", f.keys.owner, "create_task", { title: "Must not exist" });
  assert.equal(r.isError, true);
  assert.equal(r.text, "unavailable: create_task changes data and this connection is read-only");
  const [{ count: after }] = await db.sql`select count(*)::int as count from tasks`;
  assert.equal(after, before);
  // readonly=0 and readonly=false change nothing
  assert.deepEqual(await namesAt(apps.A, "readonly=0", f.keys.owner), full);
  assert.deepEqual(await namesAt(apps.A, "readonly=false", f.keys.owner), full);
});

Deno.test("toolsets and readonly combine; variant B narrows the same way", async () => {
  const names = await namesAt(apps.A, "toolsets=tasks&readonly=true", f.keys.owner);
  assert.deepEqual(names, [...CONTEXT_TOOLS, "list_tasks", "get_task", "list_subtasks", "gantt_plan"]);
  const b = await namesAt(apps.B, "readonly=1", f.keys.internal);
  const bFull = await listedTools(apps.B, f.keys.internal);
  assert.deepEqual(b, bFull.filter((n) => byName.get(n)!.annotations.readOnlyHint));
  const r = await callAt(apps.B, "readonly=1", f.keys.internal, "create_task", { title: "x" });
  assert.equal(r.text, "unavailable: create_task changes data and this connection is read-only");
});

Deno.test("a selection never widens: a guest asking for finance gets no finance tool and stays denied", async () => {
  const guestFull = await listedTools(apps.A, f.keys.guest);
  const names = await namesAt(apps.A, "toolsets=finance,tasks", f.keys.guest);
  assert.deepEqual(names, guestFull.filter((n) => inToolsets(byName.get(n)!, ["finance", "tasks"])));
  assert.equal(names.some((n) => toolsetOf(byName.get(n)!) === "finance"), false);
  const r = await callAt(apps.A, "toolsets=finance", f.keys.guest, "list_invoices", {});
  assert.ok(r.text.startsWith("access_denied: "), r.text);
});

Deno.test("an unknown toolset or readonly value is HTTP 400 with JSON-RPC -32602, before any credential", async () => {
  for (
    const [query, message] of [
      ["toolsets=tasks,bogus", 'Invalid params: unknown toolset "bogus"; known: ' + TOOLSETS.join(", ")],
      ["toolsets=", "Invalid params: toolsets must name at least one of: " + TOOLSETS.join(", ")],
      ["readonly=yes", "Invalid params: readonly must be 1, true, 0 or false"],
    ]
  ) {
    for (const key of [f.keys.owner, null]) {
      const r = await rpcAt(apps.A, query, key, "tools/list");
      assert.equal(r.status, 400, query);
      assert.deepEqual(r.body, { jsonrpc: "2.0", id: null, error: { code: -32602, message } }, query);
    }
  }
});

Deno.test("parseSelection: absent parameters select nothing; names are trimmed and deduplicated", () => {
  assert.deepEqual(parseSelection(undefined, undefined), { ok: true, selection: null });
  assert.deepEqual(parseSelection(undefined, "0"), { ok: true, selection: null });
  const r = parseSelection(" tasks , time,tasks", "1");
  assert.ok(r.ok && r.selection);
  assert.deepEqual([...r.selection.toolsets!], ["tasks", "time"]);
  assert.equal(r.selection.readOnly, true);
});

Deno.test("a key limited to toolsets and read-only: the URL narrows it further and never widens it", async () => {
  const key = await createApiKey(db.sql, {
    workspaceId: f.workspaceId,
    userId: f.users.owner,
    toolsets: ["tasks", "time"],
    readOnly: true,
  }).then((k) => k.key);
  const full = await listedTools(apps.A, f.keys.owner);
  const own = full.filter((n) => {
    const t = byName.get(n)!;
    return inToolsets(t, ["tasks", "time"]) && t.annotations.readOnlyHint;
  });
  assert.deepEqual(await listedTools(apps.A, key), own);
  assert.ok(own.includes("list_tasks") && own.includes("list_time_logs"));
  // widening attempts change nothing: readonly=0 and other toolsets
  assert.deepEqual(await namesAt(apps.A, "readonly=0", key), own);
  assert.deepEqual(await namesAt(apps.A, "toolsets=finance", key), CONTEXT_TOOLS);
  assert.deepEqual(
    await namesAt(apps.A, "toolsets=tasks,finance", key),
    own.filter((n) =>
      n !== "list_time_logs" &&
      inToolsets(byName.get(n)!, ["tasks"])
    ),
  );
  const write = await callAt(apps.A, "readonly=0", key, "create_task", { title: "no" });
  assert.equal(write.text, "unavailable: create_task changes data and this connection is read-only");
  const other = await callAt(apps.A, "", key, "list_projects", {});
  assert.equal(
    other.text,
    "unavailable: list_projects is in the projects toolset, outside this connection's toolsets (tasks, time)",
  );
  const none = await callAt(apps.A, "toolsets=finance", key, "list_tasks", {});
  assert.equal(
    none.text,
    "unavailable: list_tasks is in the tasks toolset, outside this connection's toolsets (none)",
  );
});

Deno.test("admin apikey create --toolsets a,b --read-only (runAdmin, as deno task admin) stores the selection", async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    sql: db.sql,
    secretKey: "x".repeat(43),
    out: (l: string) => out.push(l),
    err: (l: string) => err.push(l),
  };
  const argv = ["apikey", "create", "--workspace", f.workspaceId, "--user", f.users.member];
  assert.equal(
    await runAdmin([...argv, "--toolsets", "tasks, crm", "--read-only", "--json"], io),
    0,
    err.join(),
  );
  const { id, key } = JSON.parse(out[0]);
  const [row] = await db.sql`select toolsets, read_only from api_keys where id = ${id}`;
  assert.deepEqual(row, { toolsets: ["tasks", "crm"], read_only: true });
  const names = await listedTools(apps.A, key);
  assert.ok(names.length > 0);
  assert.ok(names.every((n) => inToolsets(byName.get(n)!, ["tasks", "crm"])), names.join());
  assert.ok(names.every((n) => byName.get(n)!.annotations.readOnlyHint), names.join());
  // without the flags: no limits stored
  out.length = 0;
  assert.equal(await runAdmin([...argv, "--json"], io), 0);
  const [plain] = await db.sql`select toolsets, read_only from api_keys where id = ${JSON.parse(out[0]).id}`;
  assert.deepEqual(plain, { toolsets: null, read_only: false });
  // an unknown toolset is refused, nothing stored
  err.length = 0;
  assert.equal(await runAdmin([...argv, "--toolsets", "tasks,bogus", "--json"], io), 1);
  assert.equal(err[0], `admin: unknown toolset bogus; known: ${TOOLSETS.join(", ")}`);
});

Deno.test("an OAuth access token is narrowed by the URL exactly as an API key is", async () => {
  const g = await bearerFor(db.sql, { userId: f.users.owner, workspaceId: f.workspaceId });
  const names = await namesAt(apps.A, "toolsets=tasks&readonly=1", g.auth);
  assert.ok(names.length > 0);
  for (const n of names) {
    assert.ok(inToolsets(byName.get(n)!, ["tasks"]), n);
    assert.equal(byName.get(n)!.annotations.readOnlyHint, true, n);
  }
  const write = await callAt(apps.A, "toolsets=tasks&readonly=1", g.auth, "create_task", { title: "x" });
  assert.equal(write.isError, true);
  assert.match(write.text, /^unavailable:/);
  const outside = await callAt(apps.A, "toolsets=tasks", g.auth, "list_projects");
  assert.equal(outside.isError, true);
  assert.match(outside.text, /^unavailable:/);
  const [{ n }] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from tasks where workspace_id = ${f.workspaceId} and title = 'x'`;
  assert.equal(n, 0);
  const bad = await rpcAt(apps.A, "toolsets=nope", g.auth, "tools/list");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, -32602);
});
