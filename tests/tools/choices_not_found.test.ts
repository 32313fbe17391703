// Errors that name an unknown id list the valid choices when they are few (issue 25 point 2): time categories
// (create_time_log categoryId) and the person's own calendars (update_booking_settings bookingCalendarId), each
// from the caller's own workspace and scope only; nothing is stored.
import assert from "node:assert/strict";
import { insertCalendar } from "../../lib/workspace/calendars.ts";
import { insertTimeCategory } from "../../lib/workspace/time_logs.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, mcpApp } from "../helpers/mcp.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
Deno.test.afterAll(() => db.close());
const A = mcpApp(db.sql, "A");
const MISSING = "00000000-0000-4000-8000-000000000000";

Deno.test("categoryId: not_found lists the workspace's active categories (never another workspace's)", async () => {
  const call = { date: "2026-11-20", startTime: "09:00", endTime: "10:00", categoryId: MISSING };
  assert.equal(
    await callFails(A, f.keys.owner, "create_time_log", call, "not_found"),
    `not_found: categoryId: no time category ${MISSING}; there are no active categories`,
  );
  const meet = (await insertTimeCategory(db.sql, f.workspaceId, { name: "Meetings", sortOrder: 1 })).id;
  const admin = (await insertTimeCategory(db.sql, f.workspaceId, { name: "Admin", sortOrder: 2 })).id;
  await insertTimeCategory(db.sql, f.workspaceId, { name: "Old", isActive: false });
  const foreign = (await insertTimeCategory(db.sql, f.other.workspaceId, { name: "Foreign" })).id;
  for (const id of [MISSING, foreign]) {
    assert.equal(
      await callFails(A, f.keys.owner, "create_time_log", { ...call, categoryId: id }, "not_found"),
      `not_found: categoryId: no time category ${id}; the active categories: ${meet} ("Meetings"), ${admin} ("Admin")`,
    );
  }
  for (let i = 0; i < 9; i++) {
    await insertTimeCategory(db.sql, f.workspaceId, { name: `C${i}`, sortOrder: 3 });
  }
  assert.equal(
    await callFails(A, f.keys.owner, "create_time_log", call, "not_found"),
    `not_found: categoryId: no time category ${MISSING}; list_time_categories lists the active categories`,
  );
  const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from time_logs`;
  assert.equal(n, 0);
});

Deno.test("bookingCalendarId: not_found lists the person's own calendars in the key's scope", async () => {
  const mine =
    (await insertCalendar(db.sql, { workspaceId: f.workspaceId, userId: f.users.manager, name: "Work" }))
      .id;
  const inB = (await insertCalendar(db.sql, {
    workspaceId: f.workspaceId,
    userId: f.users.manager,
    name: "B only",
    companyId: f.companies.b,
  })).id;
  const theirs =
    (await insertCalendar(db.sql, { workspaceId: f.workspaceId, userId: f.users.admin, name: "Admin" }))
      .id;
  assert.equal(
    await callFails(A, f.keys.manager, "update_booking_settings", { bookingCalendarId: theirs }, "not_found"),
    `not_found: bookingCalendarId: no calendar ${theirs} of this user; the calendars of this user: ${inB} ("B only"), ` +
      `${mine} ("Work")`,
  );
  const scoped = await f.key({ user: f.users.manager, companyId: f.companies.a });
  assert.equal(
    await callFails(A, scoped, "update_booking_settings", { bookingCalendarId: inB }, "not_found"),
    `not_found: bookingCalendarId: no calendar ${inB} of this user; there are no calendars of this user`,
  );
  const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from booking_settings`;
  assert.equal(n, 0);
});
