// The activity pages at 1,000,000 audit rows (issue 30 point 2): /account/activity and the workspace's activity page
// through the app in-process (signed-in browser, rendered HTML), first page, filtered pages, a deep page by cursor,
// and the CSV export of 10,000 rows; plus the plans of the page queries. Each cell is the median of a few requests
// after one warm-up. Run with `deno task bench --bench=activity [--scale=N]` (N audit rows; default 1,000,000).
// Prints; asserts nothing.
import { type ActivityFilter, activityPage, type ActivityScope } from "../lib/activity.ts";
import { sortableTimeColumn } from "../lib/db/sql.ts";
import type { Sql } from "../lib/db/client.ts";
import { Browser, signInOnPage } from "../tests/oauth/helpers.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import { buildFixture } from "../tests/helpers/mcp.ts";

export const DEFAULT_ROWS = 1_000_000;
const RUNS = 5;
const CHUNK = 100_000;
const TOOLS = [
  "list_projects",
  "get_project",
  "list_tasks",
  "create_task",
  "update_task",
  "list_contacts",
  "create_contact",
  "list_invoices",
  "get_context",
  "list_time_logs",
];
/** In 12 rows of 10,000 (one per person): the filter that finds few rows. */
const RARE_TOOL = "delete_time_log";

/**
 * `n` rows over 12 people of two workspaces, one a second going back from now: tools in turn, every 50th refused,
 * every 97th invalid, 12 in 10,000 a rare tool; a third by one of three apps, the rest by one of ten keys.
 */
async function seed(sql: Sql, people: string[], workspaces: string[], n: number) {
  const apps = ["pcl_benchAppOne000000000", "pcl_benchAppTwo000000000", "pcl_benchAppThree0000000"];
  const keys = Array.from({ length: 10 }, () => crypto.randomUUID());
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK);
    await sql`
      insert into audit_log (at, workspace_id, key_id, client_id, user_id, tool, outcome, duration_ms, request_id,
                             reason, records)
      select now() - make_interval(secs => i),
             (${workspaces}::uuid[])[1 + (i % ${people.length}) % ${workspaces.length}],
             case when i % 3 = 0 then null else (${keys}::uuid[])[1 + i % 10] end,
             case when i % 3 = 0 then (${apps}::text[])[1 + i % 3] end,
             (${people}::uuid[])[1 + i % ${people.length}],
             case when i % 10000 < 12 then ${RARE_TOOL} else (${TOOLS}::text[])[1 + i % ${TOOLS.length}] end,
             case when i % 50 = 0 then 'denied' when i % 97 = 0 then 'invalid' else 'ok' end,
             1.5, 'req-' || i,
             case when i % 50 = 0 then 'access_denied: the member role may not use invoices tools' end,
             case when i % 4 = 0 then array['projectId:' || gen_random_uuid()] end
        from generate_series(${from + 1}::int, ${to}::int) i`;
  }
  await sql`analyze audit_log`;
}

async function median(fn: () => Promise<string>): Promise<{ ms: number; note: string }> {
  let note = await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    note = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(RUNS / 2)], note };
}

async function plan(label: string, query: Promise<unknown>): Promise<string> {
  const rows = await query as { "QUERY PLAN": string }[];
  return `${label}:\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`;
}

