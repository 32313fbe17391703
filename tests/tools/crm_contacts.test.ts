// Contact tools through /mcp: create/update/list/export, every filter and sort, paging, CSV bytes, scope and roles.
import assert from "node:assert/strict";
import { freshDatabase } from "../helpers/db.ts";
import {
  buildFixture,
  callFails,
  callOk,
  callTool,
  type Fixture,
  listedTools,
  mcpApp,
  rpc,
} from "../helpers/mcp.ts";
import {
  CONTACT_SORT_FIELDS,
  CONTACT_TEXT_FILTERS,
  type ContactTextFilter,
  createContact,
  type NewContact,
} from "../../lib/workspace/contacts.ts";
import { MODULES } from "../../lib/workspace/modules.ts";

const db = await freshDatabase();
const f = await buildFixture(db.sql);
const appA = mcpApp(db.sql, "A");
const appB = mcpApp(db.sql, "B");
const MISSING = "00000000-0000-4000-8000-000000000000";

Deno.test.afterAll(() => db.close());

let seq = 0;
/** Inserts contacts straight through the domain module, as the owner of `fx` (no company). */
async function seed(fx: Fixture, items: NewContact[]): Promise<string[]> {
  const ids: string[] = [];
  for (const c of items) {
    const { id } = await createContact(db.sql, { workspaceId: fx.workspaceId, userId: fx.users.owner }, c);
    // distinct creation times (PGlite's clock may give equal ones), so "newest first" is well defined
    await db.sql`update contacts set created_at = now() + make_interval(secs => ${seq++}) where id = ${id}`;
    ids.push(id);
  }
  return ids;
}

