// Creates the postgres.js client: the only database driver, for Postgres and for embedded PGlite alike.
import postgres from "postgres";

export type Sql = postgres.Sql;
/** A pool or a transaction: every data function takes this first. */
export type Db = postgres.Sql | postgres.TransactionSql;

export interface DbOptions {
  /** pool size; the embedded database serves one connection */
  max?: number;
  /** seconds to wait for a connection before failing */
  connectTimeout?: number;
}

export function createDb(url: string, opts: DbOptions = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeout ?? 5,
    idle_timeout: 30,
    onnotice: () => {},
    // timestamptz and date come back as strings of their own; the app formats them at the edge.
    types: {},
    connection: { application_name: "portico" },
  });
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
