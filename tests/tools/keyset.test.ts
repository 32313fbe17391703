// Keyset paging of list_contacts, list_tasks and list_activities: a walk by nextCursor returns every match once,
// in the offset order, for every sort; rows inserted before the position do not shift later pages; bad, foreign
// and forged cursors are refused or stay inside the caller's workspace and companies.
import assert from "node:assert/strict";
import { freshDatabase, type TestDb } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, type Fixture, mcpApp, type RequestTarget } from "../helpers/mcp.ts";
import postgres from "postgres";
import { CONTACT_SORT_FIELDS, listContacts } from "../../lib/workspace/contacts.ts";
import { listTasks } from "../../lib/workspace/task_reads.ts";
import { listActivities } from "../../lib/workspace/activities.ts";
import { decodeCursor, encodeCursor } from "../../lib/workspace/page.ts";

type Args = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Answer = any;

/** Every page of a list by offset: the ids in order. */
async function walkByOffset(app: RequestTarget, key: string, tool: string, args: Args): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0, n = 0; n < 100; n++) {
    const page = await callOk(app, key, tool, { ...args, offset });
    ids.push(...page.items.map((r: { id: string }) => r.id));
    if (!page.hasMore) return ids;
    offset = page.nextOffset;
  }
  throw new Error("walk did not end");
}

/** Every page of a list by cursor: the ids in order, and each page's answer. */
async function walkByCursor(
  app: RequestTarget,
  key: string,
  tool: string,
  args: Args,
): Promise<{ ids: string[]; pages: Answer[] }> {
  const ids: string[] = [];
  const pages: Answer[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 100; n++) {
    const page = await callOk(app, key, tool, cursor === undefined ? args : { ...args, cursor });
    pages.push(page);
    ids.push(...page.items.map((r: { id: string }) => r.id));
    if (!page.hasMore) {
      assert.equal(page.nextCursor, null);
      return { ids, pages };
    }
    assert.equal(typeof page.nextCursor, "string");
    cursor = page.nextCursor;
  }
  throw new Error("walk did not end");
}

/** The fingerprint inside a cursor, to forge one for the same filters that points elsewhere. */
function fingerprintOf(cursor: string): string {
  const b64 = cursor.slice("k1.".length).replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.codePointAt(0)!)))[0];
}

/** 30 contacts with ties in every sort key: 5 instants, 4 names (one empty in 6), dates with gaps. */
async function seedContacts(db: TestDb, f: Fixture): Promise<string[]> {
  const rows = await db.sql<{ id: string }[]>`
    insert into contacts (workspace_id, company_id, contact_name, first_name, company_name, email, city, status,
                          next_follow_up, created_at, updated_at)
    select ${f.workspaceId}, case when g % 3 = 0 then ${f.companies.b}::uuid else ${f.companies.a}::uuid end,
           case when g % 6 = 0 then null else (array['Ann', 'ann', 'Bob', 'Zoe'])[g % 4 + 1] end,
           'First' || (g % 3), 'Co ' || (g % 2), 'p' || g || '@example.test',
           case when g % 5 = 0 then null else 'City ' || (g % 3) end,
           (array['new', 'won', 'lost'])[g % 3 + 1],
           case when g % 4 = 0 then null else date '2026-01-01' + (g % 3) end,
           timestamptz '2026-01-01 00:00:00.123456+00' + (g % 5) * interval '1 microsecond',
           timestamptz '2026-02-01' + (g % 2) * interval '1 second'
      from generate_series(1, 30) g
    returning id`;
  return rows.map((r) => r.id);
}

