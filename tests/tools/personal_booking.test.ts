// Booking-settings tools through /mcp: defaults, creation with a unique slug, weeklyHours validation, bounds, the
// calendar and company rules, scope, isolation, and variant/role gating.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, listedTools, mcpApp, rpc } from "../helpers/mcp.ts";
import { insertCalendar } from "../../lib/workspace/calendars.ts";
import { BOOKING_BOUNDS } from "../../lib/workspace/booking.ts";
import { MODULES } from "../../lib/workspace/modules.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const MISSING = "00000000-0000-4000-8000-000000000000";

Deno.test.afterAll(() => db.close());

const ws = f.workspaceId;
const ownerCal =
  (await insertCalendar(db.sql, { workspaceId: ws, userId: f.users.owner, name: "Bookings" })).id;
const ownerCalA = (await insertCalendar(db.sql, {
  workspaceId: ws,
  userId: f.users.owner,
  name: "A bookings",
  companyId: f.companies.a,
})).id;
const adminCal =
  (await insertCalendar(db.sql, { workspaceId: ws, userId: f.users.admin, name: "Admin's" })).id;
const EMPTY_WEEK = { "1": [], "2": [], "3": [], "4": [], "5": [], "6": [], "7": [] };

Deno.test("get_booking_settings: defaults before the first update", async () => {
  const s = await callOk(appA, f.keys.manager, "get_booking_settings");
  assert.deepEqual(s, {
    configured: false,
    slug: null,
    isActive: false,
    slotDuration: 30,
    bufferMinutes: 0,
    weeklyHours: EMPTY_WEEK,
    maxDaysAhead: 60,
    minimumNoticeMinutes: 240,
    welcomeMessage: "",
    locationType: "none",
    locationAddress: null,
    bookingCalendarId: null,
    bookingCalendarName: null,
    companyId: null,
    createdAt: null,
    updatedAt: null,
  });
  await callFails(appA, f.keys.manager, "get_booking_settings", { slug: "x" }, "invalid_input");
});

