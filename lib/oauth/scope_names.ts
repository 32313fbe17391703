// The scope vocabulary: which scope strings exist at all (what a client may get is decided elsewhere).
import { isUuid } from "../errors.ts";

const FIXED = new Set(["openid", "profile", "agent.purchase", "workspace", "offline_access"]);
const AGENT_CHAT = "agent.chat:";

function isAgentChat(scope: string): boolean {
  return scope.startsWith(AGENT_CHAT) && isUuid(scope.slice(AGENT_CHAT.length));
}

/** Scopes self-registered clients never receive. */
export const OPERATOR_ONLY_SCOPES = new Set(["workspace"]);

export function isKnownScope(scope: string): boolean {
  return FIXED.has(scope) || isAgentChat(scope);
}

/** The agent id of an `agent.chat:<id>` scope, or undefined. */
export function agentOfScope(scope: string): string | undefined {
  return isAgentChat(scope) ? scope.slice(AGENT_CHAT.length).toLowerCase() : undefined;
}
