// The personal-work demo seeder: runs inside seedDemo and its records answer through the demo user's key.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { callOk, mcpApp } from "../helpers/mcp.ts";
import { seedDemo } from "../../lib/demo.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

Deno.test("demo data: recordings, time logs, categories, calendars, appointments, booking page", async () => {
  const db = await freshDatabase();
  try {
    const demo = await seedDemo(db.sql, { scrypt: TEST_SCRYPT });
    const app = mcpApp(db.sql, "A");
    const recordings = (await callOk(app, demo.apiKey, "list_recordings")).items;
    assert.equal(recordings.length, 3);
    const kickoff = recordings.find((r: { title: string }) => r.title === "Kick-off with Acme");
    const full = await callOk(app, demo.apiKey, "get_recording", { recordingId: kickoff.id });
    assert.equal(full.actionItems.length, 3);
    assert.ok(full.transcription.length > 0);
    assert.ok(full.summary.length > 0);

    const cats = (await callOk(app, demo.apiKey, "list_time_categories")).items;
    assert.deepEqual(cats.map((c: { name: string }) => c.name), ["Meeting", "Admin", "Training", "Travel"]);
    const logs = (await callOk(app, demo.apiKey, "list_time_logs")).items;
    assert.ok(logs.length >= 4);
    const summary = await callOk(app, demo.apiKey, "time_log_summary");
    assert.equal(summary.entryCount, logs.length);
    assert.ok(summary.byCategory.length === 4);

    const calendars = (await callOk(app, demo.apiKey, "list_calendars")).items;
    assert.deepEqual(calendars.map((c: { name: string }) => c.name), ["Work", "Demo North clients"]);
    const appointments = (await callOk(app, demo.apiKey, "list_appointments")).items;
    assert.equal(appointments.length, 3);
    // List rows leave the calendar out; the stored appointments are all in the default calendar.
    const stored = await db.sql<{ calendar_id: string }[]>`
      select calendar_id from appointments where id = any(${appointments.map((a: { id: string }) => a.id)})`;
    assert.equal(stored.length, 3);
    assert.ok(stored.every((a) => a.calendar_id === calendars[0].id));

    const booking = await callOk(app, demo.apiKey, "get_booking_settings");
    assert.equal(booking.configured, true);
    assert.equal(booking.slug, "dana-demo");
    assert.equal(booking.isActive, true);
    assert.equal(booking.bookingCalendarId, calendars[0].id);
    assert.deepEqual(booking.weeklyHours["5"], [{ start: "09:00", end: "12:00" }]);
    assert.deepEqual(booking.weeklyHours["6"], []);
  } finally {
    await db.close();
  }
});
