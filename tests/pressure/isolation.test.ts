// Tenant isolation, every tool of both variants: ids of another workspace, company or person never reach an answer.
import assert from "node:assert/strict";
import { registryFor } from "../../lib/mcp/registry.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { mcpApp, type RequestTarget, rpc } from "../helpers/mcp.ts";
import {
  attribute,
  type Attribution,
  buildWorkspace,
  type CallerSpec,
  foreignTo,
  MARKER_RE,
  markRecords,
  type Owner,
  storedRows,
  UUID_RE,
  type Variant,
  type WorkspaceWorld,
} from "../helpers/world.ts";

// deno-lint-ignore no-explicit-any
type Schema = Record<string, any>;

/**
 * An id-like parameter of a tool: format uuid (or an array of them), a task reference (UUID or display id), or a
 * name ending in Id/Ids.
 */
interface IdParam {
  name: string;
  array: boolean;
  required: boolean;
  /** the value is a reference (format uuid), not free text that happens to be called …Id */
  uuid: boolean;
  tables: string[];
}

/** Parameter names whose table the naming rule below cannot guess. */
const TABLE_ALIASES: Record<string, string[]> = {
  assignee: ["users"],
  assignedTo: ["users"],
  targetUser: ["users"],
  user: ["users"],
  parentTask: ["tasks"],
  originalInvoice: ["invoices"],
  bookingCalendar: ["calendars"],
  category: ["time_categories"],
  timeLog: ["time_logs"],
  document: ["workspace_documents"],
  tranche: ["offer_tranches"],
};

/** The tables an id parameter points into: `projectId` → projects, `activityId` → activities, ai_activities. */
function tablesFor(name: string, tables: readonly string[]): string[] {
  const base = name.replace(/Ids?$/, "");
  if (TABLE_ALIASES[base]) return TABLE_ALIASES[base];
  const words = base.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()).split("_");
  const plural = (w: string) => w.endsWith("y") ? w.slice(0, -1) + "ies" : w + "s";
  for (let i = 0; i < words.length; i++) {
    const p = plural(words.slice(i).join("_"));
    const hits = tables.filter((t) => t === p || t.endsWith("_" + p));
    if (hits.length) return hits;
  }
  return ["projects", "tasks", "users"]; // unknown: a few kinds of ids, so the parameter is still probed
}

function nonNull(p: Schema): Schema {
  return p.anyOf?.find((x: Schema) => x.type !== "null") ?? p;
}

function idParams(schema: Schema, tables: readonly string[]): IdParam[] {
  const out: IdParam[] = [];
  for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const p = nonNull(raw);
    const array = p.type === "array";
    const item = array ? nonNull(p.items ?? {}) : p;
    // a task id parameter takes a UUID or a display id (WEB-42): a plain string, still a reference
    const uuid = item.format === "uuid" || /UUID or display id/.test(String(item.description ?? ""));
    if (!uuid && !/Ids?$/.test(name)) continue;
    out.push({
      name,
      array,
      uuid,
      required: (schema.required ?? []).includes(name),
      tables: tablesFor(name, tables),
    });
  }
  return out;
}

function today(days = 0): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const PATTERN_SAMPLES = ["09:00", "EUR", "ABC", "PRB", "probe", "Probe", "1", "AB12"];

/** A valid value for a (required) field, derived from its JSON Schema. */
function fill(raw: Schema, name: string): unknown {
  const p = nonNull(raw);
  if (p.enum) return p.enum[0];
  if (p.const !== undefined) return p.const;
  if (Array.isArray(p.type)) return p.type.includes("string") ? "1" : fill({ ...p, type: p.type[0] }, name);
  switch (p.type) {
    case "string": {
      if (p.format === "date") return /end|to|until/i.test(name) ? today(7) : today(1);
      if (p.format === "date-time") return new Date().toISOString();
      if (p.format === "email") return "probe@example.com";
      if (p.format === "uri") return "https://example.com/probe";
      if (p.pattern) {
        const re = new RegExp(p.pattern);
        if (/end/i.test(name) && re.test("10:00")) return "10:00";
        const hit = PATTERN_SAMPLES.find((s) => re.test(s));
        if (hit) return hit;
      }
      const s = "Isolation probe";
      return s.slice(0, p.maxLength ?? s.length).padEnd(p.minLength ?? 0, "x");
    }
    case "integer":
    case "number": {
      const min = p.minimum ?? (p.exclusiveMinimum !== undefined ? p.exclusiveMinimum + 1 : 0);
      return min > 0 ? min : Math.min(1, p.maximum ?? 1);
    }
    case "boolean":
      return false;
    case "array":
      return (p.minItems ?? 0) > 0 ? [fill(p.items ?? {}, name)] : [];
    case "object": {
      const o: Record<string, unknown> = {};
      for (const k of p.required ?? []) o[k] = fill(p.properties[k], k);
      return o;
    }
  }
  return "probe";
}

