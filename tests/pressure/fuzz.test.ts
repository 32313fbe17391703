// Seeded fuzz over every tool of both variants: values from each tool's JSON Schema plus edge cases, never an
// internal_error. Reproduce a failure with FUZZ_SEED=<the printed seed>.
import assert from "node:assert/strict";
import type { Sql } from "../../lib/db/client.ts";
import { registryFor } from "../../lib/mcp/registry.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { callOk, mcpApp, postMcp, type RequestTarget } from "../helpers/mcp.ts";
import { buildWorkspace, type CallerSpec } from "../helpers/world.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20260513);
/** Random calls per tool and caller: 3 callers × ~90 tool variants × 12 ≈ 3,000 calls. */
const CALLS_PER_TOOL = 16;

type Schema = {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  default?: unknown;
};

/** mulberry32: small, fast, and the same sequence on every machine for a seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof prng>;

const EDGE_DATES = [
  "0000-01-01",
  "0000-12-31",
  "0001-01-01",
  "1899-12-31",
  "1970-01-01",
  "2024-02-29",
  "9999-12-31",
  "10000-01-01",
  "-0001-01-01",
  "2026-13-01",
];
const EDGE_INSTANTS = [
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:00:00+01:00",
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "9999-12-31T23:59:59-12:00",
  "10000-01-01T00:00:00Z",
  "2026-03-02T10:00:00.123456789Z",
  "2026-03-02T24:00:00Z",
];
const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  0.001,
  0.005,
  1e-9,
  999_999_999_999.99,
  1_000_000_000_000,
  1e15,
  2 ** 53,
  1e21,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  100_000,
  100_000.01,
  2_147_483_648,
];
const EDGE_DECIMAL_STRINGS = [
  "999999999999.99",
  "1000000",
  "1000000.000",
  "99999999999999999999",
  "-0",
  "1e3",
];
const UNICODE = [
  "😀👩‍👩‍👧‍👦",
  "\u202eRTL\u202c",
  "e\u0301\u0301\u0301",
  "\ud800",
  "日本語テキスト",
  "\u0000",
  "\t\n\r",
  "'; drop table tasks; --",
  "%_\\",
];
const WRONG_TYPES: unknown[] = [null, true, 12345, "text", [], {}, [1, "x"], { a: { b: 1 } }];

function types(s: Schema): string[] {
  return Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
}

interface Pools {
  ids: string[];
}

function text(rng: Rng, min: number, max: number): string {
  const len = rng.chance(0.2) ? rng.pick([min, max, max + 1, 10_000]) : rng.int(min, Math.min(max, 60));
  let out = "";
  while (out.length < len) {
    out += rng.chance(0.1) ? rng.pick(UNICODE) : String.fromCharCode(rng.int(0x20, 0x7e));
  }
  return out.slice(0, Math.max(0, len));
}

/** A value for `s`: mostly what the schema describes, often an edge case, sometimes the wrong type. */
function gen(s: Schema, rng: Rng, pools: Pools, depth = 0): unknown {
  if (rng.chance(0.04)) return rng.pick(WRONG_TYPES);
  if (s.anyOf) return gen(rng.pick(s.anyOf), rng, pools, depth);
  if (s.const !== undefined) return s.const;
  if (s.enum) return rng.chance(0.05) ? "not-an-option" : rng.pick(s.enum);
  const t = types(s)[0];
  switch (t) {
    case "string": {
      if (s.format === "uuid") return rng.chance(0.8) ? rng.pick(pools.ids) : crypto.randomUUID();
      if (s.format === "date") {
        return rng.chance(0.5)
          ? rng.pick(EDGE_DATES)
          : `${rng.int(1990, 2060)}-${String(rng.int(1, 12)).padStart(2, "0")}-${
            String(rng.int(1, 28)).padStart(2, "0")
          }`;
      }
      if (s.format === "date-time") {
        return rng.chance(0.5)
          ? rng.pick(EDGE_INSTANTS)
          : `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}T10:30:00Z`;
      }
      if (s.format === "email") return rng.pick(["a@example.com", "x".repeat(330) + "@example.com", "no-at"]);
      if (s.format === "uri") {
        return rng.pick(["https://example.com/x", "javascript:alert(1)", "https://é.example"]);
      }
      if (s.pattern) {
        return rng.pick([
          "EUR",
          "10:00",
          "23:59",
          "24:00",
          "AB",
          "WEB",
          "a".repeat(64),
          "text/plain",
          text(rng, 0, 12),
        ]);
      }
      if (rng.chance(0.15)) return rng.pick(EDGE_DECIMAL_STRINGS);
      return text(rng, s.minLength ?? 0, s.maxLength ?? 200);
    }
    case "number":
    case "integer": {
      if (rng.chance(0.4)) return rng.pick(EDGE_NUMBERS);
      const lo = s.minimum ?? s.exclusiveMinimum ?? -1000;
      const hi = s.maximum ?? s.exclusiveMaximum ?? 1_000_000;
      if (rng.chance(0.3)) return rng.pick([lo, hi]);
      const v = lo + rng.next() * (Math.min(hi, 1e12) - lo);
      return t === "integer" ? Math.round(v) : Math.round(v * 100) / 100;
    }
    case "boolean":
      return rng.chance(0.5);
    case "array": {
      const max = s.maxItems ?? 5;
      const len = rng.chance(0.1) ? rng.pick([0, max, max + 1]) : rng.int(s.minItems ?? 0, Math.min(max, 4));
      return Array.from({ length: Math.min(len, 250) }, () => gen(s.items ?? {}, rng, pools, depth + 1));
    }
    case "object":
      return genObject(s, rng, pools, depth + 1);
    case "null":
      return null;
  }
  return rng.pick(WRONG_TYPES);
}

