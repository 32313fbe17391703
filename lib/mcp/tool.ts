// What a tool is: defineTool() and the types every file in tools/ is written against.
import type { z } from "zod";
import type { McpVariant } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import type { Module } from "../workspace/modules.ts";
import type { Caller } from "./caller.ts";
import type { ExportLinks } from "./exports.ts";
import type { Area } from "./permissions.ts";

/** The four MCP behaviour hints; every tool states all of them (clients decide on confirmations from these). */
export interface ToolAnnotations {
  /** true: reads only, changes nothing */
  readOnlyHint: boolean;
  /** true: may delete or overwrite data that cannot be recovered (only meaningful when not read-only) */
  destructiveHint: boolean;
  /** true: calling again with the same arguments has no further effect */
  idempotentHint: boolean;
  /** true: reaches systems outside Portico's database */
  openWorldHint: boolean;
}

/** What a tool's `run` receives besides its validated input. Nothing about HTTP or JSON-RPC. */
export interface ToolContext {
  /** the pool; a change that spans several rows runs in `withTx(ctx.db, …)` (lib/db/tx.ts) */
  db: Db;
  /** who is calling: pass it to lib/workspace/* functions, which enforce workspace and company scope */
  caller: Caller;
  /** the variant this server instance serves */
  variant: McpVariant;
  requestId: string;
  log: Logger;
  /** signs short-lived download links for results too large to answer inline; absent when not configured */
  exportLinks?: ExportLinks;
}

/** Tool input schemas are zod objects; their `.describe()` texts become the JSON Schema field descriptions. */
export type InputSchema = z.ZodObject;

export interface ToolDefinition<A extends InputSchema = InputSchema, B extends InputSchema = A> {
  /** snake_case, equal to the file name in tools/ */
  name: string;
  /**
   * Short human name shown by clients (MCP 2025-06-18 `title`), 1-40 characters. Optional in the type only so
   * test fixtures stay small; tests/mcp/registry.test.ts requires it of every tool in tools/.
   */
  title?: string;
  /** role-permission area (lib/mcp/permissions.ts AREAS) */
  area: Area;
  /** workspace module that must be enabled (variant A), or null when the tool is always available */
  module: Module | null;
  /**
   * true: the tool acts as a person (records who did something, or reads a person's own calendar and time).
   * Variant A: only keys bound to a user; variant B: only `internal` keys. The one statement of this fact; the
   * seed's list is pinned by tests/mcp/registry.test.ts.
   */
  needsUser: boolean;
  /** the input schema per variant; leave a variant out to not offer the tool there */
  variants: { A?: A; B?: B };
  annotations: ToolAnnotations;
  /**
   * The shape of structuredContent (MCP 2025-06-18 `outputSchema`), for tools whose result is always an object of
   * this shape; clients may validate results against it. Leave it out for tools answering arrays or text.
   */
  outputSchema?: z.ZodObject;
  /** says what the tool does and what it returns; may differ per variant */
  description: string | { A?: string; B?: string };
  /**
   * Does the work. Return a plain object (sent as JSON text and structuredContent), an array (JSON text) or a
   * string (text). Throw AppError (lib/errors.ts) for anything the caller can act on.
   */
  run: (ctx: ToolContext, input: z.output<A> | z.output<B>) => Promise<unknown> | unknown;
}

// deno-lint-ignore no-explicit-any
export type AnyTool = ToolDefinition<any, any>;

const NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Declares a tool. Checks the static parts at import time so a malformed tool fails the first test run. */
export function defineTool<A extends InputSchema, B extends InputSchema = A>(
  def: ToolDefinition<A, B>,
): ToolDefinition<A, B> {
  if (!NAME.test(def.name)) throw new Error(`tool name ${def.name} must be snake_case`);
  if (!def.variants.A && !def.variants.B) throw new Error(`tool ${def.name} is in no variant`);
  if (def.title !== undefined && (def.title.trim().length === 0 || def.title.length > 40)) {
    throw new Error(`tool ${def.name} needs a title of 1-40 characters`);
  }
  return def;
}
