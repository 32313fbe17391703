// The grant registry (lib/oauth/grants/mod.ts) and the one list of grant types (lib/oauth/grants/names.ts):
// every step of docs/oauth.md "Adding a grant" that can be missed fails here, naming the fix.
import assert from "node:assert/strict";
import { authorizationServerMetadata } from "../../../lib/oauth/metadata.ts";
import { OAuthError } from "../../../lib/oauth/errors.ts";
import { grantTokens, TOKEN_GRANTS } from "../../../lib/oauth/grants/mod.ts";
import { GRANT_TYPES } from "../../../lib/oauth/grants/names.ts";
import type { TokenDeps } from "../../../lib/oauth/grants/shared.ts";
import { moduleGraph, ROOT } from "../../helpers/module_graph.ts";

const RECIPE = 'docs/oauth.md "Adding a grant"';
const GRANTS_DIR = "lib/oauth/grants";
/** Where a second list of grant types would be a second home for the fact (tests and docs may name grants). */
const SCANNED = ["lib", "routes", "tools", "admin.ts", "main.ts"];

/** A grant's file name: the name's last `:` segment, `-` as `_` (…:grant-type:jwt-bearer → jwt_bearer). */
function fileOf(name: string): string {
  return name.split(":").at(-1)!.replaceAll("-", "_");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(`${ROOT}/${path}`);
    return true;
  } catch {
    return false;
  }
}

async function* sourceFiles(path: string): AsyncGenerator<string> {
  const info = await Deno.stat(`${ROOT}/${path}`);
  if (info.isFile) {
    if (/\.tsx?$/.test(path)) yield path;
    return;
  }
  for await (const entry of Deno.readDir(`${ROOT}/${path}`)) yield* sourceFiles(`${path}/${entry.name}`);
}

/** The string literals of a module's text ('…', "…", `…`), roughly: enough to find names written out. */
function stringLiterals(text: string): string[] {
  return [...text.matchAll(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g)].map((m) => m[0]);
}

/** `name` as a whole word (a URN's `:` and `-` are literal; `refresh_token` is not in `oauth_refresh_tokens`). */
function wordPattern(name: string): RegExp {
  return new RegExp(`(?<![\\w:-])${name.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&")}(?![\\w:-])`);
}

/**
 * Why `text` holds a second list of grant types, or undefined: two grant names written as string literals of
 * their own (`["authorization_code", "refresh_token"]`), or one literal that names two (a message listing them).
 */
function secondList(text: string): string | undefined {
  const literals = stringLiterals(text);
  const named = (literal: string) => GRANT_TYPES.filter((g) => wordPattern(g).test(literal));
  const exact = new Set(
    literals.map((l) => l.slice(1, -1)).filter((l) => (GRANT_TYPES as readonly string[]).includes(l)),
  );
  if (exact.size >= 2) return `names ${[...exact].join(", ")} as literals`;
  const listing = literals.find((l) => named(l).length >= 2);
  if (listing) return `lists grants in one string: ${listing.slice(0, 80)}`;
  return undefined;
}

Deno.test("the scan recognises a second list of grant types, and leaves one name alone", () => {
  assert.ok(secondList(`const g = ["authorization_code", "refresh_token"];`));
  assert.ok(secondList(`if (t === 'authorization_code') a(); else if (t === 'refresh_token') b();`));
  assert.ok(secondList(`z.enum(X, { error: "must be authorization_code or refresh_token" })`));
  assert.ok(secondList("sql`where 'refresh_token' = any(g) or 'authorization_code' = any(g)`"));
  assert.equal(secondList(`client.grantTypes.includes("refresh_token")`), undefined);
  assert.equal(secondList(`"this client did not register the refresh_token grant"`), undefined);
  assert.equal(secondList(`from oauth_refresh_tokens where token_hash = $1`), undefined);
});

Deno.test("grant types are named in one place: no second list in lib/, routes/, tools/, admin.ts, main.ts", async () => {
  const offenders: string[] = [];
  for (const root of SCANNED) {
    for await (const path of sourceFiles(root)) {
      if (path.startsWith(`${GRANTS_DIR}/`)) continue;
      const why = secondList(await Deno.readTextFile(`${ROOT}/${path}`));
      if (why) offenders.push(`${path}: ${why}`);
    }
  }
  assert.deepEqual(
    offenders,
    [],
    `read GRANT_TYPES / isGrantType / REQUIRED_GRANT from ${GRANTS_DIR}/names.ts instead (${RECIPE})`,
  );
});

Deno.test("discovery's grant_types_supported is GRANT_TYPES", () => {
  assert.deepEqual(authorizationServerMetadata("https://as.example").grant_types_supported, [...GRANT_TYPES]);
});

Deno.test("every grant type has its module, its registry line and its test file", async () => {
  assert.deepEqual(Object.keys(TOKEN_GRANTS), [...GRANT_TYPES], `the registry in ${GRANTS_DIR}/mod.ts`);
  for (const name of GRANT_TYPES) {
    assert.equal(typeof TOKEN_GRANTS[name], "function", `${name}: a handler in ${GRANTS_DIR}/mod.ts`);
    const file = fileOf(name);
    assert.ok(await exists(`${GRANTS_DIR}/${file}.ts`), `${name}: add ${GRANTS_DIR}/${file}.ts (${RECIPE})`);
    assert.ok(
      await exists(`tests/oauth/grants/${file}.test.ts`),
      `${name}: add tests/oauth/grants/${file}.test.ts (${RECIPE})`,
    );
  }
});

Deno.test("every module in lib/oauth/grants/ is served: none is left out of the registry", async () => {
  const served = new Set(
    (await moduleGraph("main.ts")).modules
      .map((m) => m.specifier)
      .filter((s) => s.startsWith(`file://${ROOT}/${GRANTS_DIR}/`))
      .map((s) => s.slice(`file://${ROOT}/`.length)),
  );
  const orphans: string[] = [];
  for await (const path of sourceFiles(GRANTS_DIR)) if (!served.has(path)) orphans.push(path);
  assert.deepEqual(
    orphans,
    [],
    `import each grant in ${GRANTS_DIR}/mod.ts and add it to TOKEN_GRANTS (${RECIPE})`,
  );
});

Deno.test("a grant_type that is no grant is unsupported_grant_type, not a property of the registry", async () => {
  const deps = {} as TokenDeps; // never reached: the name is refused first
  for (const name of ["password", "implicit", "toString", "__proto__", "constructor"]) {
    await assert.rejects(
      grantTokens(deps, { via: "none" }, { grant_type: name }),
      (err: unknown) =>
        err instanceof OAuthError && err.error === "unsupported_grant_type" &&
        err.description === `grant_type ${name} is not supported`,
    );
  }
  await assert.rejects(
    grantTokens(deps, { via: "none" }, {}),
    (err: unknown) => err instanceof OAuthError && err.error === "invalid_request",
  );
});
