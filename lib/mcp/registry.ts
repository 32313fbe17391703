// The tool registry of one variant: schemas, JSON Schemas and tools/list answers computed once, views per caller.
import { z } from "zod";
import type { McpVariant } from "../config.ts";
import type { Caller } from "./caller.ts";
import { capabilitySignature, denial, isArea } from "./permissions.ts";
import type { AnyTool, InputSchema, ToolAnnotations } from "./tool.ts";
import { isModule } from "../workspace/modules.ts";
import { AppError } from "../errors.ts";
import { outsideSelection, type Selection, selectionKey } from "./toolsets.ts";

/** One tool as served by one variant. */
export interface CompiledTool {
  name: string;
  def: AnyTool;
  schema: InputSchema;
  /** the entry of tools/list: name, title, description, inputSchema, annotations */
  listing: {
    name: string;
    title?: string;
    description: string;
    inputSchema: Record<string, unknown>;
    outputSchema?: Record<string, unknown>;
    annotations: ToolAnnotations;
  };
}

/** The tools one caller may use, with the serialised tools/list result. */
export interface ToolView {
  tools: ReadonlyMap<string, CompiledTool>;
  /** `{"tools":[…]}` as JSON text, spliced into responses without re-serialising */
  listJson: string;
  /** listJson as UTF-8: encoding ~150 kB per request would cost more than the rest of the request */
  listBytes: Uint8Array<ArrayBuffer>;
}

export interface Registry {
  variant: McpVariant;
  /** every tool of the variant, whether or not a given caller may use it */
  all: ReadonlyMap<string, CompiledTool>;
  /** the caller's view, cached per capability signature */
  view(caller: Caller): ToolView;
}

const ANNOTATION_KEYS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
/** Distinct capability signatures are few (roles × module sets); the bound only guards against surprises. */
const MAX_VIEWS = 500;

type JsonNode = Record<string, unknown>;

/**
 * Formats a JSON Schema validator (and a model) understands without the pattern zod also emits. The server keeps
 * validating with the zod schema (the full ISO date and UUID rules), so only the advertised schema gets shorter:
 * the patterns were a third of the tools/list tokens.
 */
const FORMATS_WITHOUT_PATTERN: ReadonlySet<string> = new Set(["uuid", "date", "date-time", "email", "time"]);

/**
 * Makes one schema node shorter without changing what it accepts: drops a pattern that restates `format`, a
 * `minLength` or `minItems` of 0, z.int()'s safe-integer bounds, the description of array items (the array's own description says it), and folds
 * `anyOf: [X, {type: "null"}]` into X with `type: [X.type, "null"]`.
 */
function compactNode(node: JsonNode, parentDescribed: boolean): void {
  for (const alt of (node.anyOf ?? []) as JsonNode[]) compactNode(alt, false);
  for (const p of Object.values((node.properties ?? {}) as Record<string, JsonNode>)) compactNode(p, false);
  if (node.items && typeof node.items === "object") compactNode(node.items as JsonNode, !!node.description);
  const anyOf = node.anyOf as JsonNode[] | undefined;
  if (anyOf?.length === 2 && anyOf[1].type === "null" && Object.keys(anyOf[1]).length === 1) {
    const inner = anyOf[0];
    if (typeof inner.type === "string" && !inner.anyOf && inner.const === undefined) {
      delete node.anyOf;
      const description = node.description ?? inner.description;
      Object.assign(node, inner, { type: [inner.type, "null"] });
      if (Array.isArray(inner.enum)) node.enum = [...inner.enum, null];
      if (description !== undefined) node.description = description;
    }
  }
  if (typeof node.format === "string" && FORMATS_WITHOUT_PATTERN.has(node.format)) delete node.pattern;
  if (node.minLength === 0) delete node.minLength;
  if (node.minItems === 0) delete node.minItems;
  // z.int()'s implicit safe-integer bounds, and an object that allows anything, say nothing a client needs
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  const props = node.properties as JsonNode | undefined;
  const extra = node.additionalProperties as JsonNode | undefined;
  if (props && Object.keys(props).length === 0 && extra && Object.keys(extra).length === 0) {
    delete node.properties;
    delete node.additionalProperties;
  }
  if (parentDescribed) delete node.description;
}

/**
 * JSON Schema of a tool input, without the $schema marker (MCP assumes 2020-12), compacted (compactNode).
 * `field.describe(…).nullable()` puts the description inside anyOf, where clients do not show it: it is hoisted
 * to the property.
 */
export function inputJsonSchema(schema: InputSchema): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as JsonNode;
  delete json.$schema;
  for (const prop of Object.values((json.properties ?? {}) as Record<string, JsonNode>)) {
    const alts = prop.anyOf as JsonNode[] | undefined;
    const inner = alts?.find((p) => p.description);
    if (!prop.description && inner) {
      prop.description = inner.description;
      for (const p of alts!) delete p.description;
    }
  }
  compactNode(json, false);
  return json;
}

/** JSON Schema of a tool's structuredContent, compacted like the inputs. */
export function outputJsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "throw" }) as JsonNode;
  delete json.$schema;
  // a result may gain fields later without breaking clients that validate it
  delete json.additionalProperties;
  compactNode(json, false);
  return json;
}

