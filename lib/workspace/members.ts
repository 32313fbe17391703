// The member directory (list_members): the workspace's people a caller may see, so a model can turn "Milo" into
// the user id assigneeIds, targetUserId, userId and assignedTo ask for. Rules: docs/mcp.md "Member directory".
import type { Db } from "../db/client.ts";
import { allOf, anyOf, contains } from "../db/sql.ts";
import type { Role } from "./modules.ts";
import { type Page, pageOf, type Paging } from "./page.ts";
import { type ScopedCaller, scopeOf } from "./scope.ts";

/** The parts of a caller the directory reads (lib/mcp/caller.ts Caller satisfies it). */
export interface MemberCaller extends ScopedCaller {
  /** null: a workspace key (variant B), which acts for the workspace */
  role: Role | null;
}

/**
 * What a caller sees of each member: `people` (owner, admin: they manage members) adds each member's company
 * limits; `standard` (every other role, and workspace keys) is name, email and role; `names` (guests, who are
 * outside the team) is the user id and name only — enough to assign work, nothing to contact people with.
 */
export type MemberView = "people" | "standard" | "names";

export function memberView(caller: MemberCaller): MemberView {
  if (caller.role === "owner" || caller.role === "admin") return "people";
  if (caller.role === "guest") return "names";
  return "standard";
}

export interface Member {
  userId: string;
  name: string;
  email?: string;
  role?: Role;
  /** people view only: the member is limited to these companies (those the caller may see); null = every one */
  companyIds?: string[] | null;
}

export interface MemberFilter extends Paging {
  /** a part of the name (or, except for guests, the email), case-insensitive */
  query?: string;
}

interface Row {
  userId: string;
  name: string;
  email: string;
  role: Role;
  companyIds: string[] | null;
}

/**
 * The members the caller may see, by name: every member for a caller who reaches every company; otherwise the
 * members who share a company with it or reach every company, and the caller itself. Disabled people are left
 * out (they can neither sign in nor be given work through a key).
 */
export async function listMembers(db: Db, caller: MemberCaller, filter: MemberFilter): Promise<Page<Member>> {
  const s = scopeOf(caller);
  const view = memberView(caller);
  const parts = [db`m.workspace_id = ${s.workspaceId}`, db`u.disabled_at is null`];
  if (s.companyIds !== null) {
    const ids = [...s.companyIds];
    parts.push(anyOf(db, [
      db`m.company_ids is null`,
      db`m.company_ids && ${ids}::uuid[]`,
      ...(caller.userId ? [db`m.user_id = ${caller.userId}`] : []),
    ]));
  }
  const q = filter.query?.trim();
  if (q) {
    parts.push(
      view === "names"
        ? contains(db, "u.name", q)
        : anyOf(db, [contains(db, "u.name", q), contains(db, "u.email", q)]),
    );
  }
  const where = allOf(db, parts);
  const [rows, [{ total }]] = await Promise.all([
    db<Row[]>`
      select m.user_id as "userId", u.name, u.email, m.role, m.company_ids as "companyIds"
        from workspace_members m join users u on u.id = m.user_id
       where ${where}
       order by lower(u.name), u.name, m.user_id
       limit ${filter.limit} offset ${filter.offset ?? 0}`,
    db<{ total: number }[]>`
      select count(*)::int as total
        from workspace_members m join users u on u.id = m.user_id
       where ${where}`,
  ]);
  return pageOf(rows.map((r) => shape(r, view, s.companyIds)), total, filter);
}

function shape(r: Row, view: MemberView, reach: readonly string[] | null): Member {
  if (view === "names") return { userId: r.userId, name: r.name };
  const m: Member = { userId: r.userId, name: r.name, email: r.email, role: r.role };
  if (view === "people") {
    // a company-limited admin learns nothing of companies outside its own reach
    m.companyIds = r.companyIds === null
      ? null
      : reach === null
      ? r.companyIds
      : r.companyIds.filter((c) => reach.includes(c));
  }
  return m;
}
