// The activity pages' data (docs/activity.md): the audit trail of one person (every app and key of theirs) or of one
// workspace (for its owners and admins), newest first, filtered and keyset-paged by (at, id); the apps and keys a
// filter may name; and disconnecting a member's app for one workspace.
//
// Exports: `activityPage`, `activitySources`, `workspaceAdminOf`, `connectedInWorkspace`, `disconnectMemberApp`,
// `parseActivityQuery`, `activityQueryString`, ACTIVITY_PAGE_SIZE, ACTIVITY_CSV_MAX and the types.
import type postgres from "postgres";
import type { AuditOutcome } from "./audit.ts";
import { KEY_ADMIN_ROLES } from "./account_keys.ts";
import type { Db } from "./db/client.ts";
import { allOf, isoMillisColumn, sortableTimeColumn } from "./db/sql.ts";
import { withTx } from "./db/tx.ts";
import { isUuid } from "./errors.ts";

/** Rows per page. */
export const ACTIVITY_PAGE_SIZE = 50;
/** Rows of one CSV export at most; the last line says where to go on (docs/activity.md). */
export const ACTIVITY_CSV_MAX = 10_000;
/** Apps and keys offered in the filter at most (newest first). */
export const MAX_SOURCES = 200;
/** Member apps listed for disconnecting at most. */
export const MAX_WORKSPACE_APPS = 200;

export const OUTCOMES: readonly AuditOutcome[] = [
  "ok",
  "denied",
  "invalid",
  "declined",
  "asked",
  "error",
  "crash",
  "unavailable",
];

/** Whose activity: one person's own, or one workspace's (its owners and admins). */
export type ActivityScope = { userId: string } | { workspaceId: string };

export interface ActivityFilter {
  /** one app (`app:<client_id>`) or key (`key:<uuid>`) */
  source?: { app: string } | { key: string };
  tool?: string;
  outcome?: AuditOutcome;
  /** UTC dates, inclusive */
  from?: string;
  to?: string;
  /** the cursor: rows strictly older than (at, id) */
  before?: { at: string; id: string };
}

export interface ActivityRow {
  id: string;
  /** ISO UTC with milliseconds */
  at: string;
  /** the cursor of this row: `<time with microseconds>~<id>` */
  cursor: string;
  workspaceId: string | null;
  workspaceName: string | null;
  keyId: string | null;
  keyName: string | null;
  keyPrefix: string | null;
  clientId: string | null;
  appName: string | null;
  userId: string | null;
  userEmail: string | null;
  tool: string;
  outcome: AuditOutcome;
  reason: string | null;
  records: string[];
  confirmed: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})~(\d{1,19})$/;

/** A query string's filters; anything malformed is left out (a page never errors on a crafted link). */
export function parseActivityQuery(q: (name: string) => string | undefined): ActivityFilter {
  const f: ActivityFilter = {};
  const source = q("source") ?? "";
  if (source.startsWith("app:") && source.length > 4 && source.length <= 2004) {
    f.source = { app: source.slice(4) };
  }
  if (source.startsWith("key:") && isUuid(source.slice(4))) f.source = { key: source.slice(4).toLowerCase() };
  const tool = q("tool");
  if (tool && tool.length <= 200) f.tool = tool;
  const outcome = q("outcome");
  if (outcome && (OUTCOMES as readonly string[]).includes(outcome)) f.outcome = outcome as AuditOutcome;
  for (const k of ["from", "to"] as const) {
    const v = q(k);
    if (v && DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))) f[k] = v;
  }
  const m = CURSOR.exec(q("before") ?? "");
  if (m && BigInt(m[2]) < 2n ** 63n) f.before = { at: m[1], id: m[2] };
  return f;
}

