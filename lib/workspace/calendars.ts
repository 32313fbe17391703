// Calendars: each member's own calendars (appointments and the booking page write into them).
import { isoColumn } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { actingUser } from "./personal.ts";
import { companyFilter, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";

export interface Calendar {
  id: string;
  name: string;
  color: string;
  timeZone: string;
  isDefault: boolean;
  companyId: string | null;
  createdAt: string;
}

interface Row {
  id: string;
  name: string;
  color: string;
  time_zone: string;
  is_default: boolean;
  company_id: string | null;
  created_at: string;
}

function toCalendar(r: Row): Calendar {
  return {
    id: r.id,
    name: r.name,
    color: r.color,
    timeZone: r.time_zone,
    isDefault: r.is_default,
    companyId: r.company_id,
    createdAt: r.created_at,
  };
}

/** The caller's own calendars in scope, the default one first. */
export async function listCalendars(db: Db, caller: ScopedCaller): Promise<Calendar[]> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const rows = await db<Row[]>`
    select c.id, c.name, c.color, c.time_zone, c.is_default, c.company_id,
           ${isoColumn(db, "c.created_at")} as created_at
      from calendars c
     where c.workspace_id = ${s.workspaceId} and c.user_id = ${userId}
       and ${companyFilter(db, s, "c.company_id")}
     order by c.is_default desc, c.name, c.id`;
  return rows.map(toCalendar);
}

/** A calendar of `userId` visible in `s` (not_found otherwise, also for another person's calendar). */
export async function requireOwnCalendar(
  db: Db,
  s: Scope,
  userId: string,
  calendarId: string,
): Promise<void> {
  const [row] = await db`
    select 1 from calendars c
     where c.workspace_id = ${s.workspaceId} and c.user_id = ${userId} and c.id = ${calendarId}
       and ${companyFilter(db, s, "c.company_id")}`;
  if (!row) throw notFound(`bookingCalendarId: no calendar ${calendarId} of this user`);
}

/** The user's default calendar visible in `s`, if any (new appointments go there). */
export async function defaultCalendarId(db: Db, s: Scope, userId: string): Promise<string | null> {
  const [row] = await db<{ id: string }[]>`
    select c.id from calendars c
     where c.workspace_id = ${s.workspaceId} and c.user_id = ${userId}
       and ${companyFilter(db, s, "c.company_id")}
     order by c.is_default desc, c.created_at, c.id
     limit 1`;
  return row?.id ?? null;
}

/** Adds a calendar for a user (no tool creates calendars; the demo seeder and tests use this). */
export async function insertCalendar(
  db: Db,
  c: {
    workspaceId: string;
    userId: string;
    name: string;
    companyId?: string | null;
    color?: string;
    timeZone?: string;
    isDefault?: boolean;
  },
): Promise<{ id: string }> {
  const [row] = await db<{ id: string }[]>`
    insert into calendars (workspace_id, company_id, user_id, name, color, time_zone, is_default)
    values (${c.workspaceId}, ${c.companyId ?? null}, ${c.userId}, ${c.name}, ${c.color ?? "#3b82f6"},
            ${c.timeZone ?? "UTC"}, ${c.isDefault ?? false})
    returning id`;
  return row;
}
