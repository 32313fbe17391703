// Schemas every client accepts (issue 25.5): the MCP Inspector's strict schema lint and Ajv 2020 strict mode find
// nothing in tools/list of either variant, the advertised schemas accept what the server accepts, and the
// catalogue stays within its token budget.
import assert from "node:assert/strict";
import { z } from "zod";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { countTokens } from "gpt-tokenizer";
import type { McpVariant } from "../../lib/config.ts";
import { buildRegistry, type CompiledTool } from "../../lib/mcp/registry.ts";
import { inputJsonSchema } from "../../lib/mcp/json_schema.ts";
import { CONTACT_SORT_FIELDS } from "../../lib/workspace/contacts.ts";
import { EXTENSION_TOOL_NAMES, isExtension, TOOLS, VARIANT_EXTENSIONS } from "../../tools/mod.ts";

// ---------------------------------------------------------------------------------------------------------------
// The MCP Inspector 2.12.0's schema lint, as `--strict` runs it on a tools/list answer. Source: npm
// @modelcontextprotocol/inspector@2.12.0, clients/cli/build/index.js, section "../../core/json/schemaLint.ts"
// (functions lintTools, lintToolSchemas, walk, lintNode, forEachSubschema, constrainsInstance,
// isPortableTypeUnion; rules boolean-schema, type-union, remote-ref, untyped-schema). Rewritten here rule for
// rule; the module is bundled into the CLI and not importable on its own.
// ---------------------------------------------------------------------------------------------------------------

const BOOLEAN_VALUED_KEYWORDS = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
]);
const SUBSCHEMA_KEYWORDS = [
  "items",
  "contains",
  "not",
  "propertyNames",
  "if",
  "then",
  "else",
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
  "contentSchema",
];
const SUBSCHEMA_ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAP_KEYWORDS = [
  "properties",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
  "$defs",
  "definitions",
];
const CONSTRAINING_KEYWORDS = new Set([
  ...["type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"],
  ...["maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema"],
  ...["maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties"],
  ...["required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains"],
  ...["additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties"],
  ...["unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef"],
  "$recursiveRef",
]);
const JSON_SCHEMA_TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);

type Node = Record<string, unknown>;
interface Finding {
  tool: string;
  rule: "boolean-schema" | "type-union" | "remote-ref" | "untyped-schema";
  severity: "error" | "warning";
  path: string;
}

