// The people of the approval and operator page tests: Pia (a member) and Opal (an owner with the operator flag) in
// the workspace "Harbour Studio".
import { createUser } from "../../lib/accounts.ts";
import type { Sql } from "../../lib/db/client.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { TEST_SCRYPT } from "./app.ts";

export async function approvalWorld(
  sql: Sql,
  password: string,
): Promise<{ person: { id: string }; operator: { id: string }; ws: string }> {
  const person = await createUser(sql, { email: "pia@example.com", password, name: "Pia Person" }, {
    scrypt: TEST_SCRYPT,
  });
  const operator = await createUser(sql, { email: "ops@example.com", password, name: "Opal Ops" }, {
    scrypt: TEST_SCRYPT,
  });
  await sql`update users set operator = true where id = ${operator.id}`;
  const ws = (await createWorkspace(sql, "Harbour Studio", [...MODULES])).id;
  await addMember(sql, ws, operator.id, "owner", null);
  await addMember(sql, ws, person.id, "member", null);
  return { person, operator, ws };
}
