// The tool registry of one variant: schemas, JSON Schemas and tools/list answers computed once, views per caller.
import { z } from "zod";
import type { McpVariant } from "../config.ts";
import type { Caller } from "./caller.ts";
import { capabilitySignature, denial, isArea } from "./permissions.ts";
import type { AnyTool, InputSchema, ToolAnnotations } from "./tool.ts";
import { isModule } from "../workspace/modules.ts";
import { AppError } from "../errors.ts";
import { outsideSelection, type Selection, selectionKey } from "./toolsets.ts";
import { inputJsonSchema, outputJsonSchema } from "./json_schema.ts";

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
