// Projects: SQL and business rules, always within the caller's workspace and companies.
import { allOf, type ConstraintAnswers, isoColumn, throwMapped } from "../db/sql.ts";
import { type Page, pageOf } from "./page.ts";
import type { Db } from "../db/client.ts";
import { conflict, invalidInput, notFound } from "../errors.ts";
import { formatMoney, parseMoney } from "../money.ts";
import {
  companyFilter,
  companyForWrite,
  inScope,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";

export const PROJECT_STATUSES = ["in_progress", "completed", "invoiced"] as const;
export type ProjectStatus = typeof PROJECT_STATUSES[number];
export const TASK_PREFIX = /^[A-Z][A-Z0-9]{1,9}$/;

export interface ProjectSummary {
  id: string;
  name: string;
  status: ProjectStatus;
  /** decimal string with 2 decimals ("24000.00"), or null */
  budget: string | null;
  currency: string;
  clientId: string | null;
  clientName: string | null;
  companyId: string | null;
  startDate: string | null;
  endDate: string | null;
  estimatedHours: number | null;
  taskPrefix: string | null;
}

export interface Project extends ProjectSummary {
  description: string;
  notes: string;
  offerId: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectFilter {
  status?: ProjectStatus;
  limit: number;
  offset?: number;
}

export interface NewProject {
  name: string;
  clientId?: string;
  companyId?: string;
  offerId?: string;
  description?: string;
  startDate?: string;
  endDate?: string;
  /** a JSON number or a decimal string; at most 2 decimals */
  budget?: string | number;
  estimatedHours?: number;
  notes?: string;
  currency?: string;
  taskPrefix?: string;
}

/** Fields to change; undefined = unchanged, null = cleared. */
export interface ProjectPatch {
  name?: string;
  description?: string;
  status?: ProjectStatus;
  startDate?: string | null;
  endDate?: string | null;
  budget?: string | number | null;
  estimatedHours?: number | null;
  notes?: string;
  taskPrefix?: string | null;
}

/**
 * The summary columns, aliased to the answer's names; numbers and dates converted in SQL so the driver hands back
 * JSON-ready values (estimated hours are hours, not money: a JSON number). The client's name only where the
 * caller could read the client itself (a client that moved to a company outside the caller's scope keeps its id
 * here, its name becomes null).
 */
function summaryColumns(db: Db, s: Scope) {
  const clientReadable = companyFilter(db, s, "c.company_id");
  return db`
    p.id, p.name, p.status, p.budget::text as budget, p.currency,
    p.client_id as "clientId", case when ${clientReadable} then c.name end as "clientName",
    p.company_id as "companyId", p.start_date::text as "startDate", p.end_date::text as "endDate",
    p.estimated_hours::float8 as "estimatedHours", p.task_prefix as "taskPrefix"`;
}

/** The columns of a full Project: the summary's and the long text and audit fields. */
function columns(db: Db, s: Scope) {
  return db`
    ${summaryColumns(db, s)}, p.description, p.notes, p.offer_id as "offerId", p.created_by as "createdBy",
    ${isoColumn(db, "p.created_at")} as "createdAt", ${isoColumn(db, "p.updated_at")} as "updatedAt"`;
}

/** Projects the caller may see, newest first. */
export async function listProjects(
  db: Db,
  caller: ScopedCaller,
  filter: ProjectFilter,
): Promise<Page<ProjectSummary>> {
  const s = scopeOf(caller);
  const parts = [db`p.workspace_id = ${s.workspaceId}`, companyFilter(db, s, "p.company_id")];
  if (filter.status) parts.push(db`p.status = ${filter.status}`);
  const where = allOf(db, parts);
  const [rows, [{ total }]] = await Promise.all([
    db<ProjectSummary[]>`
      select ${summaryColumns(db, s)}
        from projects p
        left join clients c on c.workspace_id = p.workspace_id and c.id = p.client_id
       where ${where}
       order by p.created_at desc, p.id
       limit ${filter.limit} offset ${filter.offset ?? 0}`,
    db<{ total: number }[]>`select count(*)::int as total from projects p where ${where}`,
  ]);
  return pageOf(rows, total, filter);
}

async function fetchProject(db: Db, s: Scope, id: string): Promise<Project | null> {
  const [row] = await db<Project[]>`
    select ${columns(db, s)}
      from projects p
      left join clients c on c.workspace_id = p.workspace_id and c.id = p.client_id
     where p.workspace_id = ${s.workspaceId} and p.id = ${id}
       and ${companyFilter(db, s, "p.company_id")}`;
  return row ?? null;
}

/** One project; not_found for an id of another workspace or company, exactly as for an unknown id. */
export async function getProject(db: Db, caller: ScopedCaller, id: string): Promise<Project> {
  const p = await fetchProject(db, scopeOf(caller), id);
  if (!p) throw notFound(`projectId: no project ${id}`);
  return p;
}

/** A budget as the exact decimal string stored in numeric(14,2); null stays null. */
function budgetOf(value: string | number | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const cents = parseMoney(value, "budget");
  if (cents < 0n) throw invalidInput("budget: must not be negative");
  return formatMoney(cents);
}

/** Constraint violations as answers naming the field. */
function projectErrors(taskPrefix: string | null | undefined): ConstraintAnswers {
  return {
    projects_task_prefix: () =>
      conflict(`taskPrefix: ${taskPrefix} is already used by another project in this workspace`),
    projects_dates: () => invalidInput("endDate: must not be before startDate"),
  };
}

export async function createProject(db: Db, caller: ScopedCaller, input: NewProject): Promise<Project> {
  const s = scopeOf(caller);
  if (input.startDate && input.endDate && input.endDate < input.startDate) {
    throw invalidInput("endDate: must not be before startDate");
  }
  if (input.taskPrefix !== undefined && !TASK_PREFIX.test(input.taskPrefix)) {
    throw invalidInput("taskPrefix: must be 2-10 capital letters or digits, starting with a letter");
  }
  let companyId = input.companyId ?? null;
  if (input.clientId) {
    const [client] = await db<{ companyId: string | null }[]>`
      select company_id as "companyId" from clients where workspace_id = ${s.workspaceId} and id = ${input.clientId}`;
    if (!client || !inScope(s, client.companyId)) throw notFound(`clientId: no client ${input.clientId}`);
    if (companyId && client.companyId && companyId !== client.companyId) {
      throw invalidInput(`clientId: client ${input.clientId} belongs to another company than companyId`);
    }
    companyId ??= client.companyId;
  }
  if (input.offerId) {
    const [offer] = await db<{ companyId: string | null }[]>`
      select company_id as "companyId" from offers where workspace_id = ${s.workspaceId} and id = ${input.offerId}`;
    if (!offer || !inScope(s, offer.companyId)) throw notFound(`offerId: no offer ${input.offerId}`);
  }
  companyId = companyForWrite(s, companyId);
  if (companyId) await requireCompany(db, s, companyId);
  let id: string;
  try {
    [{ id }] = await db<{ id: string }[]>`
      insert into projects (workspace_id, company_id, client_id, offer_id, name, description, start_date,
                            end_date, budget, estimated_hours, notes, currency, task_prefix, created_by)
      values (${s.workspaceId}, ${companyId}, ${input.clientId ?? null}, ${
      input.offerId ?? null
    }, ${input.name},
              ${input.description ?? ""}, ${input.startDate ?? null}, ${input.endDate ?? null},
              ${budgetOf(input.budget)}, ${input.estimatedHours ?? null}, ${input.notes ?? ""},
              ${input.currency ?? "EUR"}, ${input.taskPrefix ?? null}, ${caller.userId ?? null})
      returning id`;
  } catch (err) {
    throwMapped(err, projectErrors(input.taskPrefix));
  }
  return (await fetchProject(db, s, id))!;
}

const PATCH_COLUMNS = {
  name: "name",
  description: "description",
  status: "status",
  startDate: "start_date",
  endDate: "end_date",
  budget: "budget",
  estimatedHours: "estimated_hours",
  notes: "notes",
  taskPrefix: "task_prefix",
} as const satisfies Record<keyof ProjectPatch, string>;

/** Changes the given fields in one statement; the date rule is checked against the stored values too. */
export async function updateProject(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: ProjectPatch,
): Promise<Project> {
  const s = scopeOf(caller);
  const set: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const v = patch[field as keyof ProjectPatch];
    if (v !== undefined) set[column] = field === "budget" ? budgetOf(v as ProjectPatch["budget"]) : v;
  }
  if (Object.keys(set).length === 0) throw invalidInput("nothing to change: give at least one field");
  if (typeof patch.taskPrefix === "string" && !TASK_PREFIX.test(patch.taskPrefix)) {
    throw invalidInput("taskPrefix: must be 2-10 capital letters or digits, starting with a letter");
  }
  let rows: { id: string }[];
  try {
    rows = await db<{ id: string }[]>`
      update projects p set ${db(set)}, updated_at = now()
       where p.workspace_id = ${s.workspaceId} and p.id = ${id}
         and ${companyFilter(db, s, "p.company_id")}
      returning p.id`;
  } catch (err) {
    throwMapped(err, projectErrors(patch.taskPrefix));
  }
  if (rows.length === 0) throw notFound(`projectId: no project ${id}`);
  return (await fetchProject(db, s, id))!;
}

export function setProjectStatus(
  db: Db,
  caller: ScopedCaller,
  id: string,
  status: ProjectStatus,
): Promise<Project> {
  return updateProject(db, caller, id, { status });
}