Deno.test("keyset: list_contacts by cursor returns every contact once, in offset order, for every sort", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const app = mcpApp(db.sql, "A");
    const all = await seedContacts(db, f);
    const sorts: (string | undefined)[] = [undefined, ...Object.keys(CONTACT_SORT_FIELDS), "first_name"];
    for (const sortField of sorts) {
      for (const sortDirection of ["asc", "desc"]) {
        const args = { sortField, sortDirection, limit: 7 };
        const byOffset = await walkByOffset(app, f.keys.owner, "list_contacts", args);
        const { ids, pages } = await walkByCursor(app, f.keys.owner, "list_contacts", args);
        const what = `${sortField} ${sortDirection}`;
        assert.deepEqual(ids, byOffset, what);
        assert.deepEqual([...ids].sort(), [...all].sort(), what);
        assert.deepEqual(pages.map((p) => p.items.length), [7, 7, 7, 7, 2], what);
        // The first page is the offset answer plus nextCursor; after a cursor the rows before it are not
        // counted: total null, totalAtLeast the matches from the cursor on, offset 0, nextOffset null.
        assert.deepEqual([pages[0].total, pages[0].offset, pages[0].nextOffset], [30, 0, 7], what);
        assert.deepEqual(
          pages.slice(1).map((p) => [p.total, p.totalAtLeast, p.offset, p.nextOffset, p.hasMore]),
          [[null, 23, 0, null, true], [null, 16, 0, null, true], [null, 9, 0, null, true], [
            null,
            2,
            0,
            null,
            false,
          ]],
          what,
        );
      }
    }
    // A search (whose sort key is written so that it skips the ORDER BY index) and a filter page alike.
    for (
      const args of [{ search: "example", sortField: "nextFollowUp", limit: 4 }, { status: "won", limit: 3 }]
    ) {
      const byOffset = await walkByOffset(app, f.keys.owner, "list_contacts", args);
      const { ids } = await walkByCursor(app, f.keys.owner, "list_contacts", args);
      assert.deepEqual(ids, byOffset);
      assert.equal(ids.length, "search" in args ? 30 : 10);
    }
    // full: true pages the same rows, with every field and no trace of the cursor key.
    const full = await walkByCursor(app, f.keys.owner, "list_contacts", { full: true, limit: 11 });
    assert.deepEqual(full.ids, await walkByOffset(app, f.keys.owner, "list_contacts", { limit: 11 }));
    assert.equal("cursorKey" in full.pages[1].items[0], false);
    assert.equal(full.pages[1].items[0].createdAt.startsWith("2026-01-01T00:00:00"), true);
  } finally {
    await db.close();
  }
});

Deno.test("keyset: a contact inserted before the cursor does not shift the next page (an offset would)", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const app = mcpApp(db.sql, "A");
    await seedContacts(db, f);
    const first = await callOk(app, f.keys.owner, "list_contacts", { limit: 10 });
    const secondBefore = await callOk(app, f.keys.owner, "list_contacts", { limit: 10, offset: 10 });
    // newest first: a new contact lands on page one, before the cursor's position
    await db.sql`insert into contacts (workspace_id, contact_name) values (${f.workspaceId}, 'Newcomer')`;
    const byCursor = await callOk(app, f.keys.owner, "list_contacts", {
      limit: 10,
      cursor: first.nextCursor,
    });
    const byOffset = await callOk(app, f.keys.owner, "list_contacts", { limit: 10, offset: 10 });
    assert.deepEqual(byCursor.items, secondBefore.items);
    assert.deepEqual(byOffset.items.slice(1), secondBefore.items.slice(0, 9)); // shifted by one: the reason
    assert.equal(byOffset.items[0].id, first.items[9].id);
  } finally {
    await db.close();
  }
});

