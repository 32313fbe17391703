// The MCP Apps test host: a page on loopback carrying the official AppBridge (bridge.ts, bundled once per run by
// `deno bundle` with the test config), into which tests/e2e/mcp_apps.test.ts embeds Portico's views.
import { fileURLToPath } from "node:url";

export interface ToolCallRecord {
  name: string;
  arguments: Record<string, unknown>;
}

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

async function bundleBridge(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "portico-host-" });
  try {
    const out = `${dir}/bridge.js`;
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--config",
        `${ROOT}deno.test.json`,
        "--platform",
        "browser",
        "--format",
        "esm",
        "--output",
        out,
        `${ROOT}tests/e2e/apps_host/bridge.ts`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!r.success) throw new Error(`deno bundle bridge: ${new TextDecoder().decode(r.stderr)}`);
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Serves the host page on 127.0.0.1; `url` is the page. */
export async function hostPage(): Promise<{ url: string; close(): Promise<void> }> {
  const js = (await bundleBridge()).replaceAll("</", "<\\/");
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP Apps test host</title>` +
    `<style>body{margin:0;background:Canvas;color:CanvasText}</style></head>` +
    `<body><main><h1 style="position:absolute;left:-9999px">Test host</h1><div id="slot"></div></main>` +
    `<script type="module">${js}</script></body></html>`;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}
