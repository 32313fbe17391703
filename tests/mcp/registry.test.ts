// The registry: every file in tools/ registered, annotations and field descriptions present, tools/list snapshots.
import assert from "node:assert/strict";
import { z } from "zod";
import { fileURLToPath } from "node:url";
import { buildRegistry } from "../../lib/mcp/registry.ts";
import { type Caller } from "../../lib/mcp/caller.ts";
import { DEFAULT_AREA_ROLES, denial } from "../../lib/mcp/permissions.ts";

/** The seed's "tools that need a user context"; each tool's needsUser is the source, this pins it. */
const USER_CONTEXT_TOOLS: ReadonlySet<string> = new Set([
  "create_task",
  "create_subtask",
  "create_offer",
  "create_idea",
  "create_activity",
  "track_ai_activity",
  "create_workspace_document",
  "list_recordings",
  "get_recording",
  "list_time_logs",
  "time_log_summary",
  "list_time_categories",
  "create_time_log",
  "update_time_log",
  "delete_time_log",
  "list_calendars",
  "list_appointments",
  "create_appointment",
  "update_appointment",
  "get_booking_settings",
  "update_booking_settings",
]);
import { type AnyTool, defineTool } from "../../lib/mcp/tool.ts";
import { TOOLS } from "../../tools/mod.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, mcpApp, rpc, type Variant } from "../helpers/mcp.ts";

const TOOLS_DIR = new URL("../../tools/", import.meta.url);
const SNAPSHOTS = new URL("../snapshots/", import.meta.url);

function isTool(v: unknown): v is AnyTool {
  return typeof v === "object" && v !== null && "name" in v && "run" in v && "variants" in v;
}

Deno.test("every file in tools/ exports one tool named after the file, and tools/mod.ts registers it", async () => {
  const files: string[] = [];
  for await (const e of Deno.readDir(TOOLS_DIR)) {
    if (e.isFile && e.name.endsWith(".ts") && e.name !== "mod.ts") files.push(e.name);
  }
  assert.ok(files.length >= 5);
  const registered = new Set(TOOLS);
  for (const file of files.sort()) {
    const mod = await import(new URL(file, TOOLS_DIR).href);
    const tools = Object.values(mod).filter(isTool);
    assert.equal(tools.length, 1, `${file} must export exactly one tool`);
    const tool = tools[0];
    assert.equal(tool.name, file.slice(0, -3), `${file}: the tool's name must equal the file name`);
    assert.ok(registered.has(tool), `${file}: ${tool.name} is not registered in tools/mod.ts`);
  }
  assert.equal(TOOLS.length, files.length, "tools/mod.ts registers something that is not a file in tools/");
  assert.equal(new Set(TOOLS.map((t) => t.name)).size, TOOLS.length, "duplicate tool names");
});

Deno.test("every tool: four annotations, a description saying what it returns, every field described", () => {
  for (const variant of ["A", "B"] as const) {
    const reg = buildRegistry(TOOLS, variant);
    for (const t of reg.all.values()) {
      const where = `${t.name} (${variant})`;
      const a = t.listing.annotations;
      for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        assert.equal(typeof a[k], "boolean", `${where}: ${k}`);
      }
      assert.match(t.listing.description, /Returns/, `${where}: the description must say what it returns`);
      const schema = t.listing.inputSchema as {
        type: string;
        properties?: Record<string, { description?: string }>;
      };
      assert.equal(schema.type, "object");
      for (const [field, prop] of Object.entries(schema.properties ?? {})) {
        assert.ok(
          prop.description && prop.description.length >= 10,
          `${where}: field ${field} lacks .describe()`,
        );
      }
      assert.equal(t.def.needsUser, USER_CONTEXT_TOOLS.has(t.name), `${where}: needsUser`);
    }
  }
});

Deno.test("every tool in every variant has a short human title (MCP 2025-06-18), emitted in tools/list", () => {
  for (const variant of ["A", "B"] as const) {
    for (const t of buildRegistry(TOOLS, variant).all.values()) {
      const title = t.listing.title ?? "";
      assert.ok(title.trim().length > 0, `${t.name} (${variant}): no title`);
      assert.ok(title.length <= 40, `${t.name} (${variant}): title longer than 40 characters`);
      assert.notEqual(title, t.name, `${t.name}: the title is for humans, not the snake_case name`);
      assert.equal(t.listing.title, t.def.title);
    }
  }
  assert.throws(() => defineTool({ ...good, title: " " }), /title of 1-40 characters/);
  assert.throws(() => defineTool({ ...good, title: "x".repeat(41) }), /title of 1-40 characters/);
});

const Empty = z.strictObject({});
const good = {
  name: "sample_tool",
  area: "projects" as const,
  module: null,
  needsUser: false,
  variants: { A: Empty },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: "Sample. Returns nothing.",
  run: () => null,
};