Deno.test("keyset: malformed, foreign, too long and offset-combined cursors are invalid_input: cursor", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const app = mcpApp(db.sql, "A");
    await seedContacts(db, f);
    const k = f.keys.owner;
    const page = await callOk(app, k, "list_contacts", { limit: 5 });
    const cursor: string = page.nextCursor;
    const fails = (args: Args, tool = "list_contacts") => callFails(app, k, tool, args, "invalid_input");

    assert.equal(
      await fails({ cursor, offset: 5 }),
      "invalid_input: cursor: cannot be combined with a non-zero offset",
    );
    const malformed =
      "invalid_input: cursor: not a cursor of this list; pass nextCursor unchanged, or page " +
      "without cursor";
    assert.equal(await fails({ cursor: "abc" }), malformed);
    assert.equal(await fails({ cursor: "" }), malformed);
    assert.equal(await fails({ cursor: "k1.!!" }), malformed);
    assert.equal(await fails({ cursor: "k1." + btoa("not json") }), malformed);
    assert.equal(await fails({ cursor: cursor.slice(0, -4) }), malformed);
    const fp = fingerprintOf(cursor);
    // right fingerprint, a key that is not an instant / an id that is not a UUID / an empty key of a NOT NULL sort
    assert.equal(
      await fails({ cursor: encodeCursor(fp, { key: "2026-01-01", id: crypto.randomUUID() }) }),
      malformed,
    );
    assert.equal(
      await fails({ cursor: encodeCursor(fp, { key: "1", id: "1; drop table contacts" }) }),
      malformed,
    );
    assert.equal(
      await fails({ cursor: encodeCursor(fp, { key: null, id: crypto.randomUUID() }) }),
      malformed,
    );
    assert.equal(
      await fails({ cursor: encodeCursor(fp, { key: "9".repeat(18), id: crypto.randomUUID() }) }),
      malformed,
    );
    assert.equal(
      await fails({ cursor: "k1." + "A".repeat(5000) }),
      "invalid_input: cursor: too long (at most 4096 characters)",
    );
    // A text key of any script survives the round trip (UTF-8 in base64url).
    const id = crypto.randomUUID();
    const text = encodeCursor("fp", { key: 'zoë 日本 "x"', id });
    assert.match(text, /^k1\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor(text, { limit: 1 }, "fp", "text", true), { key: 'zoë 日本 "x"', id });
    // Another sort, direction or filter: refused, not silently skipping rows.
    const other =
      "invalid_input: cursor: made for other filters or another sort; repeat the filters and sort " +
      "of the call that returned it";
    assert.equal(await fails({ cursor, sortDirection: "asc" }), other);
    assert.equal(await fails({ cursor, sortField: "email" }), other);
    assert.equal(await fails({ cursor, status: "won" }), other);
    assert.equal(await fails({ cursor, search: "p1" }), other);
    // The same sort by its column name and a different limit or row shape are the same walk.
    const same = await callOk(app, k, "list_contacts", {
      cursor,
      sortField: "created_at",
      limit: 3,
      full: true,
    });
    assert.equal(same.items.length, 3);
    // Another list's cursor.
    await db
      .sql`insert into tasks (workspace_id, title) select ${f.workspaceId}, 'T' || g from generate_series(1, 3) g`;
    const tasks = await callOk(app, k, "list_tasks", { limit: 1 });
    assert.equal(await fails({ cursor: tasks.nextCursor }), other);
    assert.equal(await fails({ cursor }, "list_tasks"), other);
    assert.equal(await fails({ cursor }, "list_activities"), other);
  } finally {
    await db.close();
  }
});

