// A fresh, migrated database per test file: a new database on DATABASE_URL's server, or in-memory PGlite.
//
// Nothing a test makes on the server may outlive the run that made it, whatever ends the test:
// - `close()` drops the database (and may be called twice); `freshDatabase` drops it when migrating fails;
// - a database a test file left open (a test that failed before its `finally`, a file that ended with an uncaught
//   error) is closed after the file's last test: Deno.test.afterAll runs in both cases;
// - a process killed outright (SIGKILL, a CI timeout) cannot clean up: each database carries a comment naming its
//   creator (host, pid and that process's start time), and the first database a test file makes drops those whose
//   creator is gone for sure — same host, that pid no longer the same process — once they are STALE_AFTER_HOURS
//   old. Never a database of a suite still running, here or on another host (two suites may share one server);
// - .ci/run names its run (PORTICO_TEST_RUN, written into the comment) and reports what that run left behind.
//
// A fresh database on a server is a copy of a migrated template (`CREATE DATABASE … TEMPLATE`, about 0.3 s)
// instead of a new database migrated from scratch (about 2.7 s of the server's CPU, for each of some 140 databases
// a run makes). The template is named by a hash of every migration (`portico_tpl_<hash>`), built once by the
// first test file that needs it (under an advisory lock, so parallel files wait for one build), kept between runs
// as a cache, and closed to connections so copying it never fails for a session left on it. A template of other
// migrations is dropped once it is STALE_AFTER_HOURS old. tests/db/ migrates empty databases itself.
import postgres from "postgres";
import { createDb, type Sql } from "../../lib/db/client.ts";
import { startEmbedded } from "../../lib/db/embedded.ts";
import { checksum, migrate } from "../../lib/db/migrate.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { HANG_MS } from "./wait.ts";

export interface TestDb {
  sql: Sql;
  url: string;
  /** true on a real Postgres server (several connections), false on embedded PGlite (one) */
  server: boolean;
  /** closes the pool and drops the database; again is a no-op */
  close(): Promise<void>;
}

export const DATABASE_URL = Deno.env.get("DATABASE_URL") || undefined;

/** Every test database starts with this; .ci/run and the stale sweep look for it. */
export const TEST_DATABASE_PREFIX = "portico_t_";
/** A database whose creator is gone is dropped by a later run once it is this old. */
export const STALE_AFTER_HOURS = 3;
/**
 * Seconds a test pool waits for a new connection (up to Postgres's ReadyForQuery). Production's 5 s default is a
 * deadline a loaded host can miss — a backend forked while the CPU is shared with whole other suites — and no
 * test is about it; tests that are set their own.
 */
export const TEST_CONNECT_TIMEOUT_S = 60;
/**
 * A test client's statement_timeout (and so its silence watch): HANG_MS, not the server's 10 s default. A heavy
 * test query on a loaded host may take longer; only a hang should fail a test. Tests of the timeouts themselves
 * choose their own (tests/http/db_timeouts.test.ts, the embedded supervisor tests).
 */
export const TEST_STATEMENT_TIMEOUT_MS = HANG_MS;

/** What a test database's comment says about who made it. */
interface Creator {
  by: "portico tests";
  host: string;
  pid: number;
  /** the creating process's start time (/proc/<pid>/stat field 22): a reused pid is another process */
  started: string | null;
  at: string;
  run: string | null;
}

/** The start time of process `pid` in clock ticks since boot, or null where /proc cannot tell. */
function processStart(pid: number | "self"): string | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // the command name (field 2) is in parentheses and may contain spaces: count from its closing one
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "unknown";
  }
}

/** True only when the creator is certainly not running: same host, and its pid is gone or another process. */
function creatorGone(c: Creator): boolean {
  if (c.host !== hostname() || c.started === null || processStart("self") === null) return false;
  return processStart(c.pid) !== c.started;
}

const open = new Set<TestDb>();

// Whatever a file's tests left open is closed (and dropped) after its last test, failed or not.
Deno.test.afterAll(async () => {
  for (const db of [...open]) await db.close();
});

