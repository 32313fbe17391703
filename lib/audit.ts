// The tool server's audit trail: a bounded in-memory buffer written in batches, off the response path.
import type { Sql } from "./db/client.ts";
import { isoMillisColumn } from "./db/sql.ts";
import { errorFields, type Logger } from "./log.ts";

export type AuditOutcome =
  | "ok"
  | "error"
  | "denied"
  | "unavailable"
  | "invalid"
  | "crash"
  | "asked"
  | "declined";

export interface AuditEntry {
  at: Date;
  workspaceId: string | null;
  keyId: string | null;
  /** the OAuth client, for calls made with an access token */
  clientId?: string | null;
  userId: string | null;
  tool: string;
  outcome: AuditOutcome;
  durationMs: number;
  requestId: string;
  /** the OAuth grant behind an access token */
  grantId?: string | null;
  /** why a call was refused or failed (lib/mcp/call_detail.ts: a code word, never argument text) */
  reason?: string | null;
  /** the records the call named or created, `field:uuid` (lib/mcp/call_detail.ts) */
  records?: readonly string[] | null;
  /** it ran after the person confirmed it */
  confirmed?: boolean;
}

/** Entries held in memory at most, refused and authenticated together, the batch being written included. */
export const AUDIT_MAX_BUFFERED = 10_000;
/** Refused entries (no workspace: the request had no valid key) held at most; the rest is kept for real calls. */
export const AUDIT_MAX_REFUSED = 1_000;
/** The longest tool name kept (a client may send any string as a name). */
export const AUDIT_TOOL_NAME_MAX = 200;

export interface AuditOptions {
  /** how often the buffer is written; default 1000 ms */
  flushMs?: number;
  /** write at once when this many entries wait; default 200 */
  batchSize?: number;
  /** entries held at most (see AUDIT_MAX_BUFFERED); beyond it entries are dropped, counted and logged */
  maxBuffered?: number;
  /** refused entries held at most (see AUDIT_MAX_REFUSED) */
  maxRefused?: number;
}

export interface AuditStats {
  /** entries waiting now, the batch being written included */
  buffered: number;
  /** of which refused (no workspace) */
  bufferedRefused: number;
  /** the most entries ever held at once */
  peakBuffered: number;
  /** entries written to the database */
  written: number;
  /** entries dropped since the start, by kind */
  dropped: { refused: number; authenticated: number };
}

export interface AuditLog {
  /** Queues an entry; never waits for the database. */
  record(entry: AuditEntry): void;
  /** Writes what is queued now (authenticated entries first). */
  flush(): Promise<void>;
  /** Stops the timer and writes the rest. */
  close(): Promise<void>;
  /** Counters for tests and operators. */
  stats(): AuditStats;
}

/** A fresh copy of at most `max` characters: a slice would keep a client's whole (up to 1 MiB) string alive. */
function boundedCopy(s: string, max: number): string {
  if (s.length <= max && !s.includes("\u0000")) return s;
  return Array.from(s.replaceAll("\u0000", "").slice(0, max)).join("");
}

/**
 * Memory is bounded and a flood of refused requests cannot delay real rows:
 * - Entries of a request that had no caller (`workspaceId` null: missing, unknown or revoked key) wait in their
 *   own queue of at most `maxRefused`; when it (or the whole buffer) is full, a new refused entry is dropped,
 *   so the first of a flood are kept.
 * - An authenticated entry that finds the buffer full first evicts the newest refused entry; only when none is
 *   left does it drop the oldest authenticated entry (this happens only while the database is away).
 * - Every batch takes authenticated entries first, so a real call's row goes out with the next write whatever
 *   the number of refused entries waiting.
 * - Drops are counted (`stats().dropped`) and logged once per flush: `audit entries dropped` at warn (refused
 *   only) or error (authenticated entries lost).
 */