Deno.test("the registry refuses a tool without annotations or field descriptions, or in an unknown area", () => {
  assert.doesNotThrow(() => buildRegistry([defineTool(good)], "A"));
  const noAnnotation = {
    ...good,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  };
  // deno-lint-ignore no-explicit-any
  assert.throws(() => buildRegistry([noAnnotation as any], "A"), /annotation openWorldHint is not set/);
  const undescribed = { ...good, variants: { A: z.strictObject({ id: z.string() }) } };
  assert.throws(() => buildRegistry([defineTool(undescribed)], "A"), /field id has no \.describe\(\)/);
  const nullable = {
    ...good,
    variants: { A: z.strictObject({ id: z.string().describe("An id.").nullable() }) },
  };
  const json = buildRegistry([defineTool(nullable)], "A").all.get("sample_tool")!.listing.inputSchema;
  assert.equal(
    (json.properties as Record<string, { description: string }>).id.description,
    "An id.",
    "hoisted",
  );
  // needsUser is the tool's own statement (no second list to disagree with); the first test pins the seed's list.
  // deno-lint-ignore no-explicit-any
  assert.throws(() => buildRegistry([{ ...good, area: "nowhere" } as any], "A"), /unknown area/);
  // deno-lint-ignore no-explicit-any
  assert.throws(() => buildRegistry([{ ...good, module: "nowhere" } as any], "A"), /unknown module/);
  assert.throws(() => buildRegistry([defineTool(good), defineTool(good)], "A"), /registered twice/);
  assert.throws(() => defineTool({ ...good, name: "Bad-Name" }), /snake_case/);
  assert.throws(() => defineTool({ ...good, variants: {} }), /in no variant/);
  // a tool only in A is not served by B
  assert.equal(buildRegistry([defineTool(good)], "B").all.size, 0);
});

Deno.test("denial(): rule 2 refuses a key without a user in A, and a non-internal key in B", () => {
  const base: Caller = {
    workspaceId: "w",
    keyId: "k",
    keyKind: "workspace",
    role: null,
    modules: ["tasks"],
    areas: new Set(["tasks"]),
  };
  const tool = { name: "create_task", area: "tasks" as const, module: "tasks", needsUser: true };
  assert.equal(denial(tool, base, "A")?.code, "access_denied");
  assert.equal(denial(tool, { ...base, keyKind: "user", userId: "u", role: "member" }, "A"), null);
  assert.equal(denial(tool, { ...base, keyKind: "user", userId: "u" }, "B")?.code, "access_denied");
  assert.equal(denial(tool, { ...base, keyKind: "internal", userId: "u" }, "B"), null);
});

Deno.test("tools/list per variant matches tests/snapshots (UPDATE_SNAPSHOTS=1 rewrites them)", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    // Keys that see every tool of their variant: the owner in A, the assistant (internal) in B.
    const keys: Record<Variant, string> = { A: f.keys.owner, B: f.keys.internal };
    for (const variant of ["A", "B"] as const) {
      const r = await rpc(mcpApp(db.sql, variant), keys[variant], "tools/list");
      assert.equal(r.status, 200);
      const all = [...buildRegistry(TOOLS, variant).all.values()].map((t) => t.listing);
      assert.deepEqual(r.body.result.tools, all, "these keys see every tool of the variant");
      const actual = JSON.stringify(r.body.result, null, 2) + "\n";
      const file = new URL(`tools_list_${variant}.json`, SNAPSHOTS);
      if (Deno.env.get("UPDATE_SNAPSHOTS") === "1") {
        await Deno.writeTextFile(file, actual);
        continue;
      }
      let expected: string;
      try {
        expected = await Deno.readTextFile(file);
      } catch {
        throw new Error(
          `missing snapshot ${
            fileURLToPath(file)
          }: run UPDATE_SNAPSHOTS=1 deno task test tests/mcp/registry.test.ts`,
        );
      }
      assert.equal(
        actual,
        expected,
        `tools/list of variant ${variant} changed. If intended, run: UPDATE_SNAPSHOTS=1 deno task test tests/mcp/registry.test.ts`,
      );
    }
  } finally {
    await db.close();
  }
});

const DOCS = new URL("../../docs/mcp.md", import.meta.url);
const README = new URL("../../README.md", import.meta.url);
const ROLE_ORDER = ["owner", "admin", "manager", "accounting", "member", "guest"] as const;

function areasTable(): string {
  const head = `| area | ${ROLE_ORDER.join(" | ")} |\n|---|${ROLE_ORDER.map(() => ":-:").join("|")}|`;
  const rows = Object.entries(DEFAULT_AREA_ROLES).map(([area, roles]) =>
    `| ${area} | ${ROLE_ORDER.map((r) => (roles as readonly string[]).includes(r) ? "✓" : "").join(" | ")} |`
  );
  return [head, ...rows].join("\n");
}

function toolsTable(): string {
  const rows = TOOLS.map((t) => {
    const variants = (["A", "B"] as const).filter((v) => t.variants[v]).join(", ");
    const kind = t.annotations.readOnlyHint
      ? "read"
      : t.annotations.destructiveHint
      ? "write (destructive)"
      : "write";
    return `| \`${t.name}\` | ${t.area} | ${t.module ?? "—"} | ${variants} | ${
      t.needsUser ? "person" : ""
    } | ${kind} |`;
  });
  return ["| tool | area | module | variants | user context | kind |", "|---|---|---|---|---|---|", ...rows]
    .join("\n");
}

