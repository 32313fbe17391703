// Calendars: each member's own calendars (appointments and the booking page write into them).
import { choicesSuffix } from "./choices.ts";
import { allOf } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { actingUser } from "./personal.ts";
import { companyFilter, type Scope, type ScopedCaller, scopeOf } from "./scope.ts";
import { countUpTo, type Page, pageOf, type Paging } from "./page.ts";

/**
 * A calendar as list_calendars answers it: what a caller needs to pick one (for bookingCalendarId, or to know
 * where appointments go). Colour, company and creation time are the product's concern, not a model's.
 */
export interface Calendar {
  id: string;
  name: string;
  timeZone: string;
  isDefault: boolean;
}

/** The caller's own calendars in scope, the default one first, a page at a time. */
export async function listCalendars(db: Db, caller: ScopedCaller, paging: Paging): Promise<Page<Calendar>> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const where = allOf(db, [
    db`c.workspace_id = ${s.workspaceId}`,
    db`c.user_id = ${userId}`,
    companyFilter(db, s, "c.company_id"),
  ]);
  const [items, total] = await Promise.all([
    db<Calendar[]>`
      select c.id, c.name, c.time_zone as "timeZone", c.is_default as "isDefault"
        from calendars c
       where ${where}
       order by c.is_default desc, c.name, c.id
       limit ${paging.limit} offset ${paging.offset ?? 0}`,
    countUpTo(db, db`calendars c where ${where}`, paging),
  ]);
  return pageOf(items, total, paging, true);
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
  if (!row) {
    const own = db`select c.id, c.name from calendars c
      where c.workspace_id = ${s.workspaceId} and c.user_id = ${userId} and ${
      companyFilter(db, s, "c.company_id")
    }
      order by c.name, c.id`;
    throw notFound(
      `bookingCalendarId: no calendar ${calendarId} of this user${await choicesSuffix(
        db,
        own,
        "calendars of this user",
        "list_calendars",
      )}`,
    );
  }
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
