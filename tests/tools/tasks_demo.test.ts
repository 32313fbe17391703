// The tasks demo seeder: a planned team whose plan answers through the demo user's key.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import { callOk, mcpApp } from "../helpers/mcp.ts";
import { seedDemo } from "../../lib/demo.ts";
import { todayUtc } from "../../lib/dates.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

Deno.test("demo data: a planned team with solid work, queues, focus tasks, subtasks and a late forecast", async () => {
  const db = await freshDatabase();
  try {
    const demo = await seedDemo(db.sql, { scrypt: TEST_SCRYPT });
    const app = mcpApp(db.sql, "A");
    const { owner, admin, member } = demo.ctx.users;
    const today = todayUtc();
    const to = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
    const plan = await callOk(app, demo.apiKey, "gantt_plan", { from: today, to, taskScope: "my_team" });
    const lanes = new Set(plan.bars.map((b: { userId: string }) => b.userId));
    assert.deepEqual([...lanes].sort(), [owner, admin, member].sort());
    const kinds = (u: string) =>
      new Set(
        plan.bars.filter((b: { userId: string }) => b.userId === u).map((b: { kind: string }) => b.kind),
      );
    assert.deepEqual([...kinds(admin)].sort(), ["ghost", "solid"]);
    assert.ok(kinds(member).has("ghost"));
    assert.ok(
      plan.bars.some((b: { endsAfterDueDate: boolean }) => b.endsAfterDueDate),
      "one forecast is late",
    );
    // The admin's focus task is the first ghost of the lane.
    const firstGhost = plan.bars.find((b: { userId: string; kind: string }) =>
      b.userId === admin && b.kind === "ghost"
    );
    assert.equal(firstGhost.title, "Design system: colours, type, components");
    assert.equal(firstGhost.status, "in_progress");

    const tasks = (await callOk(app, demo.apiKey, "list_tasks", { projectPrefix: "WEB" })).items;
    assert.ok(tasks.length >= 6);
    const build = tasks.find((t: { title: string }) => t.title === "Build page templates");
    assert.equal(build.childTaskCount, 3);
    assert.match(build.displayId, /^WEB-\d+$/);
    assert.ok(tasks.some((t: { isForecastLate: boolean }) => t.isForecastLate));
    const full = await callOk(app, demo.apiKey, "get_task", { taskId: build.id });
    assert.equal(
      full.subtasks.find((s: { title: string }) => s.title === "Cross-browser check").title,
      "Cross-browser check",
    );
  } finally {
    await db.close();
  }
});
