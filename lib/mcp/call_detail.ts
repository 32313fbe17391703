// What the audit trail keeps of a tools/call beyond its outcome, for the activity pages (docs/activity.md): the
// records it named or created (UUID-shaped ids only), why it was refused or failed (a code word; a message only
// when the message is built from the tool and the caller, never from the arguments), and whether it ran after
// the person confirmed it.
//
// Exports: `CallDetail`, `recordsOf(args, value)`, `reasonOf(err, ruleRefusal)`, `readReason(reason)` (a stored reason
// read back, for the pages to put in words), `MAX_RECORDS`, `REASON_MAX`, `ToolOutcome` (how a call ended) and
// `outcomeOf(err)`.
import type { AppError } from "../errors.ts";
import { isUuid } from "../errors.ts";

/** Records kept per call at most. */
export const MAX_RECORDS = 10;
/** The longest reason kept. */
export const REASON_MAX = 300;

export interface CallDetail {
  /** `field:uuid` of the ids the call named (top-level `id` and `…Id` arguments) or created (the result's `id`) */
  records?: string[];
  /** why it did not run or failed; absent when it ran */
  reason?: string;
  /** it ran after the person confirmed it (MCP 2026 input_required, answered yes) */
  confirmed?: boolean;
}

const ID_FIELD = /^(id|[a-z][A-Za-z0-9]{0,40}Id)$/;

/**
 * The ids a call touched: UUID-shaped values of the top-level `id`/`…Id` arguments, then the `id` of the record the
 * result describes. Only UUIDs, so no free text of the arguments reaches the trail; at most MAX_RECORDS.
 */
export function recordsOf(args: Record<string, unknown>, value?: unknown): string[] | undefined {
  const out: string[] = [];
  const add = (field: string, v: unknown) => {
    if (out.length >= MAX_RECORDS || typeof v !== "string" || !isUuid(v)) return;
    const entry = `${field}:${v.toLowerCase()}`;
    if (!out.includes(entry)) out.push(entry);
  };
  for (const [field, v] of Object.entries(args)) if (ID_FIELD.test(field)) add(field, v);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === "string" && !out.some((e) => e.endsWith(`:${id.toLowerCase()}`))) add("id", id);
  }
  return out.length > 0 ? out : undefined;
}

/**
 * The reason of a refused or failed call: `code: message` for a rule refusal (lib/mcp/permissions.ts `denial`:
 * its words come from the tool's definition and the caller's role), the code word alone otherwise — a tool's
 * own message may quote what the client sent.
 */
export function reasonOf(err: AppError, ruleRefusal = false): string {
  const text = ruleRefusal ? `${err.code}: ${err.message}` : err.code;
  return text.length <= REASON_MAX ? text : text.slice(0, REASON_MAX);
}

/** A rule refusal of lib/mcp/permissions.ts `denial`, by its values: the pages say it in the reader's language. */
export type ReasonRule =
  | { rule: "needsUser"; tool: string }
  | { rule: "needsInternalKey"; tool: string }
  /** role null: "the key's role" (a key without a member's role) */
  | { rule: "roleArea"; role: string | null; area: string }
  | { rule: "moduleOff"; module: string };

export interface StoredReason {
  /** the code word (`access_denied`, `invalid_input` …), as stored */
  code: string;
  /** the rule, when the stored sentence is one of `denial`'s; null for a bare code or a sentence not known here */
  rule: ReasonRule | null;
}

// `denial`'s sentences, word for word (tests/i18n/activity_pages.test.ts builds each with `denial` and reads it back).
const RULES: ReadonlyArray<[RegExp, (m: RegExpExecArray) => ReasonRule]> = [
  [
    /^(\S+) acts as a person and needs an API key bound to a user$/,
    (m) => ({ rule: "needsUser", tool: m[1] }),
  ],
  [
    /^(\S+) acts as a person and is only available to the workspace assistant \(internal key\)$/,
    (m) => ({ rule: "needsInternalKey", tool: m[1] }),
  ],
  [
    /^the (\S+) role may not use (\S+) tools in this workspace$/,
    (m) => ({ rule: "roleArea", role: m[1] === "key's" ? null : m[1], area: m[2] }),
  ],
  [/^the (\S+) module is disabled in this workspace$/, (m) => ({ rule: "moduleOff", module: m[1] })],
];

/**
 * A stored reason (`code` or `code: sentence`, see reasonOf) read back: the code stays what it is in the trail and
 * the CSV; the pages put it in words at display time, keyed by the code, and a known rule by its values.
 */
export function readReason(reason: string): StoredReason {
  const i = reason.indexOf(": ");
  if (i <= 0) return { code: reason, rule: null };
  const sentence = reason.slice(i + 2);
  for (const [re, rule] of RULES) {
    const m = re.exec(sentence);
    if (m) return { code: reason.slice(0, i), rule: rule(m) };
  }
  return { code: reason.slice(0, i), rule: null };
}

/** How a tools/call ended, for the audit trail (asked: the person is asked first; declined: they said no). */
export type ToolOutcome =
  | "ok"
  | "error"
  | "denied"
  | "unavailable"
  | "invalid"
  | "crash"
  | "asked"
  | "declined";

/** The outcome of a call refused with `err`. */
export function outcomeOf(err: AppError): ToolOutcome {
  if (err.code === "access_denied") return "denied";
  if (err.code === "unavailable") return "unavailable";
  if (err.code === "invalid_input") return "invalid";
  return "error";
}
