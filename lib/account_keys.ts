// The API keys page's data: a person's keys per workspace (every key for owners and admins), creating and revoking.
import { createApiKey } from "./api_keys.ts";
import type { Db } from "./db/client.ts";
import { accessDenied, invalidInput, isUuid, notFound } from "./errors.ts";

/** Roles that see and revoke every key of their workspace. */
export const KEY_ADMIN_ROLES: readonly string[] = ["owner", "admin"];

export interface KeyListing {
  id: string;
  name: string;
  prefix: string;
  kind: string;
  companyName: string | null;
  /** the person the key acts as; null for workspace keys */
  userEmail: string | null;
  mine: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revoked: boolean;
  /** the toolsets the key is limited to (lib/mcp/toolsets.ts); null = every toolset */
  toolsets: string[] | null;
  /** the key reaches only read-only tools */
  readOnly: boolean;
}

export interface KeyWorkspace {
  id: string;
  name: string;
  role: string;
  /** companies a new key of this person may be limited to */
  companies: Array<{ id: string; name: string }>;
  /** owners and admins: every key of the workspace; others: their own keys. Each key once (`mine` marks own). */
  keys: KeyListing[];
  /** whether `keys` is every key of the workspace (owners and admins) */
  seesAll: boolean;
}

interface KeyRow {
  id: string;
  workspaceId: string;
  name: string;
  keyPrefix: string;
  kind: string;
  companyName: string | null;
  userId: string | null;
  email: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revoked: boolean;
  toolsets: string[] | null;
  readOnly: boolean;
}

/** Everything the page shows for `userId`, in two queries for memberships and companies plus one for keys. */
export async function keysPageData(db: Db, userId: string): Promise<KeyWorkspace[]> {
  const memberships = await db<{ id: string; name: string; role: string; companyIds: string[] | null }[]>`
    select w.id, w.name, m.role, m.company_ids as "companyIds"
      from workspace_members m join workspaces w on w.id = m.workspace_id
     where m.user_id = ${userId}
     order by w.name, w.id`;
  if (memberships.length === 0) return [];
  const wsIds = memberships.map((m) => m.id);
  const adminWs = memberships.filter((m) => KEY_ADMIN_ROLES.includes(m.role)).map((m) => m.id);
  const companies = await db<{ id: string; name: string; workspaceId: string }[]>`
    select id, name, workspace_id as "workspaceId" from companies where workspace_id = any(${wsIds}::uuid[]) order by name, id`;
  const keys = await db<KeyRow[]>`
    select k.id, k.workspace_id as "workspaceId", k.name, k.key_prefix as "keyPrefix", k.kind,
           c.name as "companyName", k.user_id as "userId", u.email,
           k.created_at as "createdAt", k.last_used_at as "lastUsedAt",
           k.revoked_at is not null as revoked, k.toolsets, k.read_only as "readOnly"
      from api_keys k
      left join companies c on c.workspace_id = k.workspace_id and c.id = k.company_id
      left join users u on u.id = k.user_id
     where k.workspace_id = any(${wsIds}::uuid[])
       and (k.user_id = ${userId} or k.workspace_id = any(${adminWs}::uuid[]))
     order by k.revoked_at is not null, k.created_at desc, k.id`;
  const listing = (k: KeyRow): KeyListing => ({
    id: k.id,
    name: k.name,
    prefix: k.keyPrefix,
    kind: k.kind,
    companyName: k.companyName,
    userEmail: k.email,
    mine: k.userId === userId,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    revoked: k.revoked,
    toolsets: k.toolsets,
    readOnly: k.readOnly,
  });
  return memberships.map((m) => {
    const inWs = keys.filter((k) => k.workspaceId === m.id);
    return {
      id: m.id,
      name: m.name,
      role: m.role,
      companies: companies
        .filter((c) => c.workspaceId === m.id && (m.companyIds === null || m.companyIds.includes(c.id)))
        .map((c) => ({ id: c.id, name: c.name })),
      // The query already returns only own keys outside admin workspaces; one list, so nothing shows twice.
      keys: inWs.map(listing),
      seesAll: adminWs.includes(m.id),
    };
  });
}

