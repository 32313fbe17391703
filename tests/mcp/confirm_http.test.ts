// Confirmations through /mcp (docs/mcp.md "Confirmations"): the official v2 client pinned to 2026-07-28 answers the
// elicitation form (accept runs once, decline nothing); raw 2026 requests for the wire shape, forged and replayed
// states; 2025 clients unchanged unless CONFIRM_WRITES=require.
import assert from "node:assert/strict";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createAuditLog } from "../../lib/audit.ts";
import { silentLogger } from "../../lib/log.ts";
import { createTask } from "../../lib/workspace/tasks.ts";
import { createProject } from "../../lib/workspace/projects.ts";
import { createTimeLog } from "../../lib/workspace/time_logs.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callTool, MCP_URL, mcpApp, postMcp, type RequestTarget } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const app = mcpApp(db.sql, "A");
const strict = mcpApp(db.sql, "A", { env: { CONFIRM_WRITES: "require" } });
const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000 });
const audited = mcpApp(db.sql, "A", { audit });
Deno.test.afterAll(() => audit.close());

const MODERN = "2026-07-28";
const owner = { workspaceId: f.workspaceId, userId: f.users.owner };
const apollo = await createProject(db.sql, owner, { name: "Apollo" });
const task = await createTask(db.sql, owner, { title: "Design review", projectId: apollo.id }, {
  variantA: true,
});

async function timeLog(): Promise<string> {
  return (await createTimeLog(db.sql, owner, {
    date: "2026-11-20",
    startTime: "09:00",
    endTime: "11:30",
    taskId: task.id,
  })).id;
}

async function logExists(id: string): Promise<boolean> {
  return (await db.sql`select 1 from time_logs where id = ${id}`).length === 1;
}

function textOf(result: { content?: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

/** The v2 client pinned to 2026-07-28; `answer` (when given) answers each elicitation/create and is recorded. */
async function v2(
  target: RequestTarget,
  answer?: (params: { message: string; requestedSchema: unknown }) => Record<string, unknown>,
) {
  const posts: string[] = [];
  const asked: { message: string; requestedSchema: unknown }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    if (req.method === "POST") posts.push(JSON.parse(await req.clone().text()).method ?? "response");
    return await target.request(req);
  };
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { "x-api-key": f.keys.owner } },
    fetch,
  });
  const client = new Client({ name: "portico-test", version: "1.0.0" }, {
    capabilities: answer ? { elicitation: { form: {} } } : {},
    versionNegotiation: { mode: { pin: MODERN } },
  });
  if (answer) {
    client.setRequestHandler("elicitation/create", (req) => {
      const p = req.params as { message: string; requestedSchema: unknown };
      asked.push({ message: p.message, requestedSchema: p.requestedSchema });
      // deno-lint-ignore no-explicit-any
      return Promise.resolve(answer(p) as any);
    });
  }
  await client.connect(transport);
  return { client, posts, asked };
}