let swept: Promise<void> | undefined;

/** Drops the portico_t_ databases of runs that were killed (see the top of this file). Best effort. */
async function sweepStale(admin: postgres.Sql): Promise<void> {
  const rows = await admin<{ datname: string; note: string | null }[]>`
    select d.datname, shobj_description(d.oid, 'pg_database') as note
      from pg_database d
     where d.datname like ${TEST_DATABASE_PREFIX.replaceAll("_", "\\_") + "%"}`;
  for (const row of rows) {
    let creator: Creator | undefined;
    try {
      const parsed = JSON.parse(row.note ?? "");
      if (parsed?.by === "portico tests") creator = parsed;
    } catch {
      // no comment (made by an older helper) or someone else's: never dropped
    }
    if (!creator || !creatorGone(creator)) continue;
    if (Date.now() - Date.parse(creator.at) < STALE_AFTER_HOURS * 3600_000) continue;
    await admin.unsafe(`drop database if exists "${row.datname.replaceAll('"', '""')}" with (force)`)
      .catch(() => {}); // another file of this run, or another run, may be dropping it right now
  }
}

/** Every template starts with this (never TEST_DATABASE_PREFIX: a template is a cache, not a leak). */
export const TEMPLATE_PREFIX = "portico_tpl_";

/** The template for this checkout's migrations: their names and contents, and the code that applies them, hashed. */
export const TEMPLATE_NAME = TEMPLATE_PREFIX + checksum(
  [
    Deno.readTextFileSync(new URL("../../lib/db/migrate.ts", import.meta.url)),
    ...MIGRATIONS.map((m) => `${m.name}\n${checksum(m.sql)}`),
  ].join("\n"),
).slice(0, 16);

let templated: Promise<void> | undefined;

/**
 * Makes sure TEMPLATE_NAME exists, migrated and closed to connections (`allow_connections false` is also the mark
 * of a finished build: a build that died halfway is dropped and made again). One build at a time on a server.
 */
async function ensureTemplate(admin: postgres.Sql): Promise<void> {
  const ready = async () =>
    (await admin<{ ok: boolean }[]>`
      select not datallowconn as ok from pg_database where datname = ${TEMPLATE_NAME}`)[0]?.ok;
  if (await ready()) return;
  const lock = 7_301_000 + Number.parseInt(TEMPLATE_NAME.slice(TEMPLATE_PREFIX.length, 20), 16) % 1000;
  await admin`select pg_advisory_lock(${lock})`;
  try {
    const state = await ready();
    if (state) return;
    if (state === false) await admin.unsafe(`drop database if exists ${TEMPLATE_NAME} with (force)`);
    await admin.unsafe(`create database ${TEMPLATE_NAME}`); // a name made here from a hash, not input
    const u = new URL(DATABASE_URL!);
    u.pathname = `/${TEMPLATE_NAME}`;
    const sql = createDb(u.toString(), {
      max: 1,
      connectTimeout: TEST_CONNECT_TIMEOUT_S,
      statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
    });
    try {
      await migrate(sql);
    } finally {
      await sql.end({ timeout: 5 });
    }
    const note = JSON.stringify({ by: "portico tests template", at: new Date().toISOString() });
    await admin.unsafe(`comment on database ${TEMPLATE_NAME} is '${note.replaceAll("'", "''")}'`);
    await admin.unsafe(`alter database ${TEMPLATE_NAME} allow_connections false`);
    // Templates of other migrations, once nobody can still be copying them.
    const old = await admin<{ datname: string; note: string | null }[]>`
      select datname, shobj_description(oid, 'pg_database') as note from pg_database
       where datname like ${TEMPLATE_PREFIX.replaceAll("_", "\\_") + "%"} and datname <> ${TEMPLATE_NAME}`;
    for (const row of old) {
      let at = NaN;
      try {
        at = Date.parse(JSON.parse(row.note ?? "").at);
      } catch {
        continue;
      }
      if (!(Date.now() - at > STALE_AFTER_HOURS * 3600_000)) continue;
      await admin.unsafe(`drop database if exists "${row.datname.replaceAll('"', '""')}"`).catch(() => {});
    }
  } finally {
    await admin`select pg_advisory_unlock(${lock})`;
  }
}