function isRecord(v: unknown): v is Node {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function declaresAnyId(node: unknown, depth = 0): boolean {
  if (depth > 64 || !isRecord(node)) return false;
  if (typeof node.$id === "string" && node.$id !== "") return true;
  let found = false;
  forEachSubschema(node, "", (child) => {
    if (!found) found = declaresAnyId(child, depth + 1);
  });
  return found;
}

function forEachSubschema(
  node: Node,
  path: string,
  visit: (child: unknown, path: string, kw: string) => void,
) {
  for (const key of SUBSCHEMA_MAP_KEYWORDS) {
    const map = node[key];
    if (!isRecord(map)) continue;
    for (const [name, sub] of Object.entries(map)) visit(sub, `${path}.${key}.${name}`, key);
  }
  for (const key of SUBSCHEMA_ARRAY_KEYWORDS) {
    const arr = node[key];
    if (Array.isArray(arr)) arr.forEach((sub, i) => visit(sub, `${path}.${key}[${i}]`, key));
  }
  for (const key of SUBSCHEMA_KEYWORDS) {
    if (!(key in node)) continue;
    const value = node[key];
    if (key === "items" && Array.isArray(value)) {
      value.forEach((sub, i) => visit(sub, `${path}.items[${i}]`, key));
    } else visit(value, `${path}.${key}`, key);
  }
}

function lintNode(node: Node, path: string, kw: string | undefined, ctx: LintContext): void {
  const type = node.type;
  if (
    Array.isArray(type) && type.length > 0 &&
    type.every((t) => typeof t === "string" && JSON_SCHEMA_TYPES.has(t)) &&
    new Set(type).size === type.length
  ) {
    ctx.add("type-union", "warning", path);
  }
  const ref = node.$ref;
  if (typeof ref === "string" && ref !== "" && !ref.startsWith("#") && !ctx.hasEmbeddedIds) {
    ctx.add("remote-ref", "warning", path);
  }
  const constrains = Object.keys(node).some((k) => CONSTRAINING_KEYWORDS.has(k)) ||
    ("if" in node && ("then" in node || "else" in node));
  if (!constrains && kw !== "not") ctx.add("untyped-schema", "warning", path);
}

interface LintContext {
  hasEmbeddedIds: boolean;
  add(rule: Finding["rule"], severity: Finding["severity"], path: string): void;
}

function walk(node: unknown, path: string, kw: string | undefined, depth: number, ctx: LintContext): void {
  if (depth > 64) return;
  if (typeof node === "boolean") {
    if (kw !== undefined && BOOLEAN_VALUED_KEYWORDS.has(kw)) return;
    ctx.add("boolean-schema", "error", path);
    return;
  }
  if (!isRecord(node)) return;
  lintNode(node, path, kw, ctx);
  forEachSubschema(node, path, (child, p, k) => walk(child, p, k, depth + 1, ctx));
}

/** Every finding of the Inspector's lint over a tools/list `tools` array (inputSchema and outputSchema). */
function inspectorLint(
  tools: readonly { name: string; inputSchema?: unknown; outputSchema?: unknown }[],
): Finding[] {
  const findings: Finding[] = [];
  for (const t of tools) {
    for (const kind of ["inputSchema", "outputSchema"] as const) {
      const schema = t[kind];
      if (schema === undefined) continue;
      walk(schema, kind, undefined, 0, {
        hasEmbeddedIds: declaresAnyId(schema),
        add: (rule, severity, path) => findings.push({ tool: t.name, rule, severity, path }),
      });
    }
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------------------------

/** Ajv 2020-12 in strict mode (strictSchema, strictTypes, strictTuples, strictRequired), with the formats used. */
function strictAjv() {
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv2020 as any)({ strict: true, allErrors: true });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv);
  return ajv as { compile(s: unknown): ((v: unknown) => boolean) & { errors?: unknown } };
}

function listing(variant: McpVariant) {
  return [...buildRegistry(TOOLS, variant).all.values()].map((t) => t.listing);
}

Deno.test("the lint as rewritten flags what the Inspector 2.12.0 flags, and nothing in a portable schema", () => {
  const bad = inspectorLint([{
    name: "t",
    inputSchema: {
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: { description: "anything" },
        c: true,
        d: { $ref: "https://example.com/s.json" },
        e: { type: "object", additionalProperties: {} },
        f: { type: "object", additionalProperties: false },
        g: { not: {} },
      },
    },
    outputSchema: { type: ["integer", "string"] },
  }]);
  assert.deepEqual(bad.map((f) => `${f.severity} ${f.rule} ${f.path}`), [
    "warning type-union inputSchema.properties.a",
    "warning untyped-schema inputSchema.properties.b",
    "error boolean-schema inputSchema.properties.c",
    "warning remote-ref inputSchema.properties.d",
    "warning untyped-schema inputSchema.properties.e.additionalProperties",
    "warning type-union outputSchema",
  ]);
  const good = inspectorLint([{
    name: "t",
    inputSchema: {
      type: "object",
      properties: { a: { anyOf: [{ type: "string", format: "date" }, { type: "null" }] } },
      additionalProperties: false,
    },
  }]);
  assert.deepEqual(good, []);
});

