// Recording, calendar and appointment tools through /mcp: own records only, company scope, workspace isolation,
// validation of appointments, and the user-context rules of both variants.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callFails, callOk, listedTools, mcpApp } from "../helpers/mcp.ts";
import { createProject } from "../../lib/workspace/projects.ts";
import { insertRecording } from "../../lib/workspace/recordings.ts";
import { insertCalendar } from "../../lib/workspace/calendars.ts";
import { APPOINTMENT_TIMES_RULE } from "../../lib/workspace/appointments.ts";
import { MODULES } from "../../lib/workspace/modules.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const MISSING = "00000000-0000-4000-8000-000000000000";

Deno.test.afterAll(() => db.close());

const ws = f.workspaceId;
const owner = f.users.owner;
const projA =
  (await createProject(db.sql, { workspaceId: ws }, { name: "A work", companyId: f.companies.a })).id;
const projB =
  (await createProject(db.sql, { workspaceId: ws }, { name: "B work", companyId: f.companies.b })).id;
const otherProject =
  (await createProject(db.sql, { workspaceId: f.other.workspaceId }, { name: "Foreign" })).id;

// ---- recordings -------------------------------------------------------------------------------------------

const recIds: string[] = [];
for (let i = 1; i <= 12; i++) {
  recIds.push(
    (await insertRecording(db.sql, {
      workspaceId: ws,
      userId: owner,
      companyId: i === 12 ? f.companies.b : i === 11 ? f.companies.a : null,
      title: `Call ${i}`,
      recordedAt: `2026-02-${String(i).padStart(2, "0")}T10:00:00Z`,
      durationSeconds: 60 * i,
      summary: i === 1 ? "s".repeat(300) : `Summary ${i}`,
      actionItems: i === 1 ? [{ text: "Send offer", done: false }, { text: "Book room", done: true }] : [],
      notes: "n",
      transcription: i === 1 ? "Hello, this is call one." : "",
    })).id,
  );
}
const adminRecording = (await insertRecording(db.sql, {
  workspaceId: ws,
  userId: f.users.admin,
  title: "Admin call",
  recordedAt: "2026-02-20T10:00:00Z",
  durationSeconds: 5,
})).id;

Deno.test("list_recordings: own, newest first, at most 10, in scope", async () => {
  const list = (await callOk(appA, f.keys.owner, "list_recordings")).items;
  assert.equal(list.length, 10);
  assert.deepEqual(list.map((r: { title: string }) => r.title), [
    "Call 12",
    "Call 11",
    "Call 10",
    "Call 9",
    "Call 8",
    "Call 7",
    "Call 6",
    "Call 5",
    "Call 4",
    "Call 3",
  ]);
  // A list row is the short form: the summary, action items, notes and transcription come from get_recording.
  assert.deepEqual(list[0], {
    id: recIds[11],
    title: "Call 12",
    recordedAt: "2026-02-12T10:00:00Z",
    durationSeconds: 720,
    actionItemCount: 0,
    hasTranscription: false,
  });
  const oldest = await callOk(appA, f.keys.owner, "list_recordings", { limit: 10, offset: 10 });
  assert.deepEqual(oldest, {
    items: [
      {
        id: recIds[1],
        title: "Call 2",
        recordedAt: "2026-02-02T10:00:00Z",
        durationSeconds: 120,
        actionItemCount: 0,
        hasTranscription: false,
      },
      {
        id: recIds[0],
        title: "Call 1",
        recordedAt: "2026-02-01T10:00:00Z",
        durationSeconds: 60,
        actionItemCount: 2,
        hasTranscription: true,
      },
    ],
    total: 12,
    limit: 10,
    offset: 10,
    hasMore: false,
    nextOffset: null,
  });
  const three = (await callOk(appA, f.keys.owner, "list_recordings", { limit: 3 })).items;
  assert.equal(three.length, 3);
  const all = (await callOk(appB, f.keys.internal, "list_recordings", { limit: 10 })).items;
  assert.equal(all.length, 10);
  await callFails(appA, f.keys.owner, "list_recordings", { limit: 11 }, "invalid_input");
  await callFails(appA, f.keys.owner, "list_recordings", { limit: 0 }, "invalid_input");

  // A key of the owner scoped to company a sees only company a's recordings; others see none of the owner's.
  const scoped = (await callOk(appA, f.keys.ownerCompanyA, "list_recordings")).items;
  assert.deepEqual(scoped.map((r: { id: string }) => r.id), [recIds[10]]);
  const adminList = (await callOk(appA, f.keys.admin, "list_recordings")).items;
  assert.deepEqual(adminList.map((r: { id: string }) => r.id), [adminRecording]);
  assert.deepEqual((await callOk(appA, f.other.key, "list_recordings")).items, []);
});

