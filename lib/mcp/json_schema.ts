// Tool input and output zod schemas as the JSON Schemas tools/list advertises: short, and portable (docs/mcp.md).
import { z } from "zod";
import type { InputSchema } from "./tool.ts";

type JsonNode = Record<string, unknown>;

/**
 * Formats a JSON Schema validator (and a model) understands without the pattern zod also emits. The server keeps
 * validating with the zod schema (the full ISO date and UUID rules), so only the advertised schema gets shorter:
 * the patterns were a third of the tools/list tokens.
 */
const FORMATS_WITHOUT_PATTERN: ReadonlySet<string> = new Set(["uuid", "date", "date-time", "email", "time"]);

/** The keywords that constrain only values of one JSON type, so they move with that type into its own branch. */
const KEYWORDS_OF_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"],
  object: [
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "patternProperties",
    "minProperties",
    "maxProperties",
  ],
  boolean: [],
  null: [],
};

function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function valueFits(value: unknown, type: string): boolean {
  const t = jsonTypeOf(value);
  return t === type || (type === "number" && t === "integer");
}

/**
 * One `type` per schema node: zod writes `z.union([z.string(), z.number()])` as `type: ["string", "number"]`,
 * which single-type dialects (Gemini's function declarations, OpenAPI 3.0) reject and Ajv's strict mode refuses
 * (strictTypes). The node becomes `anyOf` with one branch per type, each keeping the keywords of its type.
 */
function splitTypeList(node: JsonNode): void {
  if (!Array.isArray(node.type)) return;
  const types = node.type as string[];
  delete node.type;
  const branches = types.map((type) => {
    const branch: JsonNode = { type };
    for (const k of KEYWORDS_OF_TYPE[type] ?? []) if (k in node) branch[k] = node[k];
    if (Array.isArray(node.enum)) branch.enum = node.enum.filter((v) => valueFits(v, type));
    if ("const" in node && valueFits(node.const, type)) branch.const = node.const;
    return branch;
  }).filter((b) => !(Array.isArray(b.enum) && b.enum.length === 0));
  for (const k of Object.values(KEYWORDS_OF_TYPE).flat()) delete node[k];
  delete node.enum;
  delete node.const;
  node.anyOf = [...branches, ...((node.anyOf ?? []) as JsonNode[])];
}

/** `anyOf: [{anyOf: [A, B]}, C]` → `anyOf: [A, B, C]` when the inner node says nothing else. */
function flattenAnyOf(node: JsonNode): void {
  const anyOf = node.anyOf as JsonNode[] | undefined;
  if (!anyOf) return;
  node.anyOf = anyOf.flatMap((alt) => {
    if (!Array.isArray(alt.anyOf) || !Object.keys(alt).every((k) => k === "anyOf" || k === "description")) {
      return [alt];
    }
    node.description ??= alt.description;
    return alt.anyOf as JsonNode[];
  });
  if (node.description === undefined) delete node.description;
}

/**
 * Makes one schema node shorter and portable without changing what it accepts: one `type` per node (splitTypeList),
 * no pattern that restates `format`, no `minLength` or `minItems` of 0, no z.int() safe-integer bounds, no
 * `additionalProperties: {}` or `propertyNames: {type: "string"}` (JSON already allows both), the description of an
 * `anyOf` branch hoisted to the node, and none on array items (the array's own description says it).
 */
function compactNode(node: JsonNode, parentDescribed: boolean): void {
  splitTypeList(node);
  for (const alt of (node.anyOf ?? []) as JsonNode[]) compactNode(alt, false);
  flattenAnyOf(node);
  for (const p of Object.values((node.properties ?? {}) as Record<string, JsonNode>)) compactNode(p, false);
  if (node.items && typeof node.items === "object") compactNode(node.items as JsonNode, !!node.description);
  if (isObject(node.additionalProperties)) compactNode(node.additionalProperties, false);
  const anyOf = node.anyOf as JsonNode[] | undefined;
  const described = anyOf?.find((alt) => alt.description !== undefined);
  if (anyOf && described) {
    node.description ??= described.description;
    for (const alt of anyOf) delete alt.description;
  }
  if (typeof node.format === "string" && FORMATS_WITHOUT_PATTERN.has(node.format)) delete node.pattern;
  if (node.minLength === 0) delete node.minLength;
  if (node.minItems === 0) delete node.minItems;
  // z.int()'s implicit safe-integer bounds say nothing a client needs
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  // an empty schema under additionalProperties is the default; the Inspector's lint reads it as an untyped value
  if (isObject(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0) {
    delete node.additionalProperties;
  }
  const names = node.propertyNames;
  if (isObject(names) && names.type === "string" && Object.keys(names).length === 1) {
    delete node.propertyNames;
  }
  if (
    isObject(node.properties) && Object.keys(node.properties).length === 0 &&
    !("additionalProperties" in node)
  ) {
    delete node.properties;
  }
  if (parentDescribed) delete node.description;
  leadWith(node, ["description", "type"]);
}

/**
 * Puts `keys` first. Order is meaning-free in JSON Schema, but o200k_base spends fewer tokens on
 * `{"description":…,"type":…}` than on the same keys the other way round (about 200 tokens over A's catalogue).
 */
function leadWith(node: JsonNode, keys: readonly string[]): void {
  const entries = Object.entries(node);
  for (const [k] of entries) delete node[k];
  for (const k of keys) if (entries.some(([e]) => e === k)) node[k] = entries.find(([e]) => e === k)![1];
  for (const [k, v] of entries) if (!keys.includes(k)) node[k] = v;
}

function isObject(v: unknown): v is JsonNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** JSON Schema of a tool input, without the $schema marker (MCP assumes 2020-12), compacted (compactNode). */
export function inputJsonSchema(schema: InputSchema): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as JsonNode;
  delete json.$schema;
  compactNode(json, false);
  return json;
}

/** JSON Schema of a tool's structuredContent, compacted like the inputs. */
export function outputJsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "throw" }) as JsonNode;
  delete json.$schema;
  // a result may gain fields later, or leave one out, without breaking clients that validate it; `required`
  // was also what the portable `anyOf` null branches cost in tokens (docs/mcp.md, "Portable schemas")
  delete json.additionalProperties;
  delete json.required;
  compactNode(json, false);
  return json;
}
