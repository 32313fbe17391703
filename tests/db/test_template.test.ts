// The test databases' template (tests/helpers/db.ts): a fresh database on a server is a copy of one migrated
// template named by the migrations' hash, closed to connections, and holds every migration.
import assert from "node:assert/strict";
import postgres from "postgres";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { DATABASE_URL, freshDatabase, TEMPLATE_NAME, TEMPLATE_PREFIX } from "../helpers/db.ts";

Deno.test({
  name: "test databases: a copy of the migrated template, which refuses connections",
  ignore: !DATABASE_URL,
  async fn() {
    const db = await freshDatabase();
    const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      assert.match(TEMPLATE_NAME, new RegExp(`^${TEMPLATE_PREFIX}[0-9a-f]{16}$`));
      const [template] = await admin<{ datallowconn: boolean }[]>`
        select datallowconn from pg_database where datname = ${TEMPLATE_NAME}`;
      assert.deepEqual(template, { datallowconn: false }, "the template exists, finished and closed");
      const applied = await db.sql<{ name: string }[]>`select name from schema_migrations order by name`;
      assert.deepEqual(applied.map((r) => r.name), MIGRATIONS.map((m) => m.name));
      // Two fresh databases are separate copies: a row in one is not in the other.
      const other = await freshDatabase();
      try {
        await db.sql`insert into workspaces (name) values ('only here')`;
        const [{ n }] = await other.sql<{ n: number }[]>`select count(*)::int as n from workspaces`;
        assert.equal(n, 0);
      } finally {
        await other.close();
      }
    } finally {
      await admin.end();
      await db.close();
    }
  },
});