/**
 * Required values the schema cannot provide: fields that must agree with each other. Called per call, so a call
 * that consumes a record (a tranche invoiced once) gets a fresh one.
 */
const OVERRIDES: Record<string, (own: OwnPicker, kind: Probe["kind"]) => Record<string, unknown>> = {
  generate_invoice_from_offer_tranche: (own, kind) => {
    // a successful call invoices its tranche: own-id calls get a new one each, refused calls share one
    const t = own.find(
      "offer_tranches",
      (o) => o.open === true,
      kind === "base" || kind === "own" ? "new" : "shared",
    );
    return t ? { offerId: t.parent, trancheId: t.id } : {};
  },
  // endTime is optional since a duration (hours) may replace it: the probe uses the seed's form
  create_time_log: (own) => ({ categoryId: own.find("time_categories")?.id, endTime: "10:00" }),
};

/** Parameters of which a call names at most one: setting one drops the others. */
const EXCLUSIVE: Record<string, string[]> = {
  create_time_log: ["taskId", "categoryId"],
  update_time_log: ["taskId", "categoryId"],
};

/** Fields an id parameter only makes sense with. */
const COMPANIONS: Record<string, Record<string, Record<string, unknown>>> = {
  create_invoice: { originalInvoiceId: { isCreditNote: true } },
};

/** Optional fields tried (in this order, then any plain text field) when a call with ids only is refused. */
const PATCH_FIELDS = ["notes", "description", "phaseSummary", "companyName", "contactName", "title"];

interface Extra {
  parent?: string;
  open?: boolean;
  subtask?: boolean;
}
interface OwnPicker {
  /**
   * An own record of `table`; `new`: one not handed out before in this batch; `shared`: the same one every time,
   * never handed out as `new`.
   */
  find(
    table: string,
    ok?: (e: Extra) => boolean,
    mode?: "new" | "shared",
  ): { id: string; parent?: string } | undefined;
}

/**
 * Free-text parameters named …Id (`aiTaskId`: the caller's own label for an external task). The tool stores the
 * text and answers echo it as that field; the value was the caller's input, not something it found out, so those
 * fields (camelCase in answers, snake_case in rows) are cut out before scanning.
 */
const FREE_TEXT = new Set<string>();

function withoutFreeText(text: string): string {
  for (const name of FREE_TEXT) {
    const snake = name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
    text = text.replace(new RegExp(`\\\\?"(${name}|${snake})\\\\?":\\s*\\\\?"[^"\\\\]*\\\\?"`, "g"), "");
  }
  return text;
}

interface Probe {
  variant: Variant;
  caller: CallerSpec;
  tool: string;
  kind: "base" | "own" | "workspace" | "company" | "person";
  /** the id parameter this call probes */
  param: string | null;
  args: Record<string, unknown>;
  /**
   * ids set into reference parameters of a write: echoing one in a success means the foreign reference was
   * accepted. (Read tools echo their filters: an id that matches nothing is no disclosure.)
   */
  refs: Set<string>;
}

interface Leak {
  probe: Probe;
  token: string;
  owner: Owner;
  reason: string;
  isError: boolean;
}

/** Picks ids from the attribution: the caller's own records and other workspaces', companies', people's. */
function pickers(
  att: Attribution,
  extra: Map<string, Extra>,
  worlds: readonly WorkspaceWorld[],
  c: CallerSpec,
) {
  const all = [...att.byId.values()];
  const home = worlds.find((w) => w.ws === c.ws)!;
  // own records: company a of the caller first, then company-less, then the rest it may see
  const rank = (o: Owner) =>
    (o.company === home.companies.a ? 0 : o.company == null ? 1 : 2) + (extra.get(o.id)?.subtask ? 10 : 0);
  const mine = all.filter((o) => foreignTo(c, o) === null).sort((x, y) => rank(x) - rank(y));
  const used = new Set<string>();
  const shared = new Map<string, Owner | undefined>();
  const own: OwnPicker = {
    find(table, ok, mode) {
      if (table === "users") return { id: c.userId ?? home.users.owner };
      const next = () => {
        const o = mine.find((o) =>
          o.table === table && (!ok || ok(extra.get(o.id) ?? {})) && !(mode && used.has(o.id))
        );
        if (o && mode) used.add(o.id);
        return o;
      };
      let o: Owner | undefined;
      if (mode === "shared") {
        if (!shared.has(table)) shared.set(table, next());
        o = shared.get(table);
      } else o = next();
      return o && { id: o.id, parent: extra.get(o.id)?.parent };
    },
  };
  const foreign = (tables: string[], reason: string, max: number) => {
    const out: string[] = [];
    for (const t of tables) {
      const seen = new Set<string>();
      for (const o of all) {
        if (o.table !== t || foreignTo(c, o) !== reason) continue;
        const k = `${o.ws}|${o.company}|${o.users?.join()}`; // one per kind of owner
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(o.id);
        if (seen.size >= max) break;
      }
    }
    return out;
  };
  return { own, foreign };
}