/** Refuses a definition that would mislead clients or skip a rule; runs once per registry build. */
function validate(def: AnyTool, json: Record<string, unknown>, variant: McpVariant): void {
  const where = `tool ${def.name} (variant ${variant})`;
  if (!isArea(def.area)) throw new Error(`${where}: unknown area ${def.area}`);
  if (def.module !== null && !isModule(def.module)) throw new Error(`${where}: unknown module ${def.module}`);
  for (const k of ANNOTATION_KEYS) {
    if (typeof def.annotations?.[k] !== "boolean") throw new Error(`${where}: annotation ${k} is not set`);
  }
  const props = (json.properties ?? {}) as Record<string, { description?: string }>;
  for (const [field, prop] of Object.entries(props)) {
    if (!prop.description) throw new Error(`${where}: field ${field} has no .describe()`);
  }
}

function descriptionFor(def: AnyTool, variant: McpVariant): string {
  const d = typeof def.description === "string" ? def.description : def.description[variant];
  if (!d) throw new Error(`tool ${def.name} has no description for variant ${variant}`);
  return d;
}

function listJson(tools: Iterable<CompiledTool>): string {
  return JSON.stringify({ tools: [...tools].map((t) => t.listing) });
}

/** Compiles the tools of `variant` from `tools` (the order of `tools` is the order of tools/list). */
export function buildRegistry(tools: readonly AnyTool[], variant: McpVariant): Registry {
  const all = new Map<string, CompiledTool>();
  for (const def of tools) {
    const schema = def.variants[variant];
    if (!schema) continue;
    if (all.has(def.name)) throw new Error(`tool ${def.name} is registered twice`);
    const inputSchema = inputJsonSchema(schema);
    validate(def, inputSchema, variant);
    const listing = {
      name: def.name,
      ...(def.title ? { title: def.title } : {}),
      description: descriptionFor(def, variant),
      inputSchema,
      ...(def.outputSchema ? { outputSchema: outputJsonSchema(def.outputSchema) } : {}),
      annotations: { ...def.annotations },
    };
    all.set(def.name, { name: def.name, def, schema, listing });
  }
  const views = new Map<string, ToolView>();
  return {
    variant,
    all,
    view(caller) {
      const sig = capabilitySignature(caller, variant);
      let v = views.get(sig);
      if (!v) {
        const allowed = new Map<string, CompiledTool>();
        for (const t of all.values()) if (!denial(t.def, caller, variant)) allowed.set(t.name, t);
        const json = listJson(allowed.values());
        v = { tools: allowed, listJson: json, listBytes: new TextEncoder().encode(json) };
        if (views.size >= MAX_VIEWS) views.clear();
        views.set(sig, v);
      }
      return v;
    },
  };
}

const built = new WeakMap<readonly AnyTool[], Partial<Record<McpVariant, Registry>>>();

/** buildRegistry, shared by every app instance built from the same tool list (tests build many apps). */
export function registryFor(tools: readonly AnyTool[], variant: McpVariant): Registry {
  let byVariant = built.get(tools);
  if (!byVariant) built.set(tools, byVariant = {});
  return byVariant[variant] ??= buildRegistry(tools, variant);
}

/** Any arguments: a tool outside the selection answers `unavailable:` whatever it was sent. */
const ANY_INPUT = z.looseObject({});

/** A stand-in for a tool outside the connection's selection: listed nowhere, and every call is unavailable. */
function unavailableTool(t: CompiledTool, why: string): CompiledTool {
  const run = () => {
    throw new AppError("unavailable", why);
  };
  return { ...t, schema: ANY_INPUT, def: { ...t.def, run } };
}

const narrowed = new WeakMap<Registry, Map<string, Registry>>();

/**
 * `base` narrowed to a connection's selection (`/mcp?toolsets=…&readonly=1`, lib/mcp/toolsets.ts): tools outside
 * it are absent from tools/list and answer `unavailable:`. It only removes tools from the caller's own view, so
 * it can never widen what a caller may do. Built once per selection (at most 2^9 × 2 of them) and registry.
 */
export function narrowRegistry(base: Registry, selection: Selection): Registry {
  let bySelection = narrowed.get(base);
  if (!bySelection) narrowed.set(base, bySelection = new Map());
  const key = selectionKey(selection);
  const cached = bySelection.get(key);
  if (cached) return cached;
  const all = new Map<string, CompiledTool>();
  for (const t of base.all.values()) {
    const why = outsideSelection(t.def, selection);
    all.set(t.name, why ? unavailableTool(t, why) : t);
  }
  // keyed by the base view, which is itself cached per capability signature
  const views = new WeakMap<ToolView, ToolView>();
  const registry: Registry = {
    variant: base.variant,
    all,
    view(caller) {
      const full = base.view(caller);
      let v = views.get(full);
      if (!v) {
        const allowed = new Map<string, CompiledTool>();
        for (const t of full.tools.values()) if (all.get(t.name) === t) allowed.set(t.name, t);
        const json = listJson(allowed.values());
        v = { tools: allowed, listJson: json, listBytes: new TextEncoder().encode(json) };
        views.set(full, v);
      }
      return v;
    },
  };
  bySelection.set(key, registry);
  return registry;
}
