// Workspaces, their companies and members: the operator's side of tenancy.
import type { Db } from "../db/client.ts";
import { invalidInput, notFound, requireUuid } from "../errors.ts";
import { isModule, isRole, MODULES, type Role } from "./modules.ts";

function checkName(name: string): string {
  const n = name.trim();
  if (n.length === 0 || n.length > 200) throw invalidInput("name: must be 1-200 characters");
  return n;
}

export async function createWorkspace(
  db: Db,
  name: string,
  modules: readonly string[],
): Promise<{ id: string }> {
  for (const m of modules) {
    if (!isModule(m)) throw invalidInput(`unknown module ${m} (known: ${MODULES.join(", ")})`);
  }
  const [row] = await db<{ id: string }[]>`
    insert into workspaces (name, modules) values (${checkName(name)}, ${[
    ...new Set(modules),
  ]}) returning id`;
  return row;
}

/** A workspace's name; "" when there is no such workspace. */
export async function workspaceName(db: Db, workspaceId: string): Promise<string> {
  const [ws] = await db<{ name: string }[]>`
    select name from workspaces where id = ${workspaceId}`;
  return ws?.name ?? "";
}

async function requireWorkspace(db: Db, workspaceId: string): Promise<void> {
  requireUuid(workspaceId, "workspace");
  const [row] = await db`select 1 from workspaces where id = ${workspaceId}`;
  if (!row) throw notFound(`no workspace ${workspaceId}`);
}

export async function createCompany(db: Db, workspaceId: string, name: string): Promise<{ id: string }> {
  const n = checkName(name);
  await requireWorkspace(db, workspaceId);
  const [row] = await db<{ id: string }[]>`
    insert into companies (workspace_id, name) values (${workspaceId}, ${n}) returning id`;
  return row;
}

/** Adds a member (or changes the role and companies of an existing one). */
export async function addMember(
  db: Db,
  workspaceId: string,
  userId: string,
  role: string,
  companyIds: readonly string[] | null,
): Promise<void> {
  if (!isRole(role)) {
    throw invalidInput(`role: must be one of owner, admin, manager, accounting, member, guest`);
  }
  await requireWorkspace(db, workspaceId);
  requireUuid(userId, "user");
  const [user] = await db`select 1 from users where id = ${userId}`;
  if (!user) throw notFound(`no user ${userId}`);
  const companies = companyIds === null
    ? null
    : [...new Set(companyIds.map((c) => requireUuid(c, "company")))];
  if (companies) {
    const found = await db<{ id: string }[]>`
      select id from companies where workspace_id = ${workspaceId} and id = any(${companies}::uuid[])`;
    const missing = companies.filter((c) => !found.some((f) => f.id === c));
    if (missing.length) throw notFound(`no company ${missing[0]} in workspace ${workspaceId}`);
  }
  await db`
    insert into workspace_members (workspace_id, user_id, role, company_ids)
    values (${workspaceId}, ${userId}, ${role as Role}, ${companies})
    on conflict (workspace_id, user_id) do update set role = excluded.role, company_ids = excluded.company_ids`;
}
