// One UUID check (issue 15): lib/errors.ts's isUuid/requireUuid and lib/mcp/fields.ts's uuidField are the only
// places that know what a UUID looks like; a second hand-written pattern elsewhere in the server fails here.
import assert from "node:assert/strict";
import { isUuid } from "../lib/errors.ts";
import { agentOfScope, isKnownScope } from "../lib/oauth/scope_names.ts";
import { moduleGraph, ROOT } from "./helpers/module_graph.ts";

const HOME = "lib/errors.ts";
const PATTERN = /\[0-9a-f\]\{8\}/i;

Deno.test("no UUID pattern outside lib/errors.ts in the modules main.ts and admin.ts load", async () => {
  const files = new Set<string>();
  for (const entry of ["main.ts", "admin.ts"]) {
    for (const m of (await moduleGraph(entry)).modules) {
      if (m.specifier.startsWith(`file://${ROOT}/`)) files.add(m.specifier.slice(`file://${ROOT}/`.length));
    }
  }
  assert.ok(files.has(HOME));
  const offenders = [];
  for (const f of files) {
    if (f !== HOME && PATTERN.test(await Deno.readTextFile(`${ROOT}/${f}`))) offenders.push(f);
  }
  assert.deepEqual(offenders, []);
});

Deno.test("the shared check decides the scopes and ids that used their own patterns", () => {
  const id = "0A1B2C3D-4E5F-6789-ABCD-EF0123456789";
  assert.equal(isUuid(id), true);
  assert.equal(isUuid(`${id}0`), false);
  assert.equal(isKnownScope(`agent.chat:${id}`), true);
  assert.equal(agentOfScope(`agent.chat:${id}`), id.toLowerCase());
  assert.equal(isKnownScope("agent.chat:not-a-uuid"), false);
  assert.equal(agentOfScope(`agent.chat:${id}x`), undefined);
});
