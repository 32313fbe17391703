// The shape of one admin command and the small parsing helpers every command module shares.
import type { Config } from "../config.ts";
import type { Sql } from "../db/client.ts";

export interface AdminIo {
  sql: Sql;
  secretKey: string;
  /** the loaded configuration (admin.ts); absent in tests = the defaults */
  config?: Config;
  out(line: string): void;
  err(line: string): void;
  /** the whole of standard input (`user set-password --password-stdin`); absent means none was given */
  readStdin?(): Promise<string>;
}

export type Values = Record<string, string | boolean | string[] | undefined>;
export type Option = { type: "string" | "boolean"; multiple?: boolean };

export interface Command {
  usage: string;
  /** one sentence for `--help`: what it does and what it prints */
  help?: string;
  options: Record<string, Option>;
  required: string[];
  /** an option that may also be given as the one positional argument (`client trust pcl_…`) */
  positional?: string;
  /** several options of which exactly one must be given (`--id` or `--email`) */
  oneOf?: string[];
  /** in text mode, print `result[key]` as a table of these columns instead of `key: value` lines */
  table?: {
    key: string;
    columns: string[];
    /** the line printed for no rows (default: `no <key>`) */
    empty?: string;
    /** the last line when `result.truncated` (default: raise --limit); `shown` is the number of rows printed */
    cut?(result: Record<string, unknown>, shown: number): string;
  };
  run(v: Values, io: AdminIo): Promise<Record<string, unknown>>;
}

/** Thrown for a malformed command line; printed with the command's usage, exit 2. */
export class UsageError extends Error {}

export function str(v: Values, name: string): string {
  const value = v[name];
  return typeof value === "string" ? value : "";
}

export function opt(v: Values, name: string): string | undefined {
  const value = v[name];
  return typeof value === "string" ? value : undefined;
}

export function integer(v: Values, name: string): number | undefined {
  const value = opt(v, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(value);
}

export const S = { type: "string" } as const;
export const B = { type: "boolean" } as const;
