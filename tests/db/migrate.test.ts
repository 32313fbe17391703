import assert from "node:assert/strict";
import { createDb } from "../../lib/db/client.ts";
import { checksum, migrate, MigrationError } from "../../lib/db/migrate.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { DATABASE_URL, emptyDatabase, TEST_CONNECT_TIMEOUT_S } from "../helpers/db.ts";

const A = { name: "00001_a.sql", sql: "create table a (id int primary key);" };
const B = { name: "00002_b.sql", sql: "create table b (id int primary key); insert into b values (1);" };

Deno.test("migrate: every file in migrations/ is registered, in order", async () => {
  const files: string[] = [];
  for await (const e of Deno.readDir(new URL("../../migrations/", import.meta.url))) {
    if (e.name.endsWith(".sql")) files.push(e.name);
  }
  assert.deepEqual(MIGRATIONS.map((m) => m.name), files.sort());
});

Deno.test("migrate: the real migrations apply to an empty database, then re-run as a no-op", async () => {
  const db = await emptyDatabase();
  try {
    assert.deepEqual(await migrate(db.sql), MIGRATIONS.map((m) => m.name));
    assert.deepEqual(await migrate(db.sql), []);
    const rows = await db.sql<{ name: string; checksum: string }[]>`
      select name, checksum from schema_migrations order by name`;
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      MIGRATIONS.map((m) => ({ name: m.name, checksum: checksum(m.sql) })),
    );
    const [t] = await db.sql`select to_regclass('public.api_keys') is not null as ok`;
    assert.equal(t.ok, true);
  } finally {
    await db.close();
  }
});

Deno.test("migrate: applies only the new file; refuses edited, missing and reordered files", async () => {
  const db = await emptyDatabase();
  try {
    assert.deepEqual(await migrate(db.sql, [A]), ["00001_a.sql"]);
    assert.deepEqual(await migrate(db.sql, [A, B]), ["00002_b.sql"]);
    await assert.rejects(
      migrate(db.sql, [{ ...A, sql: A.sql + " -- edited" }, B]),
      new MigrationError("migration 00001_a.sql was edited after it was applied (checksum differs)"),
    );
    await assert.rejects(
      migrate(db.sql, [B]),
      new MigrationError("migration 00001_a.sql was applied but is missing from migrations/"),
    );
    await assert.rejects(
      migrate(db.sql, [{ ...B, name: "00000_b.sql" }, A]),
      MigrationError,
    );
    // nothing was half-applied by the refused runs
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
    assert.equal(n.n, 2);
  } finally {
    await db.close();
  }
});

Deno.test("migrate: a failing migration rolls back completely", async () => {
  const db = await emptyDatabase();
  try {
    const broken = { name: "00002_broken.sql", sql: "create table c (id int); select no_such_function();" };
    await assert.rejects(migrate(db.sql, [A, broken]));
    const [t] = await db.sql`select to_regclass('public.a') is null as gone`;
    assert.equal(t.gone, true);
  } finally {
    await db.close();
  }
});

Deno.test("migrate: refuses a badly named or out-of-order list", async () => {
  const db = await emptyDatabase();
  try {
    await assert.rejects(
      migrate(db.sql, [{ name: "init.sql", sql: "" }]),
      new MigrationError("migration init.sql: name must look like 00001_name.sql"),
    );
    await assert.rejects(
      migrate(db.sql, [B, A]),
      new MigrationError("migration 00001_a.sql: out of order after 00002_b.sql"),
    );
  } finally {
    await db.close();
  }
});

// Embedded PGlite runs a single backend, so two lock-waiting sessions cannot exist there: Postgres only.
Deno.test({
  name: "migrate: two runners started together apply each migration once (Postgres only)",
  ignore: !DATABASE_URL,
}, async () => {
  const db = await emptyDatabase();
  // two separate pools, as two instances starting at the same moment would have
  const one = createDb(db.url, { max: 1, connectTimeout: TEST_CONNECT_TIMEOUT_S });
  const two = createDb(db.url, { max: 1, connectTimeout: TEST_CONNECT_TIMEOUT_S });
  try {
    const slow = { name: "00003_slow.sql", sql: "select pg_sleep(0.3); create table slow (id int);" };
    const [r1, r2] = await Promise.all([migrate(one, [A, B, slow]), migrate(two, [A, B, slow])]);
    assert.deepEqual([...r1, ...r2].sort(), ["00001_a.sql", "00002_b.sql", "00003_slow.sql"]);
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from b`;
    assert.equal(n.n, 1);
  } finally {
    await one.end();
    await two.end();
    await db.close();
  }
});
