// The Connected apps page's data: each approved client with what tells re-registrations of one app apart
// (client id, registration date, last use, granted scopes, the workspace and tool limits chosen, who registered
// it).
import type { Db } from "./db/client.ts";
import { redirectHost } from "./oauth/consent.ts";

/** Bounds the page: nobody approves more apps than this, and a page must stay small. */
export const MAX_CONNECTED_APPS = 200;

export interface ConnectedAppDetail {
  clientId: string;
  /** the client id shortened for reading (`pcl_AbCdEf…wxyz`); the full id stays in the forms */
  shortId: string;
  name: string;
  redirectHost: string;
  /** who registered it: the app itself (RFC 7591), the operator, or a Client ID Metadata Document */
  registeredBy: "itself" | "operator" | "metadata_document";
  scopes: string[];
  registeredAt: Date;
  grantedAt: Date;
  /** the most recent use of any of its grants for this person at /mcp; null when never used */
  lastUsedAt: Date | null;
  /** the workspace (and company) chosen on consent, for `workspace` */
  workspaceName: string | null;
  companyName: string | null;
  /** the toolsets chosen on consent with the workspace (lib/mcp/toolsets.ts); null = every toolset */
  toolsets: string[] | null;
  /** the app was allowed read-only tools only */
  readOnly: boolean;
}

/** `pcl_` ids keep their prefix and both ends; URL ids (metadata documents) are clipped to a readable length. */
export function shortClientId(clientId: string): string {
  if (clientId.startsWith("pcl_")) {
    return clientId.length <= 16 ? clientId : `${clientId.slice(0, 10)}…${clientId.slice(-4)}`;
  }
  return clientId.length <= 48 ? clientId : `${clientId.slice(0, 47)}…`;
}

interface Row {
  client_id: string;
  name: string;
  redirect_uris: string[];
  self_registered: boolean;
  scopes: string[];
  registered_at: Date;
  granted_at: Date;
  last_used_at: Date | null;
  workspace_name: string | null;
  company_name: string | null;
  toolsets: string[] | null;
  read_only: boolean;
}

/** The person's connected apps, newest approval first; `clientId` narrows to one (the confirmation page). */
export async function listConnectedAppDetails(
  db: Db,
  userId: string,
  clientId?: string,
): Promise<ConnectedAppDetail[]> {
  const rows = await db<Row[]>`
    select c.client_id, c.name, c.redirect_uris, c.self_registered, k.scopes, c.created_at as registered_at,
           k.granted_at, u.last_used_at, w.name as workspace_name, co.name as company_name, k.toolsets,
           k.read_only
      from oauth_consents k
      join oauth_clients c on c.client_id = k.client_id
      left join lateral (
        select max(g.last_used_at) as last_used_at from oauth_grants g
         where g.user_id = k.user_id and g.client_id = k.client_id
      ) u on true
      left join workspaces w on w.id = k.workspace_id
      left join companies co on co.workspace_id = k.workspace_id and co.id = k.company_id
     where k.user_id = ${userId}
       and (${clientId ?? null}::text is null or k.client_id = ${clientId ?? null})
     order by k.granted_at desc, c.client_id
     limit ${MAX_CONNECTED_APPS}`;
  return rows.map((r) => ({
    clientId: r.client_id,
    shortId: shortClientId(r.client_id),
    name: r.name,
    redirectHost: redirectHost(r.redirect_uris[0] ?? ""),
    registeredBy: !r.client_id.startsWith("pcl_")
      ? "metadata_document"
      : r.self_registered
      ? "itself"
      : "operator",
    scopes: r.scopes,
    registeredAt: new Date(r.registered_at),
    grantedAt: new Date(r.granted_at),
    lastUsedAt: r.last_used_at === null ? null : new Date(r.last_used_at),
    workspaceName: r.workspace_name,
    companyName: r.company_name,
    toolsets: r.toolsets,
    readOnly: r.read_only,
  }));
}

/** A UTC minute for pages: `2026-05-01 14:03 UTC`. */
export function pageTime(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
