// Toolsets and read-only access: the domains a connection may narrow its tools to, and how a selection is parsed.
import { accountKeys } from "../i18n/en/account_keys.ts";
import type { Area } from "./permissions.ts";
import type { AnyTool } from "./tool.ts";
import { isToolset, type Toolset, TOOLSETS } from "./toolset_names.ts";

// Re-exported: the names live in a leaf module so lib/api_keys.ts can validate them without importing the tool types.
export { isToolset, type Toolset, TOOLSETS };

/**
 * How pages (/account/keys, consent, connected apps) name each toolset to a person, in English; each language's
 * words are the catalogue's `t.account.toolsets.labels` (lib/i18n/<lang>/account_keys.ts).
 */
export const TOOLSET_LABELS: Readonly<Record<Toolset, string>> = accountKeys.toolsets.labels;

/**
 * The toolset of each role-permission area: the one statement of which domain a tool belongs to (a tool's area is
 * its source, so a new area fails to compile until it is placed). Clients sit with contacts in crm (the people
 * and companies you deal with); offers and invoices are finance; ideas belong to projects; recordings, like
 * documents, are material to read.
 */
export const AREA_TOOLSET = {
  projects: "projects",
  ideas: "projects",
  tasks: "tasks",
  clients: "crm",
  contacts: "crm",
  crm: "crm",
  offers: "finance",
  invoices: "finance",
  ai_activities: "ai",
  documents: "documents",
  recordings: "documents",
  time_tracking: "time",
  calendar: "calendar",
  booking: "booking",
  // null: in no toolset, so no selection removes them — every job needs to know who and where it is and whom it
  // works with (the part github-mcp-server calls its "context" toolset)
  context: null,
  members: null,
} as const satisfies Record<Area, Toolset | null>;

/** The toolset of a tool; null for the context tools, which every connection keeps (AREA_TOOLSET). */
export function toolsetOf(tool: Pick<AnyTool, "area">): Toolset | null {
  return AREA_TOOLSET[tool.area];
}

/** Is `tool` in one of `toolsets`? The context tools (toolset null) are in every selection. */
export function inToolsets(tool: Pick<AnyTool, "area">, toolsets: Iterable<string>): boolean {
  const set = toolsetOf(tool);
  return set === null || [...toolsets].includes(set);
}

/** What a connection asked for: only these toolsets (null = every one) and/or only read-only tools. */
export interface Selection {
  toolsets: ReadonlySet<Toolset> | null;
  readOnly: boolean;
}

/** Why a tool is outside `selection`, or null when it is inside. */
export function outsideSelection(tool: AnyTool, selection: Selection): string | null {
  const set = toolsetOf(tool);
  if (selection.toolsets && set !== null && !selection.toolsets.has(set)) {
    return `${tool.name} is in the ${set} toolset, outside this connection's toolsets (${
      [...selection.toolsets].join(", ") || "none"
    })`;
  }
  if (selection.readOnly && !tool.annotations.readOnlyHint) {
    return `${tool.name} changes data and this connection is read-only`;
  }
  return null;
}

/** A stable key of a selection (sorted), for caches. */
export function selectionKey(selection: Selection): string {
  const sets = selection.toolsets ? [...selection.toolsets].sort().join(",") : "*";
  return `${sets}|${selection.readOnly ? "ro" : "rw"}`;
}

export type SelectionResult = { ok: true; selection: Selection | null } | { ok: false; message: string };

const TRUE = new Set(["1", "true"]);
const FALSE = new Set(["0", "false"]);

/**
 * Reads `?toolsets=a,b&readonly=1` of an /mcp URL. Absent parameters select nothing (null: the caller's full
 * view). A selection only narrows: it is applied after the caller's own rights, never instead of them.
 */
export function parseSelection(toolsets: string | undefined, readonly: string | undefined): SelectionResult {
  let sets: Set<Toolset> | null = null;
  if (toolsets !== undefined) {
    const names = toolsets.split(",").map((s) => s.trim()).filter((s) => s !== "");
    if (names.length === 0) {
      return { ok: false, message: `toolsets must name at least one of: ${TOOLSETS.join(", ")}` };
    }
    const unknown = names.filter((n) => !isToolset(n));
    if (unknown.length > 0) {
      return {
        ok: false,
        message: `unknown toolset ${JSON.stringify(unknown[0].slice(0, 40))}; known: ${TOOLSETS.join(", ")}`,
      };
    }
    sets = new Set(names as Toolset[]);
  }
  let readOnly = false;
  if (readonly !== undefined) {
    if (TRUE.has(readonly)) readOnly = true;
    else if (!FALSE.has(readonly)) return { ok: false, message: "readonly must be 1, true, 0 or false" };
  }
  if (sets === null && !readOnly) return { ok: true, selection: null };
  return { ok: true, selection: { toolsets: sets, readOnly } };
}

/** What a credential itself is limited to (an API key's toolsets and read_only columns). */
export interface CredentialLimits {
  toolsets?: readonly string[];
  readOnly?: boolean;
}

/**
 * The selection in force: the credential's limits narrowed by the connection's (`url`). Toolsets intersect (an
 * empty intersection leaves no tool), read-only holds if either says so; null when nothing is limited.
 */
export function effectiveSelection(url: Selection | null, limits: CredentialLimits): Selection | null {
  const own = limits.toolsets ? new Set(limits.toolsets.filter(isToolset)) : null;
  let toolsets: ReadonlySet<Toolset> | null = url?.toolsets ?? null;
  if (own) toolsets = toolsets ? new Set([...toolsets].filter((t) => own.has(t))) : own;
  const readOnly = (url?.readOnly ?? false) || limits.readOnly === true;
  if (toolsets === null && !readOnly) return null;
  return { toolsets, readOnly };
}

/** What a page form chose: toolsets (null = every one) and read-only, or why the choice is refused. */
export type FormLimits =
  | { ok: true; toolsets: Toolset[] | null; readOnly: boolean }
  | { ok: false; problem: "unknown_toolset" | "no_toolset" | "invalid_read_only" };

/**
 * Reads the toolset checkboxes (every value of the `toolset` field) and the `read_only` checkbox of a page form
 * (/account/keys, consent). `shown` is the form's `toolset_choice` marker: a form that never offered the
 * choice (a script, an older page) limits nothing, while a form that offered it and came back with no box
 * checked is refused rather than read as "everything". Every toolset checked is no limit (null), so a key or
 * grant made that way also gets toolsets added later. Names come back in TOOLSETS order, each once.
 */
export function limitsFromForm(
  values: readonly string[],
  shown: boolean,
  readOnly: string | undefined,
): FormLimits {
  let ro = false;
  if (readOnly !== undefined && readOnly !== "") {
    if (TRUE.has(readOnly)) ro = true;
    else if (!FALSE.has(readOnly)) return { ok: false, problem: "invalid_read_only" };
  }
  if (!shown && values.length === 0) return { ok: true, toolsets: null, readOnly: ro };
  if (values.some((v) => !isToolset(v))) return { ok: false, problem: "unknown_toolset" };
  const chosen = TOOLSETS.filter((t) => values.includes(t));
  if (chosen.length === 0) return { ok: false, problem: "no_toolset" };
  return { ok: true, toolsets: chosen.length === TOOLSETS.length ? null : chosen, readOnly: ro };
}
