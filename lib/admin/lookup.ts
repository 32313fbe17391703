// Admin look-ups (`… list`, `… show`): people, workspaces, companies, members, OAuth clients and API keys.
// Read-only; every list is bounded (--limit, default 100, at most 1000) and says when it was cut.
import type { Db } from "../db/client.ts";
import { isoColumn } from "../db/sql.ts";
import { notFound, requireUuid } from "../errors.ts";
import { type Command, integer, opt, S, str, UsageError, type Values } from "./command.ts";

export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 1000;

function limitOf(v: Values): number {
  const limit = integer(v, "limit") ?? LIST_LIMIT_DEFAULT;
  if (limit < 1 || limit > LIST_LIMIT_MAX) {
    throw new UsageError(`--limit must be between 1 and ${LIST_LIMIT_MAX}`);
  }
  return limit;
}

/** `{ [key]: rows, truncated }` from rows fetched with limit + 1. */
function page<T>(key: string, rows: T[], limit: number): Record<string, unknown> {
  return { [key]: rows.slice(0, limit), truncated: rows.length > limit };
}

const LIMIT_USAGE = `[--limit N]  (default ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX})`;

/** A person by `--id` or `--email` (case-insensitive); not_found names what was asked for. */
export async function findUser(db: Db, v: Values): Promise<{ id: string; email: string }> {
  const id = opt(v, "id");
  const email = opt(v, "email");
  const [row] = id !== undefined
    ? await db<{ id: string; email: string }[]>`select id, email from users where id = ${
      requireUuid(id, "id")
    }`
    : await db<{ id: string; email: string }[]>`
        select id, email from users where lower(email) = ${(email ?? "").trim().toLowerCase()}`;
  if (!row) throw notFound(id !== undefined ? `no user ${id}` : `no user with email ${email}`);
  return row;
}

async function workspaceExists(db: Db, workspaceId: string): Promise<string> {
  const id = requireUuid(workspaceId, "workspace");
  const [row] = await db`select 1 from workspaces where id = ${id}`;
  if (!row) throw notFound(`no workspace ${id}`);
  return id;
}