for (const variant of ["A", "B"] as const) {
  Deno.test(`variant ${variant}: the Inspector's strict lint finds nothing in tools/list`, () => {
    // registry.all is the tools/list of the owner (A) and of the internal key (B) (tests/mcp/registry.test.ts);
    // every other caller sees a subset of these tools with the same schemas
    const tools = listing(variant);
    // the seed's 52 (A) and 27 (B), and the Portico extensions of the variant: the new tools it serves (all of
    // them in A; B leaves out those whose data only A has, such as list_crm_parties) and the seed's tools it
    // newly serves (VARIANT_EXTENSIONS: list_clients in B)
    const extensions = tools.filter((t) => isExtension(t.name, variant)).map((t) => t.name);
    assert.equal(tools.length - extensions.length, variant === "A" ? 52 : 27);
    const served = TOOLS.filter((t) => t.variants[variant] && EXTENSION_TOOL_NAMES.includes(t.name));
    assert.deepEqual(
      extensions.sort(),
      [...served.map((t) => t.name), ...VARIANT_EXTENSIONS[variant]].sort(),
    );
    if (variant === "A") assert.deepEqual(served.length, EXTENSION_TOOL_NAMES.length);
    const findings = inspectorLint(tools);
    assert.deepEqual(findings.map((f) => `${f.tool} ${f.rule} ${f.path}`), []);
  });

  Deno.test(`variant ${variant}: Ajv 2020 in strict mode compiles every inputSchema and outputSchema`, () => {
    const failures: string[] = [];
    let compiled = 0;
    for (const t of listing(variant)) {
      for (const kind of ["inputSchema", "outputSchema"] as const) {
        if (!t[kind]) continue;
        try {
          strictAjv().compile(t[kind]);
          compiled++;
        } catch (e) {
          failures.push(`${t.name}.${kind}: ${(e as Error).message}`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(compiled > (variant === "A" ? 60 : 30), `${compiled} schemas`);
  });

  Deno.test(`variant ${variant}: each advertised field accepts every value the server accepts for it`, () => {
    // The compaction must never narrow a field: sample values of every JSON type, checked field by field with
    // zod (what the server validates) and Ajv (what a validating client checks before sending).
    const samples: unknown[] = [
      null,
      0,
      1,
      2.5,
      -1,
      "1",
      "12.50",
      "",
      "x",
      true,
      false,
      [],
      {},
      [
        crypto.randomUUID(),
      ],
      "2026-03-02",
      "2026-03-02T10:00:00Z",
      crypto.randomUUID(),
      "10:00",
      "a@example.com",
      "EUR",
    ];
    const ajv = strictAjv();
    let checked = 0;
    for (const t of buildRegistry(TOOLS, variant).all.values()) {
      const shape = t.schema.shape as Record<string, z.ZodType>;
      const props = t.listing.inputSchema.properties as Record<string, Node>;
      for (const [field, zodField] of Object.entries(shape)) {
        const validate = ajv.compile(props[field]);
        for (const value of samples) {
          if (!zodField.safeParse(value).success) continue;
          checked++;
          assert.ok(
            validate(value),
            `${t.name}.${field}: the server accepts ${JSON.stringify(value)}, the schema not`,
          );
        }
      }
    }
    assert.ok(checked > 200, `${checked} accepted samples`);
  });
}

Deno.test("nullable fields are anyOf with a null branch; number-or-string decimals are anyOf of both", () => {
  const a = buildRegistry(TOOLS, "A");
  const prop = (tool: string, field: string) =>
    (a.all.get(tool)!.listing.inputSchema.properties as Record<string, Node>)[field];
  assert.deepEqual(prop("update_task", "projectId"), {
    description: prop("update_task", "projectId").description,
    anyOf: [{ type: "string", format: "uuid" }, { type: "null" }],
  });
  assert.deepEqual(prop("create_project", "budget"), {
    description: prop("create_project", "budget").description,
    anyOf: [{ type: "string" }, { type: "number" }],
  });
  assert.deepEqual(prop("update_project", "budget").anyOf, [
    { type: "string" },
    { type: "number" },
    { type: "null" },
  ]);
  // the server still takes null, a number and a decimal string for them
  const update = a.all.get("update_project")!.schema;
  for (const budget of [null, 12.5, "12.50"]) {
    assert.equal(update.safeParse({ projectId: crypto.randomUUID(), budget }).success, true, String(budget));
  }
});

Deno.test("a type list is split into anyOf with each type's own keywords; an empty additionalProperties goes", () => {
  const json = inputJsonSchema(z.strictObject({
    a: z.union([z.string().max(5), z.number().min(1)]).nullable().describe("A."),
    b: z.record(z.string(), z.unknown()).describe("B."),
    c: z.union([z.string(), z.number()]).nullable().describe("C."),
  }));
  // zod writes c as `type: ["string", "number", "null"]`
  assert.deepEqual(json.properties, {
    a: {
      description: "A.",
      anyOf: [{ type: "string", maxLength: 5 }, { type: "number", minimum: 1 }, { type: "null" }],
    },
    b: { description: "B.", type: "object" },
    c: { description: "C.", anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
  });
});

Deno.test("list_contacts.sortField is an enum of the 16 names; the server accepts those and their columns", () => {
  const names = Object.keys(CONTACT_SORT_FIELDS);
  assert.equal(names.length, 16);
  const a = buildRegistry(TOOLS, "A");
  for (const tool of ["list_contacts", "export_contacts"]) {
    const t: CompiledTool = a.all.get(tool)!;
    const sortField = (t.listing.inputSchema.properties as Record<string, Node>).sortField;
    assert.equal(sortField.type, "string", tool);
    assert.deepEqual(sortField.enum, names, tool);
    for (const ok of [...names, ...Object.values(CONTACT_SORT_FIELDS)]) {
      assert.equal(t.schema.safeParse({ sortField: ok }).success, true, `${tool} ${ok}`);
    }
    for (const bad of ["password", "CreatedAt", "", "created_at desc"]) {
      const r = t.schema.safeParse({ sortField: bad });
      assert.equal(r.success, false, `${tool} ${bad}`);
      assert.match(r.error!.issues[0].message, /^must be one of createdAt, updatedAt, companyName/);
    }
  }
});

Deno.test("tools/list for an owner in A: the seed's tools within 19,389 tokens (o200k_base, issue 25's budget), each extension within 250", async () => {
  // the count bench/catalogue_tokens.ts prints, over the exact bytes /mcp sends
  const { measure } = await import("../../bench/catalogue_tokens.ts");
  const owner = measure().find((r) => r.variant === "A" && r.who === "owner")!;
  assert.equal(owner.tokens, countTokens(JSON.stringify({ tools: listing("A") })));
  // The portable spelling of the schemas may not make the seed's catalogue dearer than it was.
  assert.ok(owner.seedTokens <= 19_389, `${owner.seedTokens} tokens`);
  // Extensions pay their own way, and stay small: a lookup is a few fields, not a second catalogue.
  assert.deepEqual(Object.keys(owner.extensions).sort(), [...EXTENSION_TOOL_NAMES].sort());
  for (const [name, tokens] of Object.entries(owner.extensions)) {
    assert.ok(tokens <= 250, `${name}: ${tokens} tokens`);
  }
  // B's extensions (list_clients among them, a seed tool new to B) within the same 250 each
  const internal = measure().find((r) => r.variant === "B" && r.who === "internal key")!;
  assert.ok(Object.keys(internal.extensions).includes("list_clients"));
  for (const [name, tokens] of Object.entries(internal.extensions)) {
    assert.ok(tokens <= 250, `B ${name}: ${tokens} tokens`);
  }
});

Deno.test("README's Portico extensions table lists exactly the extension tools", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("### Portico extensions"));
  const table = section.slice(0, section.indexOf("\n### ") > 0 ? section.indexOf("\n### ") : undefined);
  const listed = new Set([...table.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]));
  for (const name of EXTENSION_TOOL_NAMES) assert.ok(listed.has(name), `README lacks ${name}`);
  // a seed tool newly served in a variant has its row too ("`list_clients` in B")
  for (const [variant, names] of Object.entries(VARIANT_EXTENSIONS)) {
    for (const name of names) {
      assert.match(
        table,
        new RegExp(`^\\| \`${name}\` in ${variant} `, "m"),
        `README lacks ${name} in ${variant}`,
      );
    }
  }
});
