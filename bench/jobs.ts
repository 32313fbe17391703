// Everyday jobs through /mcp as a model would do them (issue 25 point 7): each job is what a person said and
// the calls a model makes knowing only the tool catalogue and the answers so far. Every argument value must come
// from what the person said, the catalogue (an enum, a boolean, a small paging number), or an earlier answer —
// anything else is a guess, and a job that needs one fails. Counts calls and bytes read per job.
//
// Run: `deno task bench --bench=jobs` (DATABASE_URL for Postgres, else embedded PGlite). Prints a Markdown table;
// exits non-zero when a job guessed or failed, so it can be run as a check.
import { seedDemo } from "../lib/demo.ts";
import type { Sql } from "../lib/db/client.ts";
import { testApp } from "../tests/helpers/app.ts";
import { freshDatabase } from "../tests/helpers/db.ts";
import { mcpHeaders } from "../tests/helpers/mcp.ts";

/** What the earlier answers of a job hold, and the helpers a step uses to read them. */
export class Answers {
  readonly bodies: unknown[] = [];
  readonly texts: string[] = [];
  /** values a step derived from an earlier answer (a date from today's), allowed like the answers' own */
  readonly derived = new Set<string>();

  /** The structured content of answer `i` (negative: from the end). */
  // deno-lint-ignore no-explicit-any
  at(i: number): any {
    return this.bodies[i < 0 ? this.bodies.length + i : i];
  }

