// deno task check: fails when lib/workspace formats a time or opens a transaction its own way (DESIGN.md Habits 1).
// Times go through lib/db/sql.ts (isoColumn, clockColumn …) and transactions through lib/db/tx.ts withTx.

const RULES: { pattern: RegExp; use: string }[] = [
  { pattern: /\bto_char\s*\(/i, use: "isoColumn / clockColumn / sortableTimeColumn from lib/db/sql.ts" },
  { pattern: /["']begin["']\s+in\s+db\b/, use: "withTx from lib/db/tx.ts" },
  { pattern: /["']savepoint["']\s+in\s+db\b/, use: "withTx from lib/db/tx.ts" },
  { pattern: /\.begin\s*\(/, use: "withTx from lib/db/tx.ts" },
];

/** The offending lines of one file's text, as `path:line: text (use …)`. */
export function findViolations(path: string, text: string): string[] {
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
  const root = Deno.args[0] ?? "lib/workspace";
  const found: string[] = [];
  for await (const path of tsFiles(root)) found.push(...findViolations(path, await Deno.readTextFile(path)));
  if (found.length) {
    console.error(`${found.length} SQL habit violation(s) in ${root}:\n${found.join("\n")}`);
    Deno.exit(1);
  }
}
