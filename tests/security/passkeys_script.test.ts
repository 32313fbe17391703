// The passkey pages' script: the checked-in bundle (views/passkeys_script.generated.ts) equals a fresh
// `deno task passkeys` build of scripts/passkeys/client.ts with the pinned @simplewebauthn/browser, stays small,
// and is served at /assets/passkeys.js, which the pages with a passkey ceremony load under a CSP that allows
// same-origin scripts and requests and nothing inline.
import assert from "node:assert/strict";
import { buildModule, GENERATED_PATH } from "../../scripts/build_passkeys.ts";
import { PASSKEYS_SCRIPT } from "../../views/passkeys_script.generated.ts";
import { PASSKEY_CSP } from "../../views/passkeys.tsx";
import { freshDatabase } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";

const MAX_SCRIPT_BYTES = 16 * 1024;

Deno.test("views/passkeys_script.generated.ts is up to date (run `deno task passkeys` after changing it)", async () => {
  assert.equal(await Deno.readTextFile(GENERATED_PATH), await buildModule());
});

Deno.test(`the passkey script is at most ${MAX_SCRIPT_BYTES} bytes and served as JavaScript`, async () => {
  assert.ok(PASSKEYS_SCRIPT.length <= MAX_SCRIPT_BYTES, `${PASSKEYS_SCRIPT.length} bytes`);
  const db = await freshDatabase();
  try {
    const res = await testApp(db.sql).request("/assets/passkeys.js");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(await res.text(), PASSKEYS_SCRIPT);
    const page = await testApp(db.sql).request("/signin");
    assert.equal(page.headers.get("content-security-policy"), PASSKEY_CSP);
    assert.match(PASSKEY_CSP, /script-src 'self';/);
    assert.doesNotMatch(PASSKEY_CSP, /unsafe-inline|unsafe-eval/);
    assert.match(await page.text(), /<script src="\/assets\/passkeys.js" defer><\/script>/);
  } finally {
    await db.close();
  }
});
