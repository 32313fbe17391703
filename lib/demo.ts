// Demo data for the first `deno task dev` on an empty embedded database: people, agents, a workspace, a key.
import type { Db, Sql } from "./db/client.ts";
import { withTx } from "./db/tx.ts";
import { randomToken, type ScryptParams } from "./crypto.ts";
import { createAgent, createUser, subscribeAgent, unlockAgent } from "./accounts.ts";
import { addMember, createCompany, createWorkspace } from "./workspace/workspaces.ts";
import { MODULES } from "./workspace/modules.ts";
import { createApiKey } from "./api_keys.ts";
import { seedDemoProjects } from "./workspace/projects_demo.ts";
import type { DemoContext } from "./workspace/demo_context.ts";
import { seedDemoPersonal } from "./workspace/personal_demo.ts";
import { seedDemoTasks } from "./workspace/tasks_demo.ts";
import { seedDemoCommercial } from "./workspace/commercial_demo.ts";
import { seedDemoCrm } from "./workspace/crm_demo.ts";
import { DEMO_EMAIL, DEMO_WORKSPACE_NAME } from "./demo_account.ts";

export type { DemoContext };

/** Domain seeders add sample records of their own tables; later issues append to this list. */
export const DEMO_SEEDERS: Array<(db: Db, ctx: DemoContext) => Promise<void>> = [seedDemoProjects];
// Tasks before personal work: the demo's time logs are booked on the first tasks, which must exist by then.
DEMO_SEEDERS.push(seedDemoTasks);
DEMO_SEEDERS.push(seedDemoPersonal);
DEMO_SEEDERS.push(seedDemoCommercial);
DEMO_SEEDERS.push(seedDemoCrm);

export interface DemoResult {
  email: string;
  password: string;
  apiKey: string;
  ctx: DemoContext;
}

export async function isEmpty(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from users`;
  return row.n === 0;
}

/** `scrypt` is for tests only (a cheap cost for the demo people's passwords); a server always leaves it out. */
export async function seedDemo(sql: Sql, opts: { scrypt?: ScryptParams } = {}): Promise<DemoResult> {
  const password = randomToken("", 12);
  const email = DEMO_EMAIL;
  const hashing = { scrypt: opts.scrypt };
  return await withTx(sql, async (tx) => {
    const owner =
      (await createUser(tx, { email, password, name: "Dana Demo", plan: "pro", credits: 500 }, hashing)).id;
    // On a laptop the person at the browser is also the operator: they approve apps in one click (issue 23).
    await tx`update users set operator = true where id = ${owner}`;
    const other = async (name: string, mail: string) =>
      (await createUser(tx, { email: mail, password: randomToken(), name }, hashing)).id;
    const admin = await other("Alex Admin", "alex@portico.local");
    const accounting = await other("Ada Accounting", "ada@portico.local");
    const member = await other("Milo Member", "milo@portico.local");

    const research = (await createAgent(tx, "Research Assistant")).id;
    const sales = (await createAgent(tx, "Sales Coach")).id;
    await unlockAgent(tx, owner, research);
    await subscribeAgent(tx, owner, sales, "monthly");

    const workspaceId = (await createWorkspace(tx, DEMO_WORKSPACE_NAME, [...MODULES])).id;
    const north = (await createCompany(tx, workspaceId, "Demo North Ltd")).id;
    const south = (await createCompany(tx, workspaceId, "Demo South Ltd")).id;
    await addMember(tx, workspaceId, owner, "owner", null);
    await addMember(tx, workspaceId, admin, "admin", null);
    await addMember(tx, workspaceId, accounting, "accounting", null);
    await addMember(tx, workspaceId, member, "member", [north]);

    const { key } = await createApiKey(tx, { workspaceId, userId: owner, kind: "user", name: "demo key" });
    const ctx: DemoContext = {
      workspaceId,
      companyIds: [north, south],
      users: { owner, admin, accounting, member },
      agentIds: [research, sales],
    };
    for (const seed of DEMO_SEEDERS) await seed(tx, ctx);
    return { email, password, apiKey: key, ctx };
  });
}

/**
 * Makes the demo person an operator when a demo made before operators existed is started again (`deno task dev`
 * only; main.ts). An operator's explicit decision about that account (`admin user operator --revoke`, in
 * operator_decisions) is left alone. True when the flag was set now.
 */
export async function makeDemoOperator(db: Db, userId: string): Promise<boolean> {
  const rows = await db`
    update users set operator = true
     where id = ${userId} and not operator
       and not exists (select 1 from operator_decisions
                        where subject = ${userId}::text and action in ('grant_operator', 'revoke_operator'))
    returning id`;
  return rows.length > 0;
}
