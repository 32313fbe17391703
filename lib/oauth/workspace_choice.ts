// The workspace (and optional company) a person picks on the consent page when an app asks for `workspace`:
// the places offered, the check of a submitted choice, and its wire form ("<workspace>" or "<workspace>:<company>");
// and the tool limits (toolsets, read-only) picked with it.
import type { Db } from "../db/client.ts";
import { isUuid } from "../errors.ts";

/** Where a grant's tool calls act: a workspace, optionally narrowed to one company (like a company-scoped key). */
export interface Place {
  workspaceId: string;
  companyId: string | null;
}

export interface PlaceOption extends Place {
  /** the form value */
  value: string;
  workspaceName: string;
  /** null: every company the person may see */
  companyName: string | null;
  role: string;
}

/**
 * The tools a grant may use, chosen on consent with the place (issue 16): toolsets (lib/mcp/toolsets.ts; null =
 * every one) and read-only. Travels code → grant → consent like the place; /mcp reads the grant's copy.
 */
export interface ToolLimits {
  toolsets: string[] | null;
  readOnly: boolean;
}

/** Everything the member may use: the default on the consent page and for grants without `workspace`. */
export const NO_TOOL_LIMITS: ToolLimits = Object.freeze({ toolsets: null, readOnly: false });

export function placeValue(p: Place): string {
  return p.companyId ? `${p.workspaceId}:${p.companyId}` : p.workspaceId;
}

export function parsePlace(value: string | undefined): Place | null {
  if (!value) return null;
  const [workspaceId, companyId, ...rest] = value.split(":");
  if (rest.length > 0 || !isUuid(workspaceId) || (companyId !== undefined && !isUuid(companyId))) return null;
  return { workspaceId, companyId: companyId ?? null };
}

/**
 * Every place this person may grant: per workspace they belong to, "all my companies" and each company they
 * may see (all of the workspace's when the member is not limited, else theirs). Bounded: 50 workspaces, 50
 * companies each.
 */
export async function placeOptions(db: Db, userId: string): Promise<PlaceOption[]> {
  const rows = await db<
    {
      workspaceId: string;
      workspaceName: string;
      role: string;
      companies: { id: string; name: string }[];
    }[]
  >`
    select w.id as "workspaceId", w.name as "workspaceName", m.role,
           coalesce((select json_agg(json_build_object('id', c.id, 'name', c.name) order by c.name, c.id)
                       from (select id, name from companies c
                              where c.workspace_id = w.id
                                and (m.company_ids is null or c.id = any(m.company_ids))
                              order by name, id limit 50) c), '[]'::json) as companies
      from workspace_members m join workspaces w on w.id = m.workspace_id
     where m.user_id = ${userId}
     order by w.name, w.id
     limit 50`;
  const out: PlaceOption[] = [];
  for (const r of rows) {
    const base = { workspaceName: r.workspaceName, role: r.role };
    out.push({
      ...base,
      workspaceId: r.workspaceId,
      companyId: null,
      companyName: null,
      value: r.workspaceId,
    });
    for (const c of r.companies) {
      const place = { workspaceId: r.workspaceId, companyId: c.id };
      out.push({ ...base, ...place, companyName: c.name, value: placeValue(place) });
    }
  }
  return out;
}

/** True when the person may (still) grant this place: a member of the workspace, and the company within reach. */
export async function placeAllowed(db: Db, userId: string, place: Place): Promise<boolean> {
  const [row] = await db<{ ok: boolean }[]>`
    select (${place.companyId}::uuid is null
            or exists (select 1 from companies c
                        where c.workspace_id = m.workspace_id and c.id = ${place.companyId}::uuid
                          and (m.company_ids is null or c.id = any(m.company_ids)))) as ok
      from workspace_members m
     where m.workspace_id = ${place.workspaceId} and m.user_id = ${userId}`;
  return row?.ok === true;
}