function replaceBetween(text: string, name: string, body: string): string {
  const begin = text.indexOf(`<!-- ${name}:begin`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (begin < 0 || end < 0) throw new Error(`the document lacks the ${name} markers`);
  const afterBegin = text.indexOf("-->", begin) + 3;
  return text.slice(0, afterBegin) + "\n" + body + "\n" + text.slice(end);
}

/** Table rows without deno fmt's column padding, so generated and formatted tables compare equal. */
function normalise(md: string): string {
  return md.split("\n").map((line) =>
    line.startsWith("|")
      ? line.split("|").map((cell) => cell.trim().replace(/^:?-+:?$/, (d) => d.replace(/-+/, "-"))).join("|")
      : line
  ).filter((line) => line.trim() !== "").join("\n");
}

for (const doc of [DOCS, README]) {
  const name = doc === DOCS ? "docs/mcp.md" : "README.md";
  Deno.test(`${name} lists every tool's area, module and variants, and the default roles per area`, async () => {
    const current = await Deno.readTextFile(doc);
    const wanted = replaceBetween(replaceBetween(current, "areas", areasTable()), "tools", toolsTable());
    if (Deno.env.get("UPDATE_SNAPSHOTS") === "1") {
      await Deno.writeTextFile(doc, wanted);
      await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", fileURLToPath(doc)] }).output();
      return;
    }
    assert.equal(
      normalise(current),
      normalise(wanted),
      `${name} tables are stale. If intended, run: UPDATE_SNAPSHOTS=1 deno task test tests/mcp/registry.test.ts`,
    );
  });
}

Deno.test("tools/list advertises format uuid/date without zod's long patterns; the server still checks them", () => {
  const reg = buildRegistry(TOOLS, "A");
  let formats = 0;
  for (const t of reg.all.values()) {
    JSON.stringify(t.listing.inputSchema, (key, value) => {
      if (value && typeof value === "object" && !Array.isArray(value) && "format" in value) {
        formats++;
        assert.equal("pattern" in value, false, `${t.name}: ${key} restates its format as a pattern`);
      }
      if (key === "minLength" || key === "minItems") assert.notEqual(value, 0, `${t.name}: a bound of 0`);
      return value;
    });
  }
  assert.ok(formats >= 100, `only ${formats} formatted fields`);
  const createTask = reg.all.get("create_task")!;
  const props = createTask.listing.inputSchema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(props.dueDate, { type: "string", format: "date", description: props.dueDate.description });
  assert.deepEqual(props.projectId, {
    type: "string",
    format: "uuid",
    description: props.projectId.description,
  });
  // validation at the server is unchanged: zod refuses what the dropped patterns refused
  const bad = createTask.schema.safeParse({ title: "x", dueDate: "2025-02-30", projectId: "not-a-uuid" });
  assert.equal(bad.success, false);
  const paths = bad.error!.issues.map((i) => i.path.join(".")).sort();
  assert.deepEqual(paths, ["dueDate", "projectId"]);
  const nullable = reg.all.get("update_task")!.listing.inputSchema.properties as Record<string, unknown>;
  // portable: anyOf with a null branch, never a type list (tests/mcp/schema_portability.test.ts)
  assert.deepEqual((nullable.projectId as { anyOf: unknown }).anyOf, [{ type: "string", format: "uuid" }, {
    type: "null",
  }]);
});

Deno.test("gpt-tokenizer is bench-only: main.ts's module graph does not reach it", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", fileURLToPath(new URL("../../main.ts", import.meta.url))],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(out.code, 0);
  // npmPackages lists every package of deno.json; the modules and their dependencies are the graph itself
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: unknown[] };
  assert.ok(graph.modules.length > 50);
  assert.equal(JSON.stringify(graph.modules).includes("gpt-tokenizer"), false);
});

Deno.test("tools/list costs at most half the tokens of main at c067009, per variant and caller (o200k_base)", async () => {
  const { measure } = await import("../../bench/catalogue_tokens.ts");
  // BENCHMARKS.md "tools/list tokens per variant and role": the before column
  const before: Record<string, number> = {
    "A owner": 39012,
    "A admin": 39012,
    "A manager": 35646,
    "A accounting": 15907,
    "A member": 31117,
    "A guest": 9599,
    "B internal key": 14224,
    "B workspace key": 6438,
  };
  const rows = measure();
  assert.equal(rows.length, Object.keys(before).length);
  for (const r of rows) {
    const was = before[`${r.variant} ${r.who}`];
    // Like for like: the tools there were then (the seed's); Portico's extensions have a budget of their own
    // (tests/mcp/schema_portability.test.ts).
    assert.ok(
      r.seedTokens <= was / 2,
      `${r.variant} ${r.who}: ${r.seedTokens} tokens, more than half of ${was}`,
    );
  }
});
