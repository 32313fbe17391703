// Tells a database outage (answer 503 and retry) apart from every other failure (a bug to log).
import { pgCode } from "../errors.ts";

/** postgres.js connection error codes and Postgres SQLSTATEs that mean "the database is not there right now". */
const UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
  "57014", // query_canceled: statement_timeout (STATEMENT_TIMEOUT_MS) stopped a statement; the database is too slow
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  const code = pgCode(err);
  if (code && UNAVAILABLE.has(code)) return true;
  // Deno surfaces refused connections as its own error classes before postgres.js tags them.
  return err instanceof Deno.errors.ConnectionRefused || err instanceof Deno.errors.ConnectionReset;
}

/** Seconds a client should wait before retrying while the database is away. */
export const UNAVAILABLE_RETRY_AFTER = 5;