/** The filters as a query string (without the cursor unless given), for links and the CSV export. */
export function activityQueryString(f: ActivityFilter, before?: string): string {
  const p = new URLSearchParams();
  if (f.source) p.set("source", "app" in f.source ? `app:${f.source.app}` : `key:${f.source.key}`);
  if (f.tool) p.set("tool", f.tool);
  if (f.outcome) p.set("outcome", f.outcome);
  if (f.from) p.set("from", f.from);
  if (f.to) p.set("to", f.to);
  if (before) p.set("before", before);
  const s = p.toString();
  return s ? `?${s}` : "";
}

function where(db: Db, scope: ActivityScope, f: ActivityFilter): postgres.Fragment {
  const parts: postgres.Fragment[] = [
    "userId" in scope ? db`a.user_id = ${scope.userId}` : db`a.workspace_id = ${scope.workspaceId}`,
  ];
  if (f.source && "app" in f.source) parts.push(db`a.client_id = ${f.source.app}`);
  if (f.source && "key" in f.source) parts.push(db`a.key_id = ${f.source.key}`);
  if (f.tool) parts.push(db`a.tool = ${f.tool}`);
  if (f.outcome) parts.push(db`a.outcome = ${f.outcome}`);
  if (f.from) parts.push(db`a.at >= (${f.from}::date)::timestamp at time zone 'UTC'`);
  if (f.to) parts.push(db`a.at < (${f.to}::date + 1)::timestamp at time zone 'UTC'`);
  if (f.before) {
    parts.push(db`(a.at, a.id) < (${f.before.at}::timestamp at time zone 'UTC', ${f.before.id}::bigint)`);
  }
  return allOf(db, parts);
}

interface Row extends Omit<ActivityRow, "records"> {
  records: string[] | null;
  sortAt: string;
}

/**
 * Up to `limit` rows (default a page) newest first, and the cursor of the next page when there are more. One
 * index walk in (at, id) order per scope and filter (migrations/00028_activity.sql), stopped after limit + 1 rows;
 * the names come from primary-key lookups of those rows only.
 */
export async function activityPage(
  db: Db,
  scope: ActivityScope,
  f: ActivityFilter,
  limit = ACTIVITY_PAGE_SIZE,
): Promise<{ rows: ActivityRow[]; next: string | null }> {
  const found = await db<Row[]>`
    select a.id::text as id, ${isoMillisColumn(db, "a.at")} as at, ${
    sortableTimeColumn(db, "a.at")
  } as "sortAt",
           a.workspace_id as "workspaceId", w.name as "workspaceName", a.key_id as "keyId", k.name as "keyName",
           k.key_prefix as "keyPrefix", a.client_id as "clientId", c.name as "appName", a.user_id as "userId",
           u.email as "userEmail", a.tool, a.outcome, a.reason, a.records, a.confirmed
      from (select a.id, a.at, a.workspace_id, a.key_id, a.client_id, a.user_id, a.tool, a.outcome, a.reason,
                   a.records, a.confirmed
              from audit_log a where ${where(db, scope, f)} order by a.at desc, a.id desc
             limit ${limit + 1}) a
      left join workspaces w on w.id = a.workspace_id
      left join api_keys k on k.id = a.key_id
      left join oauth_clients c on c.client_id = a.client_id
      left join users u on u.id = a.user_id
     order by a.at desc, a.id desc`;
  const rows = found.slice(0, limit).map(({ sortAt, ...r }) => ({
    ...r,
    cursor: `${sortAt}~${r.id}`,
    records: r.records ?? [],
  }));
  return { rows, next: found.length > limit ? rows[rows.length - 1].cursor : null };
}

/** An app or key the filter offers; the page names it in its language (views/activity.tsx). */
export type ActivitySource =
  /** value: `app:<client_id>` */
  | { value: string; kind: "app"; name: string }
  /** value: `key:<uuid>`; name "" for a key without one; workspace on the person's page only */
  | { value: string; kind: "key"; name: string; prefix: string; workspaceName: string | null };

