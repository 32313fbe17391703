// Shared rules of the personal-work domains (recordings, time logs, calendars, appointments, booking): the acting
// user, clock times, and the project a personal record may point to.
import type { Db } from "../db/client.ts";
import { accessDenied, invalidInput, notFound } from "../errors.ts";
import { inScope, type Scope, type ScopedCaller } from "./scope.ts";

/** A clock time of day, 00:00-23:59. */
export const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * The person these records belong to. The MCP permission check already refuses user-context tools to keys
 * without a person; this guards the library itself (demo seeders, future callers).
 */
export function actingUser(caller: ScopedCaller): string {
  if (!caller.userId) throw accessDenied("this acts as a person and needs an API key bound to a user");
  return caller.userId;
}

/** Minutes since midnight of an HH:MM time. */
export function minutesOf(time: string, field = "time"): number {
  if (!HHMM.test(time)) throw invalidInput(`${field}: ${time} is not a time HH:MM (00:00-23:59)`);
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** Minutes as hours rounded half-up to 2 decimals: 20 → 0.33, 50 → 0.83, 90 → 1.5. */
export function hoursOf(minutes: number): number {
  return Math.round((minutes * 100) / 60) / 100;
}

/** Refuses a date range whose end lies before its start. */
export function checkRange(startDate: string | undefined, endDate: string | undefined): void {
  if (startDate && endDate && endDate < startDate) {
    throw invalidInput("endDate: must not be before startDate");
  }
}

/** A project of the caller's workspace and companies (not_found otherwise) and its company. */
export async function projectInScope(
  db: Db,
  s: Scope,
  projectId: string,
): Promise<{ id: string; companyId: string | null }> {
  const [row] = await db<{ id: string; companyId: string | null }[]>`
    select id, company_id as "companyId" from projects where workspace_id = ${s.workspaceId} and id = ${projectId}`;
  if (!row || !inScope(s, row.companyId)) throw notFound(`projectId: no project ${projectId}`);
  return row;
}

/**
 * The company of a personal record that is not tied to a company-owned project: none for an unlimited caller,
 * the only company of a caller limited to one; a caller limited to several must link a project so it is clear
 * which company's people may see the record.
 */
export function personalCompany(s: Scope, what: string): string | null {
  if (s.companyIds === null) return null;
  if (s.companyIds.length === 1) return s.companyIds[0];
  throw invalidInput(
    s.companyIds.length === 0
      ? "this key may not reach any company"
      : `projectId: is required: this key is limited to several companies, and the ${what}'s company comes ` +
        "from its project",
  );
}
