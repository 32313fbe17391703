// Appointments: the key user's own appointments with clients (studio, online or at home), optionally for a project.
import { allOf, clockColumn, type ConstraintAnswers, isoColumn, throwMapped } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { invalidInput, notFound } from "../errors.ts";
import { defaultCalendarId } from "./calendars.ts";
import { actingUser, checkRange, minutesOf, personalCompany, projectInScope } from "./personal.ts";
import { companyFilter, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import { countUpTo, type Page, pageOf } from "./page.ts";

export const APPOINTMENT_LOCATIONS = ["studio", "online", "home"] as const;
export type AppointmentLocation = typeof APPOINTMENT_LOCATIONS[number];
export const APPOINTMENT_STATUSES = ["scheduled", "confirmed", "completed", "cancelled", "no_show"] as const;
export type AppointmentStatus = typeof APPOINTMENT_STATUSES[number];
export const APPOINTMENT_TIMES_RULE = "endTime: must be after startTime unless isAllDay is true";

/**
 * An appointment as list_appointments answers it: what a caller needs to pick one (title, when, status, where,
 * with whom, the project). The full Appointment adds the client's contact details, the video platform, the
 * notes, the calendar, the company and the audit times.
 */
/**
 * A list row: the appointment without its calendar, company and audit times. There is no get_appointment, so the
 * client's contact, the platform and the notes stay in the row — the list is the only way to read them.
 */
export interface AppointmentRow {
  id: string;
  title: string;
  date: string;
  startTime: string;
  endTime: string;
  isAllDay: boolean;
  status: AppointmentStatus;
  location: AppointmentLocation | null;
  address: string | null;
  onlinePlatform: string | null;
  onlineLink: string | null;
  clientName: string;
  clientEmail: string | null;
  clientPhone: string | null;
  notes: string;
  projectId: string | null;
  projectName: string | null;
}

export interface Appointment {
  id: string;
  title: string;
  clientName: string;
  clientEmail: string | null;
  clientPhone: string | null;
  date: string;
  startTime: string;
  endTime: string;
  isAllDay: boolean;
  location: AppointmentLocation | null;
  address: string | null;
  onlinePlatform: string | null;
  onlineLink: string | null;
  notes: string;
  status: AppointmentStatus;
  projectId: string | null;
  projectName: string | null;
  calendarId: string | null;
  companyId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewAppointment {
  date: string;
  startTime: string;
  endTime: string;
  title?: string;
  clientName?: string;
  clientEmail?: string;
  clientPhone?: string;
  isAllDay?: boolean;
  location?: AppointmentLocation;
  address?: string;
  onlinePlatform?: string;
  onlineLink?: string;
  notes?: string;
  status?: AppointmentStatus;
  projectId?: string;
}

/** Fields to change; undefined = unchanged, null = cleared. */
export interface AppointmentPatch {
  title?: string;
  clientName?: string;
  clientEmail?: string | null;
  clientPhone?: string | null;
  date?: string;
  startTime?: string;
  endTime?: string;
  isAllDay?: boolean;
  location?: AppointmentLocation | null;
  address?: string | null;
  onlinePlatform?: string | null;
  onlineLink?: string | null;
  notes?: string;
  status?: AppointmentStatus;
  projectId?: string | null;
}

export interface AppointmentFilter {
  startDate?: string;
  endDate?: string;
  limit: number;
  offset?: number;
}

/** End after start, except for all-day appointments (whose times are kept but not meaningful). */
export function checkAppointmentTimes(startTime: string, endTime: string, isAllDay: boolean): void {
  const start = minutesOf(startTime, "startTime"), end = minutesOf(endTime, "endTime");
  if (!isAllDay && end <= start) throw invalidInput(APPOINTMENT_TIMES_RULE);
}

/**
 * The linked project's name only where the caller could read the project itself: a company-less project linked
 * by an unlimited key keeps its id here, and its name is null for a key limited to companies (the same rule as
 * time logs' task and project names).
 */
function projectName(db: Db, s: Scope) {
  return db`case when ${companyFilter(db, s, "p.company_id")} then p.name end as "projectName"`;
}

function from(db: Db) {
  return db`from appointments a left join projects p on p.workspace_id = a.workspace_id and p.id = a.project_id`;
}

/** The columns of a list row, aliased to its names. */
function rowColumns(db: Db, s: Scope) {
  return db`
    a.id, a.title, a.date::text as date, ${clockColumn(db, "a.start_time")} as "startTime",
    ${clockColumn(db, "a.end_time")} as "endTime", a.is_all_day as "isAllDay", a.status, a.location,
    a.address, a.online_platform as "onlinePlatform", a.online_link as "onlineLink",
    a.client_name as "clientName", a.client_email as "clientEmail", a.client_phone as "clientPhone", a.notes,
    a.project_id as "projectId", ${projectName(db, s)}`;
}

/** The columns of the full appointment, in the order its answer has always had. */
function columns(db: Db, s: Scope) {
  return db`
    a.id, a.title, a.client_name as "clientName", a.client_email as "clientEmail",
    a.client_phone as "clientPhone", a.date::text as date, ${clockColumn(db, "a.start_time")} as "startTime",
    ${clockColumn(db, "a.end_time")} as "endTime", a.is_all_day as "isAllDay", a.location, a.address,
    a.online_platform as "onlinePlatform", a.online_link as "onlineLink", a.notes, a.status,
    a.project_id as "projectId", ${projectName(db, s)}, a.calendar_id as "calendarId",
    a.company_id as "companyId",
    ${isoColumn(db, "a.created_at")} as "createdAt", ${isoColumn(db, "a.updated_at")} as "updatedAt"`;
}

/** The caller's own appointments in scope, in date and time order. */
export async function listAppointments(
  db: Db,
  caller: ScopedCaller,
  filter: AppointmentFilter,
): Promise<Page<AppointmentRow>> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  checkRange(filter.startDate, filter.endDate);
  const parts = [
    db`a.workspace_id = ${s.workspaceId}`,
    db`a.user_id = ${userId}`,
    companyFilter(db, s, "a.company_id"),
  ];
  if (filter.startDate) parts.push(db`a.date >= ${filter.startDate}::date`);
  if (filter.endDate) parts.push(db`a.date <= ${filter.endDate}::date`);
  const where = allOf(db, parts);
  const [rows, total] = await Promise.all([
    db<AppointmentRow[]>`
      select ${rowColumns(db, s)} ${from(db)} where ${where}
       order by a.date, a.is_all_day desc, a.start_time, a.id
       limit ${filter.limit} offset ${filter.offset ?? 0}`,
    countUpTo(db, db`appointments a where ${where}`, filter),
  ]);
  return pageOf(rows, total, filter, true);
}

async function fetchAppointment(db: Db, s: Scope, userId: string, id: string): Promise<Appointment | null> {
  const [row] = await db<Appointment[]>`
    select ${columns(db, s)} ${from(db)}
     where a.workspace_id = ${s.workspaceId} and a.user_id = ${userId} and a.id = ${id}
       and ${companyFilter(db, s, "a.company_id")}`;
  return row ?? null;
}

/** Constraint violations as answers naming the field. */
const ERRORS: ConstraintAnswers = {
  appointments_times: () => invalidInput(APPOINTMENT_TIMES_RULE),
  "23503": () => notFound("projectId: the linked project or calendar no longer exists"),
};

/** Adds an appointment to the caller's default calendar (if they have one). */
export async function createAppointment(
  db: Db,
  caller: ScopedCaller,
  input: NewAppointment,
): Promise<Appointment> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  checkAppointmentTimes(input.startTime, input.endTime, input.isAllDay ?? false);
  let companyId: string | null = null;
  if (input.projectId) companyId = (await projectInScope(db, s, input.projectId)).companyId;
  companyId ??= personalCompany(s, "appointment");
  const calendarId = await defaultCalendarId(db, s, userId);
  const title = input.title || (input.clientName ? `Appointment with ${input.clientName}` : "Appointment");
  let id: string;
  try {
    [{ id }] = await db<{ id: string }[]>`
      insert into appointments (workspace_id, company_id, user_id, calendar_id, project_id, title, client_name,
                                client_email, client_phone, date, start_time, end_time, is_all_day, location,
                                address, online_platform, online_link, notes, status)
      values (${s.workspaceId}, ${companyId}, ${userId}, ${calendarId}, ${input.projectId ?? null},
              ${title.slice(0, 200)}, ${input.clientName ?? ""}, ${input.clientEmail ?? null},
              ${input.clientPhone ?? null}, ${input.date}, ${input.startTime}, ${input.endTime},
              ${input.isAllDay ?? false}, ${input.location ?? null}, ${input.address ?? null},
              ${input.onlinePlatform ?? null}, ${input.onlineLink ?? null}, ${input.notes ?? ""},
              ${input.status ?? "scheduled"})
      returning id`;
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  return (await fetchAppointment(db, s, userId, id))!;
}

const PATCH_COLUMNS = {
  title: "title",
  clientName: "client_name",
  clientEmail: "client_email",
  clientPhone: "client_phone",
  date: "date",
  startTime: "start_time",
  endTime: "end_time",
  isAllDay: "is_all_day",
  location: "location",
  address: "address",
  onlinePlatform: "online_platform",
  onlineLink: "online_link",
  notes: "notes",
  status: "status",
  projectId: "project_id",
} as const satisfies Record<keyof AppointmentPatch, string>;

/** Changes the given fields of one of the caller's appointments; the time rule is checked on the result. */
export async function updateAppointment(
  db: Db,
  caller: ScopedCaller,
  id: string,
  patch: AppointmentPatch,
): Promise<Appointment> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const set: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const v = patch[field as keyof AppointmentPatch];
    if (v !== undefined) set[column] = v;
  }
  if (Object.keys(set).length === 0) throw invalidInput("nothing to change: give at least one field");
  const current = await fetchAppointment(db, s, userId, id);
  if (!current) throw notFound(`appointmentId: no appointment ${id}`);
  checkAppointmentTimes(
    patch.startTime ?? current.startTime,
    patch.endTime ?? current.endTime,
    patch.isAllDay ?? current.isAllDay,
  );
  if (patch.projectId) {
    const project = await projectInScope(db, s, patch.projectId);
    // The appointment follows its project's company; a company-less project keeps the current company.
    if (project.companyId) set.company_id = project.companyId;
  }
  let rows: { id: string }[];
  try {
    rows = await db<{ id: string }[]>`
      update appointments a set ${db(set)}, updated_at = now()
       where a.workspace_id = ${s.workspaceId} and a.user_id = ${userId} and a.id = ${id}
         and ${companyFilter(db, s, "a.company_id")}
      returning a.id`;
  } catch (err) {
    throwMapped(err, ERRORS);
  }
  if (rows.length === 0) throw notFound(`appointmentId: no appointment ${id}`);
  return (await fetchAppointment(db, s, userId, id))!;
}
