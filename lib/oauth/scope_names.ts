// The scope vocabulary: which scope strings exist at all (what a client may get is decided elsewhere).
const FIXED = new Set(["openid", "profile", "agent.purchase", "workspace", "offline_access"]);
const AGENT_CHAT = /^agent\.chat:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Scopes self-registered clients never receive. */
export const OPERATOR_ONLY_SCOPES = new Set(["workspace"]);

export function isKnownScope(scope: string): boolean {
  return FIXED.has(scope) || AGENT_CHAT.test(scope);
}

/** The agent id of an `agent.chat:<id>` scope, or undefined. */
export function agentOfScope(scope: string): string | undefined {
  return AGENT_CHAT.test(scope) ? scope.slice("agent.chat:".length).toLowerCase() : undefined;
}