function genObject(s: Schema, rng: Rng, pools: Pools, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 4) return out;
  const required = new Set(s.required ?? []);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if (required.has(k) ? rng.chance(0.97) : rng.chance(0.5)) out[k] = gen(p, rng, pools, depth);
  }
  if (rng.chance(0.02)) out["unknownField"] = 1;
  return out;
}

/** A plain valid value (for the fields a targeted call does not aim at). */
function sample(s: Schema, pools: Pools): unknown {
  if (s.anyOf) return sample(s.anyOf.find((x) => !types(x).includes("null")) ?? s.anyOf[0], pools);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  switch (types(s)[0]) {
    case "string":
      if (s.format === "uuid") return pools.ids[0];
      if (s.format === "date") return "2026-03-02";
      if (s.format === "date-time") return "2026-03-02T10:00:00Z";
      if (s.format === "email") return "someone@example.com";
      if (s.format === "uri") return "https://example.com/x";
      if (s.pattern) return s.pattern.includes(":") ? "10:00" : s.pattern.includes("{3}") ? "EUR" : "AB";
      return "x".repeat(Math.max(1, s.minLength ?? 1));
    case "number":
    case "integer":
      return Math.min(Math.max(1, s.minimum ?? 1), s.maximum ?? 1);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => sample(s.items ?? {}, pools));
    case "object": {
      const o: Record<string, unknown> = {};
      for (const k of s.required ?? []) o[k] = sample(s.properties![k], pools);
      return o;
    }
  }
  return "x";
}

/** Paths (property names and array index 0) to every date or date-time field, nested ones included. */
function datePaths(s: Schema, path: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  const branches = s.anyOf ?? [s];
  if (branches.some((b) => b.format === "date" || b.format === "date-time")) return [path];
  for (const b of branches) {
    for (const [k, p] of Object.entries(b.properties ?? {})) out.push(...datePaths(p, [...path, k]));
    if (b.items) out.push(...datePaths(b.items, [...path, 0]));
  }
  return out;
}

/** `base` with the value at `path` set (arrays on the way get one sample element). */
function setPath(base: unknown, path: (string | number)[], value: unknown, schema: Schema, pools: Pools) {
  const root = structuredClone(base) as Record<string, unknown>;
  // deno-lint-ignore no-explicit-any
  let cur: any = root;
  let s: Schema = schema;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    const branch: Schema = s.anyOf?.find((b) => b.properties || b.items) ?? s;
    s = typeof key === "number" ? branch.items! : branch.properties![key];
    const inner: Schema = s.anyOf?.find((b) => b.properties || b.items) ?? s;
    if (cur[key] === undefined || cur[key] === null) cur[key] = sample(inner, pools);
    if (Array.isArray(cur[key]) && cur[key].length === 0) cur[key] = [sample(inner.items ?? {}, pools)];
    cur = cur[key];
  }
  cur[path[path.length - 1]] = value;
  return root;
}

