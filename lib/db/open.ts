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
  if (opts.shareEmbedded) {
    try {
      const { url } = JSON.parse(await Deno.readTextFile(portFile)) as { url: string };
      const sql = createDb(url, { max: 1, connectTimeout: 2 });
      if (await ping(sql, 2000)) return { sql, embedded: true, close: () => sql.end({ timeout: 5 }) };
      await sql.end({ timeout: 1 }).catch(() => {});
    } catch {
      // no running server: open the data directory ourselves
    }
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