/** Creates an empty database (not migrated). */
export function emptyDatabase(): Promise<TestDb> {
  return newDatabase(false);
}

/** A new database on the server (a copy of the migrated template when `migrated`), or an embedded one. */
async function newDatabase(migrated: boolean): Promise<TestDb> {
  if (DATABASE_URL) {
    const name = `${TEST_DATABASE_PREFIX}${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = postgres(DATABASE_URL, {
      max: 1,
      onnotice: () => {},
      connect_timeout: TEST_CONNECT_TIMEOUT_S,
    });
    swept ??= sweepStale(admin).catch(() => {});
    await swept;
    const u = new URL(DATABASE_URL);
    u.pathname = `/${name}`;
    const url = u.toString();
    const sql = createDb(url, {
      max: 10,
      connectTimeout: TEST_CONNECT_TIMEOUT_S,
      statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
    });
    let closing: Promise<void> | undefined;
    const db: TestDb = {
      sql,
      url,
      server: true,
      close() {
        open.delete(db);
        closing ??= (async () => {
          try {
            await sql.end({ timeout: 5 });
          } finally {
            await admin.unsafe(`drop database if exists ${name} with (force)`);
            await admin.end({ timeout: 5 });
          }
        })();
        return closing;
      },
    };
    open.add(db); // from here on, whatever happens, the database is dropped
    try {
      if (migrated) {
        templated ??= ensureTemplate(admin);
        await templated;
        await admin.unsafe(`create database ${name} template ${TEMPLATE_NAME}`); // names made here, not input
      } else {
        await admin.unsafe(`create database ${name}`); // name is generated here, not input
      }
      const creator: Creator = {
        by: "portico tests",
        host: hostname(),
        pid: Deno.pid,
        started: processStart("self"),
        at: new Date().toISOString(),
        run: Deno.env.get("PORTICO_TEST_RUN") || null,
      };
      await admin.unsafe(`comment on database ${name} is '${JSON.stringify(creator).replaceAll("'", "''")}'`);
    } catch (err) {
      await db.close().catch(() => {});
      throw err;
    }
    return db;
  }
  const embedded = await startEmbedded(undefined);
  const sql = createDb(embedded.url, {
    max: 1,
    connectTimeout: TEST_CONNECT_TIMEOUT_S,
    statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
  });
  let closing: Promise<void> | undefined;
  const db: TestDb = {
    sql,
    url: embedded.url,
    server: false,
    close() {
      open.delete(db);
      closing ??= (async () => {
        try {
          await sql.end({ timeout: 5 });
        } finally {
          await embedded.close();
        }
      })();
      return closing;
    },
  };
  open.add(db);
  return db;
}

/** A fresh database with every migration applied. */
export async function freshDatabase(): Promise<TestDb> {
  if (DATABASE_URL) return await newDatabase(true);
  const db = await newDatabase(false);
  try {
    await migrate(db.sql);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}

/**
 * A second client on `url` that notes the text of every statement it sends, in order, in `sent` (empty it with
 * `sent.length = 0`): for tests that count a request's round trips. One connection by default (PGlite serves one
 * at a time: the test's two clients take turns).
 */
export function countingSql(url: string, opts: { max?: number } = {}): { sql: Sql; sent: string[] } {
  const sent: string[] = [];
  const sql = postgres(url, {
    max: opts.max ?? 1,
    onnotice: () => {},
    debug: (_conn: number, query: string) => sent.push(query),
  });
  return { sql: sql as unknown as Sql, sent };
}

/**
 * A pool whose server is gone: a port that was free a moment ago and where nothing listens now, so every statement
 * fails as an unreachable database does (ECONNREFUSED, then a 503 at the app). End it with `sql.end()`.
 */
export function unreachableDb(): Sql {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close(); // nothing listens there now
  return createDb(`postgres://nobody@127.0.0.1:${port}/none`, { max: 1, connectTimeout: 1 });
}