interface ToolInfo {
  name: string;
  schema: Schema;
  readOnly: boolean;
}

/** Sets an id parameter; remembers references (for echo checks) and free-text ids. */
function setId(
  a: Record<string, unknown>,
  p: IdParam,
  id: string,
  refs: Set<string>,
  tool: ToolInfo,
) {
  a[p.name] = p.array ? [id] : id;
  if (p.uuid && !tool.readOnly) refs.add(id);
  if (!p.uuid) FREE_TEXT.add(p.name);
}

/** The first call of a tool: required fields from the schema, required ids the caller's own. */
function baseProbe(
  variant: Variant,
  caller: CallerSpec,
  tool: ToolInfo,
  tables: readonly string[],
  pick: ReturnType<typeof pickers>,
): Probe {
  const schema = tool.schema;
  const args: Record<string, unknown> = {};
  for (const k of schema.required ?? []) args[k] = fill(schema.properties[k], k);
  const refs = new Set<string>();
  for (const p of idParams(schema, tables).filter((p) => p.required)) {
    const o = p.tables.map((t) => pick.own.find(t)).find((x) => x);
    // nothing of that kind is visible to the caller: an id that exists nowhere keeps the call well-formed
    setId(args, p, o?.id ?? crypto.randomUUID(), refs, tool);
  }
  Object.assign(args, OVERRIDES[tool.name]?.(pick.own, "base") ?? {});
  return { variant, caller, tool: tool.name, kind: "base", param: null, args, refs };
}

/**
 * The base call plus one optional text field: an update naming only its record is refused ("nothing to change")
 * before the record is looked up, so its id would never be probed.
 */
function patchedProbes(base: Probe, tool: ToolInfo): Probe[] {
  const props = Object.entries((tool.schema.properties ?? {}) as Record<string, Schema>)
    .filter(([k, v]) =>
      !(k in base.args) && !/Ids?$/.test(k) && nonNull(v).type === "string" && !nonNull(v).format
    );
  const names = [
    ...PATCH_FIELDS.filter((f) => props.some(([k]) => k === f)),
    ...props.map(([k]) => k).filter((k) => !PATCH_FIELDS.includes(k)),
  ].slice(0, 4);
  return names.map((k) => ({
    ...base,
    args: { ...base.args, [k]: fill(tool.schema.properties[k], k) },
  }));
}

/** Each id parameter set to an own id (a control) and to ids of another workspace, company and person. */
function restProbes(
  base: Probe,
  tool: ToolInfo,
  tables: readonly string[],
  pick: ReturnType<typeof pickers>,
): Probe[] {
  const { caller, variant } = base;
  const out: Probe[] = [];
  const variantOf = (kind: Probe["kind"], p: IdParam, id: string) => {
    const a = {
      ...base.args,
      ...(OVERRIDES[tool.name]?.(pick.own, kind) ?? {}),
      ...COMPANIONS[tool.name]?.[p.name],
    };
    const group = EXCLUSIVE[tool.name] ?? [];
    if (group.includes(p.name)) { for (const k of group) if (k !== p.name) delete a[k]; }
    const refs = new Set([...base.refs].filter((x) => x !== base.args[p.name]));
    setId(a, p, id, refs, tool);
    out.push({ variant, caller, tool: tool.name, kind, param: p.name, args: a, refs });
  };
  for (const p of idParams(tool.schema, tables)) {
    for (const id of pick.foreign(p.tables, "other workspace", 2)) variantOf("workspace", p, id);
    if (caller.companies !== null) {
      for (const id of pick.foreign(p.tables, "other company", 1)) variantOf("company", p, id);
      for (const id of pick.foreign(p.tables, "record without a company", 1)) variantOf("company", p, id);
    }
    for (const id of pick.foreign(p.tables, "another person's record", 2)) variantOf("person", p, id);
    if (!p.required) {
      const o = p.tables.map((t) => pick.own.find(t)).find((x) => x);
      if (o) variantOf("own", p, o.id);
    }
  }
  return out;
}

