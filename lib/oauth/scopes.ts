// Which scopes a request gets: defaults, unknown scopes and agents refused, scopes the client may not have dropped.
import type { Db } from "../db/client.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { agentOfScope, isKnownScope, OPERATOR_ONLY_SCOPES } from "./scope_names.ts";

export const DEFAULT_SCOPES = ["openid", "profile"];
/** What a self-registered client may ask for when it registered no `scope`. */
export const DEFAULT_REGISTERED_SCOPES = ["openid", "profile", "agent.purchase"];
/** Everything discovery advertises (agent.chat:<id> stands for one scope per agent). */
export const SCOPES_SUPPORTED = ["openid", "profile", "agent.purchase", "workspace", "offline_access"];

export function splitScope(scope: string | undefined): string[] {
  return [...new Set((scope ?? "").split(" ").filter((s) => s.length > 0))];
}

/**
 * Whether the client may receive `scope`. Fixed scopes must be registered. `agent.chat:<id>` is allowed when
 * the client registered that exact scope, or registered no agent.chat scope at all (then any agent, since the
 * consent page names the agent and the person decides). `workspace` is for operator-registered clients only.
 */
export function clientMayHave(client: Client, scope: string): boolean {
  if (OPERATOR_ONLY_SCOPES.has(scope) && client.selfRegistered) return false;
  if (agentOfScope(scope)) {
    const registered = client.scopes.filter((s) => agentOfScope(s));
    return registered.length === 0 || registered.some((s) => s.toLowerCase() === scope.toLowerCase());
  }
  return client.scopes.includes(scope);
}

/** The scopes granted for a request; throws invalid_scope for unknown scopes/agents or when nothing is left. */
export async function resolveScopes(
  db: Db,
  client: Client,
  requested: string | undefined,
): Promise<string[]> {
  let asked = splitScope(requested);
  if (asked.length === 0) asked = DEFAULT_SCOPES;
  for (const s of asked) {
    if (s.length > 200 || !isKnownScope(s)) throw new OAuthError("invalid_scope", `unknown scope ${s}`);
  }
  const agentIds = asked.map(agentOfScope).filter((a): a is string => a !== undefined);
  if (agentIds.length > 0) {
    const rows = await db<{ id: string }[]>`select id from agents where id = any(${agentIds}::uuid[])`;
    const found = new Set(rows.map((r) => r.id));
    const missing = agentIds.find((a) => !found.has(a));
    if (missing) throw new OAuthError("invalid_scope", `unknown agent ${missing} in agent.chat:${missing}`);
  }
  // offline_access is accepted and ignored: refresh tokens depend on the client's registered grant types.
  const granted = asked
    .filter((s) => s !== "offline_access")
    .map((s) => agentOfScope(s) ? `agent.chat:${agentOfScope(s)}` : s)
    .filter((s) => clientMayHave(client, s));
  if (granted.length === 0) {
    throw new OAuthError("invalid_scope", "none of the requested scopes is available to this client");
  }
  return [...new Set(granted)];
}

/** Plain-language meanings for the consent page; agent names come from the database. */
export async function describeScopes(
  db: Db,
  scopes: string[],
): Promise<Array<{ scope: string; text: string }>> {
  const agentIds = scopes.map(agentOfScope).filter((a): a is string => a !== undefined);
  const names = new Map<string, string>();
  if (agentIds.length > 0) {
    const rows = await db<{ id: string; name: string }[]>`
      select id, name from agents where id = any(${agentIds}::uuid[])`;
    for (const r of rows) names.set(r.id, r.name);
  }
  return scopes.map((scope) => {
    const agent = agentOfScope(scope);
    if (agent) {
      return { scope, text: `Chat with the agent “${names.get(agent) ?? "unknown agent"}” as you` };
    }
    switch (scope) {
      case "openid":
        return { scope, text: "Know who you are (a stable account identifier)" };
      case "profile":
        return {
          scope,
          text:
            "See your name, email address, picture, plan, credits, unlocked agents and agent subscriptions",
        };
      case "agent.purchase":
        return { scope, text: "Buy agents and agent subscriptions for you, paid with your credits" };
      case "workspace":
        return {
          scope,
          text: "Read and change your workspace data (projects, tasks, clients, invoices and more)",
        };
      default:
        return { scope, text: scope };
    }
  });
}