export function createAuditLog(sql: Sql, log: Logger, opts: AuditOptions = {}): AuditLog {
  const flushMs = opts.flushMs ?? 1000;
  const batchSize = opts.batchSize ?? 200;
  const maxBuffered = opts.maxBuffered ?? AUDIT_MAX_BUFFERED;
  const maxRefused = Math.min(opts.maxRefused ?? AUDIT_MAX_REFUSED, maxBuffered);
  let authed: AuditEntry[] = [];
  let refused: AuditEntry[] = [];
  let inFlight = 0;
  let peak = 0;
  let written = 0;
  const dropped = { refused: 0, authenticated: 0 };
  const unreported = { refused: 0, authenticated: 0 };
  let writing: Promise<void> = Promise.resolve();
  let flushQueued = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const size = () => authed.length + refused.length + inFlight;
  const queued = () => authed.length + refused.length;

  function drop(kind: "refused" | "authenticated", n = 1) {
    dropped[kind] += n;
    unreported[kind] += n;
  }

  /** Makes room for one entry of this kind, or says there is none. */
  function makeRoom(isRefused: boolean): boolean {
    if (isRefused) {
      if (refused.length >= maxRefused || size() >= maxBuffered) return false;
      return true;
    }
    if (size() < maxBuffered) return true;
    if (refused.length > 0) {
      refused.pop();
      drop("refused");
      return true;
    }
    if (authed.length > 0) {
      authed.shift();
      drop("authenticated");
      return true;
    }
    return false; // everything held is the batch being written (maxBuffered <= batchSize)
  }

  function admit(entry: AuditEntry) {
    const isRefused = entry.workspaceId === null;
    if (!makeRoom(isRefused)) {
      drop(isRefused ? "refused" : "authenticated");
      return;
    }
    (isRefused ? refused : authed).push(entry);
    peak = Math.max(peak, size());
  }

  function reportDrops() {
    if (unreported.refused === 0 && unreported.authenticated === 0) return;
    const fields = {
      dropped_refused: unreported.refused,
      dropped_authenticated: unreported.authenticated,
      dropped_refused_total: dropped.refused,
      dropped_authenticated_total: dropped.authenticated,
      max_buffered: maxBuffered,
      max_refused: maxRefused,
    };
    if (unreported.authenticated > 0) log.error("audit entries dropped", fields);
    else log.warn("audit entries dropped", fields);
    unreported.refused = 0;
    unreported.authenticated = 0;
  }

  async function write(batch: AuditEntry[]): Promise<boolean> {
    // One array per column and a fixed statement: a VALUES list of 200 rows is 1,800 parameters to serialise,
    // which cost the server 2-3× the CPU per row of this (measured for issue 17.5), and its text changes with
    // the batch's size. postgres.js quotes every string element, so "NULL", "" or {,"\ in a tool name stay text.
    const at: string[] = [];
    const workspaceIds: (string | null)[] = [];
    const keyIds: (string | null)[] = [];
    const clientIds: (string | null)[] = [];
    const userIds: (string | null)[] = [];
    const tools: string[] = [];
    const outcomes: string[] = [];
    const durations: number[] = [];
    const requestIds: string[] = [];
    const grantIds: (string | null)[] = [];
    const reasons: (string | null)[] = [];
    // text[] per row does not fit an unnest of arrays (a 2-D array must be rectangular): one JSON array each
    const records: (string | null)[] = [];
    const confirmed: string[] = []; // postgres.js sends a boolean array as one boolean: text, cast in SQL
    for (const e of batch) {
      at.push(e.at.toISOString()); // a Date array would be sent typed as one timestamptz, not an array
      workspaceIds.push(e.workspaceId);
      keyIds.push(e.keyId);
      clientIds.push(e.clientId ?? null);
      userIds.push(e.userId);
      tools.push(e.tool);
      outcomes.push(e.outcome);
      durations.push(Math.min(Math.round(e.durationMs * 100) / 100, 99_999_999));
      requestIds.push(e.requestId);
      grantIds.push(e.grantId ?? null);
      reasons.push(e.reason ?? null);
      records.push(e.records && e.records.length > 0 ? JSON.stringify(e.records) : null);
      confirmed.push(e.confirmed === true ? "t" : "f");
    }
    try {
      await sql`
        insert into audit_log (at, workspace_id, key_id, client_id, user_id, tool, outcome, duration_ms, request_id,
                               grant_id, reason, records, confirmed)
        select a, w, k, c, u, t, o, d, r, g, why,
               (select array_agg(x) from jsonb_array_elements_text(rec::jsonb) x), conf::boolean
          from unnest(${at}::timestamptz[], ${workspaceIds}::uuid[], ${keyIds}::uuid[],
                      ${clientIds}::text[], ${userIds}::uuid[], ${tools}::text[], ${outcomes}::text[],
                      ${durations}::numeric[], ${requestIds}::text[], ${grantIds}::uuid[], ${reasons}::text[],
                      ${records}::text[], ${confirmed}::text[]) as v(a, w, k, c, u, t, o, d, r, g, why, rec, conf)`;
      return true;
    } catch (err) {
      log.warn("audit write failed; will retry", errorFields(err));
      return false;
    }
  }

  /** Puts a failed batch back in front of its queues (the database may be briefly away), within the bounds. */
  function putBack(batch: AuditEntry[]) {
    authed = [...batch.filter((e) => e.workspaceId !== null), ...authed];
    refused = [...batch.filter((e) => e.workspaceId === null), ...refused];
    while (refused.length > maxRefused || (size() > maxBuffered && refused.length > 0)) {
      refused.pop();
      drop("refused");
    }
    while (size() > maxBuffered) {
      authed.shift();
      drop("authenticated");
    }
  }

  async function drain(): Promise<void> {
    // At most what waits now plus one batch: a steady flood cannot keep one flush (and its caller) going.
    let batches = Math.ceil(queued() / batchSize) + 1;
    while (queued() > 0 && batches-- > 0) {
      const batch = authed.splice(0, batchSize);
      if (batch.length < batchSize) batch.push(...refused.splice(0, batchSize - batch.length));
      inFlight = batch.length;
      const ok = await write(batch);
      inFlight = 0;
      if (!ok) {
        putBack(batch);
        break; // try again later
      }
      written += batch.length;
    }
    reportDrops();
  }

  function flush(): Promise<void> {
    // One flush waits behind the running one at most: it writes whatever is queued when it starts.
    if (flushQueued) return writing;
    flushQueued = true;
    writing = writing.then(() => {
      flushQueued = false;
      return drain();
    });
    return writing;
  }

  function schedule() {
    if (timer !== undefined || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      flush().then(() => {
        if (queued() > 0 || unreported.refused + unreported.authenticated > 0) schedule();
      });
    }, flushMs);
  }

  return {
    record(entry) {
      // The tool name is whatever the client sent (unknown tools too): a NUL in it would fail the whole batch
      // in Postgres, and the batch would be retried forever.
      const tool = boundedCopy(entry.tool, AUDIT_TOOL_NAME_MAX);
      admit(tool === entry.tool ? entry : { ...entry, tool });
      if (queued() >= batchSize) void flush();
      schedule();
    },
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
    stats: () => ({
      buffered: size(),
      bufferedRefused: refused.length,
      peakBuffered: peak,
      written,
      dropped: { ...dropped },
    }),
  };
}

/** An audit entry as `admin audit` prints it: its JSON keys are the table's column names. */
export interface AuditRow {
  at: string;
  workspace_id: string | null;
  key_id: string | null;
  user_id: string | null;
  tool: string;
  outcome: AuditOutcome;
  duration_ms: number;
  request_id: string;
}

/** The most recent entries, newest first, optionally of one workspace. */
export async function recentAudit(
  sql: Sql,
  opts: { workspaceId?: string; limit: number },
): Promise<AuditRow[]> {
  const rows = await sql<AuditRow[]>`
    select ${isoMillisColumn(sql, "at")} as at, workspace_id, key_id, user_id,
           tool, outcome, duration_ms::float8 as duration_ms, request_id
      from audit_log
     where ${opts.workspaceId ? sql`workspace_id = ${opts.workspaceId}` : sql`true`}
     order by at desc, id desc
     limit ${opts.limit}`;
  return rows.map((r) => ({ ...r }));
}
