// Choosing a missing value in the confirmation form (docs/mcp.md "Choices"): generate_invoice_from_offer_tranche
// without trancheId asks a 2026-07-28 client that elicits to pick one of the open tranches and confirm in one form;
// the chosen tranche is invoiced once. Declined, forged, replayed, altered, other-caller and not-offered answers run
// nothing (invoices counted); clients that cannot ask get invalid_input with the choices, whatever the policy.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CHOICE_REFUSAL } from "../../lib/mcp/confirm.ts";
import { freshDatabase } from "../helpers/db.ts";
import {
  buildFixture,
  callOk,
  callTool,
  MCP_URL,
  mcpApp,
  postMcp,
  type RequestTarget,
} from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const app = mcpApp(db.sql, "A");
const strict = mcpApp(db.sql, "A", { env: { CONFIRM_WRITES: "require" } });
const MODERN = "2026-07-28";
const TOOL = "generate_invoice_from_offer_tranche";

const client = await callOk(app, f.keys.owner, "create_client", {
  companyName: "North AG",
  companyId: f.companies.a,
  vatRate: 19,
});

/** An offer of 1000.00 EUR net in three tranches (30 %, 50 %, 200.00), the first already invoiced. */
async function offer(): Promise<{ id: string; tranches: { id: string }[] }> {
  const o = await callOk(app, f.keys.owner, "create_offer", {
    subject: "Website",
    clientId: client.id,
    rows: [{ description: "Work", quantity: 10, unitPrice: "100" }],
    tranches: [{ label: "Deposit", percentage: 30 }, { percentage: 50 }, { label: "Hosting", amount: "200" }],
  });
  await callOk(app, f.keys.owner, TOOL, { offerId: o.id, trancheId: o.tranches[0].id });
  return o;
}

