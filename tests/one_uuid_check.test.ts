// One UUID check (issue 15): lib/errors.ts's isUuid/requireUuid and lib/mcp/fields.ts's uuidField are the only
// places that know what a UUID looks like; a second hand-written pattern elsewhere in the server fails here.
import assert from "node:assert/strict";
import { isUuid } from "../lib/errors.ts";
import { agentOfScope, isKnownScope } from "../lib/oauth/scope_names.ts";
import { moduleGraph, ROOT } from "./helpers/module_graph.ts";

const HOME = "lib/errors.ts";
/**
 * A hand-written UUID pattern: a hex class (a dash allowed in it, either order, either case) repeated 8, 32 or 36
 * times — the strict form's first group, and the loose forms `[0-9a-f-]{36}` and `[0-9a-f]{32}`.
 */
const PATTERN = /\[-?(?:0-9a-f(?:a-f)?|a-f(?:a-f)?0-9)-?\]\{(?:8|32|36)\}/i;
/** Folders whose modules must be among those scanned (the grants' code checked ids with a loose pattern). */
const MUST_SEE = ["lib/oauth/grants/"];

Deno.test("no UUID pattern outside lib/errors.ts in the modules main.ts and admin.ts load", async () => {
  const files = new Set<string>();
  for (const entry of ["main.ts", "admin.ts"]) {
    for (const m of (await moduleGraph(entry)).modules) {
      if (m.specifier.startsWith(`file://${ROOT}/`)) files.add(m.specifier.slice(`file://${ROOT}/`.length));
    }
  }
  assert.ok(files.has(HOME));
  for (const dir of MUST_SEE) assert.ok([...files].some((f) => f.startsWith(dir)), `${dir} is not scanned`);
  const offenders = [];
  for (const f of files) {
    if (f !== HOME && PATTERN.test(await Deno.readTextFile(`${ROOT}/${f}`))) offenders.push(f);
  }
  assert.deepEqual(offenders, []);
});

Deno.test("the guard's pattern finds the strict and the loose hand-written forms", () => {
  for (
    const written of [
      "/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i",
      "/^[0-9a-f-]{36}$/i",
      "/^[0-9A-Fa-f-]{36}$/",
      "/^[-a-f0-9]{36}$/",
      "/^[0-9a-f]{32}$/",
    ]
  ) assert.match(written, PATTERN, written);
  for (const other of ["/^[0-9a-f]{64}$/", "/^[0-9a-fA-F]{1,4}$/", "/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/"]) {
    assert.doesNotMatch(other, PATTERN, other);
  }
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
