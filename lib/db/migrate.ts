// Applies migrations/ in order, once, under an advisory lock, refusing edited, missing or reordered files.
import { createHash } from "node:crypto";
import type { Sql } from "./client.ts";
import { withTx } from "./tx.ts";
import { type Migration, MIGRATIONS } from "../../migrations/mod.ts";

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** Arbitrary constant shared by every Portico instance: the advisory lock that serialises migration runs. */
const LOCK_ID = 727_001;
const NAME = /^(\d{5})_[a-z0-9_]+\.sql$/;

export function checksum(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function validateList(list: readonly Migration[]): void {
  let previous = "";
  for (const m of list) {
    if (!NAME.test(m.name)) {
      throw new MigrationError(`migration ${m.name}: name must look like 00001_name.sql`);
    }
    if (m.name <= previous) throw new MigrationError(`migration ${m.name}: out of order after ${previous}`);
    previous = m.name;
  }
}

/** Runs pending migrations in one transaction; returns the names applied now. */
export async function migrate(sql: Sql, list: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  validateList(list);
  // One transaction for all pending migrations, never run again on a deadlock: a migration is not assumed safe
  // to repeat, and a failed start-up says so rather than trying twice.
  return await withTx(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`
      create table if not exists schema_migrations (
        name text primary key,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`;
    const done = await tx<{ name: string; checksum: string }[]>`
      select name, checksum from schema_migrations order by name`;
    for (let i = 0; i < done.length; i++) {
      const row = done[i];
      const file = list[i];
      if (!file || file.name !== row.name) {
        const known = list.some((m) => m.name === row.name);
        throw new MigrationError(
          known
            ? `migration ${row.name} was applied but is now out of order`
            : `migration ${row.name} was applied but is missing from migrations/`,
        );
      }
      if (checksum(file.sql) !== row.checksum) {
        throw new MigrationError(`migration ${row.name} was edited after it was applied (checksum differs)`);
      }
    }
    const applied: string[] = [];
    for (const m of list.slice(done.length)) {
      await tx.unsafe(m.sql); // trusted file content, never input
      await tx`insert into schema_migrations (name, checksum) values (${m.name}, ${checksum(m.sql)})`;
      applied.push(m.name);
    }
    return applied;
  }, { retries: 0 });
}