Deno.test("get_recording: summary, action items, notes, transcription; others' → not_found", async () => {
  const r = await callOk(appA, f.keys.owner, "get_recording", { recordingId: recIds[0] });
  assert.equal(r.summary, "s".repeat(300));
  assert.deepEqual(r.actionItems, [{ text: "Send offer", done: false }, { text: "Book room", done: true }]);
  assert.equal(r.notes, "n");
  assert.equal(r.transcription, "Hello, this is call one.");
  assert.equal(r.recordedAt, "2026-02-01T10:00:00Z");
  const list = (await callOk(appA, f.keys.owner, "list_recordings", { limit: 10 })).items;
  assert.ok(list.every((x: { id: string }) => x.id !== recIds[0]), "call 1 is beyond the 10 most recent");
  const b = await callOk(appB, f.keys.internal, "get_recording", { recordingId: recIds[0] });
  assert.equal(b.id, recIds[0]);

  await callFails(appA, f.keys.owner, "get_recording", { recordingId: adminRecording }, "not_found");
  await callFails(appA, f.keys.admin, "get_recording", { recordingId: recIds[0] }, "not_found");
  await callFails(appA, f.other.key, "get_recording", { recordingId: recIds[0] }, "not_found");
  await callFails(appA, f.keys.ownerCompanyA, "get_recording", { recordingId: recIds[11] }, "not_found");
  await callFails(appA, f.keys.owner, "get_recording", { recordingId: MISSING }, "not_found");
  const bad = await callFails(appA, f.keys.owner, "get_recording", { recordingId: "12" }, "invalid_input");
  assert.match(bad, /recordingId: must be a UUID/);
  await callFails(appA, f.keys.owner, "get_recording", {}, "invalid_input");
});

Deno.test("recordings: B only for internal keys; role and module gating in A", async () => {
  for (const k of [f.keys.workspace, f.keys.owner]) {
    await callFails(appB, k, "list_recordings", {}, "access_denied");
    await callFails(appB, k, "get_recording", { recordingId: recIds[0] }, "access_denied");
  }
  // accounting has no recordings area by default
  await callFails(appA, f.keys.accounting, "list_recordings", {}, "access_denied");
  const fx = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "recordings") });
  await callFails(appA, fx.keys.owner, "list_recordings", {}, "unavailable");
});

// ---- calendars --------------------------------------------------------------------------------------------

const work =
  (await insertCalendar(db.sql, { workspaceId: ws, userId: owner, name: "Work", isDefault: true })).id;
const north = (await insertCalendar(db.sql, {
  workspaceId: ws,
  userId: owner,
  name: "A clients",
  companyId: f.companies.a,
  color: "#10b981",
  timeZone: "Europe/Zurich",
})).id;
const adminCal = (await insertCalendar(db.sql, { workspaceId: ws, userId: f.users.admin, name: "Admin" })).id;