  /** The first item of any earlier answer's list (depth-first) for which `pred` holds. */
  // deno-lint-ignore no-explicit-any
  find(pred: (item: any) => boolean): any {
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) {
        for (const x of v) {
          if (x !== null && typeof x === "object" && pred(x)) return x;
          const deeper = walk(x);
          if (deeper !== undefined) return deeper;
        }
      } else if (v !== null && typeof v === "object") {
        for (const x of Object.values(v)) {
          const deeper = walk(x);
          if (deeper !== undefined) return deeper;
        }
      }
      return undefined;
    };
    for (const body of this.bodies) {
      const hit = walk(body);
      if (hit !== undefined) return hit;
    }
    throw new Error("no earlier answer holds what this step looks for");
  }

  /** A date `days` from the `today` an earlier answer gave (the context tool's): derived, not guessed. */
  dayFrom(today: string, days: number): string {
    if (!this.texts.some((t) => t.includes(today))) {
      throw new Error(`no earlier answer says today is ${today}`);
    }
    const d = new Date(`${today}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() + days);
    const out = d.toISOString().slice(0, 10);
    this.derived.add(out);
    return out;
  }
}

export interface Step {
  tool: string;
  args: (a: Answers, said: Record<string, string>) => Record<string, unknown>;
}

export interface Job {
  name: string;
  domain: string;
  /** the person's words that values may come from ("Milo", "WEB-3", "2") */
  said: Record<string, string>;
  steps: Step[];
  /** true when the last answer shows the job done (an error result never is) */
  done?: (a: Answers) => boolean;
}

/** Keys whose small numbers a model picks from the catalogue alone (paging), not from an answer. */
const PAGING_KEYS = new Set(["limit", "offset"]);

/** Enum values the catalogue offers for each tool (any depth of its input schema). */
function enumValues(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) { for (const x of schema) enumValues(x, out); }
  else if (schema !== null && typeof schema === "object") {
    for (const [k, v] of Object.entries(schema)) {
      if ((k === "enum" || k === "const") && (Array.isArray(v) || typeof v === "string")) {
        for (const x of [v].flat()) out.add(String(x));
      } else enumValues(v, out);
    }
  }
  return out;
}

/** The argument values of a call that come from nowhere the model could have read. */
function guesses(
  args: Record<string, unknown>,
  a: Answers,
  said: Record<string, string>,
  catalogue: Set<string>,
): string[] {
  const out: string[] = [];
  const saidText = Object.values(said).join("\n");
  const visit = (key: string, v: unknown) => {
    if (v === null || typeof v === "boolean") return;
    if (Array.isArray(v)) return v.forEach((x) => visit(key, x));
    if (typeof v === "object") return Object.entries(v as object).forEach(([k, x]) => visit(k, x));
    const s = String(v);
    if (typeof v === "number" && PAGING_KEYS.has(key) && v <= 100) return;
    if (catalogue.has(s) || a.derived.has(s) || saidText.includes(s)) return;
    if (a.texts.some((t) => t.includes(typeof v === "string" ? JSON.stringify(s).slice(1, -1) : s))) return;
    out.push(`${key}=${s}`);
  };
  for (const [k, v] of Object.entries(args)) visit(k, v);
  return out;
}

export interface JobResult {
  name: string;
  domain: string;
  calls: number;
  bytes: number;
  guessed: string[];
  ok: boolean;
  problem?: string;
}

/** Runs every job against a fresh demo workspace; one row per job. */
export async function runJobs(sql: Sql, jobs: Job[]): Promise<JobResult[]> {
  const demo = await seedDemo(sql);
  const app = testApp(sql);
  let id = 1;
  const call = async (method: string, params: unknown) => {
    const res = await app.request("http://localhost:8000/mcp", {
      method: "POST",
      headers: mcpHeaders(demo.apiKey),
      body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
    });
    const text = await res.text();
    return { text, body: JSON.parse(text) };
  };
  const list = await call("tools/list", {});
  const schemas = new Map<string, Set<string>>();
  for (const t of list.body.result.tools) schemas.set(t.name, enumValues(t.inputSchema));

  const results: JobResult[] = [];
  for (const job of jobs) {
    const a = new Answers();
    const r: JobResult = { name: job.name, domain: job.domain, calls: 0, bytes: 0, guessed: [], ok: true };
    try {
      for (const step of job.steps) {
        const catalogue = schemas.get(step.tool);
        if (!catalogue) throw new Error(`${step.tool} is not in the demo owner's catalogue`);
        const args = step.args(a, job.said);
        r.guessed.push(...guesses(args, a, job.said, catalogue).map((g) => `${step.tool}: ${g}`));
        const answer = await call("tools/call", { name: step.tool, arguments: args });
        r.calls++;
        r.bytes += answer.text.length;
        const result = answer.body.result;
        if (!result || result.isError) {
          throw new Error(`${step.tool}: ${result?.content?.[0]?.text ?? answer.text.slice(0, 200)}`);
        }
        a.bodies.push(result.structuredContent ?? JSON.parse(result.content[0].text));
        a.texts.push(answer.text);
      }
      if (job.done && !job.done(a)) throw new Error("the last answer does not show the job done");
    } catch (err) {
      r.ok = false;
      r.problem = err instanceof Error ? err.message.slice(0, 160) : String(err);
    }
    if (r.guessed.length > 0) r.ok = false;
    results.push(r);
  }
  return results;
}

export function table(results: JobResult[]): string {
  const lines = [
    "| job | domain | calls | bytes read | guessed values | result |",
    "|---|---|--:|--:|---|---|",
  ];
  for (const r of results) {
    lines.push(
      `| ${r.name} | ${r.domain} | ${r.calls} | ${r.bytes} | ${
        r.guessed.length ? r.guessed.join("; ") : "0"
      } | ${r.ok ? "done" : `**failed**${r.problem ? `: ${r.problem.replaceAll("|", "\\|")}` : ""}`} |`,
    );
  }
  const ok = results.filter((r) => r.ok).length;
  const guessed = results.reduce((n, r) => n + r.guessed.length, 0);
  lines.push("", `${ok} of ${results.length} jobs done; ${guessed} guessed values.`);
  return lines.join("\n");
}

export async function benchJobs(): Promise<boolean> {
  const { JOBS } = await import("./jobs_list.ts");
  const db = await freshDatabase();
  try {
    const results = await runJobs(db.sql, JOBS);
    console.log(`\nEveryday jobs through /mcp (demo workspace, owner's key, ${JOBS.length} jobs)\n`);
    console.log(table(results));
    return results.every((r) => r.ok);
  } finally {
    await db.close();
  }
}

if (import.meta.main) Deno.exit((await benchJobs()) ? 0 : 1);
