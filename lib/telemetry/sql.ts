// A span per SQL statement, and the pool's gauges, when OpenTelemetry is on (lib/telemetry/otel.ts).
//
// postgres.js runs a statement when its Query (a Promise subclass) is first awaited: `Query.prototype.handle`.
// Wrapping that one method, once, covers every statement of every pool and transaction (BEGIN and COMMIT
// included) and no fragment (a query nested in another is never handled itself). The span starts there (the
// wait for a connection counts, as the caller waits for it) and ends when the query settles. Its name is the
// statement's summary, never a value: the first keyword and the tables it writes (INSERT INTO, UPDATE,
// DELETE FROM; at most three) or else the first it reads (FROM, JOIN): "SELECT oauth_clients",
// "WITH oauth_grants,oauth_clients" (a refresh statement), with a hash of the statement's text (values are `$1…` parameters in it)
// to tell statements of one summary apart. Off, nothing is wrapped: `instrumentSql` returns at once.
//
// Exports: instrumentSql, statementSummary, countSocket, dbGauges.
import type net from "node:net";
import { type GaugeSpec, OTEL_ON, SpanKind, SpanStatusCode, tracer } from "./otel.ts";

export interface StatementSummary {
  /** "SELECT oauth_grants": the span's name */
  name: string;
  /** the first keyword, upper case ("SELECT", "WITH", "BEGIN" …) */
  operation: string;
  /** the first table written, or else the first read, if any */
  table?: string;
  /** FNV-1a of the statement's text, 8 hex digits */
  hash: string;
}

/** The statement's first keyword, past white space, parentheses and comments (the refresh statement opens with one). */
const FIRST_WORD = /^(?:[\s(]|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*([a-z]+)/i;
const IDENT = String
  .raw`(?:"[^"]{1,63}"|[a-z_][a-z0-9_$]{0,62})(?:\.(?:"[^"]{1,63}"|[a-z_][a-z0-9_$]{0,62}))?`;
/** A table read: after FROM or JOIN. */
const READ = new RegExp(String.raw`\b(?:from|join)\s+(${IDENT})`, "i");
/** A table written: INSERT INTO, UPDATE (not FOR UPDATE, DO UPDATE), DELETE FROM. */
const WRITTEN = new RegExp(
  String.raw`\b(?:insert\s+into|(?<!\b(?:for|do|key)\s+)update|delete\s+from)\s+(${IDENT})`,
  "gi",
);
/** Tables named at most in a summary. */
const MAX_TABLES = 3;
/** Summaries kept by statement text: the texts are the program's own, a few hundred; bounded all the same. */
const MAX_CACHED = 2_000;
const cache = new Map<string, StatementSummary>();

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** The span name and attributes of a statement's text (its parameters are `$n`, never values). */
export function statementSummary(text: string): StatementSummary {
  const known = cache.get(text);
  if (known) return known;
  const operation = (text.match(FIRST_WORD)?.[1] ?? "SQL").toUpperCase().slice(0, 16);
  const name = (ident: string) => ident.replaceAll('"', "").toLowerCase();
  // The tables written, in order (a WITH statement may write several); a read-only statement: the first read.
  const tables = [...new Set([...text.matchAll(WRITTEN)].map((m) => name(m[1])))].slice(0, MAX_TABLES);
  if (tables.length === 0) {
    const read = text.match(READ)?.[1];
    if (read) tables.push(name(read));
  }
  const summary = {
    name: tables.length > 0 ? `${operation} ${tables.join(",")}` : operation,
    operation,
    table: tables[0],
    hash: fnv1a(text),
  };
  if (cache.size < MAX_CACHED) cache.set(text, summary);
  return summary;
}

/** The parts of postgres.js's Query this module reads (src/query.js, 3.4.9). */
interface QueryLike {
  executed: boolean;
  tagged: boolean;
  strings: readonly string[] | string;
  /** the statement as sent, fragments inlined and values as `$n` (set when it is built, before sending) */
  string?: string;
  resolve: (x: unknown) => unknown;
  reject: (x: unknown) => unknown;
  handle(): Promise<void>;
}

/** A postgres.js pool as far as this module needs it (no import of lib/db/client.ts, which imports this). */
type TaggedSql = (strings: TemplateStringsArray, ...args: never[]) => unknown;

let inFlight = 0;
let openSockets = 0;
let patched = false;

function textOf(q: QueryLike): string {
  if (typeof q.string === "string") return q.string;
  return typeof q.strings === "string" ? q.strings : q.strings.join("$?");
}

function traced(q: QueryLike): void {
  const span = tracer().startSpan("SQL", {
    kind: SpanKind.CLIENT,
    attributes: { "db.system.name": "postgresql" },
  });
  inFlight++;
  const { resolve, reject } = q;
  let ended = false;
  const end = (err?: unknown) => {
    if (ended) return;
    ended = true;
    inFlight--;
    const s = statementSummary(textOf(q));
    span.updateName(s.name);
    span.setAttribute("db.operation.name", s.operation);
    if (s.table) span.setAttribute("db.collection.name", s.table);
    span.setAttribute("db.query.summary", s.name);
    span.setAttribute("portico.db.statement", s.hash);
    if (err !== undefined) {
      // The SQLSTATE ("23505") or the error's class: never its message, which may quote a value.
      const code = (err as { code?: unknown })?.code;
      span.setAttribute("error.type", typeof code === "string" ? code.slice(0, 32) : "Error");
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  q.resolve = (x) => (end(), resolve(x));
  q.reject = (x) => (end(x ?? "error"), reject(x));
}

/**
 * Wraps postgres.js's statement execution (once per process) so that every statement makes a span. Only when
 * OTel is on; `sql` is any pool of this process (all share postgres.js's Query class).
 */
export function instrumentSql(sql: TaggedSql): void {
  if (!OTEL_ON || patched) return;
  patched = true;
  // A query object that is never awaited is never sent: it only shows the class.
  const proto = Object.getPrototypeOf(sql`select 1`) as QueryLike;
  const handle = proto.handle;
  proto.handle = function (this: QueryLike) {
    if (!this.executed) traced(this);
    return handle.call(this);
  };
}

/** Counts a database socket of the pool while it is open (lib/db/client.ts calls it only when OTel is on). */
export function countSocket(socket: net.Socket): void {
  openSockets++;
  socket.once("close", () => openSockets--);
}

/** The pool's gauges: connections open and statements in flight (queued for a connection, sent, unanswered). */
export function dbGauges(): GaugeSpec[] {
  return [
    {
      name: "portico.db.connections.open",
      description: "database connections this instance's pool holds open (at most the pool size, 10)",
      kind: "gauge",
      read: () => [[openSockets]],
    },
    {
      name: "portico.db.statements.in_flight",
      description: "SQL statements issued and not yet answered (waiting for a connection included)",
      kind: "gauge",
      read: () => [[inFlight]],
    },
  ];
}
