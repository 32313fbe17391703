// `deno info --json` of an entry point of the project: the module graph the run-path and compile tests read.
import assert from "node:assert/strict";

export const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

export interface ModuleGraph {
  modules: Array<{ kind: string; specifier: string; npmPackage?: string; local?: string }>;
  npmPackages: Record<string, { name: string; dependencies?: string[] }>;
}

/**
 * Read from the project root without --config, so under deno.json and deno.lock (the run path's import map) even
 * when the tests themselves run under deno.test.json.
 */
export async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as ModuleGraph;
}
