// Migration 00019: pg_trgm loads (Postgres and embedded PGlite), the search and ORDER BY indexes exist, and the
// contacts search Portico really sends can use the trigram index (Postgres only: its planner and statistics).
import assert from "node:assert/strict";
import postgres from "postgres";
import { listContacts } from "../../lib/workspace/contacts.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture } from "../helpers/mcp.ts";

class Rollback extends Error {}

const INDEXES = [
  ["activities", "activities_list_order", "btree (workspace_id, activity_date DESC, id DESC)"],
  [
    "activities",
    "activities_search_trgm",
    "gin (title gin_trgm_ops, description gin_trgm_ops, outcome gin_trgm_ops",
  ],
  ["ai_activities", "ai_activities_list_order", "btree (workspace_id, created_at DESC, id DESC)"],
  [
    "ai_activities",
    "ai_activities_search_trgm",
    "gin (title gin_trgm_ops, description gin_trgm_ops, agent_name",
  ],
  ["contacts", "contacts_list_order", "btree (workspace_id, created_at DESC NULLS LAST, id DESC)"],
  [
    "contacts",
    "contacts_search_trgm",
    "gin (company_name gin_trgm_ops, contact_name gin_trgm_ops, first_name",
  ],
  ["tasks", "tasks_list_order", "btree (workspace_id, created_at DESC, id) WHERE (parent_id IS NULL)"],
  ["tasks", "tasks_search_trgm", "gin (title gin_trgm_ops, description gin_trgm_ops)"],
  ["workspace_documents", "workspace_documents_list_order", "btree (workspace_id, created_at DESC, id DESC)"],
  [
    "workspace_documents",
    "workspace_documents_search_trgm",
    "gin (title gin_trgm_ops, description gin_trgm_ops",
  ],
];

Deno.test("search indexes: no trigram index keeps a pending list that every search would read (00023)", async () => {
  const db = await freshDatabase();
  try {
    const rows = await db.sql<{ name: string; options: string[] | null }[]>`
      select c.relname as name, c.reloptions as options
        from pg_class c join pg_index i on i.indexrelid = c.oid join pg_am am on am.oid = c.relam
       where am.amname = 'gin' and c.relname like '%\_search\_trgm' order by c.relname`;
    const gin = INDEXES.filter(([, name]) => name.endsWith("_search_trgm")).map(([, name]) => name).sort();
    assert.deepEqual(rows.map((r) => [r.name, r.options]), gin.map((name) => [name, ["fastupdate=off"]]));
  } finally {
    await db.close();
  }
});

Deno.test("search indexes: pg_trgm is installed and migration 00019 created every index", async () => {
  const db = await freshDatabase();
  try {
    const [ext] = await db.sql`select extname from pg_extension where extname = 'pg_trgm'`;
    assert.equal(ext?.extname, "pg_trgm");
    const rows = await db.sql<{ tablename: string; indexname: string; indexdef: string }[]>`
      select tablename, indexname, indexdef from pg_indexes
       where indexname like '%\_search\_trgm' or indexname like '%\_list\_order' order by indexname`;
    assert.deepEqual(rows.map((r) => [r.tablename, r.indexname]), INDEXES.map(([t, i]) => [t, i]));
    for (const [, name, def] of INDEXES) {
      const got = rows.find((r) => r.indexname === name)!.indexdef;
      assert.ok(got.includes(def), `${name}: ${got}`);
    }
    // the indexes they extend are gone (their columns lead the new ones)
    const old = await db.sql`
      select indexname from pg_indexes
       where indexname in ('activities_workspace', 'ai_activities_workspace', 'workspace_documents_workspace')`;
    assert.equal(old.length, 0);
  } finally {
    await db.close();
  }
});

Deno.test("search indexes: list_contacts search matches the full name with the indexed expression", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    await db.sql`
      insert into contacts (workspace_id, first_name, last_name, contact_name, created_at) values
        (${f.workspaceId}, 'Ada', 'Lovelace', null, now() - interval '3 s'),
        (${f.workspaceId}, 'Grace', null, null, now() - interval '2 s'),
        (${f.workspaceId}, null, 'Hopper', 'GH', now() - interval '1 s')`;
    const caller = { workspaceId: f.workspaceId, userId: f.users.owner };
    const names = async (search: string) =>
      (await listContacts(db.sql, caller, { search, limit: 10, full: true })).items.map((
        c,
      ) => [c.firstName, c.lastName]);
    assert.deepEqual(await names("ada love"), [["Ada", "Lovelace"]]);
    assert.deepEqual(await names("grace"), [["Grace", null]]);
    assert.deepEqual(await names("hopper"), [[null, "Hopper"]]);
    // concat_ws skips a missing part: no stray space before or after a lone name
    assert.deepEqual(await names(" hopper"), []);
    assert.deepEqual(await names("grace "), []);
  } finally {
    await db.close();
  }
});

Deno.test({
  name: "search indexes: the contacts search query uses contacts_search_trgm (Postgres only)",
  ignore: !Deno.env.get("DATABASE_URL"),
  async fn() {
    const db = await freshDatabase();
    const seen: { query: string; params: unknown[] }[] = [];
    // One connection with sequential scans off, recording what listContacts sends.
    const probe = postgres(db.url, {
      max: 1,
      onnotice: () => {},
      connection: { enable_seqscan: "off" },
      debug: (_conn, query, params) => seen.push({ query, params: [...params] }),
    });
    try {
      const f = await buildFixture(db.sql);
      await db.sql`
        insert into contacts (workspace_id, company_name, contact_name, first_name, last_name, email)
        select ${f.workspaceId}, 'Company ' || i, 'Person ' || i, 'First' || i, 'Last' || i,
               'p' || i || '@example.test'
          from generate_series(1, 3000) i`;
      await db.sql`analyze contacts`;
      const caller = { workspaceId: f.workspaceId, userId: f.users.owner };
      const page = await listContacts(probe, caller, { search: "first2999 last", limit: 20, full: true });
      assert.deepEqual(page.items.map((c) => c.contactName), ["Person 2999"]);
      assert.equal(page.total, 1);
      const items = seen.find((s) => s.query.includes("ilike") && s.query.includes("order by"));
      assert.ok(items, "the page query was recorded");
      // At a few thousand rows the planner prefers an index on workspace_id; without those (dropped in a
      // transaction rolled back below) and without sequential scans, the trigram index must serve the search,
      // which it can only if the query's expressions are the indexed ones.
      let plan = "";
      await probe.begin(async (tx) => {
        await tx`drop index contacts_workspace, contacts_list_order`;
        await tx`alter table contacts drop constraint contacts_workspace_id_id_key cascade`;
        plan = (await tx.unsafe(`explain ${items.query}`, items.params as postgres.ParameterOrJSON<never>[]))
          .map((r) => r["QUERY PLAN"] as string).join("\n");
        throw new Rollback();
      }).catch((err) => {
        if (!(err instanceof Rollback)) throw err;
      });
      assert.match(plan, /Bitmap Index Scan on contacts_search_trgm/, plan);
      assert.doesNotMatch(plan, /Seq Scan/, plan);
    } finally {
      await probe.end({ timeout: 5 });
      await db.close();
    }
  },
});
