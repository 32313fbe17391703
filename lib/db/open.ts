// Opens the database the configuration names: Postgres at DATABASE_URL, or embedded PGlite under DATA_DIR.
import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { createDb, type DbOptions, dbOptions, ping, type Sql } from "./client.ts";
import { type EmbeddedLock, lockEmbedded, PORT_FILE, readOwner } from "./embedded_lock.ts";
import { startSupervisedEmbedded, type SupervisedEmbedded } from "./embedded_supervisor.ts";
import { describeConnectFailure } from "./errors.ts";

/** A start-up failure with a one-line reason for the operator. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** Another process owns the embedded database and this one was asked not to share it (a second server). */
export class DatabaseInUseError extends StartupError {
  override name = "DatabaseInUseError";
}

export interface OpenDatabase {
  sql: Sql;
  embedded: boolean;
  /** Why the database cannot serve right now (embedded: restarting, disk full or read-only), or undefined. */
  problem(): string | undefined;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * What to do when another process owns the embedded database: `refuse` (a second server) or `connect` to
   * that process's loopback port (admin, migrate). Never open the data directory a second time.
   */
  whenInUse?: "refuse" | "connect";
  /** how long a `connect` waits for the owner to publish a port that answers */
  waitMs?: number;
  log?: Logger;
  /** passed to the supervisor (tests shorten them) */
  heartbeatTimeoutMs?: number;
}

function describe(url: string): { where: string; database: string; user: string } {
  try {
    const u = new URL(url);
    return {
      where: `${u.hostname}:${u.port || "5432"}${u.pathname}`,
      database: decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || "postgres",
      user: decodeURIComponent(u.username) || "postgres",
    };
  } catch {
    return { where: "DATABASE_URL", database: "?", user: "?" };
  }
}

/** The error of a trivial query, or undefined when it answered within `timeoutMs`. */
async function firstFailure(sql: Sql, timeoutMs: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error("timeout"), { code: "CONNECT_TIMEOUT" })),
        timeoutMs,
      );
    });
    await Promise.race([sql`select 1`, timeout]);
    return undefined;
  } catch (err) {
    return err ?? new Error("unknown failure");
  } finally {
    clearTimeout(timer);
  }
}

async function openPostgres(url: string, options: DbOptions, log?: Logger): Promise<OpenDatabase> {
  const sql = createDb(url, options);
  const failure = await firstFailure(sql, 5000);
  if (failure !== undefined) {
    await sql.end({ timeout: 1 }).catch(() => {});
    const d = describe(url);
    throw new StartupError(describeConnectFailure(failure, d.where, d));
  }
  if (options.pooler === "transaction") await checkRoleTimeouts(sql, options.statementTimeoutMs ?? 0, log);
  return { sql, embedded: false, problem: () => undefined, close: () => sql.end({ timeout: 5 }) };
}

/** The timeouts the role (or the pooler's connect_query) sets, read back once at start; null if unreadable. */
export async function serverTimeouts(
  sql: Sql,
): Promise<{ statement: number; idleInTransaction: number } | null> {
  try {
    const [row] = await sql<{ statement: number; idle: number }[]>`
      select (select setting::int from pg_settings where name = 'statement_timeout') as statement,
             (select setting::int from pg_settings where name = 'idle_in_transaction_session_timeout') as idle`;
    return { statement: row.statement, idleInTransaction: row.idle };
  } catch {
    return null;
  }
}

/**
 * Behind a transaction-mode pooler Portico cannot set statement_timeout itself (lib/db/client.ts): says so once
 * when the server's own value is not STATEMENT_TIMEOUT_MS, so an operator who has not set it on the role hears.
 */
