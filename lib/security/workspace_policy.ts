// A workspace's "require two-step sign-in" (issue 29 point 3): who may see and change it, and how many members
// are not ready for it yet.
//
// Exports: `PolicyWorkspace`, `policyWorkspaces(sql, userId)` (the person's workspaces, at most 100),
// `setTwoFactorPolicy(sql, userId, workspaceId, require)` → the workspace's name, or null when the person may not
// change it (not an owner or admin, not a member, or no such workspace).
import type { Db } from "../db/client.ts";
import { isUuid } from "../errors.ts";

/** Roles that may change a workspace's sign-in policy (the seed's admin roles). */
const POLICY_ROLES = ["owner", "admin"];

export interface PolicyWorkspace {
  id: string;
  name: string;
  role: string;
  requireTwoFactor: boolean;
  /** owners and admins only: members who have neither a one-time-code app nor a passkey */
  membersWithoutFactor: number | null;
  mayChange: boolean;
}

export async function policyWorkspaces(sql: Db, userId: string): Promise<PolicyWorkspace[]> {
  const rows = await sql<(PolicyWorkspace & { membersWithoutFactor: number })[]>`
    select w.id, w.name, m.role, w.require_two_factor as "requireTwoFactor",
           (select count(*)::int from workspace_members o
             where o.workspace_id = w.id
               and not exists (select 1 from user_totp t where t.user_id = o.user_id and t.confirmed_at is not null)
               and not exists (select 1 from user_passkeys p where p.user_id = o.user_id)) as "membersWithoutFactor"
      from workspace_members m join workspaces w on w.id = m.workspace_id
     where m.user_id = ${userId}
     order by w.name, w.id
     limit 100`;
  return rows.map((r) => {
    const mayChange = POLICY_ROLES.includes(r.role);
    return { ...r, mayChange, membersWithoutFactor: mayChange ? r.membersWithoutFactor : null };
  });
}

export async function setTwoFactorPolicy(
  sql: Db,
  userId: string,
  workspaceId: string,
  require: boolean,
): Promise<string | null> {
  if (!isUuid(workspaceId)) return null;
  const [row] = await sql<{ name: string }[]>`
    update workspaces w set require_two_factor = ${require}
      from workspace_members m
     where w.id = ${workspaceId} and m.workspace_id = w.id and m.user_id = ${userId}
       and m.role = any(${POLICY_ROLES})
    returning w.name`;
  return row?.name ?? null;
}
