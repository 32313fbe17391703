// Demo projects for the demo workspace (appended to DEMO_SEEDERS in lib/demo.ts).
import type { Db } from "../db/client.ts";
import type { DemoContext } from "./demo_context.ts";
import { createProject, setProjectStatus } from "./projects.ts";

export async function seedDemoProjects(db: Db, ctx: DemoContext): Promise<void> {
  const [north, south] = ctx.companyIds;
  const [acme] = await db<{ id: string }[]>`
    insert into clients (workspace_id, company_id, name) values (${ctx.workspaceId}, ${north}, 'Acme Corp')
    returning id`;
  const [globex] = await db<{ id: string }[]>`
    insert into clients (workspace_id, company_id, name) values (${ctx.workspaceId}, ${south}, 'Globex GmbH')
    returning id`;
  const owner = { workspaceId: ctx.workspaceId, userId: ctx.users.owner };
  await createProject(db, owner, {
    name: "Website relaunch",
    clientId: acme.id,
    description: "New marketing site with a booking flow.",
    startDate: "2026-01-12",
    endDate: "2026-04-30",
    budget: 24000,
    estimatedHours: 180,
    currency: "EUR",
    taskPrefix: "WEB",
  });
  await createProject(db, owner, {
    name: "Quarterly reporting",
    clientId: globex.id,
    startDate: "2026-02-01",
    budget: "6500.50",
    estimatedHours: 40,
    currency: "EUR",
    taskPrefix: "REP",
  });
  const done = await createProject(db, owner, {
    name: "Brand workshop",
    companyId: north,
    budget: 3200,
    currency: "EUR",
  });
  await setProjectStatus(db, owner, done.id, "completed");
}
