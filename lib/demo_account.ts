// The demo person and workspace the first `deno task dev` creates: their names, and finding them again later.
import type { Db } from "./db/client.ts";

/** The demo person `lib/demo.ts` creates; `demo reset-password` and a later start's banner look for it. */
export const DEMO_EMAIL = "demo@portico.local";
/** The demo workspace `lib/demo.ts` creates, with the demo person as its owner. */
export const DEMO_WORKSPACE_NAME = "Demo Studio";

export interface DemoAccount {
  email: string;
  userId: string;
  /** the demo workspace the person still belongs to; null once it (or the membership) is gone */
  workspaceId: string | null;
}

/** The demo person, if the demo data is still there (a later start's banner names it; its password is unknown). */
export async function findDemoAccount(db: Db): Promise<DemoAccount | undefined> {
  const [row] = await db<{ id: string; email: string; workspaceId: string | null }[]>`
    select u.id, u.email,
           (select m.workspace_id
              from workspace_members m
              join workspaces w on w.id = m.workspace_id
             where m.user_id = u.id and w.name = ${DEMO_WORKSPACE_NAME}
             order by w.created_at
             limit 1) as "workspaceId"
      from users u
     where lower(u.email) = ${DEMO_EMAIL}`;
  return row ? { email: row.email, userId: row.id, workspaceId: row.workspaceId } : undefined;
}