Deno.test("list_calendars: own calendars, default first, in scope, as a page", async () => {
  const cals = await callOk(appA, f.keys.owner, "list_calendars");
  assert.deepEqual(cals, {
    items: [
      { id: work, name: "Work", timeZone: "UTC", isDefault: true },
      { id: north, name: "A clients", timeZone: "Europe/Zurich", isDefault: false },
    ],
    total: 2,
    limit: 100,
    offset: 0,
    hasMore: false,
    nextOffset: null,
  });
  const first = await callOk(appA, f.keys.owner, "list_calendars", { limit: 1 });
  assert.deepEqual([first.items.map((c: { id: string }) => c.id), first.hasMore, first.nextOffset], [
    [work],
    true,
    1,
  ]);
  const second = await callOk(appA, f.keys.owner, "list_calendars", { limit: 1, offset: 1 });
  assert.deepEqual([second.items.map((c: { id: string }) => c.id), second.hasMore], [[north], false]);
  const scoped = (await callOk(appA, f.keys.ownerCompanyA, "list_calendars")).items;
  assert.deepEqual(scoped.map((c: { id: string }) => c.id), [north]);
  const viaB = await callOk(appB, f.keys.internal, "list_calendars");
  assert.equal(viaB.items.length, 2);
  assert.equal(viaB.total, 2);
  assert.deepEqual(
    (await callOk(appA, f.keys.admin, "list_calendars")).items.map((c: { id: string }) => c.id),
    [adminCal],
  );
  const foreign = await callOk(appA, f.other.key, "list_calendars");
  assert.deepEqual([foreign.items, foreign.total], [[], 0]);
  await callFails(appA, f.keys.owner, "list_calendars", { all: true }, "invalid_input");
  await callFails(appA, f.keys.owner, "list_calendars", { limit: 0 }, "invalid_input");
  await callFails(appA, f.keys.owner, "list_calendars", { limit: 501 }, "invalid_input");
  await callFails(appA, f.keys.owner, "list_calendars", { offset: -1 }, "invalid_input");
  await callFails(appB, f.keys.workspace, "list_calendars", {}, "access_denied");
  await callFails(appA, f.keys.accounting, "list_calendars", {}, "access_denied");
});

// ---- appointments -----------------------------------------------------------------------------------------

const base = { date: "2026-03-10", startTime: "10:00", endTime: "11:00" };

Deno.test("create_appointment: every field, defaults, default calendar and project company", async () => {
  const a = await callOk(appA, f.keys.owner, "create_appointment", {
    ...base,
    title: "Kick-off",
    clientName: "Ann Client",
    clientEmail: "ann@client.test",
    clientPhone: "+41 79 000 00 00",
    location: "online",
    onlinePlatform: "Zoom",
    onlineLink: "https://zoom.example.com/j/123",
    notes: "bring slides",
    status: "confirmed",
    projectId: projA,
  });
  assert.match(a.id, /^[0-9a-f-]{36}$/);
  assert.equal(a.title, "Kick-off");
  assert.equal(a.clientEmail, "ann@client.test");
  assert.equal(a.location, "online");
  assert.equal(a.onlineLink, "https://zoom.example.com/j/123");
  assert.equal(a.status, "confirmed");
  assert.equal(a.projectId, projA);
  assert.equal(a.projectName, "A work");
  assert.equal(a.companyId, f.companies.a);
  assert.equal(a.calendarId, work);
  assert.equal(a.isAllDay, false);
  assert.equal(a.date, "2026-03-10");
  assert.equal(a.startTime, "10:00");
  assert.equal(a.endTime, "11:00");

  const minimal = await callOk(appA, f.keys.owner, "create_appointment", { ...base, clientName: "Bob" });
  assert.equal(minimal.title, "Appointment with Bob");
  assert.equal(minimal.status, "scheduled");
  assert.equal(minimal.location, null);
  assert.equal(minimal.companyId, null);
  assert.equal(minimal.projectId, null);

  const allDay = await callOk(appA, f.keys.owner, "create_appointment", {
    date: "2026-03-11",
    startTime: "00:00",
    endTime: "00:00",
    isAllDay: true,
    location: "home",
    address: "Lake road 2",
  });
  assert.equal(allDay.isAllDay, true);
  assert.equal(allDay.title, "Appointment");

  // A member limited to company a: the appointment lands in company a; no calendar of theirs → calendarId null.
  const limited = await callOk(appA, f.keys.limited, "create_appointment", { ...base, location: "studio" });
  assert.equal(limited.companyId, f.companies.a);
  assert.equal(limited.calendarId, null);

  const viaB = await callOk(appB, f.keys.internal, "create_appointment", {
    ...base,
    title: "From the assistant",
  });
  const [row] = await db.sql`select user_id, workspace_id from appointments where id = ${viaB.id}`;
  assert.deepEqual({ ...row }, { user_id: owner, workspace_id: ws });
});

