// Confirmations before deleting or moving money (lib/mcp/confirm*.ts): the exact texts, the signed single-use
// requestState, and that nothing runs unless the person accepted exactly this call (rows counted).
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { parseConfig } from "../../lib/config.ts";
import { AppError } from "../../lib/errors.ts";
import { type Caller, loadCaller } from "../../lib/mcp/caller.ts";
import {
  CONFIRM_SCHEMA,
  confirmationGate,
  type ConfirmPolicy,
  type GateAnswer,
  STATE_REFUSALS,
} from "../../lib/mcp/confirm.ts";
import {
  canonicalJson,
  CONFIRMATION_TTL_SECONDS,
  mintState,
  verifyState,
} from "../../lib/mcp/confirm_state.ts";
import { CONFIRMATIONS } from "../../lib/mcp/confirm_texts.ts";
import { RPC, RpcError } from "../../lib/mcp/errors.ts";
import { silentLogger } from "../../lib/log.ts";
import { createClient } from "../../lib/workspace/clients.ts";
import { createOffer } from "../../lib/workspace/offers.ts";
import { createProject } from "../../lib/workspace/projects.ts";
import { createTask } from "../../lib/workspace/tasks.ts";
import { createTimeLog } from "../../lib/workspace/time_logs.ts";
import { createInvoice } from "../../lib/workspace/invoices.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture } from "../helpers/mcp.ts";
import { TEST_SECRET } from "../helpers/app.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());

async function callerOf(key: string): Promise<Caller> {
  const r = await loadCaller(db.sql, key, "A", silentLogger);
  assert.ok(r.ok);
  return r.caller;
}
const owner = await callerOf(f.keys.owner);
const admin = await callerOf(f.keys.admin);
const ownerSecondKey = await callerOf(await f.key({ user: f.users.owner, name: "second" }));

const ELICIT = { elicitation: { form: {} } };

// The world: a client with 19 % VAT, a project with a budget, a task, an offer with a payment plan.
const client = await createClient(db.sql, owner, { companyName: "Acme GmbH", vatRate: "19" });
const apollo = await createProject(db.sql, owner, {
  name: "Apollo",
  clientId: client.id,
  budget: "24000",
  currency: "EUR",
});
const task = await createTask(db.sql, owner, { title: "Design review", projectId: apollo.id }, {
  variantA: true,
});
const offer = await createOffer(db.sql, owner, {
  subject: "Website relaunch",
  clientId: client.id,
  currency: "EUR",
  rows: [{ description: "Build", unitPrice: "30000" }],
  tranches: [{ label: "Kick-off", percentage: "40" }, { label: "Launch", percentage: "60" }],
});
const [kickOff, launch] = offer.tranches;

async function timeLog(description = "Wrote the spec"): Promise<string> {
  return (await createTimeLog(db.sql, owner, {
    date: "2026-11-20",
    startTime: "09:00",
    endTime: "11:30",
    taskId: task.id,
    description,
  })).id;
}

async function logExists(id: string): Promise<boolean> {
  return (await db.sql`select 1 from time_logs where id = ${id}`).length === 1;
}