interface Outcome {
  isError: boolean;
  text: string;
  rpcError: boolean;
}

async function run(app: RequestTarget, p: Probe): Promise<{ out: Outcome; body: string }> {
  const r = await rpc(app, p.caller.key, "tools/call", { name: p.tool, arguments: p.args });
  const body = JSON.stringify(r.body);
  if (r.status !== 200 || !r.body?.result) {
    return { out: { isError: true, text: body, rpcError: true }, body };
  }
  const result = r.body.result;
  return {
    out: { isError: result.isError === true, text: result.content?.[0]?.text ?? "", rpcError: false },
    body,
  };
}

/** Foreign ids and markers in an answer; ids the caller sent are not leaks when refused or not references. */
function leaksIn(att: Attribution, p: Probe, body: string, isError: boolean): Leak[] {
  let ownId = false;
  let ownMarker = false;
  const sent = JSON.stringify(p.args).toLowerCase();
  const out: Leak[] = [];
  const seen = new Set<string>();
  body = withoutFreeText(body);
  const tokens = [...(body.match(UUID_RE) ?? []), ...(body.match(MARKER_RE) ?? [])].map((t) =>
    t.toLowerCase()
  );
  for (const token of tokens) {
    if (seen.has(token)) continue;
    seen.add(token);
    const owner = att.byId.get(token) ?? att.byMarker.get(token);
    if (!owner) continue;
    const reason = foreignTo(p.caller, owner);
    if (!reason) {
      if (token.startsWith("qx")) ownMarker = true;
      else ownId = true;
      continue;
    }
    // A company-less record's bare id in a caller's own record (the owner's default calendar in an appointment of
    // company a) is a reference; its content would carry its marker, which is still checked.
    if (reason === "record without a company" && !token.startsWith("qx")) continue;
    if (sent.includes(token) && (isError || !p.refs.has(token))) continue;
    out.push({ probe: p, token, owner, reason, isError });
  }
  if (ownId) RECOGNISED.ids++;
  if (ownMarker) RECOGNISED.markers++;
  return out;
}

/** Answers in which the scanner recognised the caller's own ids and markers: proof that it reads the answers. */
const RECOGNISED = { ids: 0, markers: 0 };

/** Row digests of what `caller` must not change: every row of its workspace and others that is foreign to it. */
async function protectedRows(
  sql: Parameters<typeof storedRows>[0],
  att: Attribution,
  worlds: readonly WorkspaceWorld[],
  c: CallerSpec,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const w of worlds) {
    for (const row of await storedRows(sql, w.workspaceId)) {
      const id = JSON.parse(row.json).id as string | undefined;
      const o = id ? att.byId.get(id) : undefined;
      if (o && foreignTo(c, o)) out.set(`${row.table}:${id}`, row.json);
    }
  }
  return out;
}

