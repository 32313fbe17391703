// Creates the postgres.js client: the only database driver, for Postgres and for embedded PGlite alike.
import net from "node:net";
import postgres from "postgres";
import { isDatabaseUnavailable } from "./errors.ts";
import { OTEL_ON } from "../telemetry/otel.ts";
import { countSocket } from "../telemetry/sql.ts";

export type Sql = postgres.Sql;
/** A pool or a transaction: every data function takes this first. */
export type Db = postgres.Sql | postgres.TransactionSql;

export interface DbOptions {
  /** pool size; the embedded database serves one connection */
  max?: number;
  /** seconds to wait for a connection before failing */
  connectTimeout?: number;
  /**
   * Postgres `statement_timeout` in milliseconds, set on every connection (0: none). It also bounds how long the
   * client waits in silence for an answer it is owed (see `watchConnection`).
   */
  statementTimeoutMs?: number;
  /**
   * `transaction`: the URL reaches a pooler in transaction mode (PgBouncer, Supavisor): unnamed statements only,
   * and no server settings in the start-up message (docs/operations.md "Behind a connection pooler").
   */
  pooler?: DatabasePooler;
}

/** DATABASE_POOLER: `none` (a direct connection, or a pooler in session mode) or `transaction`. */
export type DatabasePooler = "none" | "transaction";

/** STATEMENT_TIMEOUT_MS's default: Portico's queries take milliseconds; an export of 10,000 rows under one. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
/** How long past statement_timeout the client still waits for the server's own cancellation to arrive. */
const SILENCE_GRACE_MS = 2_000;
/** After the silence limit, one more short wait, so answers queued behind a blocked event loop are read first. */
const SILENCE_CONFIRM_MS = 250;

// postgres.js 3.4.9 and a connection lost inside a transaction: the transaction's callback fails with
// CONNECTION_CLOSED, and postgres.js then writes ROLLBACK (or ROLLBACK TO for a savepoint) to that connection
// from a setImmediate callback whose socket is already null. That throws "Cannot read properties of null
// (reading 'write')" outside any request — uncaught, it ends the process — and it leaves the unsent bytes in the
// connection's write buffer, so the connection's later reconnects send nothing and time out: measured, the pool
// took over a minute to serve again after a cut during 24 concurrent transactions. Two guards:
// 1. guardTransactions: when a transaction's callback fails because the connection is gone, it never settles, so
//    postgres.js writes nothing more to that connection (Postgres rolls the transaction back by itself when the
//    connection drops). `begin` still rejects at once: postgres.js races it against the connection's close.
//    The abandoned callback holds nothing reachable and is garbage-collected.
// 2. ignoreWriteAfterClose: should the write still happen (a statement issued after the close was noticed), the
//    TypeError is kept from ending the process.

function ignoreWriteAfterClose(event: ErrorEvent): void {
  const err = event.error;
  if (
    err instanceof TypeError && err.message.includes("reading 'write'") &&
    /postgres\/[^/]+\/src\/connection\.js/.test(err.stack ?? "")
  ) {
    event.preventDefault();
  }
}

// postgres.js 3.4.9 fetches the array types on every new connection from a promise no caller holds
// (connection.js fetchArrayTypes, called from its ReadyForQuery handler). When the connection is lost during
// that first query — a database that accepts the start-up and then goes silent (a hung embedded PGlite, a route
// dropped just after connecting), ended by the silence watch below or by `end({ timeout })` — that promise
// rejects with nobody listening, and an unhandled rejection ends the process. Measured: a proxy that passes the
// start-up and swallows the rest killed the server 2.5 s after its first query. The query that was waiting
// still gets its own rejection (a 503); this only keeps the orphaned copy of an outage error from ending the
// process. An unhandled rejection that is not a database outage still ends it.
function ignoreOrphanedOutage(event: PromiseRejectionEvent): void {
  if (isDatabaseUnavailable(event.reason)) event.preventDefault();
}
let guarded = false;

type TxCallback = (tx: postgres.TransactionSql) => unknown;

/** Runs a transaction (or savepoint) callback; if the connection was lost, the returned promise never settles. */
async function abandonIfLost(tx: postgres.TransactionSql, fn: TxCallback, lost: { yes: boolean }) {
  try {
    return await fn(guardSavepoints(tx, lost));
  } catch (err) {
    if (lost.yes || isDatabaseUnavailable(err)) {
      lost.yes = true;
      return await new Promise<never>(() => {});
    }
    throw err;
  }
}