async function invoiceCount(): Promise<number> {
  const [{ n }] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from invoices where workspace_id = ${f.workspaceId}`;
  return n;
}

interface Call {
  caller?: Caller;
  era?: "2025" | "2026";
  capabilities?: Record<string, unknown> | null;
  inputResponses?: unknown;
  requestState?: unknown;
  policy?: ConfirmPolicy;
  now?: () => number;
  secretKey?: string | undefined;
}

/** What the dispatcher does: validate, ask the gate, run the tool only on `run`. Counts the runs. */
let runs = 0;
/** The error code the last run answered (not_found …), null when it succeeded. */
let lastError: string | null = null;
async function call(tool: string, args: Record<string, unknown>, c: Call = {}): Promise<GateAnswer> {
  const def = TOOLS.find((t) => t.name === tool)!;
  const parsed = def.variants.A!.safeParse(args);
  assert.ok(parsed.success, `${tool} arguments`);
  const caller = c.caller ?? owner;
  const answer = await confirmationGate({
    db: db.sql,
    secretKey: "secretKey" in c ? c.secretKey : TEST_SECRET,
    caller,
    era: c.era ?? "2026",
    clientCapabilities: c.capabilities === undefined ? ELICIT : c.capabilities,
    tool,
    args,
    input: parsed.data as Record<string, unknown>,
    inputResponses: c.inputResponses,
    requestState: c.requestState,
    policy: c.policy ?? "off",
    now: c.now,
  });
  if (answer.kind === "run") {
    runs++;
    lastError = null;
    try {
      await def.run({ db: db.sql, caller, variant: "A", requestId: "test", log: silentLogger }, parsed.data);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      lastError = err.code;
    }
  }
  return answer;
}

/** Asks, and returns the form's message and the state. */
async function ask(tool: string, args: Record<string, unknown>, c: Call = {}) {
  const a = await call(tool, args, c);
  assert.equal(a.kind, "input_required", JSON.stringify(a));
  const r = (a as Extract<GateAnswer, { kind: "input_required" }>).result;
  assert.deepEqual(Object.keys(r.inputRequests), ["confirm"]);
  const req = r.inputRequests.confirm;
  assert.equal(req.method, "elicitation/create");
  assert.equal(req.params.mode, "form");
  assert.deepEqual(req.params.requestedSchema, CONFIRM_SCHEMA);
  return { message: req.params.message, state: r.requestState };
}

const ACCEPT = { confirm: { action: "accept", content: { confirm: true } } };

async function refusedWith(p: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof RpcError, String(err));
    assert.equal(err.code, RPC.INVALID_PARAMS);
    assert.equal(err.message, message);
    return true;
  });
}

Deno.test("the form is flat: one required boolean, as MCP form mode allows", () => {
  assert.deepEqual(CONFIRM_SCHEMA, {
    type: "object",
    properties: {
      confirm: {
        type: "boolean",
        title: "Yes, do exactly this",
        description:
          "Tick and accept to go ahead. Declining, cancelling or leaving it unticked does nothing.",
      },
    },
    required: ["confirm"],
  });
  assert.deepEqual(Object.keys(CONFIRMATIONS).sort(), [
    "create_invoice",
    "delete_time_log",
    "generate_invoice_from_offer_tranche",
    "update_project",
    "update_project_status",
  ]);
});

Deno.test("confirmation texts say exactly what will happen: names, ids, amounts with currency", async () => {
  const log = await timeLog();
  assert.equal(
    (await ask("delete_time_log", { timeLogId: log })).message,
    `Delete the time log of "owner" (id ${log}): 2h30 on 2026-11-20, 09:00–11:30 for task "Design review" of ` +
      `project "Apollo", described as "Wrote the spec"? A deleted time log cannot be restored.`,
  );
  assert.equal(
    (await ask("create_invoice", {
      clientId: client.id,
      status: "sent",
      invoiceDate: "2026-11-20",
      dueDate: "2026-12-20",
      rows: [{ description: "Consulting", quantity: 10, unitPrice: "100" }],
    })).message,
    `Issue an invoice with status sent to client "Acme GmbH" (id ${client.id}): total 1190.00 EUR (1000.00 net + ` +
      "190.00 VAT at 19 %), dated 2026-11-20, due 2026-12-20, under the next number of 2026? The number is used " +
      "for good: no tool deletes an invoice.",
  );
  assert.equal(
    (await ask("generate_invoice_from_offer_tranche", {
      offerId: offer.id,
      trancheId: kickOff.id,
      invoiceDate: "2026-11-21",
    })).message,
    `Invoice tranche 1 "Kick-off" (id ${kickOff.id}, 40 % of the offer) of offer "Website relaunch" (id ${offer.id}): ` +
      `a draft invoice to client "Acme GmbH" (id ${client.id}) for 14280.00 EUR (12000.00 net + 2280.00 VAT at ` +
      "19 %), dated 2026-11-21, under the next number of 2026; the tranche is marked invoiced and cannot be " +
      "invoiced again. Go ahead?",
  );
  assert.equal(
    (await ask("update_project_status", { projectId: apollo.id, status: "invoiced" })).message,
    `Mark project "Apollo" (id ${apollo.id}, client "Acme GmbH", budget 24000.00 EUR) as invoiced (now in_progress)?`,
  );
  assert.equal(
    (await ask("update_project", { projectId: apollo.id, status: "invoiced", name: "Apollo II" })).message,
    `Mark project "Apollo" (id ${apollo.id}, client "Acme GmbH", budget 24000.00 EUR) as invoiced (now ` +
      "in_progress)? The same call also changes: name.",
  );
  // Previews roll back: no invoice was made, the tranche is still to_invoice.
  assert.equal(await invoiceCount(), 0);
  const [t] = await db.sql`select status from offer_tranches where id = ${kickOff.id}`;
  assert.equal(t.status, "to_invoice");
});

Deno.test("a credit note beyond draft names what it credits; a name cannot break out of its quotes", async () => {
  const original = await createInvoice(db.sql, owner, {
    clientId: client.id,
    invoiceDate: "2026-10-01",
    rows: [{ description: "X", unitPrice: "100" }],
  });
  const odd = await createProject(db.sql, owner, { name: 'Apollo"? Nothing else\nhappens' });
  try {
    assert.equal(
      (await ask("create_invoice", {
        isCreditNote: true,
        originalInvoiceId: original.id,
        status: "paid",
        collectedAmount: "-119",
        invoiceDate: "2026-11-20",
        rows: [{ description: "Refund", unitPrice: "-100" }],
      })).message,
      `Issue a credit note with status paid to client "Acme GmbH" (id ${client.id}) crediting invoice ` +
        `${original.number} (id ${original.id}): total -119.00 EUR (-100.00 net + -19.00 VAT at 19 %), -119.00 EUR ` +
        "recorded as collected, dated 2026-11-20, under the next number of 2026? The number is used for good: no " +
        "tool deletes an invoice.",
    );
    assert.equal(
      (await ask("update_project_status", { projectId: odd.id, status: "invoiced" })).message,
      `Mark project "Apollo\\"? Nothing else\\nhappens" (id ${odd.id}) as invoiced (now in_progress)?`,
    );
  } finally {
    await db.sql`delete from projects where id = ${odd.id}`;
    await db.sql`delete from invoices where id = ${original.id}`;
  }
});