Deno.test("create_appointment: bad input names the field or rule", async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ ...base, endTime: "10:00" }, new RegExp(APPOINTMENT_TIMES_RULE)],
    [{ ...base, endTime: "09:00" }, /endTime: must be after startTime unless isAllDay/],
    [{ ...base, date: "2026-13-01" }, /date: must be a date YYYY-MM-DD/],
    [{ ...base, startTime: "25:00" }, /startTime: must be a time HH:MM/],
    [{ ...base, endTime: "10:60" }, /endTime: must be a time HH:MM/],
    [{ ...base, location: "office" }, /location: must be studio, online or home/],
    [{ ...base, onlineLink: "zoom.us/j/1" }, /onlineLink: must be an http or https URL/],
    [{ ...base, onlineLink: "ftp://files.example.com/x" }, /onlineLink: must be an http or https URL/],
    [{ ...base, onlineLink: "javascript:alert(1)" }, /onlineLink: must be an http or https URL/],
    [{ ...base, clientEmail: "not-an-email" }, /clientEmail: must be an e-mail address/],
    [{ ...base, status: "done" }, /status: must be scheduled, confirmed, completed, cancelled or no_show/],
    [{ ...base, projectId: "p1" }, /projectId: must be a UUID/],
    [{ ...base, title: "" }, /title: must not be empty/],
    [{ ...base, isAllDay: "no" }, /isAllDay: must be true or false/],
    [{ date: "2026-03-10", startTime: "10:00" }, /endTime/],
    [{ ...base, calendar: "x" }, /unknown field calendar/],
  ];
  for (const [args, re] of cases) {
    const text = await callFails(appA, f.keys.owner, "create_appointment", args, "invalid_input");
    assert.match(text, re, JSON.stringify(args));
  }
});

Deno.test("create_appointment: a project out of scope or of another workspace is not_found", async () => {
  await callFails(appA, f.keys.owner, "create_appointment", { ...base, projectId: MISSING }, "not_found");
  await callFails(
    appA,
    f.keys.owner,
    "create_appointment",
    { ...base, projectId: otherProject },
    "not_found",
  );
  await callFails(appA, f.keys.limited, "create_appointment", { ...base, projectId: projB }, "not_found");
  await callFails(
    appA,
    f.keys.ownerCompanyA,
    "create_appointment",
    { ...base, projectId: projB },
    "not_found",
  );
  await callFails(appB, f.keys.workspaceCompanyA, "create_appointment", base, "access_denied");
});

Deno.test("list_appointments: own, in date order, filtered, in scope", async () => {
  const key = f.keys.manager;
  const mk = (date: string, startTime: string, endTime: string, extra = {}) =>
    callOk(appA, key, "create_appointment", { date, startTime, endTime, ...extra });
  const late = await mk("2026-04-02", "15:00", "16:00");
  const early = await mk("2026-04-02", "08:00", "09:00", { projectId: projA });
  const allDay = await mk("2026-04-02", "00:00", "00:00", { isAllDay: true });
  const first = await mk("2026-04-01", "12:00", "13:00", { projectId: projB });
  const later = await mk("2026-04-09", "12:00", "13:00");
  const ids = (list: Array<{ id: string }>) => list.map((a) => a.id);
  const detailed = await mk("2026-04-03", "09:00", "09:30", {
    title: "Site visit",
    clientName: "Cleo",
    clientEmail: "cleo@client.test",
    clientPhone: "+41 1",
    location: "online",
    onlinePlatform: "Zoom",
    onlineLink: "https://zoom.example.com/j/9",
    notes: "the notes are read through the list",
    status: "confirmed",
    projectId: projA,
  });
  const [row] =
    (await callOk(appA, key, "list_appointments", { startDate: "2026-04-03", endDate: "2026-04-03" }))
      .items;
  // A list row leaves out the calendar, company and audit times; there is no get_appointment, so the client's
  // contact, the platform and the notes stay in it.
  assert.deepEqual(row, {
    id: detailed.id,
    title: "Site visit",
    date: "2026-04-03",
    startTime: "09:00",
    endTime: "09:30",
    isAllDay: false,
    status: "confirmed",
    location: "online",
    address: null,
    onlinePlatform: "Zoom",
    onlineLink: "https://zoom.example.com/j/9",
    clientName: "Cleo",
    clientEmail: "cleo@client.test",
    clientPhone: "+41 1",
    notes: "the notes are read through the list",
    projectId: projA,
    projectName: "A work",
  });
  const { calendarId, companyId, createdAt, updatedAt, ...short } = detailed;
  assert.deepEqual(short, row);
  assert.deepEqual([calendarId, companyId], [null, f.companies.a]);
  assert.equal(updatedAt, createdAt);
  await db.sql`delete from appointments where id = ${detailed.id}`;
  assert.deepEqual(ids((await callOk(appA, key, "list_appointments")).items), [
    first.id,
    allDay.id,
    early.id,
    late.id,
    later.id,
  ]);
  assert.deepEqual(
    ids(
      (await callOk(appA, key, "list_appointments", { startDate: "2026-04-02", endDate: "2026-04-08" }))
        .items,
    ),
    [allDay.id, early.id, late.id],
  );
  assert.deepEqual(ids((await callOk(appA, key, "list_appointments", { endDate: "2026-04-01" })).items), [
    first.id,
  ]);
  assert.deepEqual(ids((await callOk(appA, key, "list_appointments", { limit: 1, offset: 4 })).items), [
    later.id,
  ]);
  await callFails(
    appA,
    key,
    "list_appointments",
    { startDate: "2026-04-09", endDate: "2026-04-01" },
    "invalid_input",
  );
  await callFails(appA, key, "list_appointments", { endDate: "tomorrow" }, "invalid_input");

  const scoped = await f.key({ user: f.users.manager, companyId: f.companies.b });
  assert.deepEqual(ids((await callOk(appA, scoped, "list_appointments")).items), [first.id]);
  const ownerList =
    (await callOk(appA, f.keys.owner, "list_appointments", { startDate: "2026-04-01" })).items;
  assert.deepEqual(ownerList, []);
  assert.deepEqual((await callOk(appA, f.other.key, "list_appointments")).items, []);
  await callFails(appB, f.keys.workspace, "list_appointments", {}, "access_denied");
  const viaB = (await callOk(appB, f.keys.internal, "list_appointments", {
    startDate: "2026-03-10",
    endDate: "2026-03-10",
  })).items;
  assert.ok(viaB.length >= 1);
});