async function invoiceCount(): Promise<number> {
  const [{ n }] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from invoices where workspace_id = ${f.workspaceId}`;
  return n;
}

async function trancheStatus(id: string): Promise<string> {
  const [row] = await db.sql<{ status: string }[]>`select status from offer_tranches where id = ${id}`;
  return row.status;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The v2 client pinned to 2026-07-28, answering each form with `answer` (recorded), or declaring no elicitation. */
async function v2(
  target: RequestTarget,
  answer?: (params: { message: string; requestedSchema: Record<string, unknown> }) => Record<string, unknown>,
) {
  const posts: string[] = [];
  const asked: { message: string; requestedSchema: Record<string, unknown> }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    if (req.method === "POST") posts.push(JSON.parse(await req.clone().text()).method ?? "response");
    return await target.request(req);
  };
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { "x-api-key": f.keys.owner } },
    fetch,
  });
  const c = new Client({ name: "portico-test", version: "1.0.0" }, {
    capabilities: answer ? { elicitation: { form: {} } } : {},
    versionNegotiation: { mode: { pin: MODERN } },
  });
  if (answer) {
    c.setRequestHandler("elicitation/create", (req) => {
      const p = req.params as { message: string; requestedSchema: Record<string, unknown> };
      asked.push(p);
      // deno-lint-ignore no-explicit-any
      return Promise.resolve(answer(p) as any);
    });
  }
  await c.connect(transport);
  return { client: c, posts, asked };
}

function textOf(result: { content?: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

Deno.test("v2 client: one form lists the open tranches with their amounts; the chosen one is invoiced once", async () => {
  const o = await offer();
  const [, t2, t3] = o.tranches;
  const before = await invoiceCount();
  const { client: c, posts, asked } = await v2(app, () => ({
    action: "accept",
    content: { trancheId: t3.id, confirm: true },
  }));
  try {
    const result = await c.callTool({ name: TOOL, arguments: { offerId: o.id } });
    assert.equal(result.isError, undefined, textOf(result));
    const done = JSON.parse(textOf(result));
    assert.equal(done.tranche.id, t3.id);
    assert.equal(done.invoice.total, "238.00");
    assert.deepEqual(posts, ["server/discover", "tools/call", "tools/call"], "one question, one retry");
    assert.equal(asked.length, 1);
    assert.equal(
      asked[0].message,
      `Invoice one tranche of offer "Website" (id ${o.id}): a draft invoice to client "North AG" (id ${client.id}), ` +
        `dated ${today()}, under the next number of ${
          today().slice(0, 4)
        }; the tranche is marked invoiced and ` +
        "cannot be invoiced again. Choose the tranche and tick to go ahead.",
    );
    assert.deepEqual(asked[0].requestedSchema, {
      type: "object",
      properties: {
        trancheId: {
          type: "string",
          title: "Tranche to invoice",
          oneOf: [
            { const: t2.id, title: "Tranche 2 (50 %): 595.00 EUR (500.00 net + 95.00 VAT at 19 %)" },
            { const: t3.id, title: 'Tranche 3 "Hosting": 238.00 EUR (200.00 net + 38.00 VAT at 19 %)' },
          ],
        },
        confirm: {
          type: "boolean",
          title: "Yes, do exactly this",
          description:
            "Tick and accept to go ahead. Declining, cancelling or leaving it unticked does nothing.",
        },
      },
      required: ["trancheId", "confirm"],
    });
    assert.equal(await invoiceCount(), before + 1);
    assert.equal(await trancheStatus(t3.id), "invoiced");
    assert.equal(await trancheStatus(t2.id), "to_invoice");
  } finally {
    await c.close();
  }
});

Deno.test("v2 client: declined, cancelled or unticked, nothing is invoiced", async () => {
  const o = await offer();
  const before = await invoiceCount();
  const answers = [
    { action: "decline" },
    { action: "cancel" },
    { action: "accept", content: { trancheId: o.tranches[1].id, confirm: false } },
    { action: "accept", content: { confirm: true } },
  ];
  const texts = [
    `Nothing was done: the person declined (${TOOL}).`,
    `Nothing was done: the person dismissed the confirmation without answering (${TOOL}).`,
    `Nothing was done: the person did not tick the confirmation (${TOOL}).`,
    `Nothing was done: the person did not tick the confirmation (${TOOL}).`,
  ];
  for (const [i, a] of answers.entries()) {
    const { client: c } = await v2(app, () => a);
    try {
      const r = await c.callTool({ name: TOOL, arguments: { offerId: o.id } });
      assert.equal(r.isError, undefined);
      assert.equal(textOf(r), texts[i]);
    } finally {
      await c.close();
    }
  }
  assert.equal(await invoiceCount(), before);
});

Deno.test("clients that cannot ask: invalid_input listing the open tranches, also under CONFIRM_WRITES=require", async () => {
  const o = await offer();
  const before = await invoiceCount();
  const { client: c } = await v2(strict);
  try {
    const r = await c.callTool({ name: TOOL, arguments: { offerId: o.id } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^invalid_input: trancheId: required; the offer's tranches to invoice: /);
    assert.ok(textOf(r).includes(o.tranches[1].id) && textOf(r).includes(o.tranches[2].id));
  } finally {
    await c.close();
  }
  const old = await callTool(app, f.keys.owner, TOOL, { offerId: o.id });
  assert.match(old.text, /^invalid_input: trancheId: required; /);
  assert.equal(await invoiceCount(), before);
});

// ---- raw 2026 requests ------------------------------------------------------------------------------------------

const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1" },
};
let nextId = 1;

// deno-lint-ignore no-explicit-any
async function call2026(params: Record<string, unknown>, key = f.keys.owner): Promise<any> {
  const res = await postMcp(app, key, {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { ...params, _meta: META },
  }, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": params.name as string });
  assert.equal(res.status, 200);
  return JSON.parse(await res.text());
}

Deno.test("raw 2026: forged, other-caller, altered, not-offered and replayed answers run nothing", async () => {
  const o = await offer();
  const args = { name: TOOL, arguments: { offerId: o.id } };
  const first = (await call2026(args)).result;
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(Object.keys(first.inputRequests), ["confirm"]);
  const state: string = first.requestState;
  const pick = (trancheId: string) => ({
    confirm: { action: "accept", content: { trancheId, confirm: true } },
  });
  const before = await invoiceCount();

  const [v, claims] = state.split(".");
  const forged = await call2026({
    ...args,
    inputResponses: pick(o.tranches[1].id),
    requestState: `${v}.${claims}.${"A".repeat(43)}`,
  });
  assert.equal(forged.error.code, -32602);
  assert.match(forged.error.message, /not minted by this server/);

  const other = await call2026(
    { ...args, inputResponses: pick(o.tranches[1].id), requestState: state },
    f.keys.admin,
  );
  assert.equal(other.error.code, -32602);
  assert.match(other.error.message, /minted for another call/);

  const altered = await call2026({
    name: TOOL,
    arguments: { offerId: o.id, subject: "Changed" },
    inputResponses: pick(o.tranches[1].id),
    requestState: state,
  });
  assert.equal(altered.error.code, -32602);
  assert.match(altered.error.message, /minted for another call/);

  // the already invoiced tranche was not offered: refused, and the state is spent
  const notOffered = await call2026({ ...args, inputResponses: pick(o.tranches[0].id), requestState: state });
  assert.equal(notOffered.error.code, -32602);
  assert.equal(notOffered.error.message, CHOICE_REFUSAL);
  const replay = await call2026({ ...args, inputResponses: pick(o.tranches[1].id), requestState: state });
  assert.equal(replay.error.code, -32602);
  assert.match(replay.error.message, /already used/);
  assert.equal(await invoiceCount(), before, "nothing ran");

  // a fresh question, answered properly, runs once; its replay runs nothing
  const again = (await call2026(args)).result;
  const ok = await call2026({
    ...args,
    inputResponses: pick(o.tranches[1].id),
    requestState: again.requestState,
  });
  assert.equal(ok.result.resultType, "complete");
  assert.equal(ok.result.structuredContent.tranche.id, o.tranches[1].id);
  const twice = await call2026({
    ...args,
    inputResponses: pick(o.tranches[1].id),
    requestState: again.requestState,
  });
  assert.equal(twice.error.code, -32602);
  assert.equal(await invoiceCount(), before + 1);
});

Deno.test("raw 2026: if the offer changed since the form was shown, the person is asked again", async () => {
  const o = await offer();
  const args = { name: TOOL, arguments: { offerId: o.id } };
  const first = (await call2026(args)).result;
  // tranche 3 is invoiced meanwhile (by another call): the form shown is no longer the form that would be shown
  await callOk(app, f.keys.owner, TOOL, { offerId: o.id, trancheId: o.tranches[2].id });
  const before = await invoiceCount();
  const retry = await call2026({
    ...args,
    inputResponses: {
      confirm: { action: "accept", content: { trancheId: o.tranches[1].id, confirm: true } },
    },
    requestState: first.requestState,
  });
  assert.equal(retry.result.resultType, "input_required");
  assert.deepEqual(
    retry.result.inputRequests.confirm.params.requestedSchema.properties.trancheId.oneOf.map(
      (x: { const: string }) => x.const,
    ),
    [o.tranches[1].id],
  );
  assert.equal(await invoiceCount(), before);
});

Deno.test("raw 2026: with trancheId given, the money confirmation of before (the seed's call shape)", async () => {
  const o = await offer();
  const r =
    (await call2026({ name: TOOL, arguments: { offerId: o.id, trancheId: o.tranches[1].id } })).result;
  assert.equal(r.resultType, "input_required");
  assert.match(r.inputRequests.confirm.params.message, /^Invoice tranche 2 \(id /);
  assert.deepEqual(r.inputRequests.confirm.params.requestedSchema.required, ["confirm"]);
});