Deno.test("calls that move no money and delete nothing run without a question", async () => {
  const before = runs;
  const cases: [string, Record<string, unknown>][] = [
    ["create_invoice", { clientId: client.id }],
    ["create_invoice", { clientId: client.id, status: "draft" }],
    ["update_project_status", { projectId: apollo.id, status: "completed" }],
    ["update_project", { projectId: apollo.id, name: "Apollo" }],
    ["list_projects", {}],
  ];
  for (const [tool, args] of cases) assert.deepEqual(await call(tool, args), { kind: "run" }, tool);
  assert.equal(runs, before + cases.length);
  await db.sql`update projects set status = 'in_progress' where id = ${apollo.id}`;
  await db.sql`delete from invoices where workspace_id = ${f.workspaceId}`;
});

Deno.test("a record the caller cannot see is not confirmed: the tool answers not_found as without confirmations", async () => {
  const log = await timeLog();
  // another person's log, an unknown id, another workspace's project
  assert.deepEqual(await call("delete_time_log", { timeLogId: log }, { caller: admin }), { kind: "run" });
  assert.equal(lastError, "not_found");
  assert.ok(await logExists(log));
  assert.deepEqual(
    await call("delete_time_log", { timeLogId: "00000000-0000-4000-8000-000000000000" }),
    { kind: "run" },
  );
  assert.equal(lastError, "not_found");
  const foreign = await createProject(db.sql, { workspaceId: f.other.workspaceId }, { name: "Foreign" });
  assert.deepEqual(await call("update_project_status", { projectId: foreign.id, status: "invoiced" }), {
    kind: "run",
  });
  assert.equal(lastError, "not_found");
  const [p] = await db.sql`select status from projects where id = ${foreign.id}`;
  assert.equal(p.status, "in_progress");
});

