// Errors a caller can act on, each with a stable code word; anything else is an unexpected failure.
export type ErrorCode = "invalid_input" | "not_found" | "access_denied" | "unavailable" | "conflict";

export class AppError extends Error {
  override name = "AppError";
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
  }
  /** `code: message`, the form tool results and CLI errors use. */
  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

export const invalidInput = (msg: string) => new AppError("invalid_input", msg);
export const notFound = (msg: string) => new AppError("not_found", msg);
export const accessDenied = (msg: string) => new AppError("access_denied", msg);
export const conflict = (msg: string) => new AppError("conflict", msg);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Refuses a malformed id before it reaches SQL (where it would be a database error, not a clear answer). */
export function requireUuid(value: string, field: string): string {
  if (!UUID.test(value)) throw invalidInput(`${field} must be a UUID`);
  return value.toLowerCase();
}

/** The Postgres error code of a postgres.js error, if it is one. */
export function pgCode(err: unknown): string | undefined {
  if (err && typeof err === "object" && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}
