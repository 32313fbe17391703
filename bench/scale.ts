// Lists, searches, exports and Gantt at 1k, 10k and 100k rows per domain in one workspace (issue 17 point 4).
//
// One workspace grows through the sizes (rows are added, never rebuilt) beside a noise workspace that grows the
// same way, so every query also has to skip another workspace's rows. Each row of the table is the median of a
// few tools/call answers through the app in-process. Goals: a search or a first page at the largest size within
// 2x of the smallest; export_contacts of 10,000 rows under 1 s; gantt_plan over 2,000 tasks under 200 ms.
// Run with `deno task bench --bench=scale [--scale=1000,10000,100000]`. Prints; asserts nothing.
import type { Sql } from "../lib/db/client.ts";
import { todayUtc } from "../lib/dates.ts";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";

export const DEFAULT_SCALE = [1_000, 10_000, 100_000];
/** Calls per row (after one warm-up call); the median is shown. */
const CALLS = 5;
/** The term the searches look for: in 10 rows of each domain whatever the size (rows 7, 107, … 907). */
const RARE = "quokka";
/** Tasks planned by gantt_plan: the first 2,000 of each workspace are dated and assigned, the rest are not. */
const GANTT_TASKS = 2_000;

/** Adds rows `from+1 … to` of every domain to one workspace, in SQL (generate_series), then analyzes. */
export async function seed(sql: Sql, ws: string, owner: string, people: string[], from: number, to: number) {
  const rare = (col: string) => `case when i <= 1000 and i % 100 = 7 then ' ${RARE} ' else ' ' end || ${col}`;
  await sql`
    insert into contacts (workspace_id, company_name, contact_name, first_name, last_name, email, phone,
                          mobile_number, address, postal_code, city, country, status, notes, created_at)
    select ${ws}, 'Company ' || i || ${sql.unsafe(rare("''"))}, 'Person ' || i, 'First' || i, 'Last' || i,
           'person' || i || '@example.test', '+41 44 ' || lpad((i % 10000)::text, 4, '0'), '079 ' || i,
           'Street ' || i, lpad((i % 9999)::text, 4, '0'), 'City ' || (i % 100), 'Switzerland',
           (array['new','contacted','qualified','proposal','negotiation','won','lost'])[1 + i % 7],
           'Met at the fair', now() - make_interval(secs => i)
      from generate_series(${from + 1}::int, ${to}::int) i`;
  await sql`
    insert into tasks (workspace_id, title, description, status, start_date, due_date, estimated_hours,
                       sort_order, created_by, created_at)
    select ${ws}, 'Task ' || i || ${sql.unsafe(rare("''"))}, 'Do the thing number ' || i,
           case when i % 10 = 0 then 'in_progress' else 'todo' end,
           case when i <= ${GANTT_TASKS} and i % 4 = 0 then ${todayUtc()}::date + (i % 200) end,
           case when i <= ${GANTT_TASKS} and i % 3 = 0 then ${todayUtc()}::date + (i % 200) + (i % 17) + 1 end,
           case when i % 7 = 0 then null else (i % 5) * 3 + 1 end,
           i, ${owner}, now() - make_interval(secs => i)
      from generate_series(${from + 1}::int, ${to}::int) i`;
  if (from < GANTT_TASKS) {
    await sql`
      insert into task_assignees (workspace_id, task_id, user_id)
      select t.workspace_id, t.id, (${people}::uuid[])[1 + (t.sort_order::int % ${people.length})]
        from tasks t
       where t.workspace_id = ${ws} and t.sort_order > ${from} and t.sort_order <= ${GANTT_TASKS}`;
  }
  const [{ id: contact }] = await sql<{ id: string }[]>`
    select id from contacts where workspace_id = ${ws} order by created_at desc limit 1`;
  await sql`
    insert into activities (workspace_id, contact_id, type, title, description, activity_date, outcome, notes,
                            created_by)
    select ${ws}, ${contact}, 'call', 'Call ' || i || ${sql.unsafe(rare("''"))}, 'Talked about offer ' || i,
           now() - make_interval(secs => i), 'Follow up', 'Notes ' || i, ${owner}
      from generate_series(${from + 1}::int, ${to}::int) i`;
  await sql`
    insert into ai_activities (workspace_id, kind, status, title, description, agent_name, ai_task_id, created_by,
                               created_at)
    select ${ws}, 'research', 'completed', 'Research ' || i || ${sql.unsafe(rare("''"))}, 'Looked into ' || i,
           'agent-' || (i % 10), 'job-' || i, ${owner}, now() - make_interval(secs => i)
      from generate_series(${from + 1}::int, ${to}::int) i`;
  await sql`
    insert into workspace_documents (workspace_id, title, description, kind, content_markdown, created_by,
                                     created_at)
    select ${ws}, 'Document ' || i || ${sql.unsafe(rare("''"))}, 'About ' || i, 'notes',
           '# Notes ' || i || E'\n\nMeeting notes, decisions and next steps for item ' || i || '.', ${owner},
           now() - make_interval(secs => i)
      from generate_series(${from + 1}::int, ${to}::int) i`;
  for (
    const t of ["contacts", "tasks", "task_assignees", "activities", "ai_activities", "workspace_documents"]
  ) {
    await sql`analyze ${sql(t)}`;
  }
}