Deno.test("accept with the box ticked runs exactly once; the same state again runs nothing (-32602)", async () => {
  const log = await timeLog();
  const { state } = await ask("delete_time_log", { timeLogId: log });
  assert.ok(await logExists(log), "asking deletes nothing");
  const before = runs;
  assert.deepEqual(
    await call("delete_time_log", { timeLogId: log }, { inputResponses: ACCEPT, requestState: state }),
    { kind: "run", confirmed: true },
  );
  assert.equal(runs, before + 1);
  assert.equal(await logExists(log), false);
  await refusedWith(
    call("delete_time_log", { timeLogId: log }, { inputResponses: ACCEPT, requestState: state }),
    STATE_REFUSALS.used,
  );
  assert.equal(runs, before + 1);

  // An invoice: accepted once → one invoice; replayed → still one.
  const args = { clientId: client.id, status: "sent", rows: [{ description: "A", unitPrice: "10" }] };
  const inv = await ask("create_invoice", args);
  assert.deepEqual(await call("create_invoice", args, { inputResponses: ACCEPT, requestState: inv.state }), {
    kind: "run",
    confirmed: true,
  });
  assert.equal(await invoiceCount(), 1);
  await refusedWith(
    call("create_invoice", args, { inputResponses: ACCEPT, requestState: inv.state }),
    STATE_REFUSALS.used,
  );
  assert.equal(await invoiceCount(), 1);
  await db.sql`delete from invoices where workspace_id = ${f.workspaceId}`;
});