Deno.test("update_booking_settings: first update creates them with a slug; later updates keep it", async () => {
  const s = await callOk(appA, f.keys.owner, "update_booking_settings", {
    isActive: true,
    slotDuration: 45,
    bufferMinutes: 15,
    weeklyHours: {
      "1": [{ start: "13:00", end: "17:00" }, { start: "09:00", end: "12:00" }],
      "3": [{ start: "09:00", end: "12:00" }, { start: "12:00", end: "13:00" }],
    },
    maxDaysAhead: 30,
    minimumNoticeMinutes: 120,
    welcomeMessage: "Pick a time",
    locationType: "google_meet",
    bookingCalendarId: ownerCal,
  });
  assert.equal(s.configured, true);
  assert.equal(s.slug, "owner");
  assert.equal(s.isActive, true);
  assert.equal(s.slotDuration, 45);
  assert.equal(s.bufferMinutes, 15);
  assert.deepEqual(s.weeklyHours, {
    ...EMPTY_WEEK,
    "1": [{ start: "09:00", end: "12:00" }, { start: "13:00", end: "17:00" }],
    "3": [{ start: "09:00", end: "12:00" }, { start: "12:00", end: "13:00" }],
  });
  assert.equal(s.maxDaysAhead, 30);
  assert.equal(s.minimumNoticeMinutes, 120);
  assert.equal(s.welcomeMessage, "Pick a time");
  assert.equal(s.locationType, "google_meet");
  assert.equal(s.bookingCalendarId, ownerCal);
  assert.equal(s.bookingCalendarName, "Bookings");
  assert.equal(s.companyId, null);
  assert.match(s.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const again = await callOk(appA, f.keys.owner, "update_booking_settings", {
    slotDuration: 60,
    locationType: "in_person",
    locationAddress: "Studio 1",
    bookingCalendarId: null,
  });
  assert.equal(again.slug, "owner");
  assert.equal(again.slotDuration, 60);
  assert.equal(again.bufferMinutes, 15, "omitted fields keep their value");
  assert.equal(again.weeklyHours["1"].length, 2);
  assert.equal(again.locationAddress, "Studio 1");
  assert.equal(again.bookingCalendarId, null);
  assert.deepEqual(await callOk(appA, f.keys.owner, "get_booking_settings"), again);
  const [{ n }] = await db
    .sql`select count(*)::int as n from booking_settings where user_id = ${f.users.owner}`;
  assert.equal(n, 1);

  // Replacing the weekly hours: missing days are closed.
  const closed = await callOk(appA, f.keys.owner, "update_booking_settings", { weeklyHours: {} });
  assert.deepEqual(closed.weeklyHours, EMPTY_WEEK);
  // No fields: answers the stored settings unchanged.
  assert.equal((await callOk(appA, f.keys.owner, "update_booking_settings", {})).slug, "owner");
});

Deno.test("update_booking_settings: slugs are unique across workspaces", async () => {
  // The other workspace's owner is named other-owner; a person of this workspace with the same name gets -2.
  const o = await callOk(appA, f.other.key, "update_booking_settings", { isActive: true });
  assert.equal(o.slug, "other-owner");
  await db.sql`update users set name = 'other-owner' where id = ${f.users.admin}`;
  const a = await callOk(appA, f.keys.admin, "update_booking_settings", { isActive: false });
  assert.equal(a.slug, "other-owner-2");
  const [{ n }] = await db.sql`select count(distinct slug)::int as n from booking_settings`;
  const [{ m }] = await db.sql`select count(*)::int as m from booking_settings`;
  assert.equal(n, m);
});

Deno.test("update_booking_settings: weeklyHours validation", async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ "8": [] }, /^invalid_input: weeklyHours\.8: is not a day: keys are "1" \(Monday\) to "7" \(Sunday\)$/],
    [{ "0": [] }, /weeklyHours\.0: is not a day/],
    [{ monday: [{ start: "09:00", end: "10:00" }] }, /weeklyHours\.monday: is not a day/],
    [
      { "1": [{ start: "10:00", end: "09:00" }] },
      /weeklyHours\.1\[0\]: start 10:00 must be before end 09:00/,
    ],
    [
      { "1": [{ start: "09:00", end: "09:00" }] },
      /weeklyHours\.1\[0\]: start 09:00 must be before end 09:00/,
    ],
    [
      { "2": [{ start: "09:00", end: "12:00" }, { start: "11:00", end: "13:00" }] },
      /weeklyHours\.2: intervals 09:00-12:00 and 11:00-13:00 overlap/,
    ],
    [
      { "2": [{ start: "08:00", end: "18:00" }, { start: "10:00", end: "11:00" }] },
      /weeklyHours\.2: intervals 08:00-18:00 and 10:00-11:00 overlap/,
    ],
    [
      { "7": [{ start: "10:00", end: "11:00" }, { start: "10:00", end: "11:00" }] },
      /weeklyHours\.7: intervals 10:00-11:00 and 10:00-11:00 overlap/,
    ],
    [{ "1": [{ start: "9:00", end: "10:00" }] }, /weeklyHours\.1\.0\.start: must be a time HH:MM/],
    [{ "1": [{ start: "09:00", end: "24:00" }] }, /weeklyHours\.1\.0\.end: must be a time HH:MM/],
    [{ "1": [{ start: "09:00" }] }, /weeklyHours\.1\.0\.end: is required/],
    [{ "1": [{ start: "09:00", end: "10:00", note: "x" }] }, /unknown field note/],
    [
      { "1": { start: "09:00", end: "10:00" } },
      /weeklyHours\.1: must be an array of \{start, end\} intervals/,
    ],
    [[{ start: "09:00", end: "10:00" }], /weeklyHours: must be an object keyed "1" \(Monday\) to "7"/],
    ["9-17", /weeklyHours: must be an object keyed/],
    [
      { "1": Array.from({ length: 13 }, (_, i) => ({ start: `${10 + i}:00`, end: `${10 + i}:30` })) },
      /weeklyHours\.1: must hold at most 12 intervals per day/,
    ],
  ];
  for (const [weeklyHours, re] of cases) {
    const text = await callFails(
      appA,
      f.keys.owner,
      "update_booking_settings",
      { weeklyHours },
      "invalid_input",
    );
    assert.match(text, re, JSON.stringify(weeklyHours));
  }
  const s = await callOk(appA, f.keys.owner, "get_booking_settings");
  assert.deepEqual(s.weeklyHours, EMPTY_WEEK, "nothing was stored by the refused updates");
});

