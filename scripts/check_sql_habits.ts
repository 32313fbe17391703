// deno task check: fails when code in lib/ formats a time or opens a transaction its own way.
//
// The rules (they are stated here; docs and reviews point at this file):
// - Every transaction goes through `withTx` (lib/db/tx.ts): it decides once between a new transaction and a
//   savepoint inside the caller's, and retries a deadlock victim. Never `sql.begin(…)`, `db.savepoint(…)` or an
//   inline `"begin" in db ? … : …`.
// - A time an answer shows as text is formatted by one helper of lib/db/sql.ts (isoColumn, isoMillisColumn,
//   minuteColumn, sortableTimeColumn, clockColumn), never by a raw `to_char(` in a query: one format per kind.
// - Rows are named at the SQL boundary: camelCase aliases (`client_id as "clientId"`); a timestamptz comes back as
//   a `Date` (lib/db/client.ts). These two are for review: a line-based check cannot tell a row from a wire name.
// The two files that implement the rules (lib/db/tx.ts, lib/db/sql.ts) are where the raw forms belong.

const RULES: { pattern: RegExp; use: string }[] = [
  {
    pattern: /\bto_char\s*\(/i,
    use: "isoColumn / isoMillisColumn / minuteColumn / clockColumn / sortableTimeColumn from lib/db/sql.ts",
  },
  { pattern: /["']begin["']\s+in\s+db\b/, use: "withTx from lib/db/tx.ts" },
  { pattern: /["']savepoint["']\s+in\s+db\b/, use: "withTx from lib/db/tx.ts" },
  { pattern: /\.begin\s*\(/, use: "withTx from lib/db/tx.ts" },
  { pattern: /\.savepoint\s*\(/, use: "withTx from lib/db/tx.ts" },
];

/** The helpers themselves: the one place each raw form is allowed. */
const HOMES = /(^|\/)lib\/db\/(tx|sql)\.ts$/;

/** The offending lines of one file's text, as `path:line: text (use …)`. */
export function findViolations(path: string, text: string): string[] {
  if (HOMES.test(path)) return [];
  const out: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const rule of RULES) {
      if (rule.pattern.test(line)) out.push(`${path}:${i + 1}: ${line.trim()}  (use ${rule.use})`);
    }
  });
  return out;
}

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* tsFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

if (import.meta.main) {
  const root = Deno.args[0] ?? "lib";
  const found: string[] = [];
  for await (const path of tsFiles(root)) found.push(...findViolations(path, await Deno.readTextFile(path)));
  if (found.length) {
    console.error(`${found.length} SQL habit violation(s) in ${root}:\n${found.join("\n")}`);
    Deno.exit(1);
  }
}
