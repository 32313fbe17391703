// SQL fragments and error mapping every domain module shares: ISO times, clock times, LIKE patterns, filter
// composition, constraint violations as answers. Nothing here knows a domain.
import type postgres from "postgres";
import type { Db } from "./client.ts";
import { AppError, pgCode } from "../errors.ts";

/** A timestamptz column as ISO 8601 UTC text (`2026-01-31T09:30:00Z`), formatted by Postgres. */
export function isoColumn(db: Db, column: string) {
  return db`to_char(${db(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}

/** A timestamptz column as ISO 8601 UTC text with milliseconds (`2026-01-31T09:30:00.123Z`), as JS prints it. */
export function isoMillisColumn(db: Db, column: string) {
  return db`to_char(${db(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A timestamptz column as a UTC minute for pages (`2026-01-31 09:30`). */
export function minuteColumn(db: Db, column: string) {
  return db`to_char(${db(column)} at time zone 'UTC', 'YYYY-MM-DD HH24:MI')`;
}

/**
 * A timestamptz column as UTC text with microseconds (`2026-01-31T09:30:00.123456`): for ordering in code, where
 * two rows of one second must still compare in the database's order. Not an answer format.
 */
export function sortableTimeColumn(db: Db, column: string) {
  return db`to_char(${db(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
}

/** A `time` column as HH:MM (seconds are never stored by the tools). */
export function clockColumn(db: Db, column: string) {
  return db`to_char(${db(column)}, 'HH24:MI')`;
}

/** `%text%` for ILIKE with the caller's %, _ and \ taken literally; use with `escape '\'` (see `contains`). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `<column> ilike %text%`, case-insensitive substring with the text taken literally. */
export function contains(db: Db, column: string, text: string): postgres.Fragment {
  return db`${db(column)} ilike ${likePattern(text)} escape '\\'`;
}

/** Joins SQL conditions with AND; no condition is `true`. Build the list with plain `if`s, one per filter. */
export function allOf(db: Db, parts: readonly postgres.Fragment[]): postgres.Fragment {
  if (parts.length === 0) return db`true`;
  return parts.reduce((acc, p) => db`${acc} and ${p}`);
}

/** Joins SQL conditions with OR, in parentheses; no condition is `false`. */
export function anyOf(db: Db, parts: readonly postgres.Fragment[]): postgres.Fragment {
  if (parts.length === 0) return db`false`;
  return db`(${parts.reduce((acc, p) => db`${acc} or ${p}`)})`;
}

/**
 * What a constraint violation means to the caller: keyed by constraint name (a check, unique or foreign key
 * constraint of a migration), or by SQLSTATE for every violation of that kind (`23503`: any foreign key).
 */
export type ConstraintAnswers = Readonly<Record<string, AppError | (() => AppError)>>;

/**
 * Rethrows a constraint violation listed in `answers` as its AppError (the constraint's name first, then its
 * SQLSTATE); every other error unchanged. Use in a catch around the write: `catch (err) { throwMapped(err, X) }`.
 */
export function throwMapped(err: unknown, answers: ConstraintAnswers): never {
  const code = pgCode(err);
  if (code?.startsWith("23")) {
    const name = (err as { constraint_name?: string }).constraint_name;
    const answer = (name !== undefined ? answers[name] : undefined) ?? answers[code];
    if (answer) throw typeof answer === "function" ? answer() : answer;
  }
  throw err;
}

/** Is `err` the violation of this named constraint (for code that reacts to one, e.g. by retrying)? */
export function violates(err: unknown, constraint: string): boolean {
  return pgCode(err)?.startsWith("23") === true &&
    (err as { constraint_name?: string }).constraint_name === constraint;
}
