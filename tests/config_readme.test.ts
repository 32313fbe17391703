// README's Configuration table is the one list of variables for readers: it names exactly what lib/config.ts reads.
import assert from "node:assert/strict";
import { CONFIG_VARIABLES } from "../lib/config.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));

/** The variable names in the first column of README's "## Configuration" table. */
function documented(): string[] {
  const section = README.split(/^## /m).find((s) => s.startsWith("Configuration\n"));
  assert.ok(section, 'README has a "## Configuration" section');
  const names: string[] = [];
  for (const line of section.split("\n")) {
    const first = line.match(/^\|([^|]*)\|/)?.[1] ?? "";
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.push(m[1]);
  }
  return names;
}

Deno.test("README's Configuration table names every variable the config schema reads, and no other", () => {
  const inReadme = documented();
  assert.deepEqual([...new Set(inReadme)].sort(), [...CONFIG_VARIABLES].sort());
  assert.equal(inReadme.length, new Set(inReadme).size, "each variable has one row");
});
