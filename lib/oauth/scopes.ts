// Which scopes a request gets: defaults, unknown scopes and agents refused, scopes the client may not have dropped.
import type { Db } from "../db/client.ts";
import type { Text } from "../i18n/mod.ts";
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

/** RFC 6749 §3.3: a scope token is printable ASCII other than space, `"` and `\\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

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

/**
 * Whether `workspace` waits on the operators for this client: it registered itself (or is a metadata document)
 * and is not trusted. The authorization request goes on; the person asks for approval after signing in
 * (lib/oauth/authorize.ts nextStep, routes/oauth_approval_pages.ts).
 */
export function needsApproval(client: Client, scopes: readonly string[]): boolean {
  return client.selfRegistered &&
    scopes.some((s) => OPERATOR_ONLY_SCOPES.has(s) && !clientMayHave(client, s));
}

/**
 * The scopes granted for a request; throws invalid_scope for unknown scopes/agents or when nothing is left. A
 * self-registered client that is not trusted keeps `workspace` here: the approval step of the flow gates it.
 */
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
  // sign-in: an operator-registered client gets a refusal that names the rule; a self-registered one keeps it
  // and the person asks the operators after signing in.
  for (const s of asked) {
    if (OPERATOR_ONLY_SCOPES.has(s) && !clientMayHave(client, s) && !client.selfRegistered) {
      throw new WorkspaceNotAllowed(client);
    }
  }
  const allowed = (s: string) =>
    clientMayHave(client, s) || (client.selfRegistered && OPERATOR_ONLY_SCOPES.has(s));
  // offline_access is accepted and ignored: refresh tokens depend on the client's registered grant types.
  const granted = asked
    .filter((s) => s !== "offline_access")
    .map((s) => agentOfScope(s) ? `agent.chat:${agentOfScope(s)}` : s)
    .filter(allowed);
  if (granted.length === 0) {
    throw new OAuthError("invalid_scope", "none of the requested scopes is available to this client");
  }
  return [...new Set(granted)];
}

/** An operator-registered app asked for `workspace` without having registered it. */
export class WorkspaceNotAllowed extends OAuthError {
  constructor(readonly client: Client) {
    super("invalid_scope", "this client is not registered for the workspace scope");
  }
}

/**
 * Where scopes are described: the consent page (the workspace is chosen below the list) or Connected apps
 * (it was chosen when the app was allowed, and the page shows it under "Acts in").
 */
export type ScopePage = "consent" | "connected_apps";

/**
 * Plain-language meanings for the consent, approval and Connected apps pages, as catalogue texts (`Text`: the page
 * words them in its language when it renders); agent names come from the database.
 */
export async function describeScopes(
  db: Db,
  scopes: string[],
  page: ScopePage,
): Promise<Array<{ scope: string; text: Text }>> {
  const agentIds = scopes.map(agentOfScope).filter((a): a is string => a !== undefined);
  const names = new Map<string, string>();
  if (agentIds.length > 0) {
    const rows = await db<{ id: string; name: string }[]>`
      select id, name from agents where id = any(${agentIds}::uuid[])`;
    for (const r of rows) names.set(r.id, r.name);
  }
  return scopes.map((scope): { scope: string; text: Text } => {
    const agent = agentOfScope(scope);
    if (agent) {
      const name = names.get(agent);
      return { scope, text: (t) => t.flow.scopes.agentChat(name ?? t.flow.scopes.unknownAgent) };
    }
    switch (scope) {
      case "openid":
        return { scope, text: (t) => t.flow.scopes.openid };
      case "profile":
        return { scope, text: (t) => t.flow.scopes.profile };
      case "agent.purchase":
        return { scope, text: (t) => t.flow.scopes.purchase };
      case "workspace":
        return {
          scope,
          text: (t) => page === "consent" ? t.flow.scopes.workspaceConsent : t.flow.scopes.workspaceConnected,
        };
      default:
        return { scope, text: scope };
    }
  });
}
