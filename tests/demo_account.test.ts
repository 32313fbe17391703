// A later start finds the demo person and workspace again by the names lib/demo.ts gives them.
import assert from "node:assert/strict";
import { createUser } from "../lib/accounts.ts";
import { DEMO_EMAIL, DEMO_WORKSPACE_NAME, findDemoAccount } from "../lib/demo_account.ts";
import { addMember, createWorkspace } from "../lib/workspace/workspaces.ts";
import { TEST_SCRYPT } from "./helpers/app.ts";
import { freshDatabase } from "./helpers/db.ts";

Deno.test("findDemoAccount: the demo person with the demo workspace, without it, and nobody", async () => {
  const db = await freshDatabase();
  try {
    assert.equal(await findDemoAccount(db.sql), undefined);
    const other = await createWorkspace(db.sql, "Elsewhere", []);
    const demo = await createUser(db.sql, { email: "Demo@Portico.local", password: "12345678" }, {
      scrypt: TEST_SCRYPT,
    });
    await addMember(db.sql, other.id, demo.id, "member", null);
    // an account of that email in another workspace only: no demo workspace to name
    assert.deepEqual(await findDemoAccount(db.sql), {
      email: "Demo@Portico.local",
      userId: demo.id,
      workspaceId: null,
    });
    const studio = await createWorkspace(db.sql, DEMO_WORKSPACE_NAME, []);
    await addMember(db.sql, studio.id, demo.id, "owner", null);
    assert.deepEqual(await findDemoAccount(db.sql), {
      email: "Demo@Portico.local",
      userId: demo.id,
      workspaceId: studio.id,
    });
    assert.equal(DEMO_EMAIL, "demo@portico.local");
  } finally {
    await db.close();
  }
});
