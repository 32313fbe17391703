// Shared infrastructure lives in kits that know no protocol (issue 27): lib/http, lib/rate_limit, lib/db and
// lib/net import nothing from lib/oauth, lib/mcp or lib/workspace, so neither protocol borrows the other's
// infrastructure (as /oauth/token once took its limiter from lib/mcp/rate_limit.ts and csrf.ts read sessions.ts).
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { ROOT } from "./helpers/module_graph.ts";

const KITS = ["lib/http", "lib/rate_limit", "lib/db", "lib/net"];
const PROTOCOLS = ["lib/oauth", "lib/mcp", "lib/workspace"];
/** Static and dynamic imports and re-exports, type-only ones included. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

async function* tsFiles(dir: string): AsyncGenerator<string> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) yield* tsFiles(path);
      else if (/\.tsx?$/.test(entry.name)) yield path;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err; // a kit not made yet
  }
}

/** `file → imported project path` pairs of one folder, as paths relative to the project root. */
async function importsOf(dir: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for await (const file of tsFiles(join(ROOT, dir))) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(SPECIFIER)) {
      out.push([relative(ROOT, file), relative(ROOT, join(dirname(file), m[1]))]);
    }
  }
  return out;
}

Deno.test("the shared kits (lib/http, lib/rate_limit, lib/db, lib/net) import no protocol folder", async () => {
  const found: string[] = [];
  for (const kit of KITS) {
    for (const [file, target] of await importsOf(kit)) {
      if (PROTOCOLS.some((p) => target.startsWith(`${p}/`))) found.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(found, [], "move what the kit needs into the kit (or a kit of its own)");
});

/** The kit's tables are written by the kit alone, and its in-memory GCRA is defined once. */
const KIT_CODE =
  /\b(?:insert into|update)\s+(?:rate_limits|rate_buckets)\b|\bfunction\s+createMemoryLimiter\b/g;

Deno.test("every rate limit uses the kit: no limiter algorithm is defined in a protocol folder", async () => {
  const found: string[] = [];
  for (const dir of PROTOCOLS) {
    for await (const file of tsFiles(join(ROOT, dir))) {
      const text = await Deno.readTextFile(file);
      for (const m of text.matchAll(KIT_CODE)) found.push(`${relative(ROOT, file)}: ${m[0]}`);
    }
  }
  assert.deepEqual(
    found,
    [],
    "limits are counted by lib/rate_limit (memory.ts, buckets.ts, window.ts, brake.ts)",
  );
});
