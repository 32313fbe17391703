// Online booking settings: the key user's public booking page (slug, weekly hours, slot rules, destination calendar).
import { isoColumn, violates } from "../db/sql.ts";
import type { Db } from "../db/client.ts";
import { randomToken } from "../crypto.ts";
import { invalidInput, notFound } from "../errors.ts";
import { requireOwnCalendar } from "./calendars.ts";
import { actingUser, HHMM, minutesOf } from "./personal.ts";
import {
  companyFilter,
  companyForWrite,
  inScope,
  requireCompany,
  type Scope,
  type ScopedCaller,
  scopeOf,
} from "./scope.ts";

/** Bounds of the numeric settings (also CHECK constraints in migrations/00007_personal.sql). */
export const BOOKING_BOUNDS = {
  slotDuration: { min: 5, max: 480, default: 30 },
  bufferMinutes: { min: 0, max: 240, default: 0 },
  maxDaysAhead: { min: 1, max: 365, default: 60 },
  minimumNoticeMinutes: { min: 0, max: 10080, default: 240 },
} as const;
export const LOCATION_TYPES = ["none", "in_person", "google_meet"] as const;
export type LocationType = typeof LOCATION_TYPES[number];
export const WEEKDAYS = ["1", "2", "3", "4", "5", "6", "7"] as const;
/** More intervals than this in one day is a mistake, not a schedule. */
export const MAX_INTERVALS_PER_DAY = 12;

export type Interval = { start: string; end: string };
/** "1" (Monday) … "7" (Sunday) → that day's bookable intervals; every key present, [] = closed. */
export type WeeklyHours = Record<string, Interval[]>;

export interface BookingSettings {
  /** false: nothing stored yet; the values are the defaults the first update starts from */
  configured: boolean;
  slug: string | null;
  isActive: boolean;
  slotDuration: number;
  bufferMinutes: number;
  weeklyHours: WeeklyHours;
  maxDaysAhead: number;
  minimumNoticeMinutes: number;
  welcomeMessage: string;
  locationType: LocationType;
  locationAddress: string | null;
  bookingCalendarId: string | null;
  bookingCalendarName: string | null;
  companyId: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export interface BookingPatch {
  isActive?: boolean;
  slotDuration?: number;
  bufferMinutes?: number;
  weeklyHours?: Record<string, Interval[]>;
  maxDaysAhead?: number;
  minimumNoticeMinutes?: number;
  welcomeMessage?: string;
  locationType?: LocationType;
  locationAddress?: string | null;
  bookingCalendarId?: string | null;
  companyId?: string;
}

/**
 * Checks and normalises weekly hours: keys "1"-"7" only, each interval HH:MM with start before end, intervals of a
 * day not overlapping (touching is fine: 09:00-12:00 and 12:00-13:00). Returns all seven days, intervals sorted.
 */
export function normalizeWeeklyHours(input: Record<string, Interval[]>): WeeklyHours {
  const out: WeeklyHours = {};
  for (const day of WEEKDAYS) out[day] = [];
  for (const [day, intervals] of Object.entries(input)) {
    if (!(WEEKDAYS as readonly string[]).includes(day)) {
      throw invalidInput(`weeklyHours: unknown day "${day}" (keys are "1" Monday to "7" Sunday)`);
    }
    if (!Array.isArray(intervals)) throw invalidInput(`weeklyHours.${day}: must be an array of {start, end}`);
    if (intervals.length > MAX_INTERVALS_PER_DAY) {
      throw invalidInput(`weeklyHours.${day}: at most ${MAX_INTERVALS_PER_DAY} intervals per day`);
    }
    intervals.forEach((iv, i) => {
      if (!HHMM.test(iv.start) || !HHMM.test(iv.end)) {
        throw invalidInput(`weeklyHours.${day}[${i}]: start and end must be times HH:MM`);
      }
      if (minutesOf(iv.end) <= minutesOf(iv.start)) {
        throw invalidInput(`weeklyHours.${day}[${i}]: start ${iv.start} must be before end ${iv.end}`);
      }
    });
    const sorted = intervals.map((iv) => ({ start: iv.start, end: iv.end }))
      .sort((a, b) => a.start.localeCompare(b.start) || a.end.localeCompare(b.end));
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i].start < sorted[i - 1].end) {
        throw invalidInput(
          `weeklyHours.${day}: intervals ${sorted[i - 1].start}-${sorted[i - 1].end} and ` +
            `${sorted[i].start}-${sorted[i].end} overlap`,
        );
      }
    }
    out[day] = sorted;
  }
  return out;
}