Deno.test("v2 client: the person sees the text, accepts, and the tool runs exactly once", async () => {
  const log = await timeLog();
  const { client, posts, asked } = await v2(
    audited,
    () => ({ action: "accept", content: { confirm: true } }),
  );
  try {
    const result = await client.callTool({ name: "delete_time_log", arguments: { timeLogId: log } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(JSON.parse(textOf(result)), { deleted: true, id: log });
    assert.equal(asked.length, 1);
    assert.equal(
      asked[0].message,
      `Delete the time log of "owner" (id ${log}): 2h30 on 2026-11-20, 09:00–11:30 for task "Design review" of ` +
        'project "Apollo"? A deleted time log cannot be restored.',
    );
    assert.deepEqual(posts, ["server/discover", "tools/call", "tools/call"], "one question, one retry");
    assert.equal(await logExists(log), false);
    await audit.flush();
    const trail = await db.sql`
      select outcome, confirmed, records, reason from audit_log
       where workspace_id = ${f.workspaceId} and tool = 'delete_time_log' order by id`;
    // the audit trail: asked, then ran on the person's yes (the activity pages show both); the record by id
    assert.deepEqual(trail.map((r) => ({ ...r })), [
      { outcome: "asked", confirmed: false, records: [`timeLogId:${log}`], reason: null },
      { outcome: "ok", confirmed: true, records: [`timeLogId:${log}`], reason: null },
    ]);
  } finally {
    await client.close();
  }
});

Deno.test("v2 client: declined or cancelled, nothing runs and the answer says so", async () => {
  for (const action of ["decline", "cancel"] as const) {
    const log = await timeLog();
    const { client, asked } = await v2(app, () => ({ action }));
    try {
      const result = await client.callTool({ name: "delete_time_log", arguments: { timeLogId: log } });
      assert.equal(result.isError, undefined, "not an error: the person decided");
      assert.equal(
        textOf(result),
        action === "decline"
          ? "Nothing was done: the person declined (delete_time_log)."
          : "Nothing was done: the person dismissed the confirmation without answering (delete_time_log).",
      );
      assert.equal(asked.length, 1);
      assert.ok(await logExists(log));
    } finally {
      await client.close();
    }
  }
});

Deno.test("v2 client without elicitation: runs as before (policy off), refused under CONFIRM_WRITES=require", async () => {
  const log = await timeLog();
  const refused = await v2(strict);
  try {
    const r = await refused.client.callTool({ name: "delete_time_log", arguments: { timeLogId: log } });
    assert.equal(r.isError, true);
    assert.match(
      textOf(r),
      /^access_denied: delete_time_log needs the person's confirmation \(the operator's policy/,
    );
    assert.ok(await logExists(log));
  } finally {
    await refused.client.close();
  }
  const off = await v2(app);
  try {
    const r = await off.client.callTool({ name: "delete_time_log", arguments: { timeLogId: log } });
    assert.deepEqual(JSON.parse(textOf(r)), { deleted: true, id: log });
    assert.equal(await logExists(log), false);
  } finally {
    await off.client.close();
  }
});

Deno.test("2025 clients: never input_required; refused with isError only under CONFIRM_WRITES=require", async () => {
  const log = await timeLog();
  const r = await callTool(strict, f.keys.owner, "delete_time_log", { timeLogId: log });
  assert.equal(r.isError, true);
  assert.ok(r.text.startsWith("access_denied: delete_time_log needs the person's confirmation"), r.text);
  assert.ok(await logExists(log));
  const ok = await callTool(app, f.keys.owner, "delete_time_log", { timeLogId: log });
  assert.deepEqual(ok.data, { deleted: true, id: log });
  assert.equal(await logExists(log), false);
});

// ---- raw 2026 requests ------------------------------------------------------------------------------------------

const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1" },
};
let nextId = 1;

// deno-lint-ignore no-explicit-any
async function call2026(params: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await postMcp(app, f.keys.owner, {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { ...params, _meta: META },
  }, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": params.name as string });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

Deno.test("raw 2026: the input_required result on the wire; forged and replayed states are -32602 and run nothing", async () => {
  const log = await timeLog();
  const args = { name: "delete_time_log", arguments: { timeLogId: log } };
  const first = await call2026(args);
  assert.equal(first.status, 200);
  const r = first.body.result;
  assert.deepEqual(Object.keys(r).sort(), ["_meta", "inputRequests", "requestState", "resultType"]);
  assert.equal(r.resultType, "input_required");
  assert.equal(r._meta["io.modelcontextprotocol/serverInfo"].name, "portico");
  assert.equal(r.inputRequests.confirm.method, "elicitation/create");
  assert.equal(r.inputRequests.confirm.params.mode, "form");
  assert.match(r.requestState, /^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);

  const accept = { confirm: { action: "accept", content: { confirm: true } } };
  const [v, claims] = r.requestState.split(".");
  const forged = await call2026({
    ...args,
    inputResponses: accept,
    requestState: `${v}.${claims}.${"A".repeat(43)}`,
  });
  assert.equal(forged.status, 200);
  assert.equal(forged.body.error.code, -32602);
  assert.match(forged.body.error.message, /^Invalid params: requestState was not minted by this server/);
  assert.ok(await logExists(log));

  const other = await timeLog();
  const altered = await call2026({
    name: "delete_time_log",
    arguments: { timeLogId: other },
    inputResponses: accept,
    requestState: r.requestState,
  });
  assert.equal(altered.body.error.code, -32602);
  assert.match(altered.body.error.message, /minted for another call/);
  assert.ok(await logExists(log) && await logExists(other));

  const done = await call2026({ ...args, inputResponses: accept, requestState: r.requestState });
  assert.equal(done.body.result.resultType, "complete");
  assert.deepEqual(done.body.result.structuredContent, { deleted: true, id: log });
  const replay = await call2026({ ...args, inputResponses: accept, requestState: r.requestState });
  assert.equal(replay.body.error.code, -32602);
  assert.match(replay.body.error.message, /already used/);
  assert.ok(await logExists(other));
});

Deno.test("v2 client: a forged state sent by hand is a ProtocolError -32602", async () => {
  const log = await timeLog();
  const { client } = await v2(app, () => ({ action: "accept", content: { confirm: true } }));
  try {
    await assert.rejects(
      // The type leaves out the 2026 retry fields; the client sends params verbatim (notes: callTool with them).
      client.callTool(
        {
          name: "delete_time_log",
          arguments: { timeLogId: log },
          inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
          requestState: "c1.e30.AAAA",
        } as Parameters<Client["callTool"]>[0],
      ),
      (err) => err instanceof ProtocolError && err.code === -32602,
    );
    assert.ok(await logExists(log));
  } finally {
    await client.close();
  }
});
