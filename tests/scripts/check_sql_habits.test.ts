// The SQL habit check of `deno task check`: a raw to_char( or a transaction opened outside withTx in lib/ fails it.
import assert from "node:assert/strict";
import { findViolations } from "../../scripts/check_sql_habits.ts";

const SCRIPT = new URL("../../scripts/check_sql_habits.ts", import.meta.url).pathname;

/** Runs the script as deno task check does: only --allow-read on the folder it checks. */
async function run(dir: string): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--allow-read=${dir}`, SCRIPT, dir],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("findViolations: raw to_char, inline begin/savepoint checks and .begin( are named with their line", () => {
  const text = [
    'const a = db`select ${isoColumn(db, "x")}`;',
    "const b = db`select to_char(x at time zone 'UTC', 'YYYY')`;",
    'const c = "begin" in db ? 1 : 2;',
    "await (db as Sql).begin((tx) => f(tx));",
  ].join("\n");
  const found = findViolations("f.ts", text);
  assert.equal(found.length, 3);
  assert.match(found[0], /^f\.ts:2: .*to_char.*isoColumn/);
  assert.match(found[1], /^f\.ts:3: .*"begin" in db.*withTx/);
  assert.match(found[2], /^f\.ts:4: .*\.begin\(.*withTx/);
});

Deno.test("findViolations: a savepoint opened by hand is named; the helpers' own files (lib/db/tx.ts, sql.ts) are not", () => {
  const text =
    "await tx.savepoint((sp) => f(sp));\nconst x = db`to_char(now(), 'HH24')`;\nawait sql.begin(fn);";
  const found = findViolations("lib/oauth/x.ts", text);
  assert.equal(found.length, 3);
  assert.match(found[0], /^lib\/oauth\/x\.ts:1: .*savepoint.*withTx/);
  assert.deepEqual(findViolations("lib/db/tx.ts", text), []);
  assert.deepEqual(findViolations("./lib/db/sql.ts", text), []);
  assert.equal(findViolations("lib/workspace/db/tx.ts", text).length, 3);
});

Deno.test("check_sql_habits: lib/workspace passes; a folder with a raw to_char fails with exit code 1", async () => {
  const ok = await run("lib/workspace");
  assert.equal(ok.code, 0, ok.stderr);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/nested`);
    await Deno.writeTextFile(`${dir}/nested/bad.ts`, "export const q = \"to_char(now(), 'HH24')\";\n");
    const bad = await run(dir);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /1 SQL habit violation\(s\)/);
    assert.match(bad.stderr, /nested\/bad\.ts:1: .*to_char/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
