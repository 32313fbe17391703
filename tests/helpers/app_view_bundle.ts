// Test-only: bundles one MCP Apps view (views/apps/<name>.tsx) into a classic script for Chromium, which sets
// globalThis.PorticoView = { mount }. deno.json compiles JSX as "precompile" (server templates that render
// nothing in a browser), so the bundle uses a config of its own with the automatic runtime and deno.json's
// preact. The app's own bundling (the infra's deno task) is separate; this only lets the views' tests run.

const ROOT = new URL("../../", import.meta.url);

let dir: Promise<string> | null = null;

async function workDir(): Promise<string> {
  const d = await Deno.makeTempDir({ prefix: "portico-app-views-" });
  const main = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const config = {
    compilerOptions: { ...main.compilerOptions, jsx: "react-jsx", jsxImportSource: "preact" },
    imports: { preact: main.imports.preact, "preact/": main.imports["preact/"] },
  };
  await Deno.writeTextFile(`${d}/deno.json`, JSON.stringify(config));
  return d;
}

/** The view's bundle (minified) as script text, and its size in bytes. */
export async function bundleView(
  name: "plan" | "offer" | "week",
): Promise<{ script: string; bytes: number }> {
  dir ??= workDir();
  const d = await dir;
  const entry = `${d}/${name}_entry.ts`;
  const view = new URL(`views/apps/${name}.tsx`, ROOT).href;
  await Deno.writeTextFile(
    entry,
    `import { mount } from "${view}";\n(globalThis as any).PorticoView = { mount };\n`,
  );
  const out = `${d}/${name}.js`;
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--config",
      `${d}/deno.json`,
      "--platform",
      "browser",
      "--minify",
      "-o",
      out,
      entry,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!run.success) {
    throw new Error(`deno bundle ${name} failed:\n${new TextDecoder().decode(run.stderr)}`);
  }
  const script = await Deno.readTextFile(out);
  return { script, bytes: new TextEncoder().encode(script).length };
}
