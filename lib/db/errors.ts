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
  // The database's disk is full, read-only or failing (embedded PGlite reports these on writes): the server
  // is fine and the client may retry once the operator has made room, so 503, not 500.
  "53000", // insufficient_resources
  "53100", // disk_full
  "53200", // out_of_memory
  "58000", // system_error
  "58030", // io_error
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

/**
 * One line for the operator saying why the database at `where` could not be used at start-up: which database
 * is missing, which credentials were refused, or which host did not answer — not one "cannot reach" for all.
 */
export function describeConnectFailure(
  err: unknown,
  where: string,
  names: { database: string; user: string },
) {
  const code = pgCode(err);
  const message = err instanceof Error ? err.message : String(err);
  switch (code) {
    case "3D000":
      return `the database "${names.database}" does not exist at ${where} (create it, or fix the name in DATABASE_URL)`;
    case "28P01":
    case "28000":
      return `the database at ${where} refused user "${names.user}": authentication failed (${message})`;
    case "42501":
      return `the database at ${where} refused user "${names.user}": permission denied (${message})`;
    case "57P03":
      return `the database at ${where} is starting up or shutting down; try again shortly`;
    case "53300":
      return `the database at ${where} has too many connections`;
    case "ECONNREFUSED":
      return `cannot reach the database at ${where}: connection refused (is Postgres running there?)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot reach the database at ${where}: host not found`;
    case "CONNECT_TIMEOUT":
    case "ETIMEDOUT":
      return `cannot reach the database at ${where}: no answer (timed out)`;
    case "ECONNRESET":
    case "CONNECTION_CLOSED":
    case "CONNECTION_ENDED":
      return `cannot reach the database at ${where}: the connection was closed during the handshake (TLS or proxy?)`;
  }
  if (/unsupported startup parameter/i.test(message)) {
    // PgBouncer (08P01) refuses the statement_timeout Portico sends unless told it is a pooler.
    return `the database at ${where} is a connection pooler that refused a start-up setting (${
      message.split("\n")[0]
    }): set DATABASE_POOLER=transaction (docs/operations.md, "Behind a connection pooler")`;
  }
  if (err instanceof Deno.errors.ConnectionRefused) {
    return `cannot reach the database at ${where}: connection refused (is Postgres running there?)`;
  }
  if (
    err instanceof Deno.errors.NotFound || /failed to lookup address|name or service not known/i.test(message)
  ) {
    return `cannot reach the database at ${where}: host not found`;
  }
  if (err instanceof Deno.errors.ConnectionReset) {
    return `cannot reach the database at ${where}: the connection was closed during the handshake (TLS or proxy?)`;
  }
  return `cannot use the database at ${where}: ${code ? `${code} ` : ""}${message.split("\n")[0]}`;
}
