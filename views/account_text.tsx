// Small helpers of the account pages' words (views/keys.tsx, account_workspaces.tsx).
//
// Exports: `fill(sentence, slots)`, `roleName(t, role)`.
import type { Role } from "../lib/i18n/en/account.ts";
import type { Messages } from "../lib/i18n/mod.ts";

/** A catalogue sentence with `{name}` slots filled (views/fill.tsx). */
export { fill } from "./fill.tsx";

/** A workspace role in the page's words; a role the catalogue does not know is shown as it is. */
export function roleName(t: Messages, role: string): string {
  return Object.hasOwn(t.account.roles, role) ? t.account.roles[role as Role] : role;
}
