// Contacts (CRM leads and people): filtered, sorted and paged lists, CSV export, create and update, in scope.
import { withTx } from "../db/tx.ts";
import { allOf, contains, isoColumn, likePattern } from "../db/sql.ts";
import { CsvBuilder } from "../csv.ts";
import type postgres from "postgres";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import { jsonStringBytes } from "../json_bytes.ts";
import { companyFilter, companyForWrite, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import {
  afterPosition,
  countUpTo,
  cursorFingerprint,
  cursorKeyColumn,
  type CursorPaging,
  decodeCursor,
  type Keyed,
  type KeyKind,
  keysetPageOf,
  type Page,
} from "./page.ts";

export const CONTACT_STATUSES = [
  "new",
  "contacted",
  "qualified",
  "proposal",
  "negotiation",
  "won",
  "lost",
] as const;
export type ContactStatus = typeof CONTACT_STATUSES[number];

/** Text fields filterable by case-insensitive substring: input name → column. */
export const CONTACT_TEXT_FILTERS = {
  companyName: "company_name",
  contactName: "contact_name",
  firstName: "first_name",
  lastName: "last_name",
  email: "email",
  phone: "phone",
  mobileNumber: "mobile_number",
  address: "address",
  postalCode: "postal_code",
  city: "city",
  state: "state",
  country: "country",
  department: "department",
  groups: "groups",
  source: "source",
  vatNumber: "vat_number",
} as const;
export type ContactTextFilter = keyof typeof CONTACT_TEXT_FILTERS;

/** Sortable columns: the only values sortField accepts (camelCase names; their snake_case columns too). */
export const CONTACT_SORT_FIELDS = {
  createdAt: "created_at",
  updatedAt: "updated_at",
  companyName: "company_name",
  contactName: "contact_name",
  firstName: "first_name",
  lastName: "last_name",
  email: "email",
  phone: "phone",
  city: "city",
  postalCode: "postal_code",
  state: "state",
  country: "country",
  department: "department",
  source: "source",
  status: "status",
  nextFollowUp: "next_follow_up",
} as const;
export type ContactSortField = keyof typeof CONTACT_SORT_FIELDS;
const TEXT_SORT: ReadonlySet<string> = new Set(Object.keys(CONTACT_TEXT_FILTERS).concat("status"));

/** The cap of one export: larger exports would make one MCP answer of many megabytes. */
export const EXPORT_MAX_ROWS = 10_000;
/**
 * The most bytes an export's CSV may take in its JSON-RPC answer (UTF-8 after JSON escaping, so the file itself
 * is at most this large too). A `"` is doubled by CSV quoting and escaped again by JSON: 10,000 rows of long
 * notes made answers of 400 MB. Issue 16 will move large exports out of the answer (a resource_link).
 */
export const EXPORT_MAX_BYTES = 10 * 1024 * 1024;
export const EXPORT_CHUNK = 500;
/** CSV bytes built between two yields to the event loop, so an export never holds other requests for long. */
const EXPORT_YIELD_BYTES = 1024 * 1024;

export type ContactFilter = { [K in ContactTextFilter]?: string } & {
  search?: string;
  status?: ContactStatus;
  assignedTo?: string;
  sortField?: string;
  sortDirection?: "asc" | "desc";
};

export interface Contact {
  id: string;
  companyId: string | null;
  companyName: string | null;
  contactName: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  mobileNumber: string | null;
  website: string | null;
  address: string | null;
  postalCode: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  department: string | null;
  groups: string | null;
  source: string | null;
  status: ContactStatus;
  vatNumber: string | null;
  assignedTo: string | null;
  notes: string | null;
  nextFollowUp: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Every field of a contact except its id, scope and audit columns (create/update payloads). */
export type ContactFields = Omit<Contact, "id" | "companyId" | "createdBy" | "createdAt" | "updatedAt">;
export type NewContact = Partial<Omit<ContactFields, "status">> & { status?: ContactStatus };
/** undefined = unchanged, null or "" = cleared (status cannot be cleared). */
export type ContactPatch = { [K in keyof ContactFields]?: ContactFields[K] | null };

/** Output field → column; the order is the order of the CSV columns. */
const FIELD_COLUMNS = {
  id: "id",
  companyId: "company_id",
  companyName: "company_name",
  contactName: "contact_name",
  firstName: "first_name",
  lastName: "last_name",
  email: "email",
  phone: "phone",
  mobileNumber: "mobile_number",
  website: "website",
  address: "address",
  postalCode: "postal_code",
  city: "city",
  state: "state",
  country: "country",
  department: "department",
  groups: "groups",
  source: "source",
  status: "status",
  vatNumber: "vat_number",
  assignedTo: "assigned_to",
  notes: "notes",
  nextFollowUp: "next_follow_up",
  createdBy: "created_by",
  createdAt: "created_at",
  updatedAt: "updated_at",
} as const satisfies Record<keyof Contact, string>;

const PATCHABLE = Object.entries(FIELD_COLUMNS).filter(([f]) =>
  !["id", "companyId", "createdBy", "createdAt", "updatedAt"].includes(f)
) as [keyof ContactFields, string][];

/** The columns, aliased to the output names and converted to JSON-ready text in SQL. */
function columns(db: Db) {
  return db`
    id, company_id as "companyId", company_name as "companyName", contact_name as "contactName",
    first_name as "firstName", last_name as "lastName", email, phone, mobile_number as "mobileNumber", website,
    address, postal_code as "postalCode", city, state, country, department, groups, source, status,
    vat_number as "vatNumber", assigned_to as "assignedTo", notes, next_follow_up::text as "nextFollowUp",
    created_by as "createdBy",
    ${isoColumn(db, "created_at")} as "createdAt",
    ${isoColumn(db, "updated_at")} as "updatedAt"`;
}

/** The sort column for a sortField, or invalid_input listing the allowed names; never interpolated as given. */
export function sortColumn(field: string | undefined): { column: string; text: boolean } {
  if (field === undefined) return { column: "created_at", text: false };
  for (const [name, column] of Object.entries(CONTACT_SORT_FIELDS)) {
    if (field === name || field === column) return { column, text: TEXT_SORT.has(name) };
  }
  throw invalidInput(
    `sortField: must be one of ${Object.keys(CONTACT_SORT_FIELDS).join(", ")} (got ${JSON.stringify(field)})`,
  );
}

/** WHERE: workspace, company scope, each given filter (AND), and `search` over name, company, email, phone. */
function where(db: Db, s: Scope, f: ContactFilter) {
  const parts: postgres.Fragment[] = [
    db`workspace_id = ${s.workspaceId}`,
    companyFilter(db, s, "company_id"),
  ];
  for (const [field, column] of Object.entries(CONTACT_TEXT_FILTERS)) {
    const v = f[field as ContactTextFilter];
    if (v !== undefined && v !== "") parts.push(contains(db, column, v));
  }
  if (f.status !== undefined) parts.push(db`status = ${f.status}`);
  if (f.assignedTo !== undefined) parts.push(db`assigned_to = ${f.assignedTo}`);
  if (f.search !== undefined && f.search !== "") {
    const p = likePattern(f.search);
    // The full name is written exactly as in the trigram index contacts_search_trgm (migration 00019).
    parts.push(db`(contact_name ilike ${p} escape '\\' or company_name ilike ${p} escape '\\'
      or coalesce(first_name || ' ' || last_name, first_name, last_name, '') ilike ${p} escape '\\'
      or email ilike ${p} escape '\\' or phone ilike ${p} escape '\\' or mobile_number ilike ${p} escape '\\')`);
  }
  return allOf(db, parts);
}

/** The sort of a contact list: its key expression, how the key travels in a cursor, and the direction. */
interface ContactSort {
  key: postgres.Fragment;
  kind: KeyKind;
  nullable: boolean;
  dir: "asc" | "desc";
  /** the ORDER BY: the key (empty values last), then id in the same direction, so every row has one place */
  order: postgres.Fragment;
}

/** ORDER BY from the whitelist; text sorts ignore case; empty values last; id breaks ties so paging is stable. */
function sortOf(db: Db, f: ContactFilter): ContactSort {
  const { column, text } = sortColumn(f.sortField);
  // With a text filter the matches are few and found through the trigram index; walking the ORDER BY index
  // instead (which the planner picks when it expects matches early) read all 100,000 rows of a workspace for
  // 10 matches (427 ms). coalesce(x, x) sorts the same but matches no index, so the planner filters first.
  const key = text
    ? db`lower(${db(column)})`
    : searching(f)
    ? db`coalesce(${db(column)}, ${db(column)})`
    : db`${db(column)}`;
  const kind: KeyKind = text ? "text" : column === "next_follow_up" ? "date" : "timestamptz";
  const nullable = !NOT_NULL_SORT.has(column);
  const dir = f.sortDirection === "asc" ? "asc" : "desc";
  const order = dir === "asc" ? db`${key} asc nulls last, id asc` : db`${key} desc nulls last, id desc`;
  return { key, kind, nullable, dir, order };
}

/** The sort columns that never hold null (their keyset condition needs no "or empty" branch). */
const NOT_NULL_SORT: ReadonlySet<string> = new Set(["created_at", "updated_at", "status"]);

function searching(f: ContactFilter): boolean {
  return (f.search !== undefined && f.search !== "") ||
    Object.keys(CONTACT_TEXT_FILTERS).some((k) => {
      const v = f[k as ContactTextFilter];
      return v !== undefined && v !== "";
    });
}

/** What a contacts cursor is valid for: every filter and the sort (sortField by its column). */
function contactsFingerprint(f: ContactFilter): string {
  const given: Record<string, unknown> = {
    sort: sortColumn(f.sortField).column,
    dir: f.sortDirection ?? "desc",
  };
  for (const k of [...Object.keys(CONTACT_TEXT_FILTERS), "search", "status", "assignedTo"]) {
    given[k] = f[k as keyof ContactFilter];
  }
  return cursorFingerprint("contacts", given);
}

/** What list_contacts answers per contact by default: enough to pick one (every field: `full`, export_contacts). */
export interface ContactSummary {
  id: string;
  /** contactName, else first and last name, as one string; null when none is set */
  name: string | null;
  companyName: string | null;
  email: string | null;
  status: ContactStatus;
  nextFollowUp: string | null;
}

function summaryColumns(db: Db) {
  return db`
    id, coalesce(contact_name, nullif(concat_ws(' ', first_name, last_name), '')) as name,
    company_name as "companyName", email, status, next_follow_up::text as "nextFollowUp"`;
}

export type ContactPage = Page<ContactSummary | Contact>;
/** A filter, paging, and `full`: whole contacts instead of summaries. */
export type ContactListOptions = ContactFilter & CursorPaging & { full?: boolean };

/** One page of the caller's contacts matching every given filter, with the total count of matches. */
export function listContacts(
  db: Db,
  caller: ScopedCaller,
  o: ContactListOptions & { full: true },
): Promise<Page<Contact>>;
export function listContacts(db: Db, caller: ScopedCaller, o: ContactListOptions): Promise<ContactPage>;
export async function listContacts(
  db: Db,
  caller: ScopedCaller,
  filter: ContactListOptions,
): Promise<ContactPage> {
  const s = scopeOf(caller);
  const sort = sortOf(db, filter); // validates sortField before any query
  const fingerprint = contactsFingerprint(filter);
  const paging = { limit: filter.limit, offset: filter.offset ?? 0, cursor: filter.cursor };
  const conditions = [where(db, s, filter)];
  if (filter.cursor !== undefined) {
    const at = decodeCursor(filter.cursor, paging, fingerprint, sort.kind, sort.nullable);
    conditions.push(afterPosition(db, sort.kind, sort.key, db`id`, at, sort.dir, sort.nullable));
  }
  const matching = allOf(db, conditions);
  const [rows, count] = await Promise.all([
    db<Keyed<ContactSummary | Contact>[]>`
      select ${filter.full ? columns(db) : summaryColumns(db)},
             ${cursorKeyColumn(db, sort.kind, sort.key)} as "cursorKey"
        from contacts where ${matching}
       order by ${sort.order} limit ${filter.limit} offset ${paging.offset}`,
    countUpTo(db, db`contacts where ${matching}`, paging),
  ]);
  return keysetPageOf(rows, count, paging, fingerprint);
}

export interface ContactExport {
  csv: string;
  /** data rows in the CSV */
  rows: number;
  /** contacts the filter matched */
  matched: number;
  /** true when matched > rows */
  truncated: boolean;
  /** which cap cut the CSV: the row cap (EXPORT_MAX_ROWS) or the byte cap (EXPORT_MAX_BYTES); null when whole */
  cutBy: "rows" | "bytes" | null;
  /** bytes the CSV takes in the JSON answer (UTF-8, JSON-escaped) */
  bytes: number;
}

/** The CSV header: the output field names. */
export const CONTACT_CSV_COLUMNS = Object.keys(FIELD_COLUMNS) as (keyof Contact)[];

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The matching contacts as CSV (BOM, header, RFC 4180, formula guard), at most `maxRows` rows and `maxBytes`
 * bytes as sent in a JSON answer; rows stop at the first that would not fit. Rows arrive through a cursor in
 * chunks and are turned into text at once, so only one chunk of row objects is alive; every
 * EXPORT_YIELD_BYTES of text the export lets other requests run. Count and rows come from one read-only
 * snapshot so `matched` agrees with the rows.
 */
export async function exportContacts(
  db: Db,
  caller: ScopedCaller,
  filter: ContactFilter,
  maxRows = EXPORT_MAX_ROWS,
  maxBytes = EXPORT_MAX_BYTES,
): Promise<ContactExport> {
  const s = scopeOf(caller);
  const order = sortOf(db, filter).order;
  const run = async (tx: Db): Promise<ContactExport> => {
    const [{ total }] = await tx<{ total: number }[]>`
      select count(*)::int as total from contacts where ${where(tx, s, filter)}`;
    const csv = new CsvBuilder(CONTACT_CSV_COLUMNS, maxBytes, jsonStringBytes);
    let full = false;
    let yieldedAt = 0;
    const cursor = tx<Contact[]>`
      select ${columns(tx)} from contacts where ${where(tx, s, filter)}
       order by ${order} limit ${maxRows}`.cursor(EXPORT_CHUNK);
    for await (const chunk of cursor) {
      for (const c of chunk) {
        if (!csv.add(CONTACT_CSV_COLUMNS.map((k) => c[k]))) {
          full = true;
          break;
        }
        if (csv.bytes - yieldedAt >= EXPORT_YIELD_BYTES) {
          yieldedAt = csv.bytes;
          await yieldToEventLoop();
        }
      }
      if (full) break; // ends the cursor: no more rows are read
    }
    const rows = csv.rows;
    return {
      csv: csv.text,
      rows,
      matched: total,
      truncated: total > rows,
      cutBy: full ? "bytes" : total > rows ? "rows" : null,
      bytes: csv.bytes,
    };
  };
  // One snapshot for the count and the rows (inside a caller's transaction, the caller's snapshot).
  return await withTx(db, run, { isolation: "repeatable read", readOnly: true });
}

async function fetchContact(db: Db, s: Scope, id: string): Promise<Contact | null> {
  const [row] = await db<Contact[]>`
    select ${columns(db)} from contacts
     where workspace_id = ${s.workspaceId} and id = ${id} and ${companyFilter(db, s, "company_id")}`;
  return row ?? null;
}

/** One contact; not_found for unknown ids and ids outside the caller's workspace or companies alike. */
export async function getContact(db: Db, caller: ScopedCaller, id: string): Promise<Contact> {
  const c = await fetchContact(db, scopeOf(caller), id);
  if (!c) throw notFound(`contactId: no contact ${id}`);
  return c;
}

/** The assignee must be a member of the workspace (else not_found, like any unknown id). */
async function requireMember(db: Db, workspaceId: string, userId: string): Promise<void> {
  const [row] = await db<{ one: number }[]>`
    select 1 as one from workspace_members where workspace_id = ${workspaceId} and user_id = ${userId}`;
  if (!row) throw notFound(`assignedTo: no workspace member ${userId}`);
}

/** "" means "no value": stored as null so filters and exports see one kind of empty. */
function blankToNull<T>(v: T): T | null {
  return typeof v === "string" && v === "" ? null : v;
}

/** Creates a contact in the caller's company (the key's only company, or none for an unlimited key). */
export async function createContact(db: Db, caller: ScopedCaller, input: NewContact): Promise<Contact> {
  const s = scopeOf(caller);
  const companyId = companyForWrite(s, null);
  if (input.assignedTo) await requireMember(db, s.workspaceId, input.assignedTo);
  const row: Record<string, unknown> = {
    workspace_id: s.workspaceId,
    company_id: companyId,
    created_by: caller.userId ?? null,
  };
  for (const [field, column] of PATCHABLE) {
    const v = blankToNull(input[field as keyof NewContact]);
    if (v !== undefined && v !== null) row[column] = v;
  }
  const [{ id }] = await db<{ id: string }[]>`insert into contacts ${db(row)} returning id`;
  return (await fetchContact(db, s, id))!;
}

/** Changes the given fields in one statement; omitted fields stay, null or "" clears one. */
export async function updateContact(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: ContactPatch,
): Promise<Contact> {
  const s = scopeOf(caller);
  const set: Record<string, unknown> = {};
  for (const [field, column] of PATCHABLE) {
    const v = patch[field];
    if (v === undefined) continue;
    if (field === "status" && (v === null || v === "")) throw invalidInput("status: cannot be cleared");
    set[column] = blankToNull(v);
  }
  if (Object.keys(set).length === 0) throw invalidInput("nothing to change: give at least one field");
  if (patch.assignedTo) await requireMember(db, s.workspaceId, patch.assignedTo);
  const rows = await db<{ id: string }[]>`
    update contacts set ${db(set)}, updated_at = now()
     where workspace_id = ${s.workspaceId} and id = ${id} and ${companyFilter(db, s, "company_id")}
    returning id`;
  if (rows.length === 0) throw notFound(`contactId: no contact ${id}`);
  return (await fetchContact(db, s, id))!;
}