Deno.test("update_appointment: fields, clearing, time rule against stored values, project scope", async () => {
  const key = f.keys.owner;
  const a = await callOk(appA, key, "create_appointment", {
    ...base,
    location: "online",
    onlineLink: "https://meet.example.com/abc",
    clientEmail: "c@client.test",
  });
  const u = await callOk(appA, key, "update_appointment", {
    appointmentId: a.id,
    title: "Moved",
    date: "2026-03-12",
    endTime: "12:30",
    location: "studio",
    onlineLink: null,
    clientEmail: null,
    address: "Studio 1",
    status: "completed",
    projectId: projB,
    notes: "done",
  });
  assert.equal(u.title, "Moved");
  assert.equal(u.date, "2026-03-12");
  assert.equal(u.startTime, "10:00");
  assert.equal(u.endTime, "12:30");
  assert.equal(u.location, "studio");
  assert.equal(u.onlineLink, null);
  assert.equal(u.clientEmail, null);
  assert.equal(u.address, "Studio 1");
  assert.equal(u.status, "completed");
  assert.equal(u.projectId, projB);
  assert.equal(u.companyId, f.companies.b);
  const unlinked = await callOk(appA, key, "update_appointment", { appointmentId: a.id, projectId: null });
  assert.equal(unlinked.projectId, null);

  // The start is checked against the stored end; all-day lifts the rule.
  const t = await callFails(
    appA,
    key,
    "update_appointment",
    { appointmentId: a.id, startTime: "13:00" },
    "invalid_input",
  );
  assert.equal(t, `invalid_input: ${APPOINTMENT_TIMES_RULE}`);
  const allDay = await callOk(appA, key, "update_appointment", {
    appointmentId: a.id,
    startTime: "13:00",
    isAllDay: true,
  });
  assert.equal(allDay.isAllDay, true);
  await callFails(appA, key, "update_appointment", { appointmentId: a.id, isAllDay: false }, "invalid_input");

  await callFails(appA, key, "update_appointment", { appointmentId: a.id }, "invalid_input");
  await callFails(
    appA,
    key,
    "update_appointment",
    { appointmentId: a.id, location: "garden" },
    "invalid_input",
  );
  await callFails(
    appA,
    key,
    "update_appointment",
    { appointmentId: a.id, onlineLink: "meet" },
    "invalid_input",
  );
  await callFails(
    appA,
    key,
    "update_appointment",
    { appointmentId: a.id, clientEmail: "x@" },
    "invalid_input",
  );
  await callFails(appA, key, "update_appointment", { appointmentId: "a", title: "x" }, "invalid_input");
  await callFails(
    appA,
    key,
    "update_appointment",
    { appointmentId: a.id, projectId: otherProject },
    "not_found",
  );
  await callFails(appA, key, "update_appointment", { appointmentId: MISSING, title: "x" }, "not_found");

  // Someone else's appointment, another workspace, a key of another company: not_found; nothing changes.
  await callFails(
    appA,
    f.keys.admin,
    "update_appointment",
    { appointmentId: a.id, title: "Hijack" },
    "not_found",
  );
  await callFails(
    appA,
    f.other.key,
    "update_appointment",
    { appointmentId: a.id, title: "Hijack" },
    "not_found",
  );
  await callFails(
    appA,
    f.keys.ownerCompanyA,
    "update_appointment",
    { appointmentId: a.id, title: "Hijack" },
    "not_found",
  );
  await callFails(
    appB,
    f.keys.workspace,
    "update_appointment",
    { appointmentId: a.id, title: "Hijack" },
    "access_denied",
  );
  const [row] = await db.sql`select title from appointments where id = ${a.id}`;
  assert.equal(row.title, "Moved");
  const viaB = await callOk(appB, f.keys.internal, "update_appointment", {
    appointmentId: a.id,
    notes: "via B",
  });
  assert.equal(viaB.notes, "via B");
});

