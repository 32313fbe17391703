// What Deno Deploy and `deno compile` need, as far as this machine can prove it: main.ts serves the OAuth and
// MCP surfaces on Postgres with no write permission, no FFI, no subprocesses and read access only to its own
// files; and everything the server runs is imported statically (nothing a compiled binary would miss).
import assert from "node:assert/strict";
import { emptyDatabase } from "./helpers/db.ts";
import { moduleGraph, ROOT } from "./helpers/module_graph.ts";
import { eventually } from "./helpers/wait.ts";

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  return port;
}

/** The local source files of a program's module graph. */
async function localModules(entry: string): Promise<string[]> {
  return (await moduleGraph(entry)).modules
    .filter((m) => m.specifier.startsWith(`file://${ROOT}/`))
    .map((m) => m.specifier.slice(`file://${ROOT}/`.length));
}

Deno.test("compile-ready: the server and admin graphs import statically and read no source-tree asset", async () => {
  const compile = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)).tasks.compile as string;
  for (const entry of ["main.ts", "admin.ts"]) {
    const files = await localModules(entry);
    assert.ok(files.includes("migrations/mod.ts"), `${entry}: migrations are part of the graph`);
    for (const file of files) {
      const src = await Deno.readTextFile(`${ROOT}/${file}`);
      const code = src.replace(/\/\/.*$/gm, "");
      // A dynamic import of a plain string literal is in the graph of `deno compile` and of Deno Deploy (both
      // documented: "statically analyzable dynamic imports … will be included"); any other is invisible to them.
      // lib/security/password_policy.ts loads zxcvbn's dictionaries (137 ms, 27 MB of heap) that way, on first use.
      assert.doesNotMatch(
        code,
        /\bimport\s*\((?!\s*"[^"$`\\]+"\s*\))/,
        `${file}: a dynamic import of anything but a string literal is invisible to deno compile`,
      );
      assert.doesNotMatch(code, /\bDeno\.readDir\b/, `${file}: reads a folder at run time`);
      // A worker's module is not in the static graph: the compile task must --include it.
      for (const m of code.matchAll(/new Worker\(\s*new URL\(\s*"([^"]+)"/g)) {
        const target = new URL(m[1], `file://${ROOT}/${file}`).pathname.slice(ROOT.length + 1);
        assert.ok(compile.includes(`--include ${target}`), `compile task must --include ${target}`);
      }
      for (const m of code.matchAll(/Deno\.read(?:Text)?File(?:Sync)?\(([^)]*)\)/g)) {
        assert.doesNotMatch(m[1], /import\.meta/, `${file}: reads a source-tree file at run time`);
      }
    }
  }
});

Deno.test({
  name: "deploy-like: main.ts on Postgres without write, FFI or subprocess permission serves OAuth and MCP",
  ignore: !Deno.env.get("DATABASE_URL"),
  async fn() {
    const db = await emptyDatabase();
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-net",
        "--allow-env",
        `--allow-read=${ROOT}`,
        "--allow-sys=hostname,osRelease,networkInterfaces",
        "main.ts",
      ],
      cwd: ROOT,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? "",
        ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
        DATABASE_URL: db.url,
        SECRET_KEY: "d".repeat(48),
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const base = `http://127.0.0.1:${port}`;
    let exited = false;
    child.status.then(() => exited = true);
    try {
      // started when /healthz answers 200 (it was "within 300 tries": a loaded host may need longer); an exit
      // before that fails the test at once
      await eventually("the server answered /healthz 200", async () => {
        if (exited) throw new Error("main.ts exited at start-up");
        try {
          return (await fetch(`${base}/healthz`).then(async (r) => (await r.body?.cancel(), r.status))) ===
            200;
        } catch {
          return false; // not listening yet
        }
      }, 100);

      const meta = await fetch(`${base}/.well-known/openid-configuration`);
      assert.equal(meta.status, 200);
      assert.equal((await meta.json()).issuer, `http://localhost:${port}`);
      const jwks = await fetch(`${base}/oauth/jwks`);
      assert.equal(jwks.status, 200);
      assert.equal((await jwks.json()).keys[0].kty, "RSA");
      const prm = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
      assert.equal(prm.status, 200);
      assert.equal((await prm.json()).resource, `http://localhost:${port}/mcp`);
      const mcp = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assert.equal(mcp.status, 401);
      assert.match(mcp.headers.get("www-authenticate") ?? "", /^Bearer resource_metadata="/);
      await mcp.body?.cancel();
      const authorize = await fetch(`${base}/oauth/authorize?client_id=nobody`);
      assert.equal(authorize.status, 400);
      await authorize.body?.cancel();
    } finally {
      child.kill("SIGTERM");
      const out = await child.output();
      await db.close();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.doesNotMatch(stderr, /NotCapable|PermissionDenied|Requires .* access/, stderr);
    }
  },
});
