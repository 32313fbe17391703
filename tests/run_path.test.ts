// The run path (main.ts, admin.ts) imports none of the test-only packages: the MCP SDK (with Express),
// openid-client, playwright-core. Checked on `deno info --json`'s module graph, npm dependencies included.
import assert from "node:assert/strict";
import { moduleGraph } from "./helpers/module_graph.ts";

const TEST_ONLY = [
  "@modelcontextprotocol/sdk",
  "openid-client",
  "oauth4webapi",
  "playwright-core",
  "express",
];

/** Names of every npm package the entry point's graph reaches, through npm dependencies too. */
async function npmPackagesOf(entry: string): Promise<Set<string>> {
  const info = await moduleGraph(entry);
  // `npmPackages` lists the whole lockfile snapshot; what the graph uses starts from its npm modules.
  const queue = info.modules.filter((m) => m.kind === "npm" && m.npmPackage).map((m) => m.npmPackage!);
  const seen = new Set<string>();
  while (queue.length) {
    const id = queue.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    queue.push(...(info.npmPackages[id]?.dependencies ?? []));
  }
  return new Set([...seen].map((id) => info.npmPackages[id]?.name ?? id));
}

for (const entry of ["main.ts", "admin.ts"]) {
  Deno.test(`run path: ${entry} reaches none of the test-only packages`, async () => {
    const names = await npmPackagesOf(entry);
    assert.ok(names.has("postgres") && names.has("hono"), "the graph was read (its own packages are there)");
    assert.deepEqual(TEST_ONLY.filter((p) => names.has(p)), []);
  });
}
