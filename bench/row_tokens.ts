// Tokens per list row of every list tool, counted with npm gpt-tokenizer (o200k_base), over the demo workspace.
//
// Run: `deno task bench --bench=row_tokens` or `deno run -A --config deno.test.json bench/row_tokens.ts [--json]` (a fresh database:
// DATABASE_URL's server, or in-memory PGlite). Each list tool is called through /mcp with the demo owner's key
// and its default arguments; a row's tokens are those of its JSON as the answer carries it (the items array's
// tokens divided by its length). Prints a Markdown table; asserts nothing. Bench-only: nothing under main.ts
// imports gpt-tokenizer.
import { countTokens } from "gpt-tokenizer";
import { seedDemo } from "../lib/demo.ts";
import { mcpHeaders } from "../tests/helpers/mcp.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";

/** Every list tool of variant A with the arguments it is called with (defaults, except where one is needed). */
export const LIST_CALLS: { tool: string; args: Record<string, unknown> }[] = [
  { tool: "list_projects", args: {} },
  { tool: "list_tasks", args: { taskScope: "all" } },
  { tool: "list_clients", args: {} },
  { tool: "list_invoices", args: {} },
  { tool: "list_contacts", args: {} },
  { tool: "list_activities", args: {} },
  { tool: "list_ai_activities", args: {} },
  { tool: "list_workspace_documents", args: {} },
  { tool: "list_recordings", args: {} },
  { tool: "list_time_logs", args: {} },
  { tool: "list_time_categories", args: {} },
  { tool: "list_appointments", args: {} },
  { tool: "list_calendars", args: {} },
];

export interface RowTokens {
  tool: string;
  rows: number;
  tokensPerRow: number;
  answerTokens: number;
}

/** The rows of a list answer: a bare array, or the page's `items`. */
function rowsOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (value && typeof value === "object" && Array.isArray((value as { items?: unknown }).items)) {
    return (value as { items: unknown[] }).items;
  }
  return null;
}

export async function measureRowTokens(): Promise<RowTokens[]> {
  const db = await freshDatabase();
  try {
    const demo = await seedDemo(db.sql);
    const app = testApp(db.sql);
    const out: RowTokens[] = [];
    let id = 0;
    for (const { tool, args } of LIST_CALLS) {
      const res = await app.request("http://localhost:8000/mcp", {
        method: "POST",
        headers: mcpHeaders(demo.apiKey),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method: "tools/call",
          params: { name: tool, arguments: args },
        }),
      });
      const body = await res.json();
      const result = body.result;
      if (!result || result.isError) {
        out.push({ tool, rows: -1, tokensPerRow: 0, answerTokens: 0 });
        continue;
      }
      const text: string = result.content[0].text;
      const rows = rowsOf(JSON.parse(text)) ?? [];
      const rowTokens = rows.length ? countTokens(JSON.stringify(rows)) / rows.length : 0;
      out.push({
        tool,
        rows: rows.length,
        tokensPerRow: Math.round(rowTokens),
        answerTokens: countTokens(text),
      });
    }
    return out;
  } finally {
    await db.close();
  }
}

/** Prints the table (`deno task bench --bench=row_tokens`). */
export async function benchRowTokens(json = false): Promise<void> {
  const rows = await measureRowTokens();
  if (json) {
    console.log(JSON.stringify(rows));
  } else {
    console.log("| tool | demo rows | tokens per row (o200k_base) | answer tokens |\n|---|--:|--:|--:|");
    for (const r of rows) {
      console.log(
        `| ${r.tool} | ${r.rows < 0 ? "error" : r.rows} | ${r.tokensPerRow} | ${r.answerTokens} |`,
      );
    }
  }
}

if (import.meta.main) await benchRowTokens(Deno.args.includes("--json"));