function guardSavepoints(tx: postgres.TransactionSql, lost: { yes: boolean }): postgres.TransactionSql {
  return new Proxy(tx, {
    get(target, prop, receiver) {
      if (prop !== "savepoint") return Reflect.get(target, prop, receiver);
      return (...args: unknown[]) => {
        const fn = args.pop() as TxCallback;
        return (target.savepoint as (...a: unknown[]) => Promise<unknown>)(
          ...args,
          (sp: postgres.TransactionSql) => abandonIfLost(sp, fn, lost),
        );
      };
    },
  });
}

function guardTransactions(sql: Sql): Sql {
  const begin = sql.begin as (...a: unknown[]) => Promise<unknown>;
  (sql as { begin: unknown }).begin = (...args: unknown[]) => {
    const fn = args.pop() as TxCallback;
    const lost = { yes: false };
    const done = begin(...args, (tx: postgres.TransactionSql) => abandonIfLost(tx, fn, lost));
    done.catch((err) => {
      if (isDatabaseUnavailable(err)) lost.yes = true;
    });
    return done;
  };
  return sql;
}

// A network black hole (packets dropped, no reset) leaves a query waiting for an answer that never comes: the
// server's statement_timeout cancels the statement, but its error cannot reach us, and TCP retransmits for about
// 15 minutes before giving up. So each connection's socket is watched: while the server owes an answer (a Sync,
// a simple Query or the start-up message was sent, and not every ReadyForQuery came back, or a Flush awaits its
// reply), silence longer than statement_timeout + 2 s destroys the socket. Every query on it fails with
// ETIMEDOUT (a 503, see lib/db/errors.ts), and the pool opens a fresh connection for the next one. A slow query
// is not silence's victim: the server answers, at the latest with its own cancellation, within statement_timeout.
// Over TLS the bytes are opaque, so the watch stands down there: statement_timeout still bounds slow statements,
// but a black hole is noticed only by TCP (docs/operations.md "Timeouts").

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;

/** Watches one plaintext Postgres connection for silence while it owes an answer; see above. */
export function watchConnection(socket: net.Socket, limitMs: number): void {
  let owed = 0, flushWait = false, first = true, off = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let heard = 0; // when the last byte arrived (or the first request after a quiet spell left)
  // backend framing: bytes of the current message still to skip, and the header being collected
  let skip = 0;
  const head = new Uint8Array(5);
  let headLen = 0;

  function disarm() {
    clearTimeout(timer);
    timer = undefined;
  }
  function arm(ms: number) {
    clearTimeout(timer);
    timer = setTimeout(expire, ms);
  }
  function expire() {
    timer = undefined;
    if (off || (owed === 0 && !flushWait)) return;
    const quiet = performance.now() - heard;
    if (quiet < limitMs) return arm(limitMs - quiet);
    if (quiet < limitMs + SILENCE_CONFIRM_MS) return arm(SILENCE_CONFIRM_MS);
    off = true;
    const err = Object.assign(new Error(`no answer from the database for ${Math.round(quiet)} ms`), {
      code: "ETIMEDOUT",
    });
    socket.destroy(err);
  }
  function noteWrite(chunk: unknown) {
    if (off || !(chunk instanceof Uint8Array)) return;
    const wasQuiet = owed === 0 && !flushWait;
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (first) {
      first = false;
      const code = chunk.length >= 8 ? view.getUint32(4) : 0;
      if (code === SSL_REQUEST || code === CANCEL_REQUEST) {
        off = true; // TLS follows (opaque), or a cancel request that gets no answer
        return;
      }
      owed++; // the start-up message ends with ReadyForQuery
    } else {
      // postgres.js writes whole messages: a type byte, then a length that counts itself.
      for (let i = 0; i + 5 <= chunk.length; i += 1 + view.getUint32(i + 1)) {
        const type = chunk[i];
        if (type === 0x53 || type === 0x51) owed++; // S Sync, Q Query
        else if (type === 0x48) flushWait = true; // H Flush
      }
    }
    if (!(owed > 0 || flushWait)) return;
    if (wasQuiet) heard = performance.now(); // silence counts from the first request after a quiet spell
    if (timer === undefined) arm(limitMs);
  }
  function noteData(chunk: Uint8Array) {
    if (off) return;
    heard = performance.now();
    flushWait = false;
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
        continue;
      }
      head[headLen++] = chunk[i++];
      if (headLen === 5) {
        headLen = 0;
        if (head[0] === 0x5a) owed = Math.max(0, owed - 1); // Z ReadyForQuery
        skip = new DataView(head.buffer).getUint32(1) - 4;
      }
    }
    // The timer is left to run out once nothing is owed (it then stops, see `expire`): clearing it here and
    // setting it again for the next statement cost the event loop ~11 µs a statement (BENCHMARKS.md "The token
    // answer built complete"). So a busy connection sets one timer per `limitMs`, not one per statement; the
    // next request's quiet spell is counted from `heard`, set when it leaves.
  }

  const write = socket.write;
  socket.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
    noteWrite(chunk);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof socket.write;
  socket.on("data", noteData);
  socket.once("close", () => {
    off = true;
    disarm();
  });
}