interface Target {
  request(url: string, init: RequestInit): Response | Promise<Response>;
}

/** Median milliseconds of `CALLS` tools/call answers (after one warm-up), and a short note from the answer. */
async function medianCall(app: Target, key: string, name: string, args: Record<string, unknown>) {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const times: number[] = [];
  let text = "";
  for (let i = 0; i <= CALLS; i++) {
    const start = performance.now();
    const res = await app.request("http://localhost:8000/mcp", {
      method: "POST",
      headers: mcpHeaders(key),
      body,
    });
    text = await res.text();
    const ms = performance.now() - start;
    if (res.status !== 200 || text.includes('"isError":true')) {
      throw new Error(`${name}: ${text.slice(0, 300)}`);
    }
    if (i > 0) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const total = text.match(/\\"total\\":(\d+)/)?.[1] ?? text.match(/\\"totalAtLeast\\":(\d+)/)?.[1];
  const rows = text.match(/\\"rows\\":(\d+)/)?.[1];
  const bars = text.match(/\\"bars\\":\[/) ? (text.match(/\\"taskId\\"/g)?.length ?? 0) : undefined;
  const note = total !== undefined
    ? `total ${total}`
    : rows !== undefined
    ? `${rows} rows`
    : bars !== undefined
    ? `${bars} bars`
    : "";
  return { ms: times[Math.floor(times.length / 2)], note };
}

/**
 * The calls timed at each size; `n` is the size, for the deep page's offset. `cursorAt: d` stands for the
 * cursor of the page that starts at offset d (the nextCursor of the one row at d - 1, fetched untimed).
 */
function calls(n: number): [string, string, Record<string, unknown>][] {
  const deep = Math.min(Math.floor(n / 2), 50_000);
  const from = todayUtc();
  const to = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
  return [
    ["list_contacts first page", "list_contacts", { limit: 20 }],
    ["list_contacts search", "list_contacts", { search: RARE, limit: 20 }],
    [`list_contacts offset ${deep}`, "list_contacts", { limit: 20, offset: deep }],
    [`list_contacts page at ${deep} by cursor`, "list_contacts", { limit: 20, cursorAt: deep }],
    ["export_contacts (all, capped)", "export_contacts", {}],
    ["list_tasks first page", "list_tasks", { limit: 20 }],
    ["list_tasks search", "list_tasks", { query: RARE, limit: 20 }],
    [`list_tasks offset ${deep}`, "list_tasks", { limit: 20, offset: deep }],
    [`list_tasks page at ${deep} by cursor`, "list_tasks", { limit: 20, cursorAt: deep }],
    ["list_activities first page", "list_activities", { limit: 20 }],
    ["list_activities search", "list_activities", { search: RARE, limit: 20 }],
    [`list_activities offset ${deep}`, "list_activities", { limit: 20, offset: deep }],
    [`list_activities page at ${deep} by cursor`, "list_activities", { limit: 20, cursorAt: deep }],
    ["list_ai_activities first page", "list_ai_activities", { limit: 20 }],
    ["list_ai_activities search", "list_ai_activities", { search: RARE, limit: 20 }],
    [`list_ai_activities offset ${deep}`, "list_ai_activities", { limit: 20, offset: deep }],
    ["list_workspace_documents first page", "list_workspace_documents", { limit: 20 }],
    ["list_workspace_documents search", "list_workspace_documents", { search: RARE, limit: 20 }],
    [`list_workspace_documents offset ${deep}`, "list_workspace_documents", { limit: 20, offset: deep }],
    ["gantt_plan (a year, <= 2,000 planned tasks)", "gantt_plan", { from, to, limit: 5000 }],
  ];
}

/** One tools/call's structured answer, untimed (to fetch a cursor). */
async function callJson(app: Target, key: string, name: string, args: Record<string, unknown>) {
  const res = await app.request("http://localhost:8000/mcp", {
    method: "POST",
    headers: mcpHeaders(key),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = await res.json();
  return body.result.structuredContent as { nextCursor: string };
}

/**
 * The plans of the three cursor pages at `deep` (the conditions lib/workspace writes after a cursor, on the
 * ORDER BY index): each should be an Index Scan whose Index Cond holds the position, reading ~20 rows.
 */
async function explainCursorPages(sql: Sql, ws: string, deep: number): Promise<string> {
  const plan = async (q: Promise<{ "QUERY PLAN": string }[]>) =>
    (await q).map((r) => r["QUERY PLAN"]).join("\n");
  const at = async (table: string, column: string, order: string) =>
    (await sql<{ k: string; id: string }[]>`
      select ${sql(column)}::text as k, id from ${sql(table)}
       where workspace_id = ${ws} ${table === "tasks" ? sql`and parent_id is null` : sql``}
       order by ${sql.unsafe(order)} offset ${deep - 1} limit 1`)[0];
  const c = await at("contacts", "created_at", "created_at desc nulls last, id desc");
  const t = await at("tasks", "created_at", "created_at desc, id");
  const a = await at("activities", "activity_date", "activity_date desc, id desc");
  const contacts = await plan(sql`explain (analyze, costs off, timing off, summary on)
    select id from contacts where workspace_id = ${ws} and (created_at, id) < (${c.k}::timestamptz, ${c.id}::uuid)
     order by created_at desc nulls last, id desc limit 20`);
  const tasks = await plan(sql`explain (analyze, costs off, timing off, summary on)
    select id from tasks t where t.workspace_id = ${ws} and t.parent_id is null
       and t.created_at <= ${t.k}::timestamptz and (t.created_at < ${t.k}::timestamptz or t.id > ${t.id}::uuid)
     order by t.created_at desc, t.id limit 20`);
  const activities = await plan(sql`explain (analyze, costs off, timing off, summary on)
    select id from activities a where a.workspace_id = ${ws}
       and (a.activity_date, a.id) < (${a.k}::timestamptz, ${a.id}::uuid)
     order by a.activity_date desc, a.id desc limit 20`);
  return `cursor page plans at ${deep}:\n${contacts}\n--\n${tasks}\n--\n${activities}`;
}

/** The plan of the contacts search at the current size, one line per node, for BENCHMARKS.md. */
async function explainSearch(sql: Sql, ws: string): Promise<string> {
  const p = `%${RARE}%`;
  const rows = await sql<{ "QUERY PLAN": string }[]>`
    explain (analyze, costs off, timing off, summary on)
    select id from contacts
     where workspace_id = ${ws}
       and (contact_name ilike ${p} or company_name ilike ${p}
            or coalesce(first_name || ' ' || last_name, first_name, last_name, '') ilike ${p}
            or email ilike ${p} or phone ilike ${p} or mobile_number ilike ${p})
     order by created_at desc nulls last, id desc limit 20`;
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

export async function benchScale(sizes: number[] = DEFAULT_SCALE): Promise<void> {
  sizes = [...sizes].sort((a, b) => a - b);
  console.log(
    `\n== scale: ${sizes.join(", ")} rows per domain in one workspace, beside a noise workspace ==`,
  );
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const noise = await buildFixture(db.sql);
    const people = (u: typeof f.users) => [u.owner, u.admin, u.manager, u.member, u.guest];
    const app = testApp(db.sql, { MCP_VARIANT: "A" });
    const results = new Map<string, { ms: number; note: string }[]>();
    let seeded = 0;
    for (const n of sizes) {
      const t0 = performance.now();
      // In chunks of 10,000 rows: each statement stays under the pool's statement timeout.
      for (let from = seeded; from < n; from = Math.min(n, from + 10_000)) {
        const to = Math.min(n, from + 10_000);
        await seed(db.sql, noise.workspaceId, noise.users.owner, people(noise.users), from, to);
        await seed(db.sql, f.workspaceId, f.users.owner, people(f.users), from, to);
      }
      seeded = n;
      console.log(
        `seeded ${n} rows per domain x 2 workspaces in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      for (const [label, name, given] of calls(n)) {
        let args = given;
        const key = label.replace(/offset \d+/, "deep offset").replace(/at \d+ by/, "deep by");
        if (typeof args.cursorAt === "number") {
          const before = await callJson(app, f.keys.owner, name, { limit: 1, offset: args.cursorAt - 1 });
          args = { limit: args.limit, cursor: before.nextCursor };
        }
        const r = await medianCall(app, f.keys.owner, name, args);
        results.set(key, [...(results.get(key) ?? []), r]);
        console.log(`  ${n}: ${label}: ${r.ms.toFixed(1)} ms (${r.note})`);
      }
      if (n === sizes[sizes.length - 1]) {
        console.log(`contacts search plan at ${n}:\n${await explainSearch(db.sql, f.workspaceId)}`);
        console.log(await explainCursorPages(db.sql, f.workspaceId, Math.min(Math.floor(n / 2), 50_000)));
      }
    }
    const first = sizes[0];
    const last = sizes[sizes.length - 1];
    console.log(
      `\n| call (${db.server ? "Postgres" : "PGlite"}, median of ${CALLS}) | ${
        sizes.map((n) => `${n.toLocaleString("en")} rows`).join(" | ")
      } | ${last / 1000}k / ${first / 1000}k |`,
    );
    console.log(`|---|${sizes.map(() => "--:|").join("")}--:|`);
    for (const [label, rs] of results) {
      const cells = rs.map((r) => `${r.ms.toFixed(1)} ms${r.note ? ` (${r.note})` : ""}`);
      console.log(`| ${label} | ${cells.join(" | ")} | ${(rs[rs.length - 1].ms / rs[0].ms).toFixed(2)}x |`);
    }
  } finally {
    await db.close();
  }
}

if (import.meta.main) await benchScale();