Deno.test("two parallel retries with one state: exactly one runs", async () => {
  const args = { offerId: offer.id, trancheId: launch.id };
  const { state } = await ask("generate_invoice_from_offer_tranche", args);
  const before = runs;
  const both = await Promise.allSettled([
    call("generate_invoice_from_offer_tranche", args, { inputResponses: ACCEPT, requestState: state }),
    call("generate_invoice_from_offer_tranche", args, { inputResponses: ACCEPT, requestState: state }),
  ]);
  assert.deepEqual(both.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
  assert.equal(runs, before + 1);
  assert.equal(await invoiceCount(), 1);
  const [t] = await db.sql`select status from offer_tranches where id = ${launch.id}`;
  assert.equal(t.status, "invoiced");
});

Deno.test("decline, cancel and an unticked accept run nothing, and spend the state", async () => {
  const log = await timeLog();
  const before = runs;
  const answers: [unknown, string][] = [
    [{ confirm: { action: "decline" } }, "Nothing was done: the person declined (delete_time_log)."],
    [
      { confirm: { action: "cancel" } },
      "Nothing was done: the person dismissed the confirmation without answering (delete_time_log).",
    ],
    [
      { confirm: { action: "accept", content: { confirm: false } } },
      "Nothing was done: the person did not tick the confirmation (delete_time_log).",
    ],
  ];
  for (const [inputResponses, text] of answers) {
    const { state } = await ask("delete_time_log", { timeLogId: log });
    const a = await call("delete_time_log", { timeLogId: log }, { inputResponses, requestState: state });
    assert.deepEqual(a, { kind: "done", result: { content: [{ type: "text", text }] } });
    assert.ok(await logExists(log));
    // the state is spent: turning the answer into an accept now runs nothing
    await refusedWith(
      call("delete_time_log", { timeLogId: log }, { inputResponses: ACCEPT, requestState: state }),
      STATE_REFUSALS.used,
    );
  }
  assert.equal(runs, before);
  assert.ok(await logExists(log));
});

Deno.test("forged states run nothing: a bad MAC, another SECRET_KEY, garbage, no SECRET_KEY (-32602)", async () => {
  const log = await timeLog();
  const { state } = await ask("delete_time_log", { timeLogId: log });
  const [v, claims, sig] = state.split(".");
  const other = mintState("another-secret-key-of-at-least-32-chars!", {
    tool: "delete_time_log",
    args: { timeLogId: log },
    caller: owner,
  }, "x");
  // claims changed (a later expiry) with the old signature
  const body = JSON.parse(Buffer.from(claims, "base64url").toString());
  const stretched = `${v}.${
    Buffer.from(JSON.stringify({ ...body, exp: body.exp + 3600 })).toString("base64url")
  }.${sig}`;
  const flipped = `${v}.${claims}.${sig.slice(0, -2)}${sig.endsWith("AA") ? "BA" : "AA"}`;
  const before = runs;
  for (const forged of [stretched, flipped, other, "c1.e30.AAAA", "", 42, null]) {
    await refusedWith(
      call("delete_time_log", { timeLogId: log }, { inputResponses: ACCEPT, requestState: forged }),
      STATE_REFUSALS.malformed,
    );
  }
  await refusedWith(
    call("delete_time_log", { timeLogId: log }, {
      inputResponses: ACCEPT,
      requestState: state,
      secretKey: undefined,
    }),
    STATE_REFUSALS.malformed,
  );
  assert.equal(runs, before);
  assert.ok(await logExists(log));
});

Deno.test("altered arguments and other callers run nothing (-32602)", async () => {
  const log = await timeLog();
  const log2 = await timeLog("another");
  const { state } = await ask("delete_time_log", { timeLogId: log });
  const before = runs;
  const mismatch = (tool: string, args: Record<string, unknown>, c: Call = {}) =>
    refusedWith(
      call(tool, args, { inputResponses: ACCEPT, requestState: state, ...c }),
      STATE_REFUSALS.mismatch,
    );
  await mismatch("delete_time_log", { timeLogId: log2 }); // another record
  await mismatch("delete_time_log", { timeLogId: log }, { caller: ownerSecondKey }); // same person, another key
  await mismatch("delete_time_log", { timeLogId: log }, { caller: admin }); // another person
  assert.equal(runs, before);
  assert.ok(await logExists(log) && await logExists(log2));
  // the state was never spent by those: the right call still runs, once
  assert.deepEqual(
    await call("delete_time_log", { timeLogId: log }, { inputResponses: ACCEPT, requestState: state }),
    { kind: "run", confirmed: true },
  );
  assert.equal(await logExists(log), false);
});

Deno.test("an expired state runs nothing: the person is asked again with a fresh state", async () => {
  const log = await timeLog();
  const t0 = Date.now();
  const { state, message } = await ask("delete_time_log", { timeLogId: log }, { now: () => t0 });
  const late = () => t0 + CONFIRMATION_TTL_SECONDS * 1000;
  const again = await ask("delete_time_log", { timeLogId: log }, {
    now: late,
    inputResponses: ACCEPT,
    requestState: state,
  });
  assert.equal(again.message, message);
  assert.notEqual(again.state, state);
  assert.ok(await logExists(log));
  assert.deepEqual(
    await call("delete_time_log", { timeLogId: log }, {
      now: late,
      inputResponses: ACCEPT,
      requestState: again.state,
    }),
    { kind: "run", confirmed: true },
  );
  assert.equal(await logExists(log), false);
});

Deno.test("a record changed after the question is asked about again, not run on the old answer", async () => {
  const args = { projectId: apollo.id, status: "invoiced" };
  const { state } = await ask("update_project_status", args);
  await db.sql`update projects set budget = 30000 where id = ${apollo.id}`;
  const again = await ask("update_project_status", args, { inputResponses: ACCEPT, requestState: state });
  assert.match(again.message, /budget 30000\.00 EUR/);
  const [p] = await db.sql`select status from projects where id = ${apollo.id}`;
  assert.equal(p.status, "in_progress");
  assert.deepEqual(
    await call("update_project_status", args, { inputResponses: ACCEPT, requestState: again.state }),
    { kind: "run", confirmed: true },
  );
  const [q] = await db.sql`select status from projects where id = ${apollo.id}`;
  assert.equal(q.status, "invoiced");
  await db.sql`update projects set status = 'in_progress', budget = 24000 where id = ${apollo.id}`;
});

Deno.test("a retry without an answer is asked again; malformed inputResponses are refused (-32602)", async () => {
  const log = await timeLog();
  const { state } = await ask("delete_time_log", { timeLogId: log });
  await ask("delete_time_log", { timeLogId: log }, { requestState: state, inputResponses: { other: {} } });
  for (const bad of ["yes", [], { confirm: "yes" }, { confirm: { action: "maybe" } }]) {
    const fresh = await ask("delete_time_log", { timeLogId: log });
    await refusedWith(
      call("delete_time_log", { timeLogId: log }, { inputResponses: bad, requestState: fresh.state }),
      STATE_REFUSALS.responses,
    );
  }
  assert.ok(await logExists(log));
});

Deno.test("clients that cannot ask: policy off runs as before; require refuses with isError and runs nothing", async () => {
  const cannot: Call[] = [
    { era: "2025", capabilities: null },
    { era: "2026", capabilities: {} },
    { era: "2026", capabilities: { elicitation: { url: {} } } },
  ];
  for (const c of cannot) {
    const log = await timeLog();
    const refused = await call("delete_time_log", { timeLogId: log }, { ...c, policy: "require" });
    assert.equal(refused.kind, "done");
    const result = (refused as Extract<GateAnswer, { kind: "done" }>).result;
    assert.equal(result.isError, true);
    const text = (result.content[0] as { text: string }).text;
    assert.ok(
      text.startsWith(
        "access_denied: delete_time_log needs the person's confirmation (the operator's policy " +
          "CONFIRM_WRITES=require) and this client cannot ask for it, so nothing was done. To go ahead, call it " +
          "from a client that speaks MCP 2026-07-28 and declares the elicitation capability (form mode); it will " +
          `show the person: Delete the time log of "owner" (id ${log}): 2h30`,
      ),
      text,
    );
    assert.ok(await logExists(log));
    assert.deepEqual(await call("delete_time_log", { timeLogId: log }, { ...c, policy: "off" }), {
      kind: "run",
    });
    assert.equal(await logExists(log), false);
  }
  // Under require, a call that needs no confirmation still runs.
  assert.deepEqual(
    await call("update_project_status", { projectId: apollo.id, status: "completed" }, {
      era: "2025",
      capabilities: null,
      policy: "require",
    }),
    { kind: "run" },
  );
  await db.sql`update projects set status = 'in_progress' where id = ${apollo.id}`;
});

Deno.test("2025: never input_required; a requestState sent along is ignored", async () => {
  const log = await timeLog();
  const { state } = await ask("delete_time_log", { timeLogId: log });
  assert.deepEqual(
    await call("delete_time_log", { timeLogId: log }, {
      era: "2025",
      capabilities: null,
      requestState: "forged",
      inputResponses: ACCEPT,
    }),
    { kind: "run" },
  );
  assert.equal(await logExists(log), false);
  assert.ok(state);
});

Deno.test("elicitation: {} declares form mode; the state binds canonical arguments, not their key order", () => {
  const args = { b: 1, a: { d: [1, { z: 1, y: 2 }], c: "x" } };
  assert.equal(canonicalJson(args), '{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
  const state = mintState(TEST_SECRET, { tool: "t", args, caller: owner }, "m", 1_000_000);
  const reordered = { a: { c: "x", d: [1, { y: 2, z: 1 }] }, b: 1 };
  const ok = verifyState(TEST_SECRET, state, { tool: "t", args: reordered, caller: owner }, 1_000_000);
  assert.equal(ok.ok, true);
  assert.deepEqual(
    verifyState(TEST_SECRET, state, { tool: "u", args, caller: owner }, 1_000_000),
    { ok: false, reason: "mismatch" },
  );
  assert.deepEqual(
    verifyState(
      TEST_SECRET,
      state,
      { tool: "t", args, caller: owner },
      1_000_000 + CONFIRMATION_TTL_SECONDS * 1000,
    ),
    { ok: false, reason: "expired" },
  );
});

Deno.test("CONFIRM_WRITES: off by default, require, anything else stops start-up with one line", () => {
  assert.equal(parseConfig({}).confirmWrites, "off");
  assert.equal(parseConfig({ CONFIRM_WRITES: "require" }).confirmWrites, "require");
  assert.throws(() => parseConfig({ CONFIRM_WRITES: "yes" }), {
    message: "config error: CONFIRM_WRITES must be off or require",
  });
});
