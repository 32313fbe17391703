// Totals that stay cheap: a list counts its matches exactly up to TOTAL_COUNT_WINDOW past the page, and beyond
// that says `total: null` with `totalAtLeast` — while hasMore and nextOffset stay exact.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callOk, mcpApp } from "../helpers/mcp.ts";
import { TOTAL_COUNT_WINDOW } from "../../lib/workspace/page.ts";

Deno.test("list totals: exact below the window, totalAtLeast above it; paging stays exact (contacts, tasks)", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const app = mcpApp(db.sql, "A");
    const n = 50 + TOTAL_COUNT_WINDOW + 25; // more than the first page's window
    await db.sql`
      insert into contacts (workspace_id, first_name, last_name, created_by)
      select ${f.workspaceId}, 'First' || g, 'Last' || g, ${f.users.owner} from generate_series(1, ${n}) g`;

    const first = await callOk(app, f.keys.owner, "list_contacts", { limit: 50 });
    assert.equal(first.items.length, 50);
    assert.equal(first.total, null);
    assert.equal(first.totalAtLeast, 50 + TOTAL_COUNT_WINDOW);
    assert.deepEqual([first.hasMore, first.nextOffset], [true, 50]);

    // Near the end the window covers every remaining match: the total is exact again.
    const last = await callOk(app, f.keys.owner, "list_contacts", { limit: 50, offset: n - 30 });
    assert.equal(last.items.length, 30);
    assert.equal(last.total, n);
    assert.equal("totalAtLeast" in last, false);
    assert.deepEqual([last.hasMore, last.nextOffset], [false, null]);

    // A search matching few is counted exactly.
    const some = await callOk(app, f.keys.owner, "list_contacts", { search: "First100", limit: 50 });
    assert.equal(some.total, 11); // First100, First1000 … First1009 … (first names 100 and 1000–1009)
    assert.equal(some.hasMore, false);

    // Tasks: the same rule, and the page no longer computes every match's columns for the count.
    const tasksBefore = await callOk(app, f.keys.owner, "list_tasks", { limit: 10 });
    const before = tasksBefore.total as number;
    await db.sql`
      insert into tasks (workspace_id, title, created_by)
      select ${f.workspaceId}, 'Bulk ' || g, ${f.users.owner} from generate_series(1, ${
      TOTAL_COUNT_WINDOW + 20
    }) g`;
    const tasks = await callOk(app, f.keys.owner, "list_tasks", { limit: 10 });
    assert.equal(tasks.items.length, 10);
    assert.equal(tasks.total, null);
    assert.equal(tasks.totalAtLeast, 10 + TOTAL_COUNT_WINDOW);
    assert.deepEqual([tasks.hasMore, tasks.nextOffset], [true, 10]);
    const end = await callOk(app, f.keys.owner, "list_tasks", {
      limit: 10,
      offset: before + TOTAL_COUNT_WINDOW + 15,
    });
    assert.equal(end.total, before + TOTAL_COUNT_WINDOW + 20);
    assert.equal(end.hasMore, false);
  } finally {
    await db.close();
  }
});
