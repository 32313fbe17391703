// Task id parameters: a UUID or a display id (WEB-42) in the schema, resolved to the UUID before the tool runs.
import { z } from "zod";
import { typeError } from "./fields.ts";
import type { InputSchema, ToolDefinition } from "./tool.ts";
import { normaliseTaskRef, resolveTaskRefs } from "../workspace/task_refs.ts";

/** The rule in words; the advertised schema is a plain string (a `format: uuid` would make clients refuse WEB-42). */
export const TASK_REF_RULE = "must be a UUID or a display id such as WEB-42";

const REF_FIELDS = new WeakSet<z.ZodType>();

/**
 * A task id parameter: a task's UUID or its display id (`WEB-42`, case-insensitive), answered normalised (UUID
 * lower-case, display id upper-case). `description` should end with "UUID or display id (WEB-42)." Tools declared
 * with withTaskRefs() get such fields resolved to the UUID (lib/workspace/task_refs.ts) before `run`.
 */
export function taskRefField(description: string) {
  const field = z.string(typeError(TASK_REF_RULE))
    .refine((s) => normaliseTaskRef(s) !== null, { error: TASK_REF_RULE })
    .transform((s) => normaliseTaskRef(s)!)
    .describe(description);
  REF_FIELDS.add(field);
  return field;
}

/** The schema node under optional/nullable/default wrappers. */
function unwrapped(node: z.ZodType): z.ZodType {
  let n = node;
  while (n instanceof z.ZodOptional || n instanceof z.ZodNullable || n instanceof z.ZodDefault) {
    n = n.unwrap() as z.ZodType;
  }
  return n;
}

/** The fields of an input schema that are task references (taskRefField), or arrays of them. */
export function taskRefFieldsOf(schema: InputSchema): string[] {
  const out: string[] = [];
  for (const [name, node] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const n = unwrapped(node);
    const item = n instanceof z.ZodArray ? unwrapped(n.element as z.ZodType) : n;
    if (REF_FIELDS.has(item)) out.push(name);
  }
  return out;
}

const WRAPPED = new WeakSet<object>();

/**
 * The tool with its task reference fields (found in each variant's schema) resolved to task UUIDs before its
 * `run`, under the caller's visibility rules: the one place display ids are resolved for every tool.
 */
export function withTaskRefs<A extends InputSchema, B extends InputSchema = A>(
  def: ToolDefinition<A, B>,
): ToolDefinition<A, B> {
  const fields = {
    A: def.variants.A ? taskRefFieldsOf(def.variants.A) : [],
    B: def.variants.B ? taskRefFieldsOf(def.variants.B) : [],
  };
  const wrapped: ToolDefinition<A, B> = {
    ...def,
    run: async (ctx, input) => {
      const names = fields[ctx.variant];
      const resolved = names.length === 0
        ? input
        : await resolveTaskRefs(ctx.db, ctx.caller, input as Record<string, unknown>, names) as typeof input;
      return def.run(ctx, resolved);
    },
  };
  WRAPPED.add(wrapped);
  return wrapped;
}

/** Does this tool resolve its task references (tests check every tool with such a field does)? */
export function resolvesTaskRefs(def: object): boolean {
  return WRAPPED.has(def);
}