/** postgres.js's `socket` option: a plain TCP (or Unix) socket, watched when a statement timeout is set. */
function watchedSockets(limitMs: number) {
  let next = 0;
  return (o: { host: string[]; port: number[]; path?: string | false }) => {
    const i = next++ % o.host.length;
    const socket = o.path ? net.connect(o.path) : net.connect(o.port[i] ?? o.port[0], o.host[i]);
    // postgres.js reads the host for TLS server name indication (SNI) from the socket it connected itself.
    if (!o.path) (socket as net.Socket & { host?: string }).host = o.host[i];
    if (limitMs > 0) watchConnection(socket, limitMs);
    if (OTEL_ON) countSocket(socket);
    return socket;
  };
}

/** The pool options the configuration sets (lib/db/open.ts passes them to createDb for DATABASE_URL). */
export function dbOptions(config: { statementTimeoutMs: number; databasePooler: DatabasePooler }): DbOptions {
  return { statementTimeoutMs: config.statementTimeoutMs, pooler: config.databasePooler };
}

/** Pools and how to reach their server again, for a health probe outside the pool. */
const origins = new WeakMap<Sql, { url: string; opts: DbOptions }>();

export function createDb(url: string, opts: DbOptions = {}): Sql {
  if (!guarded) {
    guarded = true;
    globalThis.addEventListener("error", ignoreWriteAfterClose);
    globalThis.addEventListener("unhandledrejection", ignoreOrphanedOutage);
  }
  const statementTimeoutMs = opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pooled = opts.pooler === "transaction";
  // `socket` is missing from postgres.js's types; its README documents it (a custom socket).
  const options: postgres.Options<Record<string, never>> & { socket: unknown } = {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeout ?? 5,
    socket: watchedSockets(statementTimeoutMs > 0 ? statementTimeoutMs + SILENCE_GRACE_MS : 0),
    idle_timeout: 30,
    // Reconnect attempts while the database is away: postgres.js waits up to 20 s between them by default, and
    // every request waits with it before its 503. At most 1 s keeps outage answers quick and recovery prompt.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    onnotice: () => {},
    // Behind a pooler in transaction mode, consecutive transactions of one client connection may run on
    // different server connections: a statement prepared under a name on one is unknown on the next ("prepared
    // statement does not exist"). Unnamed statements are parsed again each time, in the same round trip.
    prepare: !pooled,
    // No custom types: postgres.js's own parsers apply, so timestamptz, timestamp and date come back as `Date`
    // (time as text). A time on the wire is formatted once: in SQL by lib/db/sql.ts (isoColumn …) for workspace
    // answers, or by toISOString / epoch seconds where a protocol says how.
    connection: {
      application_name: "portico",
      // A transaction left open by a vanished client would hold its locks until TCP notices; the server ends it.
      // A pooler refuses these in the start-up message ("unsupported startup parameter"), and would not carry
      // them to its server connections anyway: there they are set on the role (docs/operations.md).
      ...(statementTimeoutMs > 0 && !pooled
        ? {
          statement_timeout: statementTimeoutMs,
          idle_in_transaction_session_timeout: statementTimeoutMs * 3,
        }
        : {}),
    },
  };
  const sql = guardTransactions(postgres(url, options));
  origins.set(sql, { url, opts });
  return sql;
}

/** True when the database answers a trivial query within `timeoutMs`. */
export async function ping(sql: Sql, timeoutMs = 2000): Promise<boolean> {
  return (await pingDetail(sql, timeoutMs)) === "ok";
}

/** "ok", "timeout" (no answer within `timeoutMs`: the pool may be busy) or "failed" (an error came back). */
export async function pingDetail(sql: Sql, timeoutMs: number): Promise<"ok" | "timeout" | "failed"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    return await Promise.race([sql`select 1`.then(() => "ok" as const), timeout]);
  } catch {
    return "failed";
  } finally {
    clearTimeout(timer);
  }
}

/**
 * True when the pool's server answers `select 1` on a new connection of its own, outside the pool, within
 * `timeoutMs`: tells a busy pool from an unreachable database.
 */
export async function probe(sql: Sql, timeoutMs: number): Promise<boolean> {
  const origin = origins.get(sql);
  if (!origin) return false;
  const one = createDb(origin.url, {
    ...origin.opts,
    max: 1,
    connectTimeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
  });
  try {
    return await ping(one, timeoutMs);
  } finally {
    one.end({ timeout: 0 }).catch(() => {});
  }
}
