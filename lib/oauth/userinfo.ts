// The UserInfo claims: `sub` always; with `profile`, the account, its plan, credits, agents and subscriptions.
import type { Db } from "../db/client.ts";

/** The UserInfo endpoint's URL: an audience a token may name to be accepted there. */
export function userInfoUrl(issuer: string): string {
  return `${issuer}/oauth/userinfo`;
}

/**
 * RFC 9068 §4: a resource refuses tokens not issued for it. UserInfo belongs to the authorization server, so it
 * accepts a token whose `aud` names the issuer (what a token requested without `resource` carries) or the
 * UserInfo URL; a token only for `{ISSUER}/mcp` or another resource is refused.
 */
export function isForUserInfo(aud: string | string[], issuer: string): boolean {
  const audiences = Array.isArray(aud) ? aud : [aud];
  return audiences.includes(issuer) || audiences.includes(userInfoUrl(issuer));
}

export async function userInfoClaims(
  db: Db,
  userId: string,
  scopes: string[],
): Promise<Record<string, unknown> | undefined> {
  const [user] = await db<{
    id: string;
    email: string;
    emailVerified: boolean;
    name: string;
    picture: string | null;
    plan: string;
    credits: number;
  }[]>`
    select id, email, email_verified as "emailVerified", name, picture, plan, credits from users
     where id = ${userId}`;
  if (!user) return undefined;
  if (!scopes.includes("profile")) return { sub: user.id };
  const agents = await db<{ id: string; name: string }[]>`
    select a.id, a.name from user_agents ua join agents a on a.id = ua.agent_id
    where ua.user_id = ${userId} order by a.name`;
  const subs = await db<{
    agentId: string;
    agentName: string;
    plan: string;
    status: string;
    currentPeriodEnd: Date;
  }[]>`
    select s.agent_id as "agentId", a.name as "agentName", s.plan, s.status,
           s.current_period_end as "currentPeriodEnd"
    from agent_subscriptions s join agents a on a.id = s.agent_id
    where s.user_id = ${userId} order by a.name`;
  const claims: Record<string, unknown> = {
    sub: user.id,
    email: user.email,
    email_verified: user.emailVerified,
    name: user.name,
    plan: user.plan,
    credits: user.credits,
    unlocked_agents: agents.map((a) => ({ id: a.id, name: a.name })),
    agent_subscriptions: subs.map((s) => ({
      agent_id: s.agentId,
      agent_name: s.agentName,
      plan: s.plan,
      status: s.status,
      current_period_end: s.currentPeriodEnd.toISOString(),
    })),
  };
  // OIDC Core §5.3.2: a claim without a value is omitted, never sent as null.
  if (user.picture !== null) claims.picture = user.picture;
  return claims;
}