/** A slug base from a person's name or e-mail: lower-case ASCII words joined by "-", 3-40 characters. */
export function slugBase(name: string, email: string): string {
  const clean = (s: string) =>
    s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/g, "");
  const fromName = clean(name);
  if (fromName.length >= 3) return fromName;
  const fromEmail = clean(email.split("@")[0] ?? "");
  return fromEmail.length >= 3 ? fromEmail : "booking";
}

function defaults(): BookingSettings {
  return {
    configured: false,
    slug: null,
    isActive: false,
    slotDuration: BOOKING_BOUNDS.slotDuration.default,
    bufferMinutes: BOOKING_BOUNDS.bufferMinutes.default,
    weeklyHours: normalizeWeeklyHours({}),
    maxDaysAhead: BOOKING_BOUNDS.maxDaysAhead.default,
    minimumNoticeMinutes: BOOKING_BOUNDS.minimumNoticeMinutes.default,
    welcomeMessage: "",
    locationType: "none",
    locationAddress: null,
    bookingCalendarId: null,
    bookingCalendarName: null,
    companyId: null,
    createdAt: null,
    updatedAt: null,
  };
}

async function fetchSettings(db: Db, s: Scope, userId: string): Promise<BookingSettings | null> {
  const [r] = await db<BookingSettings[]>`
    select true as configured, b.slug, b.is_active as "isActive", b.slot_duration as "slotDuration",
           b.buffer_minutes as "bufferMinutes", b.weekly_hours as "weeklyHours", b.max_days_ahead as "maxDaysAhead",
           b.minimum_notice_minutes as "minimumNoticeMinutes", b.welcome_message as "welcomeMessage",
           b.location_type as "locationType", b.location_address as "locationAddress",
           b.booking_calendar_id as "bookingCalendarId", c.name as "bookingCalendarName",
           b.company_id as "companyId",
           ${isoColumn(db, "b.created_at")} as "createdAt", ${isoColumn(db, "b.updated_at")} as "updatedAt"
      from booking_settings b
      left join calendars c on c.workspace_id = b.workspace_id and c.id = b.booking_calendar_id
     where b.workspace_id = ${s.workspaceId} and b.user_id = ${userId}
       and ${companyFilter(db, s, "b.company_id")}`;
  // Stored hours are answered in the one shape the tools promise: all seven days, intervals sorted.
  return r ? { ...r, weeklyHours: normalizeWeeklyHours(r.weeklyHours) } : null;
}

/** The company of the user's stored settings, whoever may see them; undefined when none are stored. */
async function storedCompany(db: Db, s: Scope, userId: string): Promise<string | null | undefined> {
  const [row] = await db<{ companyId: string | null }[]>`
    select company_id as "companyId" from booking_settings
     where workspace_id = ${s.workspaceId} and user_id = ${userId}`;
  return row ? row.companyId : undefined;
}

const OUT_OF_SCOPE = "userId: this user's booking settings belong to a company this key may not reach";

/** The caller's booking settings; the defaults (configured: false) when none are stored yet. */
export async function getBookingSettings(db: Db, caller: ScopedCaller): Promise<BookingSettings> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  const found = await fetchSettings(db, s, userId);
  if (found) return found;
  const company = await storedCompany(db, s, userId);
  if (company === undefined) return defaults();
  if (!inScope(s, company)) throw notFound(OUT_OF_SCOPE);
  // Created by a concurrent first update since the read above.
  return (await fetchSettings(db, s, userId)) ?? defaults();
}

function checkBounds(patch: BookingPatch): void {
  for (const [field, b] of Object.entries(BOOKING_BOUNDS)) {
    const v = patch[field as keyof typeof BOOKING_BOUNDS];
    if (v === undefined) continue;
    if (!Number.isInteger(v) || v < b.min || v > b.max) {
      throw invalidInput(`${field}: must be a whole number from ${b.min} to ${b.max}`);
    }
  }
}

