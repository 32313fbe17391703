// export_contacts of 10,000 contacts: CSV building alone, the chunked-cursor export, a one-shot query, and /mcp.
//
// Run with `deno task bench` (DATABASE_URL for Postgres, else embedded PGlite). Prints times; asserts nothing.
import { toCsv } from "../lib/csv.ts";
import {
  type Contact,
  CONTACT_CSV_COLUMNS,
  EXPORT_CHUNK,
  exportContacts,
} from "../lib/workspace/contacts.ts";
import { buildFixture } from "../tests/helpers/mcp.ts";
import { measure, measureToolCall } from "./util.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";

const CONTACTS = 10_000;

export async function benchContactsExport(): Promise<void> {
  console.log(`\n== export_contacts of ${CONTACTS} contacts ==`);
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    // Every column filled; some cells need quoting or the formula guard, as real address books do.
    await db.sql`
      insert into contacts (workspace_id, company_name, contact_name, first_name, last_name, email, phone,
                            mobile_number, website, address, postal_code, city, state, country, department,
                            groups, source, status, vat_number, notes, next_follow_up, created_at)
      select ${f.workspaceId}, 'Company ' || i || case when i % 5 = 0 then ', Ltd' else '' end,
             'Person ' || i, 'First' || i, 'Last' || i, 'person' || i || '@example.test',
             '+41 44 ' || lpad((i % 10000)::text, 4, '0'), '079 ' || i, 'https://c' || i || '.example.test',
             'Street ' || i || case when i % 7 = 0 then E'\nBuilding "B"' else '' end, lpad((i % 9999)::text, 4, '0'),
             'City ' || (i % 100), 'State', 'Switzerland', 'Sales', 'customers, vip', 'fair',
             (array['new','contacted','qualified','proposal','negotiation','won','lost'])[1 + i % 7],
             'CHE-' || i, case when i % 11 = 0 then '=SUM(A1:A9)' else 'Met at the fair' end,
             date '2026-01-01' + (i % 365), now() - make_interval(secs => i)
        from generate_series(1, ${CONTACTS}) i`;
    await db.sql`analyze contacts`;
    const caller = { workspaceId: f.workspaceId, userId: f.users.owner };

    // 1. One query holding every row, then encoded: what the cursor export avoids, and the encoder's share.
    let rows: Contact[] = [];
    const oneShot = await measure(async () => {
      rows = [
        ...await db.sql<Contact[]>`
        select id, company_id as "companyId", company_name as "companyName", contact_name as "contactName",
               first_name as "firstName", last_name as "lastName", email, phone, mobile_number as "mobileNumber",
               website, address, postal_code as "postalCode", city, state, country, department, groups, source,
               status, vat_number as "vatNumber", assigned_to as "assignedTo", notes,
               next_follow_up::text as "nextFollowUp", created_by as "createdBy",
               to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "createdAt",
               to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "updatedAt"
          from contacts where workspace_id = ${f.workspaceId}
         order by created_at desc nulls last, id desc limit ${CONTACTS}`,
      ];
    }, 3000);
    let bytes = 0;
    const encode = await measure(() => {
      bytes = toCsv(CONTACT_CSV_COLUMNS, rows.map((c) => CONTACT_CSV_COLUMNS.map((k) => c[k]))).length;
    }, 3000);
    console.log(
      `one query, all rows held: ${oneShot.ms.toFixed(1)} ms (${oneShot.runs} runs)`,
    );
    console.log(
      `CSV encoding only:        ${encode.ms.toFixed(1)} ms (${Math.round(CONTACTS / encode.ms)} rows/ms, ` +
        `${(bytes / 1024 / 1024).toFixed(2)} MiB, ${encode.runs} runs)`,
    );

    // 2. The lib export: count + cursor in chunks of EXPORT_CHUNK rows, one read-only snapshot.
    let out = { rows: 0, truncated: false };
    const lib = await measure(async () => {
      out = await exportContacts(db.sql, caller, {});
    }, 3000);
    console.log(
      `exportContacts (cursor of ${EXPORT_CHUNK}): ${lib.ms.toFixed(1)} ms (${out.rows} rows, truncated ` +
        `${out.truncated}, ${Math.round(out.rows / lib.ms)} rows/ms, ${lib.runs} runs); ` +
        `vs one query + encode = ${(lib.ms / (oneShot.ms + encode.ms)).toFixed(2)}x`,
    );

    // 4. The whole tool call through /mcp (auth, validation, export, JSON encoding of the resource).
    const app = testApp(db.sql, { MCP_VARIANT: "A" });
    const call = await measureToolCall(app, f.keys.owner, "export_contacts", {}, 3000, 1);
    const size = call.size;
    console.log(
      `export_contacts via /mcp: ${call.ms.toFixed(1)} ms per call (${db.server ? "Postgres" : "PGlite"}, ` +
        `${(size / 1024 / 1024).toFixed(2)} MiB answer, ${call.runs} runs); the export is ` +
        `${(100 * lib.ms / call.ms).toFixed(0)}% of it`,
    );
  } finally {
    await db.close();
  }
}

if (import.meta.main) await benchContactsExport();
