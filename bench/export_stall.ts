// The longest event-loop stall one call can cause: export_contacts over 10,000 contacts of worst-case text.
//
// Every text column is filled to its limit with a character that grows the most on the way out: `"` (doubled by
// CSV quoting, then escaped again by JSON: 4 bytes per stored character) or U+0001 (left alone by CSV, escaped
// as \u0001 by JSON: 6 bytes). A 1 ms timer measures the longest gap between its ticks while the call runs
// through the app (auth, dispatcher, serialisation, reading the answer), and another workspace's key calls
// list_projects back to back meanwhile: its slowest answer is what a neighbour tenant felt. A batch of six
// exports (protocol 2025-03-26) is the same for one request. Prints figures; asserts nothing.
//
// `deno task bench` runs it; alone: DATABASE_URL=… deno run -A bench/export_stall.ts
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";

const CONTACTS = 10_000;

/** The longest gap between ticks of a 1 ms timer, from start() to stop(). */
function stallMonitor(): { stop(): number } {
  let last = performance.now();
  let max = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
    if (running) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  return {
    stop() {
      running = false;
      return max;
    },
  };
}

interface RequestTarget {
  request(url: string, init: RequestInit): Response | Promise<Response>;
}

async function post(app: RequestTarget, key: string, body: string, headers: Record<string, string | null>) {
  const res = await app.request("http://localhost:8000/mcp", {
    method: "POST",
    headers: mcpHeaders(key, headers),
    body,
  });
  return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export async function benchExportStall(): Promise<void> {
  console.log(`\n== event-loop stall: export_contacts of ${CONTACTS} worst-case contacts ==`);
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const app = testApp(db.sql, { MCP_VARIANT: "A" });
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "export_contacts", arguments: {} },
    });
    const batch = JSON.stringify(
      Array.from({ length: 6 }, (_, i) => ({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "export_contacts", arguments: {} },
      })),
    );
    const neighbour = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_projects", arguments: {} },
    });

    for (const [label, ch] of [['quote "', '"'], ["control U+0001", "\u0001"]] as const) {
      await db.sql`delete from contacts where workspace_id = ${f.workspaceId}`;
      // Every text column at its limit (migrations/00006_crm.sql); ch at both ends survives trim().
      await db.sql`
        insert into contacts (workspace_id, company_name, contact_name, first_name, last_name, phone,
                              mobile_number, website, address, postal_code, city, state, country, department,
                              groups, source, vat_number, notes, created_at)
        select ${f.workspaceId}, repeat(${ch}, 200), repeat(${ch}, 200), repeat(${ch}, 100),
               repeat(${ch}, 100), repeat(${ch}, 50), repeat(${ch}, 50), repeat(${ch}, 500),
               repeat(${ch}, 500), repeat(${ch}, 20), repeat(${ch}, 100), repeat(${ch}, 100),
               repeat(${ch}, 100), repeat(${ch}, 100), repeat(${ch}, 500), repeat(${ch}, 100),
               repeat(${ch}, 50), repeat(${ch}, 10000), now() - make_interval(secs => i)
          from generate_series(1, ${CONTACTS}) i`;
      await db.sql`analyze contacts`;

      for (
        const [what, body, headers] of [
          ["one call", call, {}],
          ["batch of 6", batch, { "mcp-protocol-version": null }],
        ] as const
      ) {
        await post(app, f.keys.owner, call, {}); // warm-up
        const rssBefore = Deno.memoryUsage().rss;
        let neighbourMax = 0;
        let neighbourCalls = 0;
        let done = false;
        const other = (async () => {
          while (!done) {
            const t = performance.now();
            await post(app, f.other.key, neighbour, {});
            neighbourMax = Math.max(neighbourMax, performance.now() - t);
            neighbourCalls++;
          }
        })();
        const monitor = stallMonitor();
        const start = performance.now();
        let answer = { status: 0, bytes: 0 };
        let failure = "";
        try {
          answer = await post(app, f.keys.owner, body, headers);
        } catch (err) {
          failure = ` failed: ${err instanceof Error ? err.message : err}`;
        }
        const ms = performance.now() - start;
        const stall = monitor.stop();
        done = true;
        await other;
        const rssAfter = Deno.memoryUsage().rss;
        console.log(
          `${label.padEnd(15)} ${what.padEnd(10)}: HTTP ${answer.status}${failure}, ${
            mb(answer.bytes)
          } answer, ` +
            `${ms.toFixed(0)} ms, longest stall ${stall.toFixed(1)} ms; neighbour list_projects ` +
            `slowest ${neighbourMax.toFixed(1)} ms over ${neighbourCalls} calls; RSS ${mb(rssBefore)} → ` +
            `${mb(rssAfter)}`,
        );
      }
    }
  } finally {
    await db.close();
  }
}

if (import.meta.main) await benchExportStall();
