// The run path installs only what it runs: deno.json/deno.lock (which `deno task` installs whole before any task)
// hold only packages main.ts, admin.ts or their embedded worker reach; the test-only packages
// live in deno.test.json/deno.test.lock, whose other entries are exactly deno.json's. Module graphs from
// `deno info --json` (no downloads: the run path's packages are already installed by `deno task`).
import assert from "node:assert/strict";
import { moduleGraph, ROOT } from "./helpers/module_graph.ts";

/** Packages only tests and benchmarks import (the MCP SDK brings Express with it). */
const TEST_ONLY = [
  "@modelcontextprotocol/sdk",
  "openid-client",
  "oauth4webapi",
  "playwright-core",
  "axe-core",
  "gpt-tokenizer",
  "express",
  "@modelcontextprotocol/client",
  "ajv",
  "ajv-formats",
  "@modelcontextprotocol/ext-apps",
  "smtp-server",
];

interface Config {
  imports: Record<string, string>;
  compilerOptions: Record<string, unknown>;
  lock?: { path: string };
}
interface Lock {
  specifiers: Record<string, string>;
  npm: Record<string, unknown>;
}

const readJson = async <T>(file: string) => JSON.parse(await Deno.readTextFile(`${ROOT}/${file}`)) as T;

/** The npm package name an import-map target names: `npm:/@scope/name@1.2.3/` → `@scope/name`. */
function packageOf(target: string): string {
  const m = /^npm:\/?(@?[^@/]+(?:\/[^@/]+)?)@/.exec(target);
  assert.ok(m, `${target}: an npm: specifier with a version`);
  return m[1];
}

/** Lockfile ids (`name@version[_peers]`) of every npm package the entry point's graph reaches. */
async function npmIdsOf(entry: string): Promise<{ ids: Set<string>; names: Set<string> }> {
  const info = await moduleGraph(entry);
  // `npmPackages` lists the whole lockfile snapshot; what the graph uses starts from its npm modules.
  const queue = info.modules.filter((m) => m.kind === "npm" && m.npmPackage).map((m) => m.npmPackage!);
  const ids = new Set<string>();
  while (queue.length) {
    const id = queue.pop()!;
    if (ids.has(id)) continue;
    ids.add(id);
    queue.push(...(info.npmPackages[id]?.dependencies ?? []));
  }
  return { ids, names: new Set([...ids].map((id) => info.npmPackages[id]?.name ?? id)) };
}

for (const entry of ["main.ts", "admin.ts"]) {
  Deno.test(`run path: ${entry} reaches none of the test-only packages`, async () => {
    const { names } = await npmIdsOf(entry);
    assert.ok(names.has("postgres") && names.has("hono"), "the graph was read (its own packages are there)");
    assert.deepEqual(TEST_ONLY.filter((p) => names.has(p)), []);
  });
}

Deno.test("run path: deno.lock holds only packages the run path reaches (deno task installs all of it)", async () => {
  const config = await readJson<Config & { tasks: Record<string, string> }>("deno.json");
  // The run path: both entry points and the worker modules the compile task embeds with --include.
  const workers = [...config.tasks.compile.matchAll(/--include (\S+)/g)].map((m) => m[1]);
  assert.ok(
    workers.includes("lib/db/embedded_worker.ts"),
    "the embedded database's worker is on the run path",
  );
  const reached = new Set<string>();
  for (const entry of ["main.ts", "admin.ts", ...workers]) {
    (await npmIdsOf(entry)).ids.forEach((id) => reached.add(id));
  }
  const lock = await readJson<Lock>("deno.lock");
  assert.deepEqual(Object.keys(lock.npm).filter((id) => !reached.has(id)), []);
  assert.deepEqual(
    Object.values(config.imports).map(packageOf).filter((p) => TEST_ONLY.includes(p)),
    [],
    "deno.json imports a test-only package: declare it in deno.test.json",
  );
});

Deno.test("run path: deno.test.json is deno.json plus the test-only packages, one version each", async () => {
  const run = await readJson<Config>("deno.json");
  const test = await readJson<Config>("deno.test.json");
  assert.deepEqual(test.compilerOptions, run.compilerOptions);
  assert.equal(test.lock?.path, "deno.test.lock");
  // Every runtime entry is copied unchanged (one version per package; change it in both files)…
  for (const [key, target] of Object.entries(run.imports)) {
    assert.equal(test.imports[key], target, `deno.test.json imports["${key}"] must equal deno.json's`);
  }
  // …and the rest are test-only packages, none of them also a runtime package under another key.
  const extra = Object.entries(test.imports).filter(([key]) => !(key in run.imports));
  const runPackages = new Set(Object.values(run.imports).map(packageOf));
  for (const [key, target] of extra) {
    assert.ok(TEST_ONLY.includes(packageOf(target)), `deno.test.json imports["${key}"]: add it to TEST_ONLY`);
    assert.ok(!runPackages.has(packageOf(target)), `deno.test.json imports["${key}"]: a second version`);
  }
  assert.ok(extra.length > 0, "deno.test.json declares the test-only packages");
});

Deno.test("run path: deno.test.lock pins the runtime packages exactly as deno.lock does", async () => {
  const run = await readJson<Lock>("deno.lock");
  const test = await readJson<Lock>("deno.test.lock");
  for (const [specifier, resolved] of Object.entries(run.specifiers)) {
    assert.equal(test.specifiers[specifier], resolved, `deno.test.lock specifiers["${specifier}"]`);
  }
  for (const [id, entry] of Object.entries(run.npm)) {
    assert.deepEqual(test.npm[id], entry, `deno.test.lock npm["${id}"]`);
  }
});