Deno.test("update_booking_settings: bounds of the numbers and the value sets", async () => {
  for (const [field, b] of Object.entries(BOOKING_BOUNDS)) {
    for (const bad of [b.min - 1, b.max + 1, b.min + 0.5]) {
      const text = await callFails(
        appA,
        f.keys.owner,
        "update_booking_settings",
        { [field]: bad },
        "invalid_input",
      );
      assert.match(text, new RegExp(`^invalid_input: ${field}: must be`), `${field}=${bad}`);
    }
    const lo = await callOk(appA, f.keys.owner, "update_booking_settings", { [field]: b.min });
    assert.equal(lo[field], b.min);
    const hi = await callOk(appA, f.keys.owner, "update_booking_settings", { [field]: b.max });
    assert.equal(hi[field], b.max);
  }
  await callFails(appA, f.keys.owner, "update_booking_settings", { slotDuration: "30" }, "invalid_input");
  const lt = await callFails(
    appA,
    f.keys.owner,
    "update_booking_settings",
    { locationType: "zoom" },
    "invalid_input",
  );
  assert.match(lt, /locationType: must be none, in_person or google_meet/);
  await callFails(appA, f.keys.owner, "update_booking_settings", { isActive: "yes" }, "invalid_input");
  await callFails(
    appA,
    f.keys.owner,
    "update_booking_settings",
    { welcomeMessage: "x".repeat(2001) },
    "invalid_input",
  );
  await callFails(appA, f.keys.owner, "update_booking_settings", { slug: "mine" }, "invalid_input");
});

Deno.test("update_booking_settings: bookingCalendarId must be one of the user's calendars in scope", async () => {
  await callFails(
    appA,
    f.keys.owner,
    "update_booking_settings",
    { bookingCalendarId: adminCal },
    "not_found",
  );
  await callFails(appA, f.keys.owner, "update_booking_settings", { bookingCalendarId: MISSING }, "not_found");
  await callFails(
    appA,
    f.keys.owner,
    "update_booking_settings",
    { bookingCalendarId: "cal" },
    "invalid_input",
  );
  const s = await callOk(appA, f.keys.owner, "update_booking_settings", { bookingCalendarId: ownerCalA });
  assert.equal(s.bookingCalendarId, ownerCalA);
  // The admin cannot point at the owner's calendar either.
  await callFails(
    appA,
    f.keys.admin,
    "update_booking_settings",
    { bookingCalendarId: ownerCal },
    "not_found",
  );
  const foreign = await callFails(appA, f.other.key, "update_booking_settings", {
    bookingCalendarId: ownerCal,
  }, "not_found");
  assert.match(foreign, /no calendar/);
});

