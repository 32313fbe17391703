// Remembered consent per person and client, and the "connected apps" list and revocation behind /account/apps.
import type { Db, Sql } from "../db/client.ts";
import { withTx } from "../db/tx.ts";
import { NO_TOOL_LIMITS, type Place, placeAllowed, type ToolLimits } from "./workspace_choice.ts";

/**
 * A remembered approval that covers a request, with the place and tool limits chosen then (`workspace`
 * requests only; others get no place and no limits, which nothing reads without a place).
 */
export type RememberedConsent =
  | { covers: false }
  | { covers: true; place: Place | null; limits: ToolLimits };

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
  const [row] = await db<
    {
      scopes: string[];
      workspaceId: string | null;
      companyId: string | null;
      toolsets: string[] | null;
      readOnly: boolean;
    }[]
  >`
    select scopes, workspace_id as "workspaceId", company_id as "companyId", toolsets, read_only as "readOnly"
      from oauth_consents where user_id = ${userId} and client_id = ${clientId}`;
  if (!row || !scopes.every((s) => row.scopes.includes(s))) return { covers: false };
  if (!scopes.includes("workspace")) return { covers: true, place: null, limits: NO_TOOL_LIMITS };
  if (!row.workspaceId) return { covers: false };
  const place = { workspaceId: row.workspaceId, companyId: row.companyId };
  const limits = { toolsets: row.toolsets, readOnly: row.readOnly };
  return (await placeAllowed(db, userId, place)) ? { covers: true, place, limits } : { covers: false };
}

/**
 * The tool limits remembered for this person and client, or none: the consent page starts from them, so
 * approving again without looking never widens what the app had.
 */
export async function rememberedToolLimits(db: Db, userId: string, clientId: string): Promise<ToolLimits> {
  const [row] = await db<ToolLimits[]>`
    select toolsets, read_only as "readOnly" from oauth_consents
     where user_id = ${userId} and client_id = ${clientId} and workspace_id is not null`;
  return row ? { toolsets: row.toolsets, readOnly: row.readOnly } : NO_TOOL_LIMITS;
}

/**
 * Remembers an approval; scopes add up with earlier approvals for the same client. A new place replaces the
 * remembered one, and so do the tool limits chosen with it (docs/oauth.md "Toolsets and read-only on
 * consent"). A choice that narrows also narrows the app's live grants and unexchanged codes at once (their
 * toolsets intersect, read-only sticks); one that widens reaches only the code about to be issued, never
 * tokens issued before.
 */
export async function saveConsent(
  db: Db,
  userId: string,
  clientId: string,
  scopes: string[],
  place: Place | null,
  limits: ToolLimits = NO_TOOL_LIMITS,
): Promise<void> {
  await withTx(db, async (tx) => {
    await tx`
      insert into oauth_consents (user_id, client_id, scopes, workspace_id, company_id, toolsets, read_only)
      values (${userId}, ${clientId}, ${scopes}, ${place?.workspaceId ?? null}, ${place?.companyId ?? null},
              ${place ? limits.toolsets : null}, ${place ? limits.readOnly : false})
      on conflict (user_id, client_id) do update
        set scopes = (select array_agg(distinct s) from unnest(oauth_consents.scopes || excluded.scopes) s),
            workspace_id = coalesce(excluded.workspace_id, oauth_consents.workspace_id),
            company_id = case when excluded.workspace_id is null then oauth_consents.company_id
                              else excluded.company_id end,
            toolsets = case when excluded.workspace_id is null then oauth_consents.toolsets
                            else excluded.toolsets end,
            read_only = case when excluded.workspace_id is null then oauth_consents.read_only
                             else excluded.read_only end,
            granted_at = now()`;
    if (!place || (limits.toolsets === null && !limits.readOnly)) return;
    // Codes first: a code issued before and not yet exchanged would otherwise make a grant with the old, wider
    // limits. An exchange holding a code's row lock makes this wait until its grant is committed, which the
    // grants statement below then sees (grants/authorization_code.ts reads the limits under that lock).
    await tx`
      update oauth_codes t set ${narrowedLimits(tx, limits)}
       where t.user_id = ${userId} and t.client_id = ${clientId} and t.consumed_at is null
         and t.expires_at > now() and t.workspace_id is not null`;
    await tx`
      update oauth_grants t set ${narrowedLimits(tx, limits)}
       where t.user_id = ${userId} and t.client_id = ${clientId} and t.revoked_at is null
         and t.workspace_id is not null`;
  });
}

/**
 * The SET clause that narrows a code's or grant's (alias `t`) tool limits by `limits`: the intersection of the
 * toolsets (null on either side means every toolset), read-only if either is.
 */
function narrowedLimits(db: Db, limits: ToolLimits) {
  return db`
    toolsets = case when ${limits.toolsets}::text[] is null then t.toolsets
                    when t.toolsets is null then ${limits.toolsets}::text[]
                    else array(select x from unnest(t.toolsets) x where x = any(${limits.toolsets}::text[])) end,
    read_only = t.read_only or ${limits.readOnly}`;
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
  const rows = await db<(Omit<ConnectedApp, "redirectHost"> & { redirectUris: string[] })[]>`
    select c.client_id as "clientId", c.name, c.client_uri as "clientUri", c.redirect_uris as "redirectUris",
           c.self_registered as "selfRegistered", k.scopes, k.granted_at as "grantedAt"
    from oauth_consents k join oauth_clients c on c.client_id = k.client_id
    where k.user_id = ${userId}
    order by k.granted_at desc`;
  return rows.map((r) => ({
    clientId: r.clientId,
    name: r.name,
    clientUri: r.clientUri,
    redirectHost: redirectHost(r.redirectUris[0] ?? ""),
    selfRegistered: r.selfRegistered,
    scopes: r.scopes,
    grantedAt: r.grantedAt,
  }));
}

/**
 * Where a redirect URI sends the person, as the consent and connected-apps pages name it: the host for http(s);
 * for a private-use scheme the scheme with its authority (`cursor://anysphere.cursor-mcp`), so the app that
 * claims the scheme is named, or the scheme alone when there is no authority (`com.example.app`).
 */
export function redirectHost(uri: string): string {
  try {
    const u = new URL(uri);
    if (u.protocol === "https:" || u.protocol === "http:") return u.host;
    const scheme = u.protocol.replace(/:$/, "");
    return u.host ? `${scheme}://${u.host}` : scheme;
  } catch {
    return uri;
  }
}

/** Disconnects an app: forgets the consent and ends every grant (refresh tokens included) it holds for the person. */
export async function disconnectApp(sql: Sql, userId: string, clientId: string): Promise<boolean> {
  return await withTx(sql, async (tx) => {
    const deleted = await tx`
      delete from oauth_consents where user_id = ${userId} and client_id = ${clientId} returning client_id`;
    // Refresh tokens included: a family's state is its grant row's.
    await tx`
      update oauth_grants set revoked_at = now()
      where user_id = ${userId} and client_id = ${clientId} and revoked_at is null`;
    return deleted.length > 0;
  });
}