export interface NewOwnKey {
  workspaceId: string;
  name: string;
  /** limit the key to this company (one the person may see); empty = not limited */
  companyId?: string;
  /** a `workspace` key (acts for the workspace, variant B); only owners and admins may create one */
  forWorkspace?: boolean;
  /** limit the key to these toolsets (lib/mcp/toolsets.ts); null or absent = every toolset */
  toolsets?: string[] | null;
  /** limit the key to read-only tools */
  readOnly?: boolean;
}

/**
 * A key bound to `userId` (kind user), optionally limited to one of the companies the person may see; or, for
 * owners and admins, a workspace key (kind workspace, no person).
 */
export async function createOwnKey(
  db: Db,
  userId: string,
  input: NewOwnKey,
): Promise<{ id: string; key: string }> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) throw invalidInput("name must be 1-200 characters");
  if (!isUuid(input.workspaceId)) throw notFound("no such workspace");
  const [member] = await db<{ role: string; companyIds: string[] | null }[]>`
    select role, company_ids as "companyIds" from workspace_members
     where workspace_id = ${input.workspaceId} and user_id = ${userId}`;
  if (!member) throw notFound("no such workspace");
  if (input.forWorkspace && !KEY_ADMIN_ROLES.includes(member.role)) {
    throw accessDenied("only owners and admins create workspace keys");
  }
  if (input.companyId) {
    if (!isUuid(input.companyId)) throw notFound("no such company");
    if (member.companyIds !== null && !member.companyIds.includes(input.companyId)) {
      throw notFound("no such company");
    }
  }
  return await createApiKey(db, {
    workspaceId: input.workspaceId,
    userId: input.forWorkspace ? undefined : userId,
    kind: input.forWorkspace ? "workspace" : "user",
    companyId: input.companyId || undefined,
    name,
    // createApiKey checks the names again (unknown → invalid_input): the form is not the only way in.
    toolsets: input.toolsets ?? undefined,
    readOnly: input.readOnly === true,
  });
}

export interface KeyToRevoke {
  id: string;
  name: string;
  prefix: string;
  workspaceName: string;
  /** the person the key acts as; null for workspace keys */
  userEmail: string | null;
  mine: boolean;
}

/**
 * The key the revocation page asks about, under the rule revokeKeyAs applies (own key, or an owner or admin
 * of its workspace); null when there is no such live key this person may revoke.
 */
export async function keyToRevoke(db: Db, userId: string, keyId: string): Promise<KeyToRevoke | null> {
  if (!isUuid(keyId)) return null;
  const [row] = await db<
    {
      id: string;
      name: string;
      keyPrefix: string;
      workspaceName: string;
      email: string | null;
      mine: boolean;
    }[]
  >`
    select k.id, k.name, k.key_prefix as "keyPrefix", w.name as "workspaceName", u.email,
           k.user_id is not distinct from ${userId} as mine
      from api_keys k
      join workspaces w on w.id = k.workspace_id
      left join users u on u.id = k.user_id
     where k.id = ${keyId} and k.revoked_at is null
       and (k.user_id = ${userId}
            or exists (select 1 from workspace_members m
                        where m.workspace_id = k.workspace_id and m.user_id = ${userId}
                          and m.role = any(${KEY_ADMIN_ROLES as string[]}::text[])))`;
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    prefix: row.keyPrefix,
    workspaceName: row.workspaceName,
    userEmail: row.email,
    mine: row.mine,
  };
}

/**
 * Revokes a key when it is the person's own or the person is an owner or admin of its workspace, in one
 * statement. False when there is no such key the person may revoke (already revoked counts as done).
 */
export async function revokeKeyAs(db: Db, userId: string, keyId: string): Promise<boolean> {
  if (!isUuid(keyId)) return false;
  const [row] = await db`
    update api_keys k set revoked_at = coalesce(k.revoked_at, now())
     where k.id = ${keyId}
       and (k.user_id = ${userId}
            or exists (select 1 from workspace_members m
                        where m.workspace_id = k.workspace_id and m.user_id = ${userId}
                          and m.role = any(${KEY_ADMIN_ROLES as string[]}::text[])))
    returning k.id`;
  return row !== undefined;
}