Deno.test("create_contact: happy path in A and B, defaults, createdBy and company of a limited key", async () => {
  const c = await callOk(appA, f.keys.owner, "create_contact", {
    companyName: "Acme AG",
    contactName: "Ann Example",
    email: "ann@acme.test",
    phone: "+41 44 000 00 00",
    website: "https://acme.test",
    address: "Main street 1",
    city: "Zürich",
    country: "Switzerland",
    source: "fair",
    notes: "met at the fair",
    nextFollowUp: "2026-12-01",
  });
  assert.match(c.id, /^[0-9a-f-]{36}$/);
  assert.equal(c.status, "new");
  assert.equal(c.companyName, "Acme AG");
  assert.equal(c.city, "Zürich");
  assert.equal(c.nextFollowUp, "2026-12-01");
  assert.equal(c.createdBy, f.users.owner);
  assert.equal(c.companyId, null, "an unlimited key creates company-less contacts");
  assert.equal(c.firstName, null);
  assert.match(c.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // list_contacts: a compact row by default, the whole contact with full: true
  const listed = await callOk(appA, f.keys.owner, "list_contacts", { email: "ann@acme.test" });
  assert.deepEqual(listed.items, [{
    id: c.id,
    name: "Ann Example",
    companyName: "Acme AG",
    email: "ann@acme.test",
    status: "new",
    nextFollowUp: "2026-12-01",
  }]);
  const whole = await callOk(appA, f.keys.owner, "list_contacts", { email: "ann@acme.test", full: true });
  assert.deepEqual(whole.items, [c]);
  await callOk(appA, f.keys.owner, "update_contact", {
    contactId: c.id,
    contactName: null,
    firstName: "Ann",
    lastName: "Other",
  });
  assert.equal(
    (await callOk(appA, f.keys.owner, "list_contacts", { email: "ann@acme.test" })).items[0].name,
    "Ann Other",
    "without a contactName: first and last name",
  );
  await callOk(appA, f.keys.owner, "update_contact", {
    contactId: c.id,
    contactName: "Ann Example",
    firstName: null,
    lastName: null,
  });

  const b = await callOk(appB, f.keys.workspace, "create_contact", {
    contactName: "Via B",
    status: "qualified",
  });
  assert.equal(b.status, "qualified");
  assert.equal(b.createdBy, null, "a workspace key acts for no person");

  const limited = await callOk(appA, f.keys.limited, "create_contact", { email: "lim@x.test" });
  assert.equal(limited.companyId, f.companies.a);
  const scoped = await callOk(appA, f.keys.ownerCompanyA, "create_contact", { email: "scoped@x.test" });
  assert.equal(scoped.companyId, f.companies.a);
  const [row] = await db.sql`select workspace_id, company_id from contacts where id = ${scoped.id}`;
  assert.deepEqual({ ...row }, { workspace_id: f.workspaceId, company_id: f.companies.a });
});

Deno.test("create_contact: bad input is refused with invalid_input naming the field", async () => {
  let t = await callFails(appA, f.keys.owner, "create_contact", { email: "not-an-email" }, "invalid_input");
  assert.match(t, /email: must be an email address/);
  t = await callFails(
    appA,
    f.keys.owner,
    "create_contact",
    { contactName: "X", status: "hot" },
    "invalid_input",
  );
  assert.match(t, /status/);
  t = await callFails(
    appA,
    f.keys.owner,
    "create_contact",
    { contactName: "X", firstName: "Y" },
    "invalid_input",
  );
  assert.match(t, /unknown field firstName/, "create_contact takes only the fields of the issue");
  t = await callFails(
    appA,
    f.keys.owner,
    "create_contact",
    { contactName: "x".repeat(201) },
    "invalid_input",
  );
  assert.match(t, /contactName: must be at most 200 characters/);
  t = await callFails(
    appA,
    f.keys.owner,
    "create_contact",
    { nextFollowUp: "2026-02-30", email: "a@b.c" },
    "invalid_input",
  );
  assert.match(t, /nextFollowUp/);
});

Deno.test("create_contact: every field is optional — an empty, a notes-only and a city-only contact are created", async () => {
  const empty = await callOk(appA, f.keys.owner, "create_contact", {});
  assert.match(empty.id, /^[0-9a-f-]{36}$/);
  assert.equal(empty.status, "new");
  assert.equal(empty.contactName, null);
  assert.equal(empty.notes, null);
  const notes = await callOk(appB, f.keys.workspace, "create_contact", { notes: "met at the fair" });
  assert.equal(notes.notes, "met at the fair");
  assert.equal(notes.companyName, null);
  const city = await callOk(appA, f.keys.owner, "create_contact", { city: "Bern" });
  assert.equal(city.city, "Bern");
  const [row] = await db.sql`select count(*)::int as n from contacts where id = any(${[
    empty.id,
    notes.id,
    city.id,
  ]})`;
  assert.equal(row.n, 3);
});

Deno.test("update_contact: changes given fields, clears with null, refuses bad input, not_found for foreign ids", async () => {
  const c = await callOk(appA, f.keys.owner, "create_contact", {
    contactName: "Upd Me",
    notes: "old",
    city: "Bern",
  });
  const u = await callOk(appA, f.keys.admin, "update_contact", {
    contactId: c.id,
    status: "proposal",
    firstName: "Upd",
    lastName: "Me",
    mobileNumber: "079",
    postalCode: "3000",
    state: "BE",
    department: "Sales",
    groups: "vip, fair",
    vatNumber: "CHE-1",
    assignedTo: f.users.manager,
    notes: null,
    city: "",
    email: "upd@x.test",
    nextFollowUp: "2027-01-02",
  });
  assert.equal(u.status, "proposal");
  assert.equal(u.firstName, "Upd");
  assert.equal(u.assignedTo, f.users.manager);
  assert.equal(u.notes, null);
  assert.equal(u.city, null, '"" clears a field');
  assert.equal(u.contactName, "Upd Me", "omitted fields stay");
  assert.equal(u.nextFollowUp, "2027-01-02");
  const cleared = await callOk(appA, f.keys.owner, "update_contact", {
    contactId: c.id,
    assignedTo: null,
    email: null,
  });
  assert.equal(cleared.assignedTo, null);
  assert.equal(cleared.email, null);

  await callFails(appA, f.keys.owner, "update_contact", { contactId: c.id }, "invalid_input");
  await callFails(appA, f.keys.owner, "update_contact", { contactId: "nope", city: "x" }, "invalid_input");
  await callFails(appA, f.keys.owner, "update_contact", { contactId: c.id, status: "won!" }, "invalid_input");
  await callFails(appA, f.keys.owner, "update_contact", { contactId: c.id, status: null }, "invalid_input");
  await callFails(appA, f.keys.owner, "update_contact", { contactId: c.id, email: "bad" }, "invalid_input");
  await callFails(appA, f.keys.owner, "update_contact", { contactId: MISSING, city: "x" }, "not_found");
  const t = await callFails(appA, f.keys.owner, "update_contact", {
    contactId: c.id,
    assignedTo: f.other.ownerId,
  }, "not_found");
  assert.match(t, /assignedTo/);
  // another workspace cannot touch it, and learns nothing about it
  const other = await callFails(
    appA,
    f.other.key,
    "update_contact",
    { contactId: c.id, city: "x" },
    "not_found",
  );
  assert.equal(other, `not_found: contactId: no contact ${c.id}`);
  // a key limited to company a cannot reach the company-less contact
  await callFails(appA, f.keys.limited, "update_contact", { contactId: c.id, city: "x" }, "not_found");
});

Deno.test("list_contacts: each text filter matches case-insensitively by substring", async () => {
  const fx = await buildFixture(db.sql);
  const fields = Object.keys(CONTACT_TEXT_FILTERS) as ContactTextFilter[];
  // one contact per field holding a unique marker there, plus a noise contact
  const ids = await seed(
    fx,
    fields.map((field, i) => ({ contactName: `Plain ${i}`, [field]: `Mark${field}Value` })),
  );
  await seed(fx, [{ contactName: "Noise" }]);
  for (const [i, field] of fields.entries()) {
    const r = await callOk(appA, fx.keys.owner, "list_contacts", {
      [field]: `mark${field.toLowerCase()}VAL`,
    });
    assert.deepEqual(r.items.map((c: { id: string }) => c.id), [ids[i]], `filter ${field}`);
    assert.equal(r.total, 1);
  }
  // status and assignedTo are exact filters
  await callOk(appA, fx.keys.owner, "update_contact", {
    contactId: ids[0],
    status: "won",
    assignedTo: fx.users.member,
  });
  const won = await callOk(appA, fx.keys.owner, "list_contacts", { status: "won" });
  assert.deepEqual(won.items.map((c: { id: string }) => c.id), [ids[0]]);
  const mine = await callOk(appA, fx.keys.owner, "list_contacts", { assignedTo: fx.users.member });
  assert.deepEqual(mine.items.map((c: { id: string }) => c.id), [ids[0]]);
});

Deno.test("list_contacts: search spans name, company, email and phone; filters combine with AND; % and _ are literal", async () => {
  const fx = await buildFixture(db.sql);
  const [byName, byCompany, byEmail, byPhone, byFirst, other] = await seed(fx, [
    { contactName: "Zelda Findme" },
    { companyName: "FINDME Holding" },
    { email: "x.findme@y.test" },
    { phone: "+1 555 findme" },
    { firstName: "Find", lastName: "Me Too", city: "Oslo" },
    { contactName: "Unrelated", city: "Findmetown" },
  ]);
  const s = await callOk(appA, fx.keys.owner, "list_contacts", {
    search: "findme",
    sortField: "createdAt",
    sortDirection: "asc",
  });
  assert.deepEqual(s.items.map((c: { id: string }) => c.id), [byName, byCompany, byEmail, byPhone]);
  assert.equal(s.total, 4);
  const full = await callOk(appA, fx.keys.owner, "list_contacts", { search: "find me" });
  assert.deepEqual(full.items.map((c: { id: string }) => c.id), [byFirst], "first + last name together");
  const and = await callOk(appA, fx.keys.owner, "list_contacts", { search: "find", city: "oslo" });
  assert.deepEqual(and.items.map((c: { id: string }) => c.id), [byFirst]);
  const none = await callOk(appA, fx.keys.owner, "list_contacts", { search: "findme", city: "oslo" });
  assert.deepEqual(none, {
    items: [],
    total: 0,
    limit: 50,
    offset: 0,
    hasMore: false,
    nextOffset: null,
    nextCursor: null,
  });
  assert.ok(other);

  const [pct, under] = await seed(fx, [{ contactName: "100% sure" }, { contactName: "snake_case" }]);
  await seed(fx, [{ contactName: "1000 sure" }, { contactName: "snakeXcase" }]);
  const p = await callOk(appA, fx.keys.owner, "list_contacts", { contactName: "0%" });
  assert.deepEqual(p.items.map((c: { id: string }) => c.id), [pct]);
  const u = await callOk(appA, fx.keys.owner, "list_contacts", { search: "e_c" });
  assert.deepEqual(u.items.map((c: { id: string }) => c.id), [under]);
});

Deno.test("list_contacts: every sortField in both directions, default most recent first, unknown sortField refused", async () => {
  const fx = await buildFixture(db.sql);
  const rows: NewContact[] = [
    {
      companyName: "beta",
      contactName: "Carl",
      firstName: "b",
      lastName: "y",
      email: "b@x",
      phone: "2",
      city: "Bern",
      postalCode: "2",
      state: "B",
      country: "CH",
      department: "b",
      source: "b",
      status: "won",
      nextFollowUp: "2026-02-01",
    },
    {
      companyName: "Alpha",
      contactName: "anna",
      firstName: "A",
      lastName: "z",
      email: "a@x",
      phone: "1",
      city: "aarau",
      postalCode: "1",
      state: "a",
      country: "at",
      department: "A",
      source: "A",
      status: "contacted",
      nextFollowUp: "2026-01-01",
    },
    {
      companyName: "gamma",
      contactName: "Bob",
      firstName: "c",
      lastName: "X",
      email: "c@x",
      phone: "3",
      city: "Chur",
      postalCode: "3",
      state: "c",
      country: "de",
      department: "c",
      source: "c",
      status: "new",
      nextFollowUp: "2026-03-01",
    },
    { contactName: "empty" }, // empty values sort last in both directions
  ];
  const ids = await seed(fx, rows);
  // created in order: default = newest first
  const def = await callOk(appA, fx.keys.owner, "list_contacts", {});
  assert.deepEqual(def.items.map((c: { id: string }) => c.id), [...ids].reverse());
  for (const [field, column] of Object.entries(CONTACT_SORT_FIELDS)) {
    for (const dir of ["asc", "desc"] as const) {
      for (const name of [field, column]) {
        const r = await callOk(appA, fx.keys.owner, "list_contacts", {
          sortField: name,
          sortDirection: dir,
          full: true, // every sortable field in the row
        });
        const values = r.items.map((c: Record<string, string | null>) => c[field]);
        const present = values.filter((v: string | null) => v !== null);
        const nulls = values.slice(present.length);
        assert.ok(nulls.every((v: string | null) => v === null), `${name} ${dir}: empty values last`);
        const key = (v: string) => v.toLowerCase();
        const sorted = [...present].sort((x, y) => key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0);
        if (dir === "desc") sorted.reverse();
        if (field !== "createdAt" && field !== "updatedAt") {
          assert.deepEqual(present, sorted, `${name} ${dir}`);
        }
      }
    }
  }
  const byCompany = await callOk(appA, fx.keys.owner, "list_contacts", {
    sortField: "companyName",
    sortDirection: "asc",
  });
  assert.deepEqual(byCompany.items.map((c: { id: string }) => c.id), [ids[1], ids[0], ids[2], ids[3]]);
  const byStatus = await callOk(appA, fx.keys.owner, "list_contacts", {
    sortField: "status",
    sortDirection: "desc",
  });
  assert.deepEqual(byStatus.items.map((c: { status: string }) => c.status), [
    "won",
    "new",
    "new",
    "contacted",
  ]);

  for (const bad of ["password", "id; drop table contacts", "created_at desc", "CreatedAt", ""]) {
    const t = await callFails(appA, fx.keys.owner, "list_contacts", { sortField: bad }, "invalid_input");
    assert.match(t, /sortField: must be one of createdAt, updatedAt, companyName/);
  }
  await callFails(appA, fx.keys.owner, "list_contacts", { sortDirection: "up" }, "invalid_input");
  const [{ n }] = await db
    .sql`select count(*)::int as n from contacts where workspace_id = ${fx.workspaceId}`;
  assert.equal(n, 4);
});

Deno.test("list_contacts: paging with limit/offset and a total; limits enforced", async () => {
  const fx = await buildFixture(db.sql);
  const ids = await seed(fx, Array.from({ length: 7 }, (_, i) => ({ contactName: `Page ${i}` })));
  const newest = [...ids].reverse();
  const p1 = await callOk(appA, fx.keys.owner, "list_contacts", { limit: 3 });
  assert.deepEqual(p1.items.map((c: { id: string }) => c.id), newest.slice(0, 3));
  assert.deepEqual([p1.total, p1.limit, p1.offset, p1.hasMore], [7, 3, 0, true]);
  const p3 = await callOk(appA, fx.keys.owner, "list_contacts", { limit: 3, offset: 6 });
  assert.deepEqual(p3.items.map((c: { id: string }) => c.id), newest.slice(6));
  assert.deepEqual([p3.total, p3.hasMore], [7, false]);
  const past = await callOk(appA, fx.keys.owner, "list_contacts", { offset: 50 });
  assert.deepEqual([past.items.length, past.total], [0, 7]);
  await callFails(appA, fx.keys.owner, "list_contacts", { limit: 0 }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_contacts", { limit: 101 }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_contacts", { offset: -1 }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_contacts", { city: 7 }, "invalid_input");
  await callFails(appA, fx.keys.owner, "list_contacts", { assignedTo: "bob" }, "invalid_input");
});

Deno.test("list_contacts and export_contacts: company scope and workspace isolation", async () => {
  const fx = await buildFixture(db.sql);
  const [none] = await seed(fx, [{ contactName: "No company" }]);
  const inA = await callOk(appA, fx.keys.limited, "create_contact", { contactName: "In A" });
  const [inB] = await db.sql<{ id: string }[]>`
    insert into contacts (workspace_id, company_id, contact_name) values (${fx.workspaceId}, ${fx.companies.b}, 'In B')
    returning id`;
  const all = await callOk(appA, fx.keys.owner, "list_contacts", {
    sortField: "contactName",
    sortDirection: "asc",
  });
  assert.deepEqual(all.items.map((c: { id: string }) => c.id), [inA.id, inB.id, none]);
  const lim = await callOk(appA, fx.keys.limited, "list_contacts", {});
  assert.deepEqual(lim.items.map((c: { id: string }) => c.id), [inA.id]);
  assert.equal(lim.total, 1);
  const keyA = await callOk(appA, fx.keys.ownerCompanyA, "list_contacts", {});
  assert.deepEqual(keyA.items.map((c: { id: string }) => c.id), [inA.id]);
  await callFails(appA, fx.keys.limited, "update_contact", { contactId: inB.id, city: "x" }, "not_found");
  const ex = await callTool(appA, fx.keys.limited, "export_contacts", {});
  assert.equal((ex.structuredContent as { rows: number }).rows, 1);
  // the other workspace sees none of them
  const other = await callOk(appA, fx.other.key, "list_contacts", {});
  assert.equal(other.total, 0);
  const otherEx = await callTool(appA, fx.other.key, "export_contacts", {});
  assert.equal((otherEx.structuredContent as { rows: number }).rows, 0);
});

Deno.test("contact tools: role gating, module gating and variants", async () => {
  for (const role of ["accounting", "guest"] as const) {
    for (
      const [tool, args] of [["list_contacts", {}], ["export_contacts", {}], ["create_contact", {
        email: "a@b.c",
      }], [
        "update_contact",
        { contactId: MISSING, city: "x" },
      ]] as const
    ) {
      const t = await callFails(appA, f.keys[role], tool, args, "access_denied");
      assert.match(t, new RegExp(`the ${role} role may not use contacts tools`));
    }
    const listed = await listedTools(appA, f.keys[role]);
    assert.ok(!listed.includes("list_contacts"));
  }
  for (const role of ["owner", "admin", "manager", "member"] as const) {
    await callOk(appA, f.keys[role], "list_contacts", { limit: 1 });
  }
  const noCrm = await buildFixture(db.sql, { modules: MODULES.filter((m) => m !== "crm") });
  const t = await callFails(appA, noCrm.keys.owner, "list_contacts", {}, "unavailable");
  assert.match(t, /crm module is disabled/);
  // variant B offers create_contact only
  const b = await listedTools(appB, f.keys.workspace);
  assert.ok(b.includes("create_contact"));
  for (const name of ["list_contacts", "export_contacts", "update_contact"]) {
    assert.ok(!b.includes(name), name);
    const r = await rpc(appB, f.keys.workspace, "tools/call", { name, arguments: {} });
    assert.equal(r.body.error.code, -32602);
  }
});

/** Parses the exported CSV (after the BOM) by RFC 4180, for checking. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], cell = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"', i++);
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") (row.push(cell), cell = "");
    else if (ch === "\r" && text[i + 1] === "\n") (row.push(cell), rows.push(row), row = [], cell = "", i++);
    else cell += ch;
  }
  assert.equal(cell, "", "the file ends with CRLF");
  return rows;
}

Deno.test("export_contacts: embedded text/csv resource with BOM, header, RFC 4180 quoting and formula guard", async () => {
  const fx = await buildFixture(db.sql);
  await seed(fx, [
    { companyName: 'Quote "Co", Ltd', contactName: "Multi\nLine", email: "q@x.test" },
    { companyName: '=HYPERLINK("http://evil")', contactName: "+41 79", phone: "-1", notes: "@SUM(A1)" },
    { contactName: "\tTab", city: "\rCR", groups: "a=b" },
    { contactName: "Zürich Ünicode" },
  ]);
  const r = await rpc(appA, fx.keys.owner, "tools/call", {
    name: "export_contacts",
    arguments: { sortField: "createdAt", sortDirection: "asc" },
  });
  assert.equal(r.status, 200);
  const result = r.body.result;
  assert.equal(result.isError, undefined);
  assert.equal(result.content.length, 2);
  const summary = JSON.parse(result.content[0].text);
  assert.deepEqual({ rows: summary.rows, matched: summary.matched, truncated: summary.truncated }, {
    rows: 4,
    matched: 4,
    truncated: false,
  });
  assert.deepEqual(result.structuredContent, summary);
  const res = result.content[1];
  assert.equal(res.type, "resource");
  assert.equal(res.resource.mimeType, "text/csv");
  assert.equal(res.resource.uri, summary.uri);
  assert.match(
    res.resource.uri,
    new RegExp(`^portico://workspaces/${fx.workspaceId}/exports/contacts-\\d{8}T\\d{6}Z\\.csv$`),
  );
  const csv: string = res.resource.text;
  const bytes = new TextEncoder().encode(csv);
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 BOM");
  const lines = csv.slice(1).split("\r\n");
  assert.equal(
    lines[0],
    "id,companyId,companyName,contactName,firstName,lastName,email,phone,mobileNumber,website,address,postalCode," +
      "city,state,country,department,groups,source,status,vatNumber,assignedTo,notes,nextFollowUp,createdBy," +
      "createdAt,updatedAt",
  );
  assert.ok(
    csv.includes(`,"Quote ""Co"", Ltd","Multi\nLine",`),
    "quotes doubled, fields with , and LF quoted",
  );
  assert.ok(csv.includes(`,"'=HYPERLINK(""http://evil"")",'+41 79,`), "= and + neutralised");
  assert.ok(csv.includes(`,'-1,`), "- neutralised");
  assert.ok(csv.includes(`,'@SUM(A1),`), "@ neutralised");
  assert.ok(csv.includes(`,'\tTab,`), "tab neutralised");
  assert.ok(csv.includes(`,"'\rCR",`), "CR neutralised and quoted");
  assert.ok(csv.includes(",a=b,"), "only a leading character counts");
  const parsed = parseCsv(csv.slice(1));
  assert.equal(parsed.length, 5);
  assert.ok(parsed.every((row) => row.length === 26));
  assert.equal(parsed[1][2], 'Quote "Co", Ltd');
  assert.equal(parsed[1][3], "Multi\nLine");
  assert.equal(parsed[4][3], "Zürich Ünicode");
  assert.ok(csv.endsWith("\r\n"));

  // filters and sort apply as in list_contacts; bad sort refused
  const one = await callTool(appA, fx.keys.owner, "export_contacts", { search: "zürich" });
  assert.equal((one.structuredContent as { rows: number }).rows, 1);
  await callFails(appA, fx.keys.owner, "export_contacts", { sortField: "nope" }, "invalid_input");
  await callFails(appA, fx.keys.owner, "export_contacts", { limit: 5 }, "invalid_input");
});

Deno.test("export_contacts: at most 10,000 rows, and says so when more matched", async () => {
  const fx = await buildFixture(db.sql);
  await db.sql`
    insert into contacts (workspace_id, contact_name, email, created_at)
    select ${fx.workspaceId}, 'Bulk ' || g, 'bulk' || g || '@x.test', now() - make_interval(secs => g)
      from generate_series(1, 10003) g`;
  const r = await rpc(appA, fx.keys.owner, "tools/call", { name: "export_contacts", arguments: {} });
  const result = r.body.result;
  assert.deepEqual(
    {
      rows: result.structuredContent.rows,
      matched: result.structuredContent.matched,
      truncated: result.structuredContent.truncated,
    },
    { rows: 10000, matched: 10003, truncated: true },
  );
  assert.match(
    result.structuredContent.message,
    /10003 contacts matched; only the first 10000 were exported/,
  );
  // 10,000 rows are far over the inline limit: the CSV comes from the link (tests/mcp/export_link.test.ts)
  assert.equal(result.content[1].type, "resource_link");
  const file = await (await appA.request(result.content[1].uri)).text();
  const lines = file.split("\r\n");
  assert.equal(lines.length, 10002, "header + 10000 rows + the empty string after the last CRLF");
  assert.ok(lines[1].includes(",Bulk 1,"), "newest first");
  assert.ok(lines[10000].includes(",Bulk 10000,"));
  const exact = await callTool(appA, fx.keys.owner, "export_contacts", { contactName: "bulk 1000" });
  // Bulk 1000, Bulk 10000-10003
  assert.deepEqual(exact.structuredContent?.truncated, false);
  assert.equal(exact.structuredContent?.rows, 5);
});
