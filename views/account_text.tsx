// Small helpers of the account pages' words (views/keys.tsx, account_workspaces.tsx).
//
// Exports: `fill(sentence, slots)`, `roleName(t, role)`.
import type { ComponentChildren } from "preact";
import type { Role } from "../lib/i18n/en/account.ts";
import type { Messages } from "../lib/i18n/mod.ts";

/**
 * A catalogue sentence with `{name}` slots, the slots filled with elements (`<code>` …) or plain data, so each
 * language keeps its own word order around them: `fill("Send it as the {header} header", { header: <code>…</code> })`.
 */
export function fill(sentence: string, slots: Record<string, ComponentChildren>): ComponentChildren[] {
  return sentence.split(/\{(\w+)\}/).map((piece, i) => (i % 2 === 1 ? slots[piece] : piece));
}

/** A workspace role in the page's words; a role the catalogue does not know is shown as it is. */
export function roleName(t: Messages, role: string): string {
  return Object.hasOwn(t.account.roles, role) ? t.account.roles[role as Role] : role;
}