Deno.test("keyset: a forged cursor stays inside the caller's company scope and workspace", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const app = mcpApp(db.sql, "A");
    await seedContacts(db, f);
    const [{ id: foreign }] = await db.sql<{ id: string }[]>`
      insert into contacts (workspace_id, contact_name, created_at)
      values (${f.other.workspaceId}, 'Foreign', '2030-01-01') returning id`;
    const inB = new Set(
      (await db.sql<{ id: string }[]>`select id from contacts where company_id = ${f.companies.b}`).map((r) =>
        r.id
      ),
    );
    const k = f.keys.ownerCompanyA;
    const scoped = await walkByOffset(app, k, "list_contacts", { limit: 6 });
    assert.equal(scoped.length, 20); // company a only
    assert.deepEqual((await walkByCursor(app, k, "list_contacts", { limit: 6 })).ids, scoped);

    // A cursor with this key's fingerprint pointing before everything (a company-b row's key, a far future
    // instant, the other workspace's row): the page is still only company a's rows of this workspace.
    const fp = fingerprintOf((await callOk(app, k, "list_contacts", { limit: 6 })).nextCursor);
    const [bRow] = await db.sql<{ id: string; key: string }[]>`
      select id, (extract(epoch from created_at) * 1000000)::bigint::text as key from contacts
       where company_id = ${f.companies.b} order by created_at desc, id desc limit 1`;
    const future = String(Date.parse("2031-01-01") * 1000);
    for (
      const at of [bRow, { key: future, id: foreign }, {
        key: future,
        id: "ffffffff-ffff-ffff-ffff-ffffffffffff",
      }]
    ) {
      const page = await callOk(app, k, "list_contacts", { limit: 100, cursor: encodeCursor(fp, at) });
      for (const c of page.items) assert.equal(inB.has(c.id) || c.id === foreign, false);
      if (at !== bRow) assert.deepEqual(page.items.map((c: { id: string }) => c.id), scoped);
    }
    // The other workspace's own cursor used here: the same filters, so a valid position — over this workspace's
    // rows only.
    await db.sql`
      insert into contacts (workspace_id, contact_name)
      select ${f.other.workspaceId}, 'Other ' || g from generate_series(1, 3) g`;
    const theirs = await callOk(app, f.other.key, "list_contacts", { limit: 1 });
    const page = await callOk(app, f.keys.owner, "list_contacts", { limit: 100, cursor: theirs.nextCursor });
    const ours = new Set(
      (await db.sql<{ id: string }[]>`select id from contacts where workspace_id = ${f.workspaceId}`).map((
        r,
      ) => r.id),
    );
    assert.equal(page.items.length, 30);
    for (const c of page.items) assert.equal(ours.has(c.id), true);
  } finally {
    await db.close();
  }
});

Deno.test("keyset: list_tasks (variants A and B) and list_activities walk by cursor like by offset", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const appA = mcpApp(db.sql, "A");
    const appB = mcpApp(db.sql, "B");
    // ties: 4 instants over 23 top-level tasks (ORDER BY created_at desc, id asc), subtasks not listed
    await db.sql`
      insert into tasks (workspace_id, company_id, title, created_at)
      select ${f.workspaceId}, case when g % 2 = 0 then ${f.companies.b}::uuid else ${f.companies.a}::uuid end,
             'Task ' || g, timestamptz '2026-03-01 10:00:00.5+00' + (g % 4) * interval '1 microsecond'
        from generate_series(1, 23) g`;
    await db.sql`
      insert into tasks (workspace_id, title, parent_id)
      select ${f.workspaceId}, 'Sub', id from tasks where workspace_id = ${f.workspaceId} limit 3`;
    for (
      const [app, args] of [[appA, { limit: 5 }], [appA, { limit: 4, query: "task" }], [appB, {
        limit: 6,
      }]] as const
    ) {
      const byOffset = await walkByOffset(app, f.keys.owner, "list_tasks", args);
      const { ids } = await walkByCursor(app, f.keys.owner, "list_tasks", args);
      assert.equal(ids.length, 23);
      assert.deepEqual(ids, byOffset);
    }
    const scoped = await walkByCursor(appA, f.keys.ownerCompanyA, "list_tasks", { limit: 5 });
    assert.equal(scoped.ids.length, 12);
    assert.deepEqual(scoped.ids, await walkByOffset(appA, f.keys.ownerCompanyA, "list_tasks", { limit: 5 }));
    assert.equal(
      await callFails(appA, f.keys.owner, "list_tasks", {
        limit: 5,
        query: "x",
        cursor: scoped.pages[0].nextCursor,
      }, "invalid_input"),
      "invalid_input: cursor: made for other filters or another sort; repeat the filters and sort of the call " +
        "that returned it",
    );

    // activities: ties in activity_date, about contacts of both companies
    const contacts = await seedContacts(db, f);
    await db.sql`
      insert into activities (workspace_id, company_id, contact_id, title, activity_date)
      select c.workspace_id, c.company_id, c.id, 'Call ' || g,
             timestamptz '2026-04-01' + (g % 3) * interval '1 microsecond'
        from generate_series(1, 3) g cross join contacts c where c.id = any(${contacts}::uuid[])`;
    for (
      const [key, args, n] of [
        [f.keys.owner, { limit: 8 }, 90],
        [f.keys.owner, { limit: 2, contactId: contacts[0] }, 3],
        [f.keys.owner, { limit: 9, search: "call" }, 90],
        [f.keys.ownerCompanyA, { limit: 8, full: true }, 60],
      ] as const
    ) {
      const byOffset = await walkByOffset(appA, key, "list_activities", args);
      const { ids } = await walkByCursor(appA, key, "list_activities", args);
      assert.equal(ids.length, n);
      assert.deepEqual(ids, byOffset);
    }
  } finally {
    await db.close();
  }
});

