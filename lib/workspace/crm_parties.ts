// Collaborators and suppliers (list_crm_parties): the CRM records besides contacts and clients an activity can be
// about, so a model can turn "Nina" into the collaboratorId or supplierId the activity tools take. Rules:
// docs/crm.md "Collaborators and suppliers".
import type { Db } from "../db/client.ts";
import { allOf, anyOf, contains } from "../db/sql.ts";
import { countUpTo, type Page, pageOf, type Paging } from "./page.ts";
import { companyFilter, type ScopedCaller, scopeOf } from "./scope.ts";

/** The two kinds, named as list_activities names them in `entity.kind`; each id goes into `<kind>Id`. */
export const CRM_PARTY_KINDS = ["collaborator", "supplier"] as const;
export type CrmPartyKind = typeof CRM_PARTY_KINDS[number];

/** A row of list_crm_parties: enough to pick one and reach it (role for collaborators, VAT number for suppliers). */
export interface CrmParty {
  id: string;
  kind: CrmPartyKind;
  name: string;
  email: string | null;
  phone: string | null;
  /** collaborators only */
  role?: string | null;
  /** suppliers only */
  vatNumber?: string | null;
  companyId: string | null;
}

export interface CrmPartyFilter extends Paging {
  /** only this kind; both when absent */
  kind?: CrmPartyKind;
  /** a part of the name or email, case-insensitive, taken literally */
  query?: string;
}

interface Row {
  id: string;
  kind: CrmPartyKind;
  name: string;
  email: string | null;
  phone: string | null;
  detail: string | null;
  companyId: string | null;
}

/**
 * The collaborators and suppliers the caller may see (workspace, company scope: company-less ones only for a
 * caller who reaches every company), by name. No tool creates them yet (migration 00006); this only reads.
 */
export async function listCrmParties(
  db: Db,
  caller: ScopedCaller,
  filter: CrmPartyFilter,
): Promise<Page<CrmParty>> {
  const s = scopeOf(caller);
  const where = (alias: string) => {
    const parts = [
      db`${db(`${alias}.workspace_id`)} = ${s.workspaceId}`,
      companyFilter(db, s, `${alias}.company_id`),
    ];
    const q = filter.query?.trim();
    if (q) parts.push(anyOf(db, [contains(db, `${alias}.name`, q), contains(db, `${alias}.email`, q)]));
    return allOf(db, parts);
  };
  const branches = [];
  if (filter.kind !== "supplier") {
    branches.push(db`
      select co.id, 'collaborator'::text as kind, co.name, co.email, co.phone, co.role as detail,
             co.company_id as "companyId"
        from collaborators co where ${where("co")}`);
  }
  if (filter.kind !== "collaborator") {
    branches.push(db`
      select su.id, 'supplier'::text as kind, su.name, su.email, su.phone, su.vat_number as detail,
             su.company_id as "companyId"
        from suppliers su where ${where("su")}`);
  }
  const union = branches.reduce((acc, b) => db`${acc} union all ${b}`);
  const paging = { limit: filter.limit, offset: filter.offset };
  const [rows, total] = await Promise.all([
    db<Row[]>`
      select id, kind, name, email, phone, detail, "companyId" from (${union}) p
       order by lower(name), name, kind, id
       limit ${filter.limit} offset ${filter.offset ?? 0}`,
    countUpTo(db, db`(${union}) p`, paging),
  ]);
  return pageOf(rows.map(shape), total, paging, true);
}

function shape(r: Row): CrmParty {
  const { detail, companyId, ...rest } = r;
  return { ...rest, ...(r.kind === "collaborator" ? { role: detail } : { vatNumber: detail }), companyId };
}
