// The longest event-loop stall one call can cause, on the two largest answers: export_contacts over 10,000
// contacts and get_workspace_document of a 1 MiB document, both of worst-case text.
//
// Every text column is filled to its limit with a character that grows the most on the way out: `"` (doubled by
// CSV quoting, then escaped again by JSON: 4 bytes per stored character) or U+0001 (left alone by CSV, escaped
// as \u0001 by JSON: 6 bytes; 7 once a JSON text is escaped again). A 1 ms timer measures the longest gap
// between its ticks while the call runs through the app (auth, dispatcher, serialisation, reading the answer),
// and another workspace's key calls list_projects back to back meanwhile: its slowest answer is what a
// neighbour tenant felt. A batch of six such calls (protocol 2025-03-26) is the same for one request. Prints
// figures; asserts nothing.
//
// `deno task bench` runs it; alone: DATABASE_URL=… deno run -A bench/export_stall.ts
import process from "node:process";
import { buildFixture, mcpHeaders } from "../tests/helpers/mcp.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";

const CONTACTS = 10_000;

/**
 * The longest gap between ticks of a 1 ms timer, from start() to stop(), and the CPU time the process used
 * during that gap (all threads): on a shared machine a gap can also be time the process was not scheduled, and
 * the CPU figure tells the two apart.
 */
function stallMonitor(): { stop(): { ms: number; cpuMs: number } } {
  const cpuNow = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let last = performance.now();
  let lastCpu = cpuNow();
  let max = { ms: 0, cpuMs: 0 };
  let running = true;
  const tick = () => {
    const now = performance.now();
    const cpu = cpuNow();
    if (now - last > max.ms) max = { ms: now - last, cpuMs: cpu - lastCpu };
    last = now;
    lastCpu = cpu;
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

interface Case {
  label: string;
  /** fills the database for this case; returns the tools/call params */
  seed(ch: string): Promise<{ name: string; arguments: Record<string, unknown> }>;
}

export async function benchExportStall(): Promise<void> {
  console.log(`\n== event-loop stall of one call: worst-case text in the largest answers ==`);
  const db = await freshDatabase();
  try {
    const f = await buildFixture(db.sql);
    const app = testApp(db.sql, { MCP_VARIANT: "A" });
    const neighbour = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_projects", arguments: {} },
    });
    const cases: Case[] = [{
      label: `export_contacts, ${CONTACTS} contacts`,
      async seed(ch) {
        await db.sql`delete from contacts where workspace_id = ${f.workspaceId}`;
        // Every text column at its limit (migrations/00006_crm.sql).
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
        return { name: "export_contacts", arguments: {} };
      },
    }, {
      label: "get_workspace_document, 1 MiB",
      async seed(ch) {
        // The largest document (1 MiB of content) with the longest title and description.
        const [{ id }] = await db.sql<{ id: string }[]>`
          insert into workspace_documents (workspace_id, title, description, kind, content_markdown)
          values (${f.workspaceId}, repeat(${ch}, 200), repeat(${ch}, 10000), 'report',
                  repeat(${ch}, 1048576))
          returning id`;
        return { name: "get_workspace_document", arguments: { documentId: id } };
      },
    }];

    for (const c of cases) {
      for (const [chLabel, ch] of [['quote "', '"'], ["control U+0001", "\u0001"]] as const) {
        const params = await c.seed(ch);
        const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
        const batch = JSON.stringify(
          Array.from({ length: 6 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params })),
        );
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
            `${c.label}, ${chLabel}, ${what}: HTTP ${answer.status}${failure}, ${mb(answer.bytes)} answer, ` +
              `${ms.toFixed(0)} ms, longest stall ${stall.ms.toFixed(1)} ms (${
                stall.cpuMs.toFixed(1)
              } ms CPU); ` +
              `neighbour list_projects slowest ` +
              `${neighbourMax.toFixed(1)} ms over ${neighbourCalls} calls; RSS ${mb(rssBefore)} → ${
                mb(rssAfter)
              }`,
          );
        }
      }
    }
  } finally {
    await db.close();
  }
}

if (import.meta.main) await benchExportStall();