export const LOOKUP_COMMANDS: Record<string, Command> = {
  "user list": {
    usage: `user list [--email TEXT] ${LIMIT_USAGE}`,
    help: "Lists people (oldest first); --email keeps those whose email contains TEXT.",
    options: { email: S, limit: S },
    required: [],
    table: { key: "users", columns: ["id", "email", "name", "plan", "disabled", "created_at"] },
    run: async (v, io) => {
      const limit = limitOf(v);
      const needle = opt(v, "email")?.toLowerCase();
      const pattern = needle === undefined ? null : `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const rows = await io.sql`
        select id, email, name, plan, disabled_at is not null as disabled, ${
        isoColumn(io.sql, "created_at")
      } as created_at
        from users
        where ${pattern} :: text is null or lower(email) like ${pattern}
        order by created_at, id limit ${limit + 1}`;
      return page("users", rows.map((r) => ({ ...r })), limit);
    },
  },
  "user show": {
    usage: "user show --id U | --email E",
    help:
      "Shows one person (whether an operator too), their workspace memberships and how many keys, grants and " +
      "browser sessions they have.",
    options: { id: S, email: S },
    required: [],
    oneOf: ["id", "email"],
    run: async (v, io) => {
      const { id } = await findUser(io.sql, v);
      const [user] = await io.sql`
        select id, email, name, plan, credits, disabled_at is not null as disabled, operator,
               ${isoColumn(io.sql, "created_at")} as created_at,
               (select count(*)::int from api_keys k where k.user_id = u.id and k.revoked_at is null) as active_keys,
               (select count(*)::int from oauth_grants g where g.user_id = u.id and g.revoked_at is null) as active_grants,
               (select count(*)::int from browser_session_accounts s where s.user_id = u.id) as browser_sessions
        from users u where id = ${id}`;
      const memberships = await io.sql`
        select m.workspace_id, w.name as workspace, m.role, m.company_ids
        from workspace_members m join workspaces w on w.id = m.workspace_id
        where m.user_id = ${id} order by w.name, m.workspace_id limit ${LIST_LIMIT_MAX}`;
      return { ...user, memberships: memberships.map((m) => ({ ...m })) };
    },
  },
  "workspace list": {
    usage: `workspace list ${LIMIT_USAGE}`,
    help: "Lists workspaces (oldest first) with their number of companies and members.",
    options: { limit: S },
    required: [],
    table: { key: "workspaces", columns: ["id", "name", "companies", "members", "created_at"] },
    run: async (v, io) => {
      const limit = limitOf(v);
      const rows = await io.sql`
        select id, name,
               (select count(*)::int from companies c where c.workspace_id = w.id) as companies,
               (select count(*)::int from workspace_members m where m.workspace_id = w.id) as members,
               ${isoColumn(io.sql, "created_at")} as created_at
        from workspaces w order by created_at, id limit ${limit + 1}`;
      return page("workspaces", rows.map((r) => ({ ...r })), limit);
    },
  },
  "workspace show": {
    usage: "workspace show <workspace_id>",
    help: "Shows one workspace: its modules, companies, and how many members and active keys it has.",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: async (v, io) => {
      const id = await workspaceExists(io.sql, str(v, "id"));
      const [w] = await io.sql`
        select id, name, modules, ${isoColumn(io.sql, "created_at")} as created_at,
               (select count(*)::int from workspace_members m where m.workspace_id = w.id) as members,
               (select count(*)::int from api_keys k where k.workspace_id = w.id and k.revoked_at is null) as active_keys
        from workspaces w where id = ${id}`;
      const companies = await io.sql`
        select id, name from companies where workspace_id = ${id} order by name, id limit ${LIST_LIMIT_MAX}`;
      return { ...w, companies: companies.map((c) => ({ ...c })) };
    },
  },
  "company list": {
    usage: `company list --workspace W ${LIMIT_USAGE}`,
    help: "Lists a workspace's companies.",
    options: { workspace: S, limit: S },
    required: ["workspace"],
    table: { key: "companies", columns: ["id", "name", "created_at"] },
    run: async (v, io) => {
      const limit = limitOf(v);
      const workspaceId = await workspaceExists(io.sql, str(v, "workspace"));
      const rows = await io.sql`
        select id, name, ${isoColumn(io.sql, "created_at")} as created_at from companies
        where workspace_id = ${workspaceId} order by name, id limit ${limit + 1}`;
      return page("companies", rows.map((r) => ({ ...r })), limit);
    },
  },
  "member list": {
    usage: `member list --workspace W ${LIMIT_USAGE}`,
    help:
      "Lists a workspace's members: user id, email, role, and the companies they are limited to (all when empty).",
    options: { workspace: S, limit: S },
    required: ["workspace"],
    table: { key: "members", columns: ["user_id", "email", "name", "role", "companies"] },
    run: async (v, io) => {
      const limit = limitOf(v);
      const workspaceId = await workspaceExists(io.sql, str(v, "workspace"));
      const rows = await io.sql<
        { user_id: string; email: string; name: string; role: string; companies: string[] | null }[]
      >`
        select m.user_id, u.email, u.name, m.role, m.company_ids as companies
        from workspace_members m join users u on u.id = m.user_id
        where m.workspace_id = ${workspaceId}
        order by m.created_at, m.user_id limit ${limit + 1}`;
      return page("members", rows.map((r) => ({ ...r })), limit);
    },
  },
  "client list": {
    usage: `client list ${LIMIT_USAGE}`,
    help: "Lists OAuth clients (newest first): id, name, whether they registered themselves and are trusted.",
    options: { limit: S },
    required: [],
    table: { key: "clients", columns: ["client_id", "name", "self_registered", "trusted", "created_at"] },
    run: async (v, io) => {
      const limit = limitOf(v);
      const rows = await io.sql`
        select client_id, name, self_registered, trusted, token_endpoint_auth_method as auth_method,
               ${isoColumn(io.sql, "created_at")} as created_at
        from oauth_clients order by created_at desc, client_id limit ${limit + 1}`;
      return page("clients", rows.map((r) => ({ ...r })), limit);
    },
  },
  "client show": {
    usage: "client show <client_id>",
    help:
      "Shows one OAuth client: redirect URIs (and post-logout ones), scopes, grant types, and how many live grants it holds.",
    options: { id: S },
    required: ["id"],
    positional: "id",
    run: async (v, io) => {
      const clientId = str(v, "id");
      const [c] = await io.sql`
        select client_id, name, redirect_uris, post_logout_redirect_uris, scopes, grant_types,
               token_endpoint_auth_method as auth_method,
               self_registered, trusted, ${isoColumn(io.sql, "created_at")} as created_at,
               (select count(*)::int from oauth_grants g where g.client_id = c.client_id and g.revoked_at is null)
                 as active_grants
        from oauth_clients c where client_id = ${clientId}`;
      if (!c) throw notFound(`no client ${clientId}`);
      return { ...c };
    },
  },
  "apikey list": {
    usage: `apikey list [--workspace W] [--user U] [--revoked] ${LIMIT_USAGE}`,
    help: "Lists API keys (newest first) by their prefix — never the key; revoked keys only with --revoked.",
    options: { workspace: S, user: S, revoked: { type: "boolean" }, limit: S },
    required: [],
    table: {
      key: "keys",
      columns: ["id", "key_prefix", "kind", "workspace", "user_email", "name", "last_used_at", "revoked"],
    },
    run: async (v, io) => {
      const limit = limitOf(v);
      const ws = opt(v, "workspace");
      const user = opt(v, "user");
      const workspaceId = ws === undefined ? null : requireUuid(ws, "workspace");
      const userId = user === undefined ? null : requireUuid(user, "user");
      const withRevoked = v.revoked === true;
      const rows = await io.sql`
        select k.id, k.key_prefix, k.kind, k.workspace_id, w.name as workspace, k.user_id, u.email as user_email,
               k.company_id, k.name, ${isoColumn(io.sql, "k.created_at")} as created_at,
               ${isoColumn(io.sql, "k.last_used_at")} as last_used_at, k.revoked_at is not null as revoked
        from api_keys k join workspaces w on w.id = k.workspace_id left join users u on u.id = k.user_id
        where (${workspaceId} :: uuid is null or k.workspace_id = ${workspaceId})
          and (${userId} :: uuid is null or k.user_id = ${userId})
          and (${withRevoked} or k.revoked_at is null)
        order by k.created_at desc, k.id limit ${limit + 1}`;
      return page("keys", rows.map((r) => ({ ...r })), limit);
    },
  },
};
