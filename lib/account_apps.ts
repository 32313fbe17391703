// The Connected apps page's data: each approved client with what tells re-registrations of one app apart
// (client id, registration date, last use, granted scopes, the workspace and tool limits chosen, who registered
// it), and what each granted scope allows in the page's words.
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
  clientId: string;
  name: string;
  redirectUris: string[];
  selfRegistered: boolean;
  scopes: string[];
  registeredAt: Date;
  grantedAt: Date;
  lastUsedAt: Date | null;
  workspaceName: string | null;
  companyName: string | null;
  toolsets: string[] | null;
  readOnly: boolean;
}

/** The person's connected apps, newest approval first; `clientId` narrows to one (the confirmation page). */
export async function listConnectedAppDetails(
  db: Db,
  userId: string,
  clientId?: string,
): Promise<ConnectedAppDetail[]> {
  const rows = await db<Row[]>`
    select c.client_id as "clientId", c.name, c.redirect_uris as "redirectUris",
           c.self_registered as "selfRegistered", k.scopes, c.created_at as "registeredAt",
           k.granted_at as "grantedAt", u.last_used_at as "lastUsedAt", w.name as "workspaceName",
           co.name as "companyName", k.toolsets, k.read_only as "readOnly"
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
    clientId: r.clientId,
    shortId: shortClientId(r.clientId),
    name: r.name,
    redirectHost: redirectHost(r.redirectUris[0] ?? ""),
    registeredBy: !r.clientId.startsWith("pcl_")
      ? "metadata_document"
      : r.selfRegistered
      ? "itself"
      : "operator",
    scopes: r.scopes,
    registeredAt: r.registeredAt,
    grantedAt: r.grantedAt,
    lastUsedAt: r.lastUsedAt,
    workspaceName: r.workspaceName,
    companyName: r.companyName,
    toolsets: r.toolsets,
    readOnly: r.readOnly,
  }));
}
