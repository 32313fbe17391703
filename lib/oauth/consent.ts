// Remembered consent per person and client, and the "connected apps" list and revocation behind /account/apps.
import type { Db, Sql } from "../db/client.ts";
import { type Place, placeAllowed } from "./workspace_choice.ts";

/** A remembered approval that covers a request, with the place chosen then (`workspace` requests only). */
export type RememberedConsent = { covers: false } | { covers: true; place: Place | null };

/**
 * Whether the person already approved every one of `scopes` for this client. A request for `workspace` is
 * covered only while the workspace chosen then is still within the person's reach; otherwise they choose again.
 */
export async function rememberedConsent(
  db: Db,
  userId: string,
  clientId: string,
  scopes: string[],
): Promise<RememberedConsent> {
  const [row] = await db<{ scopes: string[]; workspace_id: string | null; company_id: string | null }[]>`
    select scopes, workspace_id, company_id
      from oauth_consents where user_id = ${userId} and client_id = ${clientId}`;
  if (!row || !scopes.every((s) => row.scopes.includes(s))) return { covers: false };
  if (!scopes.includes("workspace")) return { covers: true, place: null };
  if (!row.workspace_id) return { covers: false };
  const place = { workspaceId: row.workspace_id, companyId: row.company_id };
  return (await placeAllowed(db, userId, place)) ? { covers: true, place } : { covers: false };
}

/**
 * Remembers an approval; scopes add up with earlier approvals for the same client. A new place replaces the
 * remembered one.
 */
export async function saveConsent(
  db: Db,
  userId: string,
  clientId: string,
  scopes: string[],
  place: Place | null,
): Promise<void> {
  await db`
    insert into oauth_consents (user_id, client_id, scopes, workspace_id, company_id)
    values (${userId}, ${clientId}, ${scopes}, ${place?.workspaceId ?? null}, ${place?.companyId ?? null})
    on conflict (user_id, client_id) do update
      set scopes = (select array_agg(distinct s) from unnest(oauth_consents.scopes || excluded.scopes) s),
          workspace_id = coalesce(excluded.workspace_id, oauth_consents.workspace_id),
          company_id = case when excluded.workspace_id is null then oauth_consents.company_id
                            else excluded.company_id end,
          granted_at = now()`;
}

export interface ConnectedApp {
  clientId: string;
  name: string;
  clientUri: string | null;
  redirectHost: string;
  selfRegistered: boolean;
  scopes: string[];
  grantedAt: Date;
}

export async function listConnectedApps(db: Db, userId: string): Promise<ConnectedApp[]> {
  const rows = await db<{
    client_id: string;
    name: string;
    client_uri: string | null;
    redirect_uris: string[];
    self_registered: boolean;
    scopes: string[];
    granted_at: Date | string;
  }[]>`
    select c.client_id, c.name, c.client_uri, c.redirect_uris, c.self_registered, k.scopes, k.granted_at
    from oauth_consents k join oauth_clients c on c.client_id = k.client_id
    where k.user_id = ${userId}
    order by k.granted_at desc`;
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    clientUri: r.client_uri,
    redirectHost: redirectHost(r.redirect_uris[0] ?? ""),
    selfRegistered: r.self_registered,
    scopes: r.scopes,
    grantedAt: new Date(r.granted_at),
  }));
}

/** The host a redirect URI points at, or its scheme for native-app URIs. */
export function redirectHost(uri: string): string {
  try {
    const u = new URL(uri);
    return u.host || u.protocol.replace(/:$/, "");
  } catch {
    return uri;
  }
}

/** Disconnects an app: forgets the consent and ends every grant (refresh tokens included) it holds for the person. */
export async function disconnectApp(sql: Sql, userId: string, clientId: string): Promise<boolean> {
  return await sql.begin(async (tx) => {
    const deleted = await tx`
      delete from oauth_consents where user_id = ${userId} and client_id = ${clientId} returning client_id`;
    await tx`
      update oauth_grants set revoked_at = now()
      where user_id = ${userId} and client_id = ${clientId} and revoked_at is null`;
    await tx`
      update oauth_refresh_tokens set revoked_at = now()
      where user_id = ${userId} and client_id = ${clientId} and revoked_at is null`;
    return deleted.length > 0;
  });
}
