// gantt_plan on 10,000 tasks: the pure planner alone, and the whole tool call through /mcp (load + plan + JSON).
//
// Run with `deno task bench` (DATABASE_URL for Postgres, else embedded PGlite). Prints times; asserts nothing.
import { planBars, type PlanTask } from "../lib/workspace/gantt.ts";
import { todayUtc } from "../lib/dates.ts";
import { buildFixture } from "../tests/helpers/mcp.ts";
import { measure, measureToolCall } from "./util.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";

const TASKS = 10_000;
const USERS = 50;

/** 10,000 tasks over 50 people: a quarter dated (solid), the rest queued, one focus task each. */
function syntheticTasks(): { tasks: PlanTask[]; focus: Map<string, string> } {
  const tasks: PlanTask[] = [];
  const focus = new Map<string, string>();
  for (let i = 0; i < TASKS; i++) {
    const user = `user-${i % USERS}`;
    const dated = i % 4 === 0;
    const day = 1 + (i % 28);
    tasks.push({
      id: `task-${i}`,
      title: `Task ${i}`,
      status: i % 10 === 0 ? "in_progress" : "todo",
      startDate: dated
        ? `2026-${String(1 + (i % 12)).padStart(2, "0")}-${String(day).padStart(2, "0")}`
        : null,
      dueDate: i % 3 === 0
        ? `2027-${String(1 + (i % 12)).padStart(2, "0")}-${String(day).padStart(2, "0")}`
        : null,
      estimatedHours: i % 7 === 0 ? null : (i % 5) * 3 + 1,
      sortOrder: (i * 7919) % TASKS,
      assigneeIds: [user],
    });
    if (!dated && !focus.has(user)) focus.set(user, `task-${i}`);
  }
  return { tasks, focus };
}

export async function benchGantt(): Promise<void> {
  console.log(`\n== gantt_plan on ${TASKS} tasks (${USERS} people) ==`);
  const { tasks, focus } = syntheticTasks();
  let bars = 0;
  const pure = await measure(() => {
    bars = planBars(tasks, { today: "2026-06-01", focus }).length;
  });
  console.log(
    `pure planner:        ${pure.ms.toFixed(2)} ms per plan (${bars} bars, ${
      Math.round(TASKS / pure.ms)
    } tasks/ms, ${pure.runs} runs)`,
  );

  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const people = [f.users.owner, f.users.admin, f.users.manager, f.users.member, f.users.guest];
    // Bulk insert in SQL: the shape of the synthetic set above, spread over the fixture's people.
    await db.sql`
      insert into tasks (workspace_id, title, status, start_date, due_date, estimated_hours, sort_order, created_by)
      select ${f.workspaceId}, 'Task ' || i,
             case when i % 10 = 0 then 'in_progress' else 'todo' end,
             case when i % 4 = 0 then ${todayUtc()}::date + (i % 200) end,
             case when i % 3 = 0 then ${todayUtc()}::date + (i % 200) + (i % 17) + 1 end,
             case when i % 7 = 0 then null else (i % 5) * 3 + 1 end,
             (i * 7919) % ${TASKS}, ${f.users.owner}
        from generate_series(0, ${TASKS - 1}) i`;
    await db.sql`
      insert into task_assignees (workspace_id, task_id, user_id)
      select t.workspace_id, t.id, (${people}::uuid[])[1 + (row_number() over (order by t.id))::int % ${people.length}]
        from tasks t where t.workspace_id = ${f.workspaceId}`;
    await db.sql`analyze tasks`;
    await db.sql`analyze task_assignees`;
    const app = testApp(db.sql, { MCP_VARIANT: "A" });
    const from = todayUtc();
    const to = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    const call = await measureToolCall(app, f.keys.owner, "gantt_plan", { from, to, limit: 5000 }, 3000, 2);
    const size = call.size;
    console.log(
      `gantt_plan via /mcp: ${call.ms.toFixed(1)} ms per call (${db.server ? "Postgres" : "PGlite"}, ` +
        `${Math.round(size / 1024)} KiB answer, 5000 bars max, ${call.runs} runs); ` +
        `planning is ${(100 * pure.ms / call.ms).toFixed(0)}% of it`,
    );
  } finally {
    await db.close();
  }
}

if (import.meta.main) await benchGantt();