Deno.test("isolation: every tool of both variants, ids of another workspace, company and person", async () => {
  const db = await freshDatabase();
  try {
    const sql = db.sql;
    const worlds = [await buildWorkspace(sql, 1), await buildWorkspace(sql, 2)];
    for (const w of worlds) await markRecords(sql, w);
    const apps: Record<Variant, RequestTarget> = { A: mcpApp(sql, "A"), B: mcpApp(sql, "B") };

    const leaks: Leak[] = [];
    const changed: string[] = [];
    const stats = { calls: 0, attacks: 0, planted: 0, rpcErrors: [] as string[] };
    const reached = new Map<string, number>(); // variant:tool → calls that got past the permission check
    const controlOk = new Map<string, number>(); // variant:tool → own-id calls that succeeded
    const attackOk: string[] = []; // attacks on a required id that succeeded (they should be not_found)
    const firstAnswer = new Map<string, string>(); // variant:tool kind param → first answer other than not_found
    const outcomes = new Map<string, number>(); // kind:code → count
    const byParam = new Map<string, string[]>(); // variant:tool kind param → codes

    for (const w of worlds) {
      for (const caller of w.callers) {
        // re-read ownership: earlier callers' writes may have moved records between companies or people
        const att = await attribute(sql, worlds);
        const extra = await extras(sql);
        const tables = [...new Set([...att.byId.values()].map((o) => o.table))];
        const pick = pickers(att, extra, worlds, caller);
        const before = await protectedRows(sql, att, worlds, caller);
        // The scanner itself: a foreign id or marker of each kind planted in an answer is reported.
        for (const reason of ["other workspace", "other company", "another person's record"]) {
          const [id] = pick.foreign([...tables], reason, 1);
          if (!id) continue;
          const marker = [...att.byMarker].find(([, o]) => o.id === id)![0];
          const probe: Probe = {
            variant: "A",
            caller,
            tool: "-",
            kind: "base",
            param: null,
            args: {},
            refs: new Set(),
          };
          assert.equal(leaksIn(att, probe, JSON.stringify({ id }), false).length, 1, `planted ${reason} id`);
          assert.equal(
            leaksIn(att, probe, `{"name":"x ${marker}"}`, true).length,
            1,
            `planted ${reason} value`,
          );
          stats.planted++;
        }
        for (const variant of caller.variants) {
          for (const tool of registryFor(TOOLS, variant).all.values()) {
            const key = `${variant}:${tool.name}`;
            const info: ToolInfo = {
              name: tool.name,
              schema: tool.listing.inputSchema,
              readOnly: tool.def.annotations.readOnlyHint,
            };
            const plain = baseProbe(variant, caller, info, tables, pick);
            // Updates (every required field an id) get an optional text field first; any call refused as
            // invalid input ("nothing to change", "needs one of …") tries the next candidate.
            const updateStyle = !info.readOnly &&
              (info.schema.required ?? []).every((k: string) =>
                idParams(info.schema, tables).some((p) => p.name === k)
              );
            const patched = patchedProbes(plain, info);
            const candidates = updateStyle ? [...patched, plain] : [plain, ...patched];
            let base = plain;
            let first: Awaited<ReturnType<typeof run>> | undefined;
            for (const probe of candidates) {
              const r = await run(apps[variant], probe);
              stats.calls++;
              leaks.push(...leaksIn(att, probe, r.body, r.out.isError));
              if (r.out.rpcError) stats.rpcErrors.push(`${caller.name} ${key}: ${r.body.slice(0, 200)}`);
              if (!first || !r.out.text.startsWith("invalid_input:")) [base, first] = [probe, r];
              if (!r.out.text.startsWith("invalid_input:")) break;
            }
            if (!first || /^(access_denied|unavailable):/.test(first.out.text)) continue;
            reached.set(key, (reached.get(key) ?? 0) + 1);
            if (!first.out.isError) controlOk.set(key, (controlOk.get(key) ?? 0) + 1);
            const rest = restProbes(base, info, tables, pick);
            for (const p of rest) {
              const r = await run(apps[variant], p);
              stats.calls++;
              if (r.out.rpcError) stats.rpcErrors.push(`${caller.name} ${key}: ${r.body.slice(0, 200)}`);
              leaks.push(...leaksIn(att, p, r.body, r.out.isError));
              if (p.kind === "own") {
                if (!r.out.isError) controlOk.set(key, (controlOk.get(key) ?? 0) + 1);
              } else {
                stats.attacks++;
                const code = r.out.isError ? (r.out.text.match(/^(\w+):/)?.[1] ?? "error") : "ok";
                outcomes.set(`${p.kind}:${code}`, (outcomes.get(`${p.kind}:${code}`) ?? 0) + 1);
                const k = `${key} ${p.kind} ${p.param}`;
                byParam.set(k, [...(byParam.get(k) ?? []), code]);
                if (code !== "not_found" && !firstAnswer.has(k)) firstAnswer.set(k, r.out.text.slice(0, 160));
                const param = p.param!;
                if (!r.out.isError && ((tool.listing.inputSchema as Schema).required ?? []).includes(param)) {
                  attackOk.push(
                    `${caller.name} ${key} ${p.kind} ${param}=${JSON.stringify(p.args[param])}: ${
                      r.out.text.slice(0, 120)
                    }`,
                  );
                }
              }
            }
          }
        }
        const after = await protectedRows(sql, att, worlds, caller);
        for (const [k, v] of before) {
          const now = after.get(k);
          if (now === undefined) changed.push(`${caller.name}: deleted ${k}`);
          else if (now !== v) changed.push(`${caller.name}: changed ${k}\n  ${v}\n  ${now}`);
        }
      }
    }

    // No stored row of one workspace refers to a record of the other.
    const att = await attribute(sql, worlds);
    for (const w of worlds) {
      for (const row of await storedRows(sql, w.workspaceId)) {
        for (const id of withoutFreeText(row.json).match(UUID_RE) ?? []) {
          const o = att.byId.get(id.toLowerCase());
          if (o && o.ws !== w.ws) {
            changed.push(`${row.table} of workspace ${w.ws} refers to ${o.table} ${id} of workspace ${o.ws}`);
          }
        }
      }
    }

    // ISOLATION_VERBOSE=1: what the probes met, and the parameters whose foreign ids were never looked up
    if (Deno.env.get("ISOLATION_VERBOSE")) {
      console.log(Object.fromEntries([...outcomes].sort()));
      for (const [k, codes] of [...byParam].sort()) {
        if (!codes.includes("not_found")) console.log(k, [...new Set(codes)].join(","), firstAnswer.get(k));
      }
    }
    const report = leaks.map((l) =>
      `${l.probe.caller.name} ${l.probe.variant}:${l.probe.tool} [${l.probe.kind}] args=${
        JSON.stringify(l.probe.args)
      }` +
      ` → ${l.reason}: ${l.owner.table} ${l.owner.id} (${l.token})${l.isError ? " in an error" : ""}`
    );
    const kinds = ["workspace", "company", "person"].map((k) =>
      `${k} ${[...outcomes].filter(([o]) => o.startsWith(k + ":")).reduce((a, [, n]) => a + n, 0)}`
    );
    console.log(
      `isolation: ${stats.calls} calls to ${reached.size} tool/variant pairs; ${stats.attacks} with foreign ids ` +
        `(${kinds.join(", ")}); ${
          [...controlOk.values()].reduce((a, b) => a + b, 0)
        } own-id calls succeeded; ` +
        `own ids recognised in ${RECOGNISED.ids} answers, own values in ${RECOGNISED.markers}; ${leaks.length} leaks`,
    );
    // One assertion, so a failure prints every kind of finding at once.
    assert.deepEqual(
      {
        // answers holding a foreign id or value (tool, arguments, what leaked)
        leaks: report,
        // rows the caller may not see that changed during its calls, or rows referring into another workspace
        changed,
        // a foreign id in a required parameter accepted
        accepted: attackOk,
        // calls that never reached the tool layer (a JSON-RPC error: the harness built a malformed call)
        rpcErrors: stats.rpcErrors,
      },
      { leaks: [], changed: [], accepted: [], rpcErrors: [] },
      `${leaks.length} leaks, ${changed.length} changed rows, ${attackOk.length} accepted foreign ids`,
    );

    // The harness really exercised every tool: each one reached its domain code, and own ids worked.
    for (const variant of ["A", "B"] as const) {
      for (const name of registryFor(TOOLS, variant).all.keys()) {
        assert.ok(
          reached.get(`${variant}:${name}`),
          `${variant}:${name} was never called past the permission check`,
        );
      }
    }
    const total = registryFor(TOOLS, "A").all.size + registryFor(TOOLS, "B").all.size;
    const noControl = [...reached.keys()].filter((k) => !controlOk.get(k));
    assert.ok(noControl.length <= total / 10, `own-id calls never succeeded for ${noControl.join(", ")}`);
    assert.ok(stats.attacks >= 2000, `only ${stats.attacks} calls with foreign ids`);
    for (const k of ["workspace", "company", "person"]) {
      assert.ok(
        (outcomes.get(`${k}:not_found`) ?? 0) >= 100,
        `foreign ids of another ${k} were rarely looked up`,
      );
    }
    assert.ok(stats.planted >= worlds.length * 3, "the scanner was checked against planted leaks");
    assert.ok(
      RECOGNISED.ids >= 500 && RECOGNISED.markers >= 200,
      "the scanner recognises the caller's own data",
    );
  } finally {
    await db.close();
  }
});

/** Tranches (their offer, still open?) and subtasks: what some calls need beyond an id of the right table. */
async function extras(sql: Parameters<typeof storedRows>[0]): Promise<Map<string, Extra>> {
  const rows = await sql<{ id: string; offer_id: string; open: boolean }[]>`
    select id::text, offer_id::text, invoice_id is null as open from offer_tranches`;
  const out = new Map<string, Extra>(rows.map((r) => [r.id, { parent: r.offer_id, open: r.open }]));
  for (const t of await sql<{ id: string }[]>`select id::text from tasks where parent_id is not null`) {
    out.set(t.id, { subtask: true });
  }
  return out;
}
