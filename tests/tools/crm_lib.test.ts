// lib/workspace/contacts.ts pieces without HTTP: LIKE escaping, the sort whitelist, the export cap and snapshot.
import assert from "node:assert/strict";
import { createContact, exportContacts, sortColumn } from "../../lib/workspace/contacts.ts";
import { likePattern } from "../../lib/db/sql.ts";
import { freshDatabase } from "../helpers/db.ts";
import { buildFixture, callOk, mcpApp } from "../helpers/mcp.ts";

Deno.test("likePattern takes %, _ and backslash literally", () => {
  assert.equal(likePattern("abc"), "%abc%");
  assert.equal(likePattern("50%"), "%50\\%%");
  assert.equal(likePattern("a_b"), "%a\\_b%");
  assert.equal(likePattern("c:\\x"), "%c:\\\\x%");
});

Deno.test("sortColumn maps whitelisted names (camelCase or column) and refuses everything else", () => {
  assert.deepEqual(sortColumn(undefined), { column: "created_at", text: false });
  assert.deepEqual(sortColumn("companyName"), { column: "company_name", text: true });
  assert.deepEqual(sortColumn("company_name"), { column: "company_name", text: true });
  assert.deepEqual(sortColumn("nextFollowUp"), { column: "next_follow_up", text: false });
  for (const bad of ["notes", "id", "company_name desc", "1", "created_at; select 1"]) {
    assert.throws(
      () => sortColumn(bad),
      (e: Error) => e.toString().startsWith("invalid_input: sortField: must be"),
    );
  }
});

Deno.test("exportContacts: the cap, a transaction handed in, and SQL in filters is only text", async () => {
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const caller = { workspaceId: f.workspaceId, userId: f.users.owner };
    for (const name of ["One", "Two", "Three"]) await createContact(db.sql, caller, { contactName: name });
    const capped = await exportContacts(
      db.sql,
      caller,
      { sortField: "contactName", sortDirection: "asc" },
      2,
    );
    assert.deepEqual({ rows: capped.rows, matched: capped.matched, truncated: capped.truncated }, {
      rows: 2,
      matched: 3,
      truncated: true,
    });
    assert.equal(capped.csv.split("\r\n").length, 4, "header + 2 rows + trailing empty");
    assert.ok(
      capped.csv.includes(",One,") && capped.csv.includes(",Three,") && !capped.csv.includes(",Two,"),
    );
    const inTx = await db.sql.begin((tx) => exportContacts(tx, caller, {}));
    assert.equal(inTx.rows, 3);

    const app = mcpApp(db.sql, "A");
    for (const evil of ["'; drop table contacts; --", "%' or '1'='1", "\\"]) {
      const r = await callOk(app, f.keys.owner, "list_contacts", { contactName: evil, search: evil });
      assert.equal(r.total, 0);
    }
    const [{ n }] = await db.sql`select count(*)::int as n from contacts`;
    assert.equal(n, 3);
    // variant B: a workspace key limited to company a creates contacts of company a
    const b = await callOk(mcpApp(db.sql, "B"), f.keys.workspaceCompanyA, "create_contact", {
      contactName: "B-A",
    });
    assert.equal(b.companyId, f.companies.a);
  } finally {
    await db.close();
  }
});
