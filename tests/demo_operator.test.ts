// The demo person is an operator (issue 23): seeded as one, and a demo from before operators is made one, unless
// an operator decided about that account.
import assert from "node:assert/strict";
import { makeDemoOperator, seedDemo } from "../lib/demo.ts";
import { setOperator } from "../lib/oauth/approvals.ts";
import { findDemoAccount } from "../lib/demo_account.ts";
import { freshDatabase } from "./helpers/db.ts";
import { TEST_SCRYPT } from "./helpers/app.ts";

Deno.test("seedDemo makes the demo person, and only them, an operator; makeDemoOperator respects a revoke", async () => {
  const db = await freshDatabase();
  try {
    await seedDemo(db.sql, { scrypt: TEST_SCRYPT });
    const rows = await db.sql<{ email: string; operator: boolean }[]>`
      select email, operator from users order by email`;
    assert.deepEqual(rows.map((r) => [r.email, r.operator]), [
      ["ada@portico.local", false],
      ["alex@portico.local", false],
      ["demo@portico.local", true],
      ["milo@portico.local", false],
    ]);
    const [{ n }] = await db.sql`select count(*)::int as n from operator_decisions`;
    assert.equal(n, 0, "seeding is nobody's decision");

    const demo = (await findDemoAccount(db.sql))!;
    assert.equal(await makeDemoOperator(db.sql, demo.userId), false, "already one: nothing to do");
    // a demo made before operators existed
    await db.sql`update users set operator = false where id = ${demo.userId}`;
    assert.equal(await makeDemoOperator(db.sql, demo.userId), true);
    assert.equal(await makeDemoOperator(db.sql, demo.userId), false);
    const [on] = await db.sql`select operator from users where id = ${demo.userId}`;
    assert.equal(on.operator, true);

    // an operator's revoke is recorded, and a later start leaves it
    assert.equal(await setOperator(db.sql, demo.userId, false, { via: "cli" }), true);
    assert.equal(await makeDemoOperator(db.sql, demo.userId), false);
    const [off] = await db.sql`select operator from users where id = ${demo.userId}`;
    assert.equal(off.operator, false);
  } finally {
    await db.close();
  }
});
