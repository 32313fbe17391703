// Clients: the workspace's customers, within the caller's workspace and companies; default VAT of their invoices.
import { isoColumn } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import { formatDecimal, parseDecimal, PERCENT_SCALE } from "../money.ts";
import {
  companyFilter,
  companyForWrite,
  inScope,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";
import { countUpTo, type Page, pageOf, type Paging } from "./page.ts";

export interface Client {
  id: string;
  companyName: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  vatNumber: string | null;
  address: string | null;
  postalCode: string | null;
  city: string | null;
  country: string | null;
  companyId: string | null;
  department: string | null;
  /** default VAT rate (percent, "8.10") of the client's new invoices; null = none set */
  vatRate: string | null;
  intermediary: string | null;
  /** the intermediary's commission, percent ("10.00") */
  commission: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewClient {
  companyName: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string;
  vatNumber?: string;
  address?: string;
  postalCode?: string;
  city?: string;
  country?: string;
  companyId?: string;
  department?: string;
  vatRate?: string | number;
  intermediary?: string;
  commission?: string | number;
}

/** Fields to change: undefined = unchanged, null = cleared (companyName cannot be cleared). */
export type ClientPatch =
  & { companyName?: string }
  & {
    [K in Exclude<keyof NewClient, "companyName">]?: NewClient[K] | null;
  };

/** The columns of a Client, aliased to its field names and converted to JSON-ready text in SQL. */
function columns(db: Db) {
  return db`
    c.id, c.name as "companyName", c.first_name as "firstName", c.last_name as "lastName", c.email, c.phone,
    c.vat_number as "vatNumber", c.address, c.postal_code as "postalCode", c.city, c.country,
    c.company_id as "companyId", c.department, c.vat_rate::text as "vatRate", c.intermediary,
    c.commission::text as commission,
    ${isoColumn(db, "c.created_at")} as "createdAt",
    ${isoColumn(db, "c.updated_at")} as "updatedAt"`;
}

/** What list_clients answers per client by default: enough to pick one (the rest: `full`, create, update). */
export interface ClientSummary {
  id: string;
  companyName: string;
  /** first and last name of the contact person, as one string; null when neither is set */
  contactName: string | null;
  email: string | null;
  city: string | null;
}

function summaryColumns(db: Db) {
  return db`
    c.id, c.name as "companyName", nullif(concat_ws(' ', c.first_name, c.last_name), '') as "contactName",
    c.email, c.city`;
}

/** Paging, and `full`: whole clients instead of summaries. */
export type ClientListOptions = Paging & { full?: boolean };

/** Every client the caller may see, sorted by company name (case-insensitive): summaries, or whole with `full`. */
export function listClients(
  db: Db,
  caller: ScopedCaller,
  o: ClientListOptions & { full: true },
): Promise<Page<Client>>;
export function listClients(
  db: Db,
  caller: ScopedCaller,
  o: ClientListOptions,
): Promise<Page<ClientSummary | Client>>;
export async function listClients(
  db: Db,
  caller: ScopedCaller,
  o: ClientListOptions,
): Promise<Page<ClientSummary | Client>> {
  const s = scopeOf(caller);
  const where = db`c.workspace_id = ${s.workspaceId} and ${companyFilter(db, s, "c.company_id")}`;
  const paging = { limit: o.limit, offset: o.offset };
  const [rows, total] = await Promise.all([
    db<(ClientSummary | Client)[]>`
      select ${o.full ? columns(db) : summaryColumns(db)} from clients c where ${where}
       order by lower(c.name), c.name, c.id
       limit ${o.limit} offset ${o.offset ?? 0}`,
    countUpTo(db, db`clients c where ${where}`, paging),
  ]);
  return pageOf([...rows], total, paging, true);
}

async function fetchClient(db: Db, s: Scope, id: string): Promise<Client | null> {
  const [row] = await db<Client[]>`
    select ${columns(db)}
      from clients c
     where c.workspace_id = ${s.workspaceId} and c.id = ${id} and ${companyFilter(db, s, "c.company_id")}`;
  return row ?? null;
}

export async function getClient(db: Db, caller: ScopedCaller, id: string): Promise<Client> {
  const c = await fetchClient(db, scopeOf(caller), id);
  if (!c) throw notFound(`clientId: no client ${id}`);
  return c;
}

/** What other domains need of a client they refer to. */
export interface ClientRef {
  id: string;
  name: string;
  companyId: string | null;
  /** basis points (8.1 % = 810n); null = none set */
  vatRateBp: bigint | null;
}

/** A client of the caller's workspace and scope, or not_found (as for an unknown id). */
export async function requireClient(db: Db, s: Scope, id: string): Promise<ClientRef> {
  const [row] = await db<{ name: string; companyId: string | null; vatRate: string | null }[]>`
    select name, company_id as "companyId", vat_rate::text as "vatRate" from clients
     where workspace_id = ${s.workspaceId} and id = ${id}`;
  if (!row || !inScope(s, row.companyId)) throw notFound(`clientId: no client ${id}`);
  return {
    id,
    name: row.name,
    companyId: row.companyId,
    vatRateBp: row.vatRate === null ? null : parseDecimal(row.vatRate, PERCENT_SCALE, "vatRate"),
  };
}

/** A percent 0-100 with at most 2 decimals, as the exact string stored ("8.10"). */
export function percentText(value: string | number, field: string): string {
  const bp = parseDecimal(value, PERCENT_SCALE, field);
  if (bp < 0n || bp > 10_000n) throw invalidInput(`${field}: must be between 0 and 100`);
  return formatDecimal(bp, PERCENT_SCALE);
}

const TEXT_LIMITS = {
  firstName: ["first_name", 100],
  lastName: ["last_name", 100],
  email: ["email", 320],
  phone: ["phone", 50],
  vatNumber: ["vat_number", 50],
  address: ["address", 500],
  postalCode: ["postal_code", 20],
  city: ["city", 100],
  country: ["country", 100],
  department: ["department", 200],
  intermediary: ["intermediary", 200],
} as const;

function companyNameText(v: string): string {
  const n = v.trim();
  if (n.length < 1 || n.length > 200) throw invalidInput("companyName: must be 1-200 characters");
  return n;
}

/** Column values of the given fields; empty optional text is stored as null. */
function values(input: ClientPatch): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  if (input.companyName !== undefined) out.name = companyNameText(input.companyName);
  for (const [field, [column, max]] of Object.entries(TEXT_LIMITS)) {
    const v = input[field as keyof typeof TEXT_LIMITS];
    if (v === undefined) continue;
    const t = v === null ? null : v.trim() || null;
    if (t !== null && t.length > max) throw invalidInput(`${field}: must be at most ${max} characters`);
    out[column] = t;
  }
  if (input.vatRate !== undefined) {
    out.vat_rate = input.vatRate === null ? null : percentText(input.vatRate, "vatRate");
  }
  if (input.commission !== undefined) {
    out.commission = input.commission === null ? null : percentText(input.commission, "commission");
  }
  return out;
}

export async function createClient(db: Db, caller: ScopedCaller, input: NewClient): Promise<Client> {
  const s = scopeOf(caller);
  const record = values(input);
  const companyId = companyForWrite(s, input.companyId);
  if (companyId) await requireCompany(db, s, companyId);
  const [{ id }] = await db<{ id: string }[]>`
    insert into clients ${db({ ...record, workspace_id: s.workspaceId, company_id: companyId })}
    returning id`;
  return (await fetchClient(db, s, id))!;
}

/** Changes the given fields in one statement; moving a client to a company needs that company in scope. */
export async function updateClient(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: ClientPatch,
): Promise<Client> {
  const s = scopeOf(caller);
  const set: Record<string, string | null> = values(patch);
  if (patch.companyId !== undefined) {
    if (patch.companyId === null) {
      // A company-limited caller cannot see company-less records, so may not create one by clearing.
      if (!inScope(s, null)) {
        throw invalidInput("companyId: cannot be cleared: this key is limited to companies");
      }
    } else {
      await requireCompany(db, s, patch.companyId);
    }
    set.company_id = patch.companyId;
  }
  if (Object.keys(set).length === 0) throw invalidInput("nothing to change: give at least one field");
  const rows = await db<{ id: string }[]>`
    update clients c set ${db(set)}, updated_at = now()
     where c.workspace_id = ${s.workspaceId} and c.id = ${id} and ${companyFilter(db, s, "c.company_id")}
    returning c.id`;
  if (rows.length === 0) throw notFound(`clientId: no client ${id}`);
  return (await fetchClient(db, s, id))!;
}
