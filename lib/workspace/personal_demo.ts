// Demo data of the personal-work domains: recordings, timesheet categories, time logs, calendars, appointments and
// the demo user's booking page, dated around today so "this week" questions have answers.
import type { Db } from "../db/client.ts";
import type { DemoContext } from "./demo_context.ts";
import { createAppointment } from "./appointments.ts";
import { updateBookingSettings } from "./booking.ts";
import { insertCalendar } from "./calendars.ts";
import { insertRecording } from "./recordings.ts";
import { createTimeLog, insertTimeCategory } from "./time_logs.ts";

/** YYYY-MM-DD of today (UTC) plus `days`. */
function day(days: number): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export async function seedDemoPersonal(db: Db, ctx: DemoContext): Promise<void> {
  const { workspaceId } = ctx;
  const [north] = ctx.companyIds;
  const owner = { workspaceId, userId: ctx.users.owner };
  const member = { workspaceId, userId: ctx.users.member, companyIds: [north] };

  // Timesheet categories (one retired, to show that list_time_categories hides it).
  const cat: Record<string, string> = {};
  for (
    const [i, name, description] of [
      [1, "Meeting", "Internal and client meetings"],
      [2, "Admin", "E-mail, invoicing, planning"],
      [3, "Training", "Courses and reading"],
      [4, "Travel", "Travel to clients"],
    ] as const
  ) {
    cat[name] = (await insertTimeCategory(db, workspaceId, { name, description, sortOrder: i })).id;
  }
  await insertTimeCategory(db, workspaceId, { name: "Legacy reason", isActive: false, sortOrder: 9 });

  // Projects and tasks of the other seeders, when they ran first (any order works).
  const projects = await db<{ id: string }[]>`
    select id from projects where workspace_id = ${workspaceId} order by created_at, id limit 3`;
  const tasks = await db<{ id: string }[]>`
    select id from tasks where workspace_id = ${workspaceId} and not is_private and parent_id is null
     order by created_at, id limit 3`;

  // Time logs of the demo user over the last days.
  const logs: Array<Parameters<typeof createTimeLog>[2]> = [
    {
      date: day(-1),
      startTime: "08:30",
      endTime: "09:00",
      categoryId: cat.Admin,
      description: "Inbox and planning",
    },
    {
      date: day(-1),
      startTime: "10:00",
      endTime: "11:00",
      categoryId: cat.Meeting,
      projectId: projects[0]?.id,
      description: "Weekly client call",
      isBillable: true,
      hourlyRate: 95,
    },
    {
      date: day(-2),
      startTime: "14:00",
      endTime: "15:20",
      categoryId: cat.Training,
      description: "Accessibility",
    },
    {
      date: day(-3),
      startTime: "07:40",
      endTime: "08:25",
      categoryId: cat.Travel,
      description: "Train to client",
    },
  ];
  tasks.forEach((t, i) =>
    logs.push({
      date: day(-1 - i),
      startTime: "13:00",
      endTime: i === 0 ? "16:45" : "15:10",
      taskId: t.id,
      description: "Focused work",
      isBillable: true,
      hourlyRate: 110,
    })
  );
  for (const log of logs) await createTimeLog(db, owner, log);
  await createTimeLog(db, member, {
    date: day(-1),
    startTime: "09:00",
    endTime: "09:45",
    categoryId: cat.Meeting,
    description: "Stand-up",
  });

  // Calendars: the demo user's default and one for the North company; one for the member.
  const work = (await insertCalendar(db, {
    workspaceId,
    userId: ctx.users.owner,
    name: "Work",
    isDefault: true,
    timeZone: "Europe/Zurich",
  })).id;
  await insertCalendar(db, {
    workspaceId,
    userId: ctx.users.owner,
    name: "Demo North clients",
    companyId: north,
    color: "#10b981",
    timeZone: "Europe/Zurich",
  });
  await insertCalendar(db, {
    workspaceId,
    userId: ctx.users.member,
    name: "Milo's calendar",
    companyId: north,
    isDefault: true,
  });

  // Appointments in the coming days.
  await createAppointment(db, owner, {
    date: day(1),
    startTime: "10:00",
    endTime: "11:00",
    title: "Design review",
    clientName: "Ann Acme",
    clientEmail: "ann@acme.example",
    location: "online",
    onlinePlatform: "Google Meet",
    onlineLink: "https://meet.google.com/abc-defg-hij",
    status: "confirmed",
    projectId: projects[0]?.id,
  });
  await createAppointment(db, owner, {
    date: day(2),
    startTime: "14:00",
    endTime: "15:30",
    title: "Photo shoot",
    clientName: "Globex",
    location: "studio",
    address: "Studio 3, Lake road 12",
    notes: "Bring the product samples.",
  });
  await createAppointment(db, owner, {
    date: day(5),
    startTime: "00:00",
    endTime: "00:00",
    isAllDay: true,
    title: "Offsite",
    location: "home",
  });
  await createAppointment(db, member, {
    date: day(1),
    startTime: "09:00",
    endTime: "09:30",
    title: "Intro call",
    location: "online",
    onlineLink: "https://zoom.example.com/j/42",
  });

  // Recordings with summaries, action items and transcriptions.
  await insertRecording(db, {
    workspaceId,
    userId: ctx.users.owner,
    title: "Kick-off with Acme",
    recordedAt: `${day(-2)}T09:00:00Z`,
    durationSeconds: 1860,
    summary:
      "Acme wants the relaunch live before the spring campaign. Scope: new marketing site, a booking " +
      "flow and a blog. Budget confirmed at 24,000 EUR; design review next week.",
    actionItems: [
      { text: "Send the sitemap draft to Ann", done: true },
      { text: "Book the design review", done: false },
      { text: "Ask for brand assets (logo, fonts)", done: false },
    ],
    notes: "Ann prefers short weekly calls on Mondays.",
    transcription:
      "Dana: Thanks for making time today. Ann: Of course. We need the new site before the spring " +
      "campaign… Dana: Then let's fix the sitemap this week and review designs next Monday.",
  });
  await insertRecording(db, {
    workspaceId,
    userId: ctx.users.owner,
    title: "Quarterly reporting check-in",
    recordedAt: `${day(-1)}T15:30:00Z`,
    durationSeconds: 940,
    summary: "Globex's Q1 numbers arrive late; the report moves by one week.",
    actionItems: [{ text: "Update the reporting timeline", done: false }],
    transcription: "Dana: Where are we with the Q1 data? Ben: Finance needs another week…",
  });
  await insertRecording(db, {
    workspaceId,
    userId: ctx.users.owner,
    companyId: north,
    title: "Voice memo: workshop ideas",
    recordedAt: `${day(0)}T07:15:00Z`,
    durationSeconds: 95,
    summary: "Three warm-up exercises for the brand workshop.",
    actionItems: [],
    notes: "",
    transcription: "Idea one: describe the brand as a person. Idea two: …",
  });

  // The demo user's booking page: weekdays 9-12 and 13-17, Friday mornings only.
  const weekday = [{ start: "09:00", end: "12:00" }, { start: "13:00", end: "17:00" }];
  await updateBookingSettings(db, owner, {
    isActive: true,
    slotDuration: 30,
    bufferMinutes: 10,
    weeklyHours: { "1": weekday, "2": weekday, "3": weekday, "4": weekday, "5": [weekday[0]] },
    maxDaysAhead: 45,
    minimumNoticeMinutes: 720,
    welcomeMessage: "Book a 30-minute call with Dana.",
    locationType: "google_meet",
    bookingCalendarId: work,
  });
}
