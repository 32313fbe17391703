// Creates the postgres.js client: the only database driver, for Postgres and for embedded PGlite alike.
import postgres from "postgres";
import { isDatabaseUnavailable } from "./errors.ts";

export type Sql = postgres.Sql;
/** A pool or a transaction: every data function takes this first. */
export type Db = postgres.Sql | postgres.TransactionSql;

export interface DbOptions {
  /** pool size; the embedded database serves one connection */
  max?: number;
  /** seconds to wait for a connection before failing */
  connectTimeout?: number;
}

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

export function createDb(url: string, opts: DbOptions = {}): Sql {
  if (!guarded) {
    guarded = true;
    globalThis.addEventListener("error", ignoreWriteAfterClose);
  }
  return guardTransactions(postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeout ?? 5,
    idle_timeout: 30,
    // Reconnect attempts while the database is away: postgres.js waits up to 20 s between them by default, and
    // every request waits with it before its 503. At most 1 s keeps outage answers quick and recovery prompt.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    onnotice: () => {},
    // timestamptz and date come back as strings of their own; the app formats them at the edge.
    types: {},
    connection: { application_name: "portico" },
  }));
}

/** True when the database answers a trivial query within `timeoutMs`. */
export async function ping(sql: Sql, timeoutMs = 2000): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
    });
    await Promise.race([sql`select 1`, timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
