// A fresh, migrated database per test file: a new database on DATABASE_URL's server, or in-memory PGlite.
import postgres from "postgres";
import { createDb, type Sql } from "../../lib/db/client.ts";
import { startEmbedded } from "../../lib/db/embedded.ts";
import { migrate } from "../../lib/db/migrate.ts";

export interface TestDb {
  sql: Sql;
  url: string;
  /** true on a real Postgres server (several connections), false on embedded PGlite (one) */
  server: boolean;
  close(): Promise<void>;
}

export const DATABASE_URL = Deno.env.get("DATABASE_URL") || undefined;

/** Creates an empty database (not migrated). */
export async function emptyDatabase(): Promise<TestDb> {
  if (DATABASE_URL) {
    const name = `portico_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`); // name is generated here, not input
    const u = new URL(DATABASE_URL);
    u.pathname = `/${name}`;
    const url = u.toString();
    const sql = createDb(url, { max: 10 });
    return {
      sql,
      url,
      server: true,
      async close() {
        await sql.end({ timeout: 5 });
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end({ timeout: 5 });
      },
    };
  }
  const embedded = await startEmbedded(undefined);
  const sql = createDb(embedded.url, { max: 1 });
  return {
    sql,
    url: embedded.url,
    server: false,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded.close();
    },
  };
}

/** A fresh database with every migration applied. */
export async function freshDatabase(): Promise<TestDb> {
  const db = await emptyDatabase();
  await migrate(db.sql);
  return db;
}