Deno.test("booking settings: company scope of creation, reads and updates", async () => {
  // The limited member (company a) has no booking area by default: give members the booking area here.
  await db.sql`insert into role_permissions (workspace_id, area, roles)
               values (${ws}, 'booking', ${["owner", "admin", "manager", "member"]})`;
  const limited = await callOk(appA, f.keys.limited, "update_booking_settings", { isActive: true });
  assert.equal(limited.companyId, f.companies.a, "created in the key's only company");
  await callFails(appA, f.keys.limited, "update_booking_settings", { companyId: f.companies.b }, "not_found");

  // The manager's settings belong to company b; a key of theirs scoped to company a neither sees nor changes them.
  const mgr = await callOk(appA, f.keys.manager, "update_booking_settings", { companyId: f.companies.b });
  assert.equal(mgr.companyId, f.companies.b);
  const scopedA = await f.key({ user: f.users.manager, companyId: f.companies.a });
  await callFails(appA, scopedA, "get_booking_settings", {}, "not_found");
  await callFails(appA, scopedA, "update_booking_settings", { isActive: true }, "not_found");
  const [row] = await db
    .sql`select is_active, company_id from booking_settings where user_id = ${f.users.manager}`;
  assert.deepEqual({ ...row }, { is_active: false, company_id: f.companies.b });
  // A key of another workspace's company is not a company here.
  await callFails(
    appA,
    f.keys.owner,
    "update_booking_settings",
    { companyId: f.other.companyId },
    "not_found",
  );

  // A member limited to several companies must say which one on creation.
  await db.sql`update workspace_members set company_ids = ${[f.companies.a, f.companies.b]}
               where workspace_id = ${ws} and user_id = ${f.users.member}`;
  const many = await callFails(
    appA,
    f.keys.member,
    "update_booking_settings",
    { isActive: true },
    "invalid_input",
  );
  assert.match(many, /companyId: is required/);
  const chosen = await callOk(appA, f.keys.member, "update_booking_settings", { companyId: f.companies.b });
  assert.equal(chosen.companyId, f.companies.b);
});

Deno.test("booking tools: variant A only, user keys only, booking role and module", async () => {
  for (const n of ["get_booking_settings", "update_booking_settings"]) {
    const r = await rpc(appB, f.keys.internal, "tools/call", { name: n, arguments: {} });
    assert.equal(r.body.error.code, -32602, `${n} is not in variant B`);
    assert.ok(!(await listedTools(appB, f.keys.internal)).includes(n));
  }
  const accounting = await callFails(appA, f.keys.accounting, "get_booking_settings", {}, "access_denied");
  assert.match(accounting, /accounting role may not use booking tools/);
  const guest = await callFails(
    appA,
    f.keys.guest,
    "update_booking_settings",
    { isActive: true },
    "access_denied",
  );
  assert.match(guest, /guest role may not use booking tools/);
  assert.ok((await listedTools(appA, f.keys.owner)).includes("update_booking_settings"));
  const fx = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "booking") });
  await callFails(appA, fx.keys.owner, "get_booking_settings", {}, "unavailable");
});

Deno.test("update_booking_settings: concurrent first updates make one row; same names get distinct slugs", async () => {
  // On Postgres these race for real (pool of 10); on embedded PGlite (one connection) they serialise.
  const fx = await buildFixture(db.sql);
  const results = await Promise.all(
    Array.from(
      { length: 6 },
      (_, i) => callOk(appA, fx.keys.manager, "update_booking_settings", { bufferMinutes: i }),
    ),
  );
  const [{ n }] = await db
    .sql`select count(*)::int as n from booking_settings where user_id = ${fx.users.manager}`;
  assert.equal(n, 1);
  assert.equal(new Set(results.map((r) => r.slug)).size, 1, "every answer shows the one row's slug");

  await db.sql`update users set name = 'Same Name' where id = any(${[
    fx.users.admin,
    fx.users.owner,
  ]}::uuid[])`;
  const [a, b] = await Promise.all([
    callOk(appA, fx.keys.admin, "update_booking_settings", { isActive: true }),
    callOk(appA, fx.keys.owner, "update_booking_settings", { isActive: true }),
  ]);
  assert.notEqual(a.slug, b.slug);
  assert.ok(a.slug.startsWith("same-name") && b.slug.startsWith("same-name"), `${a.slug} ${b.slug}`);
});