Deno.test("calendar tools: listed per variant and caller", async () => {
  const names = ["list_calendars", "list_appointments", "create_appointment", "update_appointment"];
  const internal = await listedTools(appB, f.keys.internal);
  const external = await listedTools(appB, f.keys.workspace);
  for (const n of [...names, "list_recordings", "get_recording"]) {
    assert.ok(internal.includes(n), n);
    assert.ok(!external.includes(n), n);
  }
  const owner = await listedTools(appA, f.keys.owner);
  for (const n of names) assert.ok(owner.includes(n), n);
  const accounting = await listedTools(appA, f.keys.accounting);
  for (const n of names) assert.ok(!accounting.includes(n), n);
  const fx = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "calendar") });
  await callFails(appA, fx.keys.owner, "create_appointment", base, "unavailable");
});

Deno.test("variant B (internal key): appointments' bad input, not_found, another person's record, scope", async () => {
  const k = f.keys.internal; // acts as the owner
  await callFails(appB, k, "create_appointment", { ...base, endTime: "09:00" }, "invalid_input");
  await callFails(appB, k, "create_appointment", { ...base, location: "park" }, "invalid_input");
  await callFails(appB, k, "create_appointment", { ...base, onlineLink: "not a url" }, "invalid_input");
  await callFails(appB, k, "create_appointment", { ...base, clientEmail: "nobody" }, "invalid_input");
  await callFails(appB, k, "create_appointment", { ...base, projectId: otherProject }, "not_found");
  await callFails(appB, k, "list_appointments", { startDate: "soon" }, "invalid_input");
  await callFails(appB, k, "get_recording", { recordingId: adminRecording }, "not_found");
  await callFails(appB, k, "list_recordings", { limit: 20 }, "invalid_input");

  const adminAppt = await callOk(appA, f.keys.admin, "create_appointment", { ...base, title: "Admin's" });
  await callFails(appB, k, "update_appointment", { appointmentId: adminAppt.id, title: "Mine" }, "not_found");
  await callFails(appB, k, "update_appointment", { appointmentId: MISSING, title: "Mine" }, "not_found");
  await callFails(
    appB,
    k,
    "update_appointment",
    { appointmentId: adminAppt.id, status: "gone" },
    "invalid_input",
  );
  const listed = (await callOk(appB, k, "list_appointments")).items;
  assert.ok(listed.every((a: { id: string }) => a.id !== adminAppt.id));

  const scopedInternal = await f.key({ kind: "internal", user: owner, companyId: f.companies.a });
  await callFails(appB, scopedInternal, "create_appointment", { ...base, projectId: projB }, "not_found");
  const inA = await callOk(appB, scopedInternal, "create_appointment", { ...base, title: "Scoped" });
  assert.equal(inA.companyId, f.companies.a);
  assert.equal(inA.calendarId, north, "the default calendar is out of scope: the first one in scope is used");
  const calendars = (await callOk(appB, scopedInternal, "list_calendars")).items;
  assert.deepEqual(calendars.map((c: { id: string }) => c.id), [north]);
  const recs = (await callOk(appB, scopedInternal, "list_recordings")).items;
  assert.deepEqual(recs.map((r: { id: string }) => r.id), [recIds[10]]);
});
