// The checked-in MCP Apps bundles (lib/mcp/apps_bundles.generated.ts) equal a fresh `deno task apps` build of
// views/apps/*.tsx and scripts/apps/glue.ts, each stays small, and none can reach the network.
import assert from "node:assert/strict";
import { buildModule, BUNDLE_CONFIG, GENERATED_PATH, VIEW_NAMES } from "../../scripts/build_apps.ts";
import { APP_HTML } from "../../lib/mcp/apps_bundles.generated.ts";
import { APPS_PROTOCOL_VERSION } from "../../scripts/apps/glue.ts";

/** What one view may weigh (HTML with Preact, the view and the glue inline). */
const MAX_VIEW_BYTES = 64 * 1024;

Deno.test("lib/mcp/apps_bundles.generated.ts is up to date (run `deno task apps` after changing a view)", async () => {
  assert.equal(await Deno.readTextFile(GENERATED_PATH), await buildModule());
});

Deno.test(`each view is one HTML document of at most ${MAX_VIEW_BYTES} bytes with a no-network policy`, () => {
  assert.deepEqual(Object.keys(APP_HTML), [...VIEW_NAMES]);
  for (const name of VIEW_NAMES) {
    const html = APP_HTML[name];
    const bytes = new TextEncoder().encode(html).length;
    assert.ok(bytes <= MAX_VIEW_BYTES, `${name}: ${bytes} bytes`);
    assert.ok(html.startsWith("<!doctype html>"));
    assert.ok(html.includes(`"${APPS_PROTOCOL_VERSION}"`), `${name} speaks ${APPS_PROTOCOL_VERSION}`);
    assert.ok(html.includes(`content="default-src 'none'; script-src 'unsafe-inline'`), name);
    // One inline script, no external one, and no way to the network in the code.
    assert.equal(html.split("<script").length, 2, name);
    assert.ok(!/<script[^>]*\bsrc=/.test(html), name);
    for (const api of ["fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon"]) {
      assert.ok(!html.includes(api), `${name} uses ${api}`);
    }
  }
});

Deno.test("the views are bundled with the Preact deno.json pins (only the JSX mode differs)", async () => {
  const main = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const bundle = JSON.parse(await Deno.readTextFile(BUNDLE_CONFIG));
  assert.equal(bundle.imports.preact, main.imports.preact);
  assert.equal(bundle.imports["preact/"], main.imports["preact/"]);
  assert.equal(bundle.compilerOptions.jsx, "react-jsx");
});
