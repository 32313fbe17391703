// Opens the database the configuration names: Postgres at DATABASE_URL, or embedded PGlite under DATA_DIR.
import { join } from "node:path";
import type { Config } from "../config.ts";
import { createDb, ping, type Sql } from "./client.ts";
import { startEmbedded } from "./embedded.ts";

/** A start-up failure with a one-line reason for the operator. */
export class StartupError extends Error {
  override name = "StartupError";
}

export interface OpenDatabase {
  sql: Sql;
  embedded: boolean;
  close(): Promise<void>;
}

const PORT_FILE = "embedded.json";

function describe(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "DATABASE_URL";
  }
}

/**
 * With DATABASE_URL: a pool, checked once. Without: PGlite under DATA_DIR/pgdata. When `shareEmbedded` is set
 * (the CLI), an embedded database already served by a running dev server is reused through its port file,
 * because PGlite's data directory can be opened by one process only.
 */
/** The server recorded in the port file, when that process still exists. A stale file is removed. */
async function runningServer(portFile: string): Promise<{ url: string; pid: number } | null> {
  let recorded: { url: string; pid: number };
  try {
    recorded = JSON.parse(await Deno.readTextFile(portFile));
  } catch {
    return null;
  }
  if (recorded.pid === Deno.pid) return null;
  if (!processAlive(recorded.pid)) {
    await Deno.remove(portFile).catch(() => {});
    return null;
  }
  return recorded;
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (Deno.build.os === "linux") {
    try {
      Deno.statSync(`/proc/${pid}`);
      return true;
    } catch {
      return false;
    }
  }
  return true; // elsewhere we cannot tell cheaply: assume it runs and let the operator remove a stale file
}

export async function openDatabase(
  config: Config,
  opts: { shareEmbedded?: boolean; publishEmbedded?: boolean } = {},
): Promise<OpenDatabase> {
  if (config.databaseUrl) {
    const sql = createDb(config.databaseUrl);
    if (!(await ping(sql, 5000))) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw new StartupError(`cannot reach the database at ${describe(config.databaseUrl)}`);
    }
    return { sql, embedded: false, close: () => sql.end({ timeout: 5 }) };
  }
  const portFile = join(config.dataDir, PORT_FILE);
  const running = await runningServer(portFile);
  if (running) {
    if (opts.shareEmbedded) {
      const sql = createDb(running.url, { max: 1, connectTimeout: 5 });
      if (await ping(sql, 10_000)) return { sql, embedded: true, close: () => sql.end({ timeout: 5 }) };
      await sql.end({ timeout: 1 }).catch(() => {});
    }
    // Never open a data directory another process holds: two PGlite instances on one directory corrupt it.
    throw new StartupError(
      `the embedded database in ${config.dataDir} is in use by another Portico process (pid ${running.pid}); ` +
        `stop it, or delete ${portFile} if that process is gone`,
    );
  }
  let embedded;
  try {
    embedded = await startEmbedded(join(config.dataDir, "pgdata"));
  } catch (err) {
    throw new StartupError(
      `cannot open the embedded database in ${config.dataDir}: ${err instanceof Error ? err.message : err}`,
    );
  }
  const sql = createDb(embedded.url, { max: 1 });
  if (opts.publishEmbedded) {
    await Deno.writeTextFile(portFile, JSON.stringify({ url: embedded.url, pid: Deno.pid }));
  }
  return {
    sql,
    embedded: true,
    async close() {
      await sql.end({ timeout: 5 });
      if (opts.publishEmbedded) await Deno.remove(portFile).catch(() => {});
      await embedded.close();
    },
  };
}