async function checkRoleTimeouts(sql: Sql, wantMs: number, log?: Logger): Promise<void> {
  if (wantMs <= 0 || !log) return;
  const got = await serverTimeouts(sql);
  if (got && got.statement !== wantMs) {
    log.warn("statement_timeout through the pooler differs from STATEMENT_TIMEOUT_MS", {
      statement_timeout_ms: got.statement,
      idle_in_transaction_session_timeout_ms: got.idleInTransaction,
      want_ms: wantMs,
      fix: "ALTER ROLE ... SET statement_timeout (docs/operations.md, Behind a connection pooler)",
    });
  }
}

/**
 * With DATABASE_URL: a pool, checked once. Without: the embedded database under DATA_DIR. Its owner is the
 * process holding the OS lock on DATA_DIR/embedded.lock for its whole life; it runs PGlite (supervised, in a
 * worker) and publishes a loopback URL in DATA_DIR/embedded.json. Any other process either refuses or connects
 * to that URL; none opens the data files while the lock is held elsewhere.
 */
export async function openDatabase(config: Config, opts: OpenOptions = {}): Promise<OpenDatabase> {
  if (config.databaseUrl) return await openPostgres(config.databaseUrl, dbOptions(config), opts.log);
  const whenInUse = opts.whenInUse ?? "refuse";
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  const portFile = join(config.dataDir, PORT_FILE);
  let lastUrl: string | undefined;
  for (;;) {
    let lock: EmbeddedLock | null;
    try {
      lock = await lockEmbedded(config.dataDir);
    } catch (err) {
      throw new StartupError(
        `cannot open the embedded database in ${config.dataDir}: ${err instanceof Error ? err.message : err}`,
      );
    }
    if (lock) return await openAsOwner(config, lock, opts);
    const owner = await readOwner(config.dataDir);
    // Under `deno run --watch` the previous run of this same process may still be letting go of the lock.
    const sameProcess = owner.pid === Deno.pid;
    if (whenInUse === "refuse" && !sameProcess) {
      throw new DatabaseInUseError(
        `the embedded database in ${config.dataDir} is in use by another Portico process (pid ${
          owner.pid ?? "unknown"
        }); stop it first, or set a different DATA_DIR`,
      );
    }
    if (whenInUse === "connect" && owner.url) {
      lastUrl = owner.url;
      const sql = createDb(owner.url, { max: 1, connectTimeout: 2 });
      if (await ping(sql, 2000)) {
        return { sql, embedded: true, problem: () => undefined, close: () => sql.end({ timeout: 5 }) };
      }
      await sql.end({ timeout: 1 }).catch(() => {});
    }
    if (Date.now() > deadline) {
      throw new StartupError(
        `the embedded database in ${config.dataDir} is held by process ${owner.pid ?? "unknown"}, but ` +
          (lastUrl
            ? `its port (${new URL(lastUrl).port}) does not answer`
            : `it published no port in ${portFile}`) +
          `; wait for it to finish starting, or stop it`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function openAsOwner(config: Config, lock: EmbeddedLock, opts: OpenOptions): Promise<OpenDatabase> {
  let embedded: SupervisedEmbedded;
  try {
    embedded = await startSupervisedEmbedded(join(config.dataDir, "pgdata"), {
      log: opts.log,
      heartbeatTimeoutMs: opts.heartbeatTimeoutMs,
    });
  } catch (err) {
    lock.release();
    throw new StartupError(
      `cannot open the embedded database in ${config.dataDir}: ${err instanceof Error ? err.message : err}`,
    );
  }
  try {
    await lock.publish(embedded.url);
  } catch (err) {
    await embedded.close();
    lock.release();
    throw new StartupError(
      `cannot write ${join(config.dataDir, PORT_FILE)}: ${err instanceof Error ? err.message : err}`,
    );
  }
  const sql = createDb(embedded.url, { max: 1 });
  return {
    sql,
    embedded: true,
    problem: () => embedded.problem(),
    async close() {
      await sql.end({ timeout: 2 }).catch(() => {});
      await embedded.close();
      await lock.unpublish();
      lock.release();
    },
  };
}
