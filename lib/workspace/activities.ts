// CRM activities (calls, meetings, emails …), each about exactly one contact, client, collaborator or supplier.
import { allOf, type ConstraintAnswers, isoColumn, likePattern, throwMapped } from "../db/sql.ts";
import type postgres from "postgres";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import { companyFilter, inScope, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import {
  afterPosition,
  countUpTo,
  cursorFingerprint,
  cursorKeyColumn,
  decodeCursor,
  type Keyed,
  keysetPageOf,
  type Page,
} from "./page.ts";

export const ACTIVITY_TYPES = [
  "call",
  "email",
  "meeting",
  "lunch",
  "visit",
  "video_call",
  "message",
  "other",
] as const;
export type ActivityType = typeof ACTIVITY_TYPES[number];

/** The four kinds of record an activity can be about: input field → table and column. */
export const ENTITY_REFS = {
  contactId: { kind: "contact", table: "contacts", column: "contact_id" },
  clientId: { kind: "client", table: "clients", column: "client_id" },
  collaboratorId: { kind: "collaborator", table: "collaborators", column: "collaborator_id" },
  supplierId: { kind: "supplier", table: "suppliers", column: "supplier_id" },
} as const;
export type EntityField = keyof typeof ENTITY_REFS;
export type EntityKind = typeof ENTITY_REFS[EntityField]["kind"];
const ENTITY_FIELDS = Object.keys(ENTITY_REFS) as EntityField[];
export const ONE_ENTITY_RULE =
  "an activity belongs to exactly one record: give exactly one of contactId, clientId, " +
  "collaboratorId or supplierId";

export interface Activity {
  id: string;
  type: ActivityType;
  title: string;
  description: string | null;
  /** the record the activity is about */
  entity: { kind: EntityKind; id: string; name: string | null };
  contactId: string | null;
  clientId: string | null;
  collaboratorId: string | null;
  supplierId: string | null;
  companyId: string | null;
  activityDate: string;
  startDate: string | null;
  endDate: string | null;
  isAllDay: boolean;
  durationMinutes: number | null;
  isCompleted: boolean;
  completedAt: string | null;
  outcome: string | null;
  notes: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

type EntityIds = { [K in EntityField]?: string | null };

export interface ActivityFields extends EntityIds {
  type?: ActivityType;
  description?: string | null;
  /** ISO 8601 instants (or YYYY-MM-DD, read as midnight UTC) */
  activityDate?: string;
  startDate?: string | null;
  endDate?: string | null;
  isAllDay?: boolean;
  durationMinutes?: number | null;
  isCompleted?: boolean;
  completedAt?: string | null;
  outcome?: string | null;
  notes?: string | null;
}
export interface NewActivity extends ActivityFields {
  title: string;
}
export interface ActivityPatch extends ActivityFields {
  title?: string;
}

export interface ActivityFilter extends EntityIds {
  type?: ActivityType;
  search?: string;
  limit: number;
  offset?: number;
  /** the nextCursor of the previous page (same filters); not with a non-zero offset */
  cursor?: string;
  /** whole activities instead of summaries */
  full?: boolean;
}

/** What list_activities answers per activity by default: enough to pick one (every field: `full`). */
export interface ActivitySummary {
  id: string;
  type: ActivityType;
  title: string;
  activityDate: string;
  isCompleted: boolean;
  entity: Activity["entity"];
}

/**
 * The activity columns (`full`: every field; else an ActivitySummary) and the joins they read. The record it is
 * about is built in SQL as {kind, id, name}; its name only where the caller could read that record itself: a
 * client (contact, collaborator, supplier) that moved to a company outside the caller's scope keeps its id here,
 * its name becomes null.
 */
function select(db: Db, s: Scope, full: boolean, extra?: postgres.Fragment) {
  const readable = (alias: string) => companyFilter(db, s, `${alias}.company_id`);
  const refColumns = ENTITY_FIELDS.map((f) => `a.${ENTITY_REFS[f].column}`);
  const kind = ENTITY_FIELDS.map((f) =>
    db`when ${db(`a.${ENTITY_REFS[f].column}`)} is not null then ${ENTITY_REFS[f].kind}::text`
  ).reduce((acc, p) => db`${acc} ${p}`);
  const entity = db`json_build_object(
    'kind', case ${kind} end,
    'id', coalesce(${db(refColumns)}),
    'name', case
      when ct.id is not null then case when ${readable("ct")} then
        coalesce(ct.contact_name, nullif(concat_ws(' ', ct.first_name, ct.last_name), ''), ct.company_name,
                 ct.email) end
      when cl.id is not null then case when ${readable("cl")} then cl.name end
      when co.id is not null then case when ${readable("co")} then co.name end
      when su.id is not null then case when ${readable("su")} then su.name end
    end) as entity`;
  const columns = full
    ? db`
      a.id, a.type, a.title, a.description, ${entity}, a.contact_id as "contactId", a.client_id as "clientId",
      a.collaborator_id as "collaboratorId", a.supplier_id as "supplierId", a.company_id as "companyId",
      ${isoColumn(db, "a.activity_date")} as "activityDate", ${isoColumn(db, "a.start_at")} as "startDate",
      ${isoColumn(db, "a.end_at")} as "endDate", a.is_all_day as "isAllDay",
      a.duration_minutes as "durationMinutes", a.is_completed as "isCompleted",
      ${isoColumn(db, "a.completed_at")} as "completedAt", a.outcome, a.notes, a.created_by as "createdBy",
      ${isoColumn(db, "a.created_at")} as "createdAt", ${isoColumn(db, "a.updated_at")} as "updatedAt"`
    : db`
      a.id, a.type, a.title, ${isoColumn(db, "a.activity_date")} as "activityDate",
      a.is_completed as "isCompleted", ${entity}`;
  return db`
    select ${columns}${extra ? db`, ${extra}` : db``}
      from activities a
      left join contacts ct on ct.workspace_id = a.workspace_id and ct.id = a.contact_id
      left join clients cl on cl.workspace_id = a.workspace_id and cl.id = a.client_id
      left join collaborators co on co.workspace_id = a.workspace_id and co.id = a.collaborator_id
      left join suppliers su on su.workspace_id = a.workspace_id and su.id = a.supplier_id`;
}

/** The referenced record's company, or not_found when it is unknown or outside the caller's scope. */
async function resolveEntity(db: Db, s: Scope, field: EntityField, id: string): Promise<string | null> {
  const ref = ENTITY_REFS[field];
  const [row] = await db<{ companyId: string | null }[]>`
    select company_id as "companyId" from ${
    db(ref.table)
  } where workspace_id = ${s.workspaceId} and id = ${id}`;
  if (!row || !inScope(s, row.companyId)) throw notFound(`${field}: no ${ref.kind} ${id}`);
  return row.companyId;
}

/** The one entity among the given ids, or invalid_input naming the one-entity rule. */
function oneEntity(ids: EntityIds): { field: EntityField; id: string } {
  const given = ENTITY_FIELDS.filter((f) => ids[f] !== undefined && ids[f] !== null);
  if (given.length !== 1) {
    throw invalidInput(
      `${ONE_ENTITY_RULE} (${given.length === 0 ? "none was given" : `got ${given.join(", ")}`})`,
    );
  }
  return { field: given[0], id: ids[given[0]]! };
}

function checkDates(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && Date.parse(end) < Date.parse(start)) {
    throw invalidInput("endDate: must not be before startDate");
  }
}

/** Constraint violations as answers naming the field. */
const ERRORS: ConstraintAnswers = {
  activities_dates: invalidInput("endDate: must not be before startDate"),
};

async function fetchActivity(db: Db, s: Scope, id: string): Promise<Activity | null> {
  const [row] = await db<Activity[]>`
    ${select(db, s, true)}
     where a.workspace_id = ${s.workspaceId} and a.id = ${id} and ${companyFilter(db, s, "a.company_id")}`;
  return row ?? null;
}

export async function getActivity(db: Db, caller: ScopedCaller, id: string): Promise<Activity> {
  const a = await fetchActivity(db, scopeOf(caller), id);
  if (!a) throw notFound(`activityId: no activity ${id}`);
  return a;
}

/**
 * Records an activity by the caller's user. The activity takes the company of its record, so it is visible to
 * exactly those who see the record. Completion: isCompleted true stamps completedAt (now unless given); a
 * completedAt alone marks it completed. A missing duration is derived from startDate and endDate.
 */
export async function createActivity(db: Db, caller: ScopedCaller, input: NewActivity): Promise<Activity> {
  const s = scopeOf(caller);
  const { field, id: entityId } = oneEntity(input);
  checkDates(input.startDate, input.endDate);
  if (input.isCompleted === false && input.completedAt) {
    throw invalidInput("completedAt: needs isCompleted true (or omit isCompleted)");
  }
  const companyId = await resolveEntity(db, s, field, entityId);
  const completed = input.isCompleted ?? Boolean(input.completedAt);
  const ref = (f: EntityField) => (f === field ? entityId : null);
  const activityDate = input.activityDate ?? input.startDate ?? null;
  let id: string;
  try {
    // activity_date and completed_at fall back to the database clock
    [{ id }] = await db<{ id: string }[]>`
      insert into activities (workspace_id, company_id, contact_id, client_id, collaborator_id, supplier_id, type,
                              title, description, activity_date, start_at, end_at, is_all_day, duration_minutes,
                              is_completed, completed_at, outcome, notes, created_by)
      values (${s.workspaceId}, ${companyId}, ${ref("contactId")}, ${ref("clientId")}, ${
      ref("collaboratorId")
    },
              ${ref("supplierId")}, ${input.type ?? "other"}, ${input.title}, ${input.description ?? null},
              coalesce(${activityDate}::timestamptz, now()), ${input.startDate ?? null}, ${
      input.endDate ?? null
    },
              ${input.isAllDay ?? false},
              ${input.durationMinutes ?? derivedDuration(input.startDate, input.endDate)}, ${completed},
              case when ${completed}::boolean then coalesce(${
      input.completedAt ?? null
    }::timestamptz, now()) end,
              ${input.outcome ?? null}, ${input.notes ?? null}, ${caller.userId ?? null})
      returning id`;
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  return (await fetchActivity(db, s, id))!;
}

function derivedDuration(start?: string | null, end?: string | null): number | null {
  if (!start || !end) return null;
  const minutes = Math.round((Date.parse(end) - Date.parse(start)) / 60_000);
  return minutes >= 0 && minutes <= 10080 ? minutes : null;
}

const PATCH_COLUMNS = {
  type: "type",
  title: "title",
  description: "description",
  activityDate: "activity_date",
  startDate: "start_at",
  endDate: "end_at",
  isAllDay: "is_all_day",
  durationMinutes: "duration_minutes",
  outcome: "outcome",
  notes: "notes",
} as const;

/**
 * Changes the given fields in one statement. Giving any of the four record ids moves the activity to that one
 * record (exactly one, in scope) and to its company. isCompleted false clears completedAt.
 */
export async function updateActivity(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: ActivityPatch,
): Promise<Activity> {
  const s = scopeOf(caller);
  const sets: postgres.Fragment[] = [];
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const v = patch[field as keyof typeof PATCH_COLUMNS];
    if (v === undefined) continue;
    if (field === "activityDate" && v === null) throw invalidInput("activityDate: cannot be cleared");
    sets.push(db`${db(column)} = ${v}`);
  }
  if (ENTITY_FIELDS.some((f) => patch[f] !== undefined)) {
    const { field, id: entityId } = oneEntity(patch);
    const companyId = await resolveEntity(db, s, field, entityId);
    for (const f of ENTITY_FIELDS) {
      sets.push(db`${db(ENTITY_REFS[f].column)} = ${f === field ? entityId : null}`);
    }
    sets.push(db`company_id = ${companyId}`);
  }
  if (patch.isCompleted === false) {
    if (patch.completedAt) throw invalidInput("completedAt: needs isCompleted true (or omit isCompleted)");
    sets.push(db`is_completed = false, completed_at = null`);
  } else if (patch.isCompleted === true || patch.completedAt) {
    sets.push(db`is_completed = true,
      completed_at = coalesce(${patch.completedAt ?? null}::timestamptz, completed_at, now())`);
  } else if (patch.completedAt === null) {
    sets.push(db`is_completed = false, completed_at = null`);
  }
  if (sets.length === 0) throw invalidInput("nothing to change: give at least one field");
  checkDates(patch.startDate, patch.endDate);
  let rows: { id: string }[];
  try {
    rows = await db<{ id: string }[]>`
      update activities a set ${sets.reduce((acc, p) => db`${acc}, ${p}`)}, updated_at = now()
       where a.workspace_id = ${s.workspaceId} and a.id = ${id} and ${companyFilter(db, s, "a.company_id")}
      returning a.id`;
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  if (rows.length === 0) throw notFound(`activityId: no activity ${id}`);
  return (await fetchActivity(db, s, id))!;
}

export type ActivityPage = Page<ActivitySummary | Activity>;

/**
 * The caller's activities, most recent activityDate first, optionally of one record (which must be visible:
 * not_found otherwise), of one type, and matching `search` in title, description, outcome or notes.
 */
export async function listActivities(
  db: Db,
  caller: ScopedCaller,
  filter: ActivityFilter,
): Promise<ActivityPage> {
  const s = scopeOf(caller);
  const parts: postgres.Fragment[] = [
    db`a.workspace_id = ${s.workspaceId}`,
    companyFilter(db, s, "a.company_id"),
  ];
  for (const f of ENTITY_FIELDS) {
    const v = filter[f];
    if (!v) continue;
    await resolveEntity(db, s, f, v);
    parts.push(db`${db(`a.${ENTITY_REFS[f].column}`)} = ${v}`);
  }
  if (filter.type) parts.push(db`a.type = ${filter.type}`);
  if (filter.search) {
    const p = likePattern(filter.search);
    parts.push(db`(a.title ilike ${p} escape '\\' or a.description ilike ${p} escape '\\'
      or a.outcome ilike ${p} escape '\\' or a.notes ilike ${p} escape '\\')`);
  }
  const fingerprint = cursorFingerprint("activities", {
    ...Object.fromEntries(ENTITY_FIELDS.map((f) => [f, filter[f] ?? undefined])),
    type: filter.type,
    search: filter.search,
  });
  const paging = { limit: filter.limit, offset: filter.offset ?? 0, cursor: filter.cursor };
  if (filter.cursor !== undefined) {
    // (activity_date, id) < (key, id): the start of a scan of activities_list_order
    const at = decodeCursor(filter.cursor, paging, fingerprint, "timestamptz", false);
    parts.push(afterPosition(db, "timestamptz", db`a.activity_date`, db`a.id`, at, "desc", false));
  }
  const where = allOf(db, parts);
  const cursorKey = db`${cursorKeyColumn(db, "timestamptz", db`a.activity_date`)} as "cursorKey"`;
  const [rows, count] = await Promise.all([
    db<Keyed<ActivitySummary | Activity>[]>`
      ${select(db, s, filter.full === true, cursorKey)} where ${where}
      order by a.activity_date desc, a.id desc limit ${filter.limit} offset ${paging.offset}`,
    countUpTo(db, db`activities a where ${where}`, paging),
  ]);
  return keysetPageOf(rows, count, paging, fingerprint);
}
