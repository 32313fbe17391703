// No module in lib/, routes/ or tools/ over 500 lines (issue 27): past that a module holds more than one idea and
// is split by idea (reads and writes, rules and queries …), keeping the exports its callers import.
import assert from "node:assert/strict";
import { ROOT } from "./helpers/module_graph.ts";

const MAX_LINES = 500;
const FOLDERS = ["lib", "routes", "tools"];

async function* modules(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* modules(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

/** Lines as `wc -l` counts them (a last line without a newline counts too). */
function lineCount(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

Deno.test(`no module in ${FOLDERS.join("/, ")}/ has more than ${MAX_LINES} lines`, async () => {
  const seen: string[] = [];
  const over: string[] = [];
  for (const folder of FOLDERS) {
    for await (const path of modules(folder)) {
      seen.push(path);
      const lines = lineCount(await Deno.readTextFile(`${ROOT}/${path}`));
      if (lines > MAX_LINES) over.push(`${path}: ${lines} lines`);
    }
  }
  assert.ok(seen.includes("routes/mod.ts") && seen.includes("tools/mod.ts"), "the walk found the modules");
  assert.deepEqual(
    over.sort(),
    [],
    `split these by idea into modules of at most ${MAX_LINES} lines (keep the exports callers import):\n${
      over.join("\n")
    }`,
  );
});

Deno.test("the line count is wc -l's", () => {
  assert.equal(lineCount(""), 0);
  assert.equal(lineCount("a\n"), 1);
  assert.equal(lineCount("a\nb"), 2);
  assert.equal(lineCount("a\n\nb\n"), 3);
});