export async function benchActivity(n = DEFAULT_ROWS): Promise<void> {
  console.log(`\n== activity: ${n.toLocaleString("en")} audit rows, 12 people in two workspaces ==`);
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const noise = await buildFixture(db.sql);
    const u = f.users;
    const people = [u.member, u.owner, u.admin, u.manager, u.accounting, u.guest, u.limited];
    const others = [
      noise.users.owner,
      noise.users.admin,
      noise.users.member,
      noise.users.manager,
      noise.users.guest,
    ];
    const t0 = performance.now();
    // workspace of row i: people[k] with k < 7 act in f, the five others in the noise workspace
    await seed(db.sql, [...people, ...others], [f.workspaceId], n);
    await db.sql`update audit_log set workspace_id = ${noise.workspaceId}
                  where user_id = any(${others}::uuid[])`;
    await db.sql`vacuum analyze audit_log`;
    const [{ mine, ws }] = await db.sql<{ mine: number; ws: number }[]>`
      select count(*) filter (where user_id = ${u.member})::int as mine,
             count(*) filter (where workspace_id = ${f.workspaceId})::int as ws from audit_log`;
    console.log(
      `seeded in ${
        ((performance.now() - t0) / 1000).toFixed(1)
      } s: the member's rows ${mine}, the workspace's ${ws}`,
    );

    const app = testApp(db.sql, { MCP_VARIANT: "A" });
    const signIn = async (userId: string) => {
      const [{ email }] = await db.sql<{ email: string }[]>`select email from users where id = ${userId}`;
      const b = new Browser(app);
      const res = await signInOnPage(b, await b.get("/signin"), email, "test password 123");
      if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
      return b;
    };
    const member = await signIn(u.member);
    const admin = await signIn(u.admin);
    const page = (b: Browser, url: string) => async () => {
      const res = await b.get(url);
      const html = await res.text();
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      return `${(html.match(/data-activity="/g) ?? []).length} rows`;
    };
    const scope = { userId: u.member };
    // the cursor of the row `offset` rows down (what "Older calls" links carry), read once with an offset
    const cursorAt = async (where: ReturnType<Sql>, offset: number) => {
      const [r] = await db.sql<{ at: string; id: string }[]>`
        select ${sortableTimeColumn(db.sql, "at")} as at, id::text from audit_log a where ${where}
         order by at desc, id desc offset ${offset - 1} limit 1`;
      return `${r.at}~${r.id}`;
    };
    const deepAt = Math.min(100_000, Math.floor(mine / 2));
    const cursor = await cursorAt(db.sql`a.user_id = ${u.member}`, deepAt);
    const wsDeepAt = Math.min(250_000, Math.floor(ws / 2));
    const wsDeep = await cursorAt(db.sql`a.workspace_id = ${f.workspaceId}`, wsDeepAt);
    const [cAt, cId] = cursor.split("~");
    const [wAt, wId] = wsDeep.split("~");
    const sqlPage = (s: ActivityScope, filter: ActivityFilter) => async () =>
      `${(await activityPage(db.sql, s, filter)).rows.length} rows`;
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    const wsPath = `/account/workspaces/${f.workspaceId}/activity`;
    const cases: Array<[string, () => Promise<string>]> = [
      ["own: first page", page(member, "/account/activity")],
      ["own: filtered by app", page(member, "/account/activity?source=app%3Apcl_benchAppOne000000000")],
      ["own: filtered by tool (rare)", page(member, `/account/activity?tool=${RARE_TOOL}`)],
      ["own: filtered by outcome=denied", page(member, "/account/activity?outcome=denied")],
      ["own: one day a week ago", page(member, `/account/activity?from=${weekAgo}&to=${weekAgo}`)],
      [
        `own: deep page (cursor after ${deepAt.toLocaleString("en")} rows)`,
        page(
          member,
          `/account/activity?before=${encodeURIComponent(cursor)}`,
        ),
      ],
      ["workspace: first page", page(admin, wsPath)],
      ["workspace: filtered by tool (rare)", page(admin, `${wsPath}?tool=${RARE_TOOL}`)],
      [
        `workspace: deep page (cursor after ${wsDeepAt.toLocaleString("en")} rows)`,
        page(
          admin,
          `${wsPath}?before=${encodeURIComponent(wsDeep)}`,
        ),
      ],
      ["activityPage() alone: own first page", sqlPage(scope, {})],
      ["activityPage() alone: own rare tool", sqlPage(scope, { tool: RARE_TOOL })],
      ["activityPage() alone: own deep page", sqlPage(scope, { before: { at: cAt, id: cId } })],
      ["activityPage() alone: workspace first page", sqlPage({ workspaceId: f.workspaceId }, {})],
      [
        "activityPage() alone: workspace deep page",
        sqlPage({ workspaceId: f.workspaceId }, { before: { at: wAt, id: wId } }),
      ],
      ["own: CSV export (10,000 rows cap)", async () => {
        const res = await member.get("/account/activity.csv");
        const text = await res.text();
        return `${text.split("\r\n").length - 2} lines, ${(text.length / 1e6).toFixed(1)} MB`;
      }],
    ];
    console.log(
      `\n| request (${db.server ? "Postgres" : "PGlite"}, median of ${RUNS}) | ${
        n.toLocaleString("en")
      } rows |`,
    );
    console.log("|---|--:|");
    for (const [label, fn] of cases) {
      const r = await median(fn);
      console.log(`| ${label} | ${r.ms.toFixed(1)} ms (${r.note}) |`);
    }
    const explain = (where: ReturnType<Sql>) =>
      db.sql`explain (analyze, costs off, timing off, summary on)
        select a.id from audit_log a where ${where} order by a.at desc, a.id desc limit 51`;
    console.log(await plan("first page", explain(db.sql`a.user_id = ${u.member}`)));
    console.log(
      await plan("rare tool", explain(db.sql`a.user_id = ${u.member} and a.tool = ${RARE_TOOL}`)),
    );
    console.log(
      await plan(
        "deep page",
        explain(db.sql`a.user_id = ${u.member}
          and (a.at, a.id) < (${cAt}::timestamp at time zone 'UTC', ${cId}::bigint)`),
      ),
    );
    console.log(
      await plan(
        "workspace rare tool",
        explain(db.sql`a.workspace_id = ${f.workspaceId} and a.tool = ${RARE_TOOL}`),
      ),
    );
  } finally {
    await db.close();
  }
}

if (import.meta.main) await benchActivity();
