// Structured JSON logs to stdout, one object a line, filtered by LOG_LEVEL.
import type { LogLevel } from "./config.ts";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Fields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = console.log): Logger {
  const min = ORDER[level];
  function emit(l: LogLevel, msg: string, fields?: Fields) {
    if (ORDER[l] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields }));
  }
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

/** A logger that drops everything: the default for tests. */
export const silentLogger: Logger = createLogger("error", () => {});

/** Error details for logs (never for responses). */
export function errorFields(err: unknown): Fields {
  if (err instanceof Error) return { error: err.message, error_name: err.name, stack: err.stack };
  return { error: String(err) };
}