async function idPool(sql: Sql, workspaceId: string): Promise<string[]> {
  const tables = [
    "projects",
    "tasks",
    "clients",
    "offers",
    "offer_tranches",
    "invoices",
    "ideas",
    "contacts",
    "collaborators",
    "suppliers",
    "activities",
    "ai_activities",
    "workspace_documents",
    "recordings",
    "time_logs",
    "time_categories",
    "calendars",
    "appointments",
    "companies",
  ];
  const ids: string[] = [];
  for (const t of tables) {
    const rows = await sql.unsafe( // table names are the constants above
      `select id::text from ${t} where workspace_id = $1 order by id limit 20`,
      [workspaceId],
    );
    ids.push(...rows.map((r) => r.id as string));
  }
  const members = await sql<{ user_id: string }[]>`
    select user_id::text from workspace_members where workspace_id = ${workspaceId}`;
  ids.push(...members.map((m) => m.user_id));
  return ids;
}

interface Outcome {
  what: string;
  text: string;
}

async function call(
  app: RequestTarget,
  key: string,
  name: string,
  args: unknown,
): Promise<{ status: number; isError: boolean; text: string; rpcError?: unknown }> {
  const res = await postMcp(app, key, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const body = await res.text();
  if (res.status !== 200) return { status: res.status, isError: true, text: body.slice(0, 300) };
  const json = JSON.parse(body);
  if (json.error) {
    return { status: 200, isError: true, text: JSON.stringify(json.error), rpcError: json.error };
  }
  return {
    status: 200,
    isError: json.result?.isError === true,
    text: String(json.result?.content?.[0]?.text ?? ""),
  };
}

const db = await freshDatabase();
const world = await buildWorkspace(db.sql, 1);
const pools: Pools = { ids: await idPool(db.sql, world.workspaceId) };
const apps = { A: mcpApp(db.sql, "A"), B: mcpApp(db.sql, "B") };
const byName = (n: string): CallerSpec => world.callers.find((c) => c.name === `w1.${n}`)!;
const CALLERS = [
  { variant: "A" as const, caller: byName("owner") },
  { variant: "A" as const, caller: byName("limited") },
  { variant: "B" as const, caller: byName("internal") },
];
Deno.test.afterAll(() => db.close());

function report(bad: Outcome[], calls: number, label: string) {
  if (bad.length === 0) return;
  const lines = bad.slice(0, 20).map((b) => `  ${b.what}\n    → ${b.text.slice(0, 240)}`);
  assert.fail(
    `${bad.length} of ${calls} ${label} calls answered badly (FUZZ_SEED=${SEED} reproduces):\n${
      lines.join("\n")
    }`,
  );
}

Deno.test(`fuzz: every date field of every tool with year 0000, 0001, 9999, 10000 (seed ${SEED})`, async () => {
  const bad: Outcome[] = [];
  let calls = 0;
  let refused = 0;
  for (
    const { variant, caller } of CALLERS.filter((c) => c.caller.name.endsWith("owner") || c.variant === "B")
  ) {
    for (const tool of registryFor(TOOLS, variant).all.values()) {
      const schema = tool.listing.inputSchema as Schema;
      const base = sample(schema, pools);
      for (const path of datePaths(schema)) {
        const field = path.join(".");
        const isInstant = JSON.stringify(path.reduce<Schema>((s, k) => {
          const b: Schema = s.anyOf?.find((x) => x.properties || x.items) ?? s;
          return typeof k === "number" ? b.items! : b.properties![k];
        }, schema)).includes("date-time");
        const values = isInstant
          ? ["0000-01-01T00:00:00Z", "0000-06-01", "9999-12-31T23:59:59-12:00", "10000-01-01T00:00:00Z"]
          : ["0000-01-01", "0000-12-31", "10000-01-01"];
        for (const v of values) {
          const what = `${variant} ${tool.name} ${field}=${v}`;
          const r = await call(apps[variant], caller.key, tool.name, setPath(base, path, v, schema, pools));
          calls++;
          if (!r.isError || r.status !== 200 || r.rpcError) {
            bad.push({ what, text: `expected invalid_input, got ${r.text}` });
          } else if (!r.text.startsWith("invalid_input: ") || !r.text.includes(field)) {
            bad.push({ what, text: `expected invalid_input naming ${field}, got ${r.text}` });
          } else refused++;
        }
      }
    }
  }
  report(bad, calls, "date");
  assert.ok(calls >= 100, `only ${calls} calls`);
  assert.equal(refused, calls);
});

Deno.test(`fuzz: random and edge-case arguments to every tool of both variants (seed ${SEED})`, async () => {
  const rng = prng(SEED);
  const bad: Outcome[] = [];
  let calls = 0;
  const outcomes = new Map<string, number>();
  for (const { variant, caller } of CALLERS) {
    for (const tool of registryFor(TOOLS, variant).all.values()) {
      const schema = tool.listing.inputSchema as Schema;
      for (let i = 0; i < CALLS_PER_TOOL; i++) {
        const args = rng.chance(0.02) ? rng.pick(WRONG_TYPES) : genObject(schema, rng, pools, 0);
        const r = await call(apps[variant], caller.key, tool.name, args);
        calls++;
        const word = r.isError ? r.text.split(":")[0] : "ok";
        outcomes.set(word, (outcomes.get(word) ?? 0) + 1);
        const invalidArgs = r.rpcError !== undefined && (args === null || typeof args !== "object" ||
          Array.isArray(args));
        if (
          r.status !== 200 || (r.rpcError !== undefined && !invalidArgs) ||
          /internal_error|Internal error/.test(r.text)
        ) {
          bad.push({
            what: `${variant} ${caller.name} ${tool.name} ${JSON.stringify(args).slice(0, 400)}`,
            text: r.text,
          });
        }
      }
    }
  }
  report(bad, calls, "random");
  assert.ok(calls >= 2000, `only ${calls} calls`);
  // The fuzz reaches past validation: some calls succeed and some are refused by business rules.
  assert.ok((outcomes.get("ok") ?? 0) > 100, JSON.stringify([...outcomes]));
  assert.ok((outcomes.get("invalid_input") ?? 0) > 100, JSON.stringify([...outcomes]));
});

Deno.test("line items whose amounts or totals overflow numeric(14,2) are invalid_input naming the field", async () => {
  const owner = byName("owner");
  const A = apps.A;
  const big = { description: "big", quantity: 1_000_000, unitPrice: "999999999999.99" };
  const half = { description: "half", quantity: 1, unitPrice: "600000000000.00" };
  const max = { description: "max", quantity: 1, unitPrice: "999999999999.99" };
  const [{ id: clientId }] = await db.sql<{ id: string }[]>`
    select id::text from clients where workspace_id = ${world.workspaceId} order by id limit 1`;
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "create_invoice",
      { clientId, rows: [big] },
      "rows.0: quantity × unitPrice comes to 999999999999990000.00",
    ],
    ["create_invoice", { clientId, rows: [max, half] }, "rows: the rows add up to 1599999999999.99"],
    ["create_invoice", { clientId, rows: [max], vatRate: 20 }, "vatRate: the total with VAT comes to"],
    [
      "create_invoice",
      { clientId, rows: [max], vatRate: 0, roundingAdjustment: 1 },
      "roundingAdjustment: the total comes to",
    ],
    ["create_offer", { subject: "o", clientId, rows: [half, { ...big, quantity: 2 }] }, "rows.1: "],
    [
      "create_offer",
      { subject: "o", clientId, rows: [half, half] },
      "rows: the rows add up to 1200000000000.00",
    ],
  ];
  const offer = await callOk(A, owner.key, "create_offer", {
    subject: "Largest offer",
    clientId,
    rows: [max],
    tranches: [{ percentage: 50 }, { percentage: 50 }],
  });
  assert.equal(offer.total, "999999999999.99");
  const tranche = offer.tranches[0].id;
  cases.push(
    [
      "generate_invoice_from_offer_tranche",
      { offerId: offer.id, trancheId: tranche, vatRate: 100 },
      "vatRate: ",
    ],
    [
      "generate_invoice_from_offer_tranche",
      { offerId: offer.id, trancheId: tranche, rows: [half, big] },
      "rows.1: ",
    ],
  );
  const before = await db
    .sql`select count(*)::int as n from invoices where workspace_id = ${world.workspaceId}`;
  const bad: Outcome[] = [];
  for (const [tool, args, start] of cases) {
    const r = await call(A, owner.key, tool, args);
    if (!r.isError || !r.text.startsWith(`invalid_input: ${start}`)) {
      bad.push({ what: `${tool} ${JSON.stringify(args)}`, text: r.text });
    }
  }
  report(bad, cases.length, "overflow");
  // Nothing was stored, and the tranche is still to be invoiced: its 500000000000.00 with 99.99 % VAT fits.
  const after = await db
    .sql`select count(*)::int as n from invoices where workspace_id = ${world.workspaceId}`;
  assert.equal(after[0].n, before[0].n);
  const ok = await callOk(A, owner.key, "generate_invoice_from_offer_tranche", {
    offerId: offer.id,
    trancheId: tranche,
    vatRate: 99.99,
  });
  assert.equal(ok.invoice.total, "999950000000.00");
});
