// The tool server's audit trail: entries are buffered in memory and written in batches, off the response path.
import type { Sql } from "./db/client.ts";
import { errorFields, type Logger } from "./log.ts";

export type AuditOutcome = "ok" | "error" | "denied" | "unavailable" | "invalid" | "crash";

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
}

export interface AuditOptions {
  /** how often the buffer is written; default 1000 ms */
  flushMs?: number;
  /** write at once when this many entries wait; default 200 */
  batchSize?: number;
  /** entries kept while the database is away; the oldest are dropped beyond it (and the drop is logged) */
  maxBuffered?: number;
}

export interface AuditLog {
  /** Queues an entry; never waits for the database. */
  record(entry: AuditEntry): void;
  /** Writes what is queued now. */
  flush(): Promise<void>;
  /** Stops the timer and writes the rest. */
  close(): Promise<void>;
}

export function createAuditLog(sql: Sql, log: Logger, opts: AuditOptions = {}): AuditLog {
  const flushMs = opts.flushMs ?? 1000;
  const batchSize = opts.batchSize ?? 200;
  const maxBuffered = opts.maxBuffered ?? 10_000;
  let buffer: AuditEntry[] = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  async function write(batch: AuditEntry[]): Promise<void> {
    const rows = batch.map((e) => ({
      at: e.at,
      workspace_id: e.workspaceId,
      key_id: e.keyId,
      client_id: e.clientId ?? null,
      user_id: e.userId,
      // The tool name is whatever the client sent (unknown tools too): a NUL in it would fail the whole batch
      // in Postgres, and the batch would be retried forever.
      tool: e.tool.replaceAll("\u0000", "").slice(0, 200),
      outcome: e.outcome,
      duration_ms: Math.min(Math.round(e.durationMs * 100) / 100, 99_999_999),
      request_id: e.requestId,
    }));
    try {
      await sql`insert into audit_log ${
        sql(
          rows,
          "at",
          "workspace_id",
          "key_id",
          "client_id",
          "user_id",
          "tool",
          "outcome",
          "duration_ms",
          "request_id",
        )
      }`;
    } catch (err) {
      // Keep the entries for the next attempt (the database may be briefly away), within the bound.
      buffer = [...batch, ...buffer];
      if (buffer.length > maxBuffered) {
        const dropped = buffer.length - maxBuffered;
        buffer = buffer.slice(dropped);
        log.error("audit entries dropped", { dropped });
      }
      log.warn("audit write failed; will retry", errorFields(err));
    }
  }

  function flush(): Promise<void> {
    writing = writing.then(async () => {
      while (buffer.length > 0) {
        const batch = buffer.splice(0, batchSize);
        const before = buffer.length;
        await write(batch);
        if (buffer.length > before) break; // the write failed and put the batch back: try again later
      }
    });
    return writing;
  }

  function schedule() {
    if (timer !== undefined || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      flush().then(() => {
        if (buffer.length > 0) schedule();
      });
    }, flushMs);
  }

  return {
    record(entry) {
      buffer.push(entry);
      if (buffer.length >= batchSize) void flush();
      else schedule();
    },
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}

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
    select to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, workspace_id, key_id, user_id,
           tool, outcome, duration_ms::float8 as duration_ms, request_id
      from audit_log
     where ${opts.workspaceId ? sql`workspace_id = ${opts.workspaceId}` : sql`true`}
     order by at desc, id desc
     limit ${opts.limit}`;
  return rows.map((r) => ({ ...r }));
}