Deno.test({
  name:
    "keyset: a deep cursor page is an Index Scan of the list's ORDER BY index reading ~limit rows (Postgres)",
  ignore: !Deno.env.get("DATABASE_URL"),
  async fn() {
    const db = await freshDatabase();
    const seen: { query: string; params: unknown[] }[] = [];
    // One connection with sequential scans off, recording the queries the list functions send.
    const probe = postgres(db.url, {
      max: 1,
      onnotice: () => {},
      connection: { enable_seqscan: "off" },
      debug: (_conn, query, params) => seen.push({ query, params: [...params] }),
    });
    try {
      const f = await buildFixture(db.sql);
      const n = 5000;
      await db.sql`
        insert into contacts (workspace_id, contact_name, created_at)
        select ${f.workspaceId}, 'P' || i, now() - make_interval(secs => i) from generate_series(1, ${n}) i`;
      await db.sql`
        insert into tasks (workspace_id, title, created_at)
        select ${f.workspaceId}, 'T' || i, now() - make_interval(secs => i) from generate_series(1, ${n}) i`;
      await db.sql`
        insert into activities (workspace_id, contact_id, title, activity_date)
        select ${f.workspaceId}, (select id from contacts where workspace_id = ${f.workspaceId} limit 1), 'A' || i,
               now() - make_interval(secs => i)
          from generate_series(1, ${n}) i`;
      for (const t of ["contacts", "tasks", "activities"]) await db.sql`analyze ${db.sql(t)}`;
      const caller = { workspaceId: f.workspaceId, userId: f.users.owner };
      const deep = 4000;
      const lists: [string, (o: { limit: number; offset?: number; cursor?: string }) => Promise<Answer>][] = [
        ["contacts_list_order", (o) => listContacts(probe, caller, o)],
        ["tasks_list_order", (o) => listTasks(probe, caller, o, { variantA: true })],
        ["activities_list_order", (o) => listActivities(probe, caller, o)],
      ];
      for (const [index, list] of lists) {
        const before = await list({ limit: 1, offset: deep - 1 });
        seen.length = 0;
        const page = await list({ limit: 20, cursor: before.nextCursor });
        const offsetPage = await list({ limit: 20, offset: deep });
        assert.deepEqual(page.items, offsetPage.items);
        const q = seen.find((s) => s.query.includes('as "cursorKey"'))!;
        const plan = (await probe.unsafe(
          `explain (analyze, costs off, timing off, summary off) ${q.query}`,
          q.params as postgres.ParameterOrJSON<never>[],
        )).map((r) => r["QUERY PLAN"] as string).join("\n");
        const scan = plan.match(
          new RegExp(`Index Scan using ${index} on \\w+(?: \\w+)? \\(actual rows=(\\d+)`),
        );
        assert.ok(scan, plan);
        assert.equal(Number(scan[1]), 20, plan); // the page's rows, not deep + 20
        assert.doesNotMatch(plan, /Sort/, plan);
        assert.match(plan, /Index Cond: .*created_at|Index Cond: .*activity_date/, plan);
      }
    } finally {
      await probe.end({ timeout: 5 });
      await db.close();
    }
  },
});
