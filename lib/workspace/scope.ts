// Workspace isolation and company scoping from a caller: the SQL filter and the write checks every domain reuses.
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";

/** The parts of a caller scoping looks at (lib/mcp/caller.ts Caller satisfies it). */
export interface ScopedCaller {
  workspaceId: string;
  userId?: string;
  /** the member is limited to these companies; absent = every company */
  companyIds?: readonly string[];
  /** the key is limited to this company; absent = not limited by the key */
  companyScope?: string;
}

/** Where a caller may read and write: its workspace, and either every company (null) or only these. */
export interface Scope {
  workspaceId: string;
  /** null: every company and company-less records; otherwise only records of these companies */
  companyIds: readonly string[] | null;
}

/**
 * The caller's effective scope: the member's companies intersected with the key's company, so a key never
 * reaches beyond its creator (a key scoped to a company its user may not see reaches nothing).
 */
export function scopeOf(caller: ScopedCaller): Scope {
  let ids: readonly string[] | null = caller.companyIds ?? null;
  if (caller.companyScope) {
    ids = ids === null ? [caller.companyScope] : ids.filter((c) => c === caller.companyScope);
  }
  return { workspaceId: caller.workspaceId, companyIds: ids };
}

/**
 * SQL fragment `<column> = any(<companies>)` limiting rows to the caller's companies, or `true` when unlimited.
 * Use it next to the workspace filter: `where p.workspace_id = ${s.workspaceId} and ${companyFilter(db, s, "p.company_id")}`.
 * Records without a company are invisible to a company-limited caller.
 */
export function companyFilter(db: Db, scope: Scope, column = "company_id") {
  if (scope.companyIds === null) return db`true`;
  return db`${db(column)} = any(${scope.companyIds as string[]}::uuid[])`;
}

/** May the caller touch a record of `companyId` (null = a record without a company)? */
export function inScope(scope: Scope, companyId: string | null): boolean {
  if (scope.companyIds === null) return true;
  return companyId !== null && scope.companyIds.includes(companyId);
}

/**
 * The company a new record gets: the requested one when the caller may use it (else not_found, as for any id the
 * caller cannot see); when none is requested, the caller's only company, or none for an unlimited caller.
 */
export function companyForWrite(scope: Scope, requested: string | null | undefined): string | null {
  if (requested) {
    if (!inScope(scope, requested)) throw notFound(`companyId: no company ${requested}`);
    return requested;
  }
  if (scope.companyIds === null) return null;
  if (scope.companyIds.length === 1) return scope.companyIds[0];
  throw invalidInput(
    scope.companyIds.length === 0
      ? "this key may not reach any company"
      : `companyId: is required: this key is limited to the companies ${scope.companyIds.join(", ")}`,
  );
}

/** Checks that a company exists in the caller's workspace and scope (not_found otherwise). */
export async function requireCompany(db: Db, scope: Scope, companyId: string): Promise<void> {
  if (!inScope(scope, companyId)) throw notFound(`companyId: no company ${companyId}`);
  const [row] = await db`
    select 1 from companies where workspace_id = ${scope.workspaceId} and id = ${companyId}`;
  if (!row) throw notFound(`companyId: no company ${companyId}`);
}