const PATCH_COLUMNS = {
  isActive: "is_active",
  slotDuration: "slot_duration",
  bufferMinutes: "buffer_minutes",
  maxDaysAhead: "max_days_ahead",
  minimumNoticeMinutes: "minimum_notice_minutes",
  welcomeMessage: "welcome_message",
  locationType: "location_type",
  locationAddress: "location_address",
  bookingCalendarId: "booking_calendar_id",
  companyId: "company_id",
} as const;

/**
 * Changes the caller's booking settings; the first update creates them with a slug unique across the platform
 * (from the person's name: dana-demo, dana-demo-2 …). Omitted fields keep their value (or the default).
 */
export async function updateBookingSettings(
  db: Db,
  caller: ScopedCaller,
  patch: BookingPatch,
): Promise<BookingSettings> {
  const s = scopeOf(caller);
  const userId = actingUser(caller);
  checkBounds(patch);
  const set: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const v = patch[field as keyof typeof PATCH_COLUMNS];
    if (v !== undefined) set[column] = v;
  }
  if (patch.weeklyHours !== undefined) set.weekly_hours = db.json(normalizeWeeklyHours(patch.weeklyHours));
  if (patch.companyId) await requireCompany(db, s, patch.companyId);
  if (patch.bookingCalendarId) await requireOwnCalendar(db, s, userId, patch.bookingCalendarId);

  for (let round = 0; round < 3; round++) {
    // Existing settings: one statement, limited to the caller's companies.
    if (Object.keys(set).length > 0) {
      const updated = await db`
        update booking_settings b set ${db(set)}, updated_at = now()
         where b.workspace_id = ${s.workspaceId} and b.user_id = ${userId}
           and ${companyFilter(db, s, "b.company_id")}
        returning b.id`;
      if (updated.length > 0) return (await fetchSettings(db, s, userId))!;
    } else {
      const found = await fetchSettings(db, s, userId);
      if (found) return found;
    }
    const company = await storedCompany(db, s, userId);
    if (company !== undefined) {
      if (!inScope(s, company)) throw notFound(OUT_OF_SCOPE);
      continue; // created by a concurrent first update since the update above: apply the change to it
    }
    const created = await createSettings(db, s, userId, set, patch.companyId);
    if (created) return created;
  }
  throw new Error("booking settings changed concurrently too often");
}

/**
 * Inserts the user's settings with a free slug; null when a concurrent request created them first. The company
 * is the requested one, or the key's only company.
 */
async function createSettings(
  db: Db,
  s: Scope,
  userId: string,
  set: Record<string, unknown>,
  requestedCompany: string | undefined,
): Promise<BookingSettings | null> {
  const companyId = companyForWrite(s, requestedCompany);
  const [person] = await db<{ name: string; email: string }[]>`
    select name, email from users where id = ${userId}`;
  const base = slugBase(person?.name ?? "", person?.email ?? "");
  const taken = await db<{ slug: string }[]>`
    select slug from booking_settings where slug = ${base} or slug like ${base + "-%"}`;
  const used = new Set(taken.map((t) => t.slug));
  let n = 1;
  for (let attempt = 0; attempt < 5; attempt++) {
    let slug = base;
    while (used.has(slug)) slug = `${base}-${++n}`;
    // After a lost race on the slug, a random suffix ends the contest.
    if (attempt > 0) slug = `${base}-${randomToken("", 3).toLowerCase().replace(/[^a-z0-9]/g, "0")}`;
    try {
      const row = { ...set, workspace_id: s.workspaceId, user_id: userId, company_id: companyId, slug };
      const inserted = await db`
        insert into booking_settings ${db(row)}
        on conflict (workspace_id, user_id) do nothing
        returning id`;
      if (inserted.length === 0) return null;
      return (await fetchSettings(db, s, userId))!;
    } catch (err) {
      if (violates(err, "booking_settings_slug")) {
        used.add(slug);
        continue;
      }
      throw err;
    }
  }
  throw new Error("could not find a free booking slug");
}
