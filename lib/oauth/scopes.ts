// Which scopes a request gets: defaults, unknown scopes and agents refused, scopes the client may not have dropped.
import type { Db } from "../db/client.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { agentOfScope, isKnownScope, OPERATOR_ONLY_SCOPES } from "./scope_names.ts";

export const DEFAULT_SCOPES = ["openid", "profile"];
/** What a self-registered client may ask for when it registered no `scope`. */
export const DEFAULT_REGISTERED_SCOPES = ["openid", "profile", "agent.purchase"];
/**
 * What discovery advertises. Generic clients (mcp-remote among them) ask for every advertised scope, so only
 * scopes a general-purpose client may sensibly want are listed; `agent.purchase` and `agent.chat:<id>` exist
 * and are documented, but an app must ask for them by name.
 */
export const SCOPES_SUPPORTED = ["openid", "profile", "workspace", "offline_access"];

export function splitScope(scope: string | undefined): string[] {
  return [...new Set((scope ?? "").split(" ").filter((s) => s.length > 0))];
}

/**
 * Whether the client may receive `scope`. Fixed scopes must be registered. `agent.chat:<id>` is allowed when
 * the client registered that exact scope, or registered no agent.chat scope at all (then any agent, since the
 * consent page names the agent and the person decides). `workspace` is for operator-registered clients that
 * registered it, and for self-registered clients the operator trusts (admin client trust, or a metadata
 * document URL under TRUSTED_CLIENT_ID_PREFIXES).
 */
export function clientMayHave(client: Client, scope: string): boolean {
  if (OPERATOR_ONLY_SCOPES.has(scope)) {
    return client.selfRegistered ? client.trusted : client.scopes.includes(scope);
  }
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
  // Dropping `workspace` silently would hand out a token /mcp refuses, and the client would loop through
  // sign-in; a refusal that names the rule ends it (lib/oauth/authorize.ts shows it as a page to the person).
  for (const s of asked) {
    if (OPERATOR_ONLY_SCOPES.has(s) && !clientMayHave(client, s)) throw new WorkspaceNotAllowed(client);
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

/** An app asked for `workspace` without being allowed it; says what the operator must do. */
export class WorkspaceNotAllowed extends OAuthError {
  constructor(readonly client: Client) {
    super(
      "invalid_scope",
      client.selfRegistered
        ? "the workspace scope needs an operator's approval of this application " +
          `(deno task admin client trust ${client.clientId})`
        : "this client is not registered for the workspace scope",
    );
  }
}

/**
 * Where scopes are described: the consent page (the workspace is chosen below the list) or Connected apps
 * (it was chosen when the app was allowed, and the page shows it under "Acts in").
 */
export type ScopePage = "consent" | "connected_apps";

/** Plain-language meanings for the consent and Connected apps pages; agent names come from the database. */
export async function describeScopes(
  db: Db,
  scopes: string[],
  page: ScopePage,
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
          text:
            "Use your workspace tools as you: read and change projects, tasks, clients, invoices and more " +
            (page === "consent"
              ? "in the workspace you choose below"
              : "in the workspace you chose when you allowed it"),
        };
      default:
        return { scope, text: scope };
    }
  });
}