/** The apps and keys the filter offers: the person's own, or every one seen in the workspace. */
export async function activitySources(db: Db, scope: ActivityScope): Promise<ActivitySource[]> {
  const byUser = "userId" in scope;
  const apps = await db<{ clientId: string; name: string }[]>`
    select c.client_id as "clientId", c.name
      from (select distinct g.client_id from oauth_grants g
             where ${byUser ? db`g.user_id = ${scope.userId}` : db`g.workspace_id = ${scope.workspaceId}`}) g
      join oauth_clients c on c.client_id = g.client_id
     order by c.name, c.client_id limit ${MAX_SOURCES}`;
  const keys = await db<{ id: string; name: string; prefix: string; workspaceName: string }[]>`
    select k.id, k.name, k.key_prefix as prefix, w.name as "workspaceName"
      from api_keys k join workspaces w on w.id = k.workspace_id
     where ${byUser ? db`k.user_id = ${scope.userId}` : db`k.workspace_id = ${scope.workspaceId}`}
     order by k.created_at desc, k.id limit ${MAX_SOURCES}`;
  return [
    ...apps.map((a) => ({ value: `app:${a.clientId}`, kind: "app" as const, name: a.name })),
    ...keys.map((k) => ({
      value: `key:${k.id}`,
      kind: "key" as const,
      name: k.name,
      prefix: k.prefix,
      workspaceName: byUser ? k.workspaceName : null,
    })),
  ];
}

/** The workspace's name when `userId` is one of its owners or admins; null otherwise (or no such workspace). */
export async function workspaceAdminOf(db: Db, userId: string, workspaceId: string): Promise<string | null> {
  if (!isUuid(workspaceId)) return null;
  const [row] = await db<{ name: string }[]>`
    select w.name from workspace_members m join workspaces w on w.id = m.workspace_id
     where m.workspace_id = ${workspaceId} and m.user_id = ${userId} and m.role = any(${KEY_ADMIN_ROLES}::text[])`;
  return row?.name ?? null;
}

export interface MemberApp {
  userId: string;
  email: string;
  clientId: string;
  appName: string;
}

/** The apps with a live grant in the workspace, per member (what an admin may disconnect). */
export async function connectedInWorkspace(
  db: Db,
  workspaceId: string,
  only?: { userId: string; clientId: string },
): Promise<MemberApp[]> {
  return [
    ...await db<MemberApp[]>`
    select distinct g.user_id as "userId", u.email, g.client_id as "clientId", c.name as "appName"
      from oauth_grants g
      join users u on u.id = g.user_id
      join oauth_clients c on c.client_id = g.client_id
     where g.workspace_id = ${workspaceId} and g.revoked_at is null
       and (${only?.userId ?? null}::uuid is null or (g.user_id = ${only?.userId ?? null} and g.client_id = ${
      only?.clientId ?? null
    }))
     order by u.email, c.name, g.client_id limit ${MAX_WORKSPACE_APPS}`,
  ];
}

/**
 * An owner or admin ends a member's app in one workspace: the member's live grants of that client there are
 * revoked (their access tokens are refused by /mcp on the next request: lib/mcp/bearer.ts asks whether the grant
 * is live), so are their refresh tokens (their state is the grant row's), and the consent that remembered this workspace is forgotten so the app
 * must ask again. Other workspaces' grants of the same app stay. Returns the grants revoked; null when `adminId`
 * is no owner or admin of the workspace.
 */
export async function disconnectMemberApp(
  db: Db,
  adminId: string,
  workspaceId: string,
  memberId: string,
  clientId: string,
): Promise<number | null> {
  if (!isUuid(memberId)) return 0;
  return await withTx(db, async (tx) => {
    if (await workspaceAdminOf(tx, adminId, workspaceId) === null) return null;
    const grants = await tx<{ id: string }[]>`
      update oauth_grants set revoked_at = now()
       where workspace_id = ${workspaceId} and user_id = ${memberId} and client_id = ${clientId}
         and revoked_at is null
      returning id`;
    await tx`
      delete from oauth_consents
       where user_id = ${memberId} and client_id = ${clientId} and workspace_id = ${workspaceId}`;
    return grants.length;
  });
}
