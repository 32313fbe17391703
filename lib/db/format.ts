// SQL fragments shared by the domain modules for shaping values on the database side.
import type { Db } from "./client.ts";

/** A timestamptz column as ISO 8601 UTC text (`2026-01-31T09:30:00Z`), formatted by Postgres. */
export function isoColumn(db: Db, column: string) {
  return db`to_char(${db(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
}
