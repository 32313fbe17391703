// Demo tasks: a planned team (solid work, queues, a focus task each, a late forecast), subtasks and a comment.
import type { Db } from "../db/client.ts";
import type { DemoContext } from "./demo_context.ts";
import { addWorkingDays, dayNumber, dayString, nextWorkingDay } from "./gantt.ts";
import { todayUtc } from "../dates.ts";
import { createTask, type NewTask } from "./tasks.ts";
import { moveToFocus } from "./task_queue.ts";

/** Appended to DEMO_SEEDERS after the projects seeder (it looks the demo projects up by task prefix). */
export async function seedDemoTasks(db: Db, ctx: DemoContext): Promise<void> {
  const { owner, admin, member } = ctx.users;
  const caller = { workspaceId: ctx.workspaceId, userId: owner };
  const read = { variantA: true };
  const projects = await db<{ id: string; task_prefix: string }[]>`
    select id, task_prefix from projects where workspace_id = ${ctx.workspaceId} and task_prefix is not null`;
  const web = projects.find((p) => p.task_prefix === "WEB")?.id;
  const rep = projects.find((p) => p.task_prefix === "REP")?.id;

  // Dates relative to the day the demo is created, so the plan always shows current work.
  const first = nextWorkingDay(dayNumber(todayUtc()));
  const wd = (n: number) => dayString(addWorkingDays(first, n));

  const [team] = await db<{ id: string }[]>`
    insert into teams (workspace_id, name) values (${ctx.workspaceId}, 'Studio team') returning id`;
  for (const user of [owner, admin, member]) {
    await db`insert into team_members (workspace_id, team_id, user_id) values (${ctx.workspaceId}, ${team.id}, ${user})`;
  }

  const make = (t: NewTask & { parentTaskId?: string }) => createTask(db, caller, t, read);

  // Alex (admin): three days of dated work, then a queue; the second queued task is forecast late.
  await make({
    title: "Client workshop and sitemap",
    projectId: web,
    startDate: wd(0),
    dueDate: wd(2),
    estimatedHours: 20,
    assigneeIds: [admin],
    priority: "high",
  });
  const design = await make({
    title: "Design system: colours, type, components",
    projectId: web,
    estimatedHours: 16,
    assigneeIds: [admin],
  });
  await make({
    title: "Homepage mock-ups",
    projectId: web,
    estimatedHours: 12,
    dueDate: wd(4),
    assigneeIds: [admin],
    description: "Two variants for the client review.",
  });
  await moveToFocus(db, caller, design.id, admin, read);

  // Milo (member, limited to the first company): a focus task and a queue on the website.
  const build = await make({
    title: "Build page templates",
    projectId: web,
    estimatedHours: 24,
    assigneeIds: [member],
  });
  for (const title of ["Set up staging", "Write the booking flow", "Cross-browser check"]) {
    const sub = await make({ parentTaskId: build.id, title, estimatedHours: 6, assigneeIds: [member] });
    if (title === "Cross-browser check") {
      await db`insert into task_comments (workspace_id, task_id, author_id, body)
               values (${ctx.workspaceId}, ${sub.id}, ${admin}, 'Include Safari on iOS, please.')`;
    }
  }
  await make({ title: "Contact form spam filter", projectId: web, assigneeIds: [member] }); // no estimate: a day
  await moveToFocus(db, caller, build.id, member, read);

  // Dana (owner): reporting for the second company, a dated review, and a private note to self.
  await make({
    title: "Quarterly figures for Globex",
    projectId: rep,
    estimatedHours: 10,
    dueDate: wd(3),
    assigneeIds: [owner],
  });
  await make({
    title: "Review the relaunch with Acme",
    projectId: web,
    startDate: wd(6),
    dueDate: wd(6),
    assigneeIds: [owner, admin],
  });
  await make({ title: "Prepare salary talks", isPrivate: true, estimatedHours: 3, assigneeIds: [owner] });
  await make({ title: "Archive last year's drafts", projectId: web, status: "frozen" });
  await make({ title: "Launch checklist", projectId: web, status: "done", estimatedHours: 2 });
}
