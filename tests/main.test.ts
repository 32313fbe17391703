// Start-up as an operator sees it: one clear line for each failure, and data that survives a restart.
import assert from "node:assert/strict";
import { HANG_MS } from "./helpers/wait.ts";

const ROOT = new URL("../", import.meta.url).pathname;

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...extra };
  for (const k of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  return env;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  return port;
}

async function runToEnd(script: string, env: Record<string, string>, args: string[] = []) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, ...args],
    cwd: ROOT,
    env: baseEnv(env),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

function assertOneLine(stderr: string, expected: string) {
  const lines = stderr.trim().split("\n");
  assert.deepEqual(lines, [expected]);
  assert.ok(!stderr.includes("    at "), "no stack trace");
}

Deno.test("start-up: a bad setting ends with one line and exit 1", async () => {
  const r = await runToEnd("main.ts", { PORT: "eighty" });
  assert.equal(r.code, 1);
  assertOneLine(r.stderr, "portico: config error: PORT must be a number");
});

Deno.test("start-up: an unreachable DATABASE_URL ends with one line and exit 1", async () => {
  const port = freePort();
  const r = await runToEnd("main.ts", {
    DATABASE_URL: `postgres://portico@127.0.0.1:${port}/portico`,
    SECRET_KEY: "s".repeat(40),
  });
  assert.equal(r.code, 1);
  assertOneLine(
    r.stderr,
    `portico: cannot reach the database at 127.0.0.1:${port}/portico: connection refused (is Postgres running there?)`,
  );
});

Deno.test("start-up: a port in use ends with one line and exit 1", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dir = await Deno.makeTempDir();
  try {
    const env: Record<string, string> = {
      PORT: String(listener.addr.port),
      DATA_DIR: dir,
      LOG_LEVEL: "error",
    };
    const r = await runToEnd("main.ts", env);
    assert.equal(r.code, 1);
    assertOneLine(r.stderr, `portico: port ${listener.addr.port} on 127.0.0.1 is already in use`);
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("start-up: an unknown command is refused", async () => {
  const r = await runToEnd("main.ts", {}, ["frobnicate"]);
  assert.equal(r.code, 2);
  assertOneLine(r.stderr, 'portico: unknown command "frobnicate" (use serve or migrate)');
});

async function startServer(env: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: baseEnv(env),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let stdout = "";
  const reading = (async () => {
    for await (const chunk of child.stdout) stdout += decoder.decode(chunk);
  })();
  const stderrText = new Response(child.stderr).text();
  let exited = false;
  child.status.then(() => exited = true);
  // the first start runs initdb for PGlite: 60 s was not always enough on a loaded host
  const deadline = Date.now() + HANG_MS;
  while (!stdout.includes('"msg":"listening"')) {
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill("SIGKILL");
      await child.status;
      throw new Error(`server did not start: ${stdout}\n${await stderrText}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    get stdout() {
      return stdout;
    },
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      await reading;
      return { code: status.code, stderr: await stderrText };
    },
  };
}

Deno.test("embedded mode: demo data on the first start, the same data after a restart", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const env = { PORT: String(port), DATA_DIR: dir };
  try {
    const first = await startServer(env);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.match(first.stdout, /sign in as {3}demo@portico\.local/);
    assert.match(first.stdout, /MCP API key {2}pak_/);
    // the banner comes before the "listening" line, so whatever waits for that line has the key already
    assert.ok(
      first.stdout.indexOf("MCP API key") < first.stdout.indexOf('"msg":"listening"'),
      "the welcome banner precedes the listening line",
    );
    const stopped = await first.stop();
    assert.equal(stopped.code, 0);
    assert.equal(stopped.stderr, "");

    const second = await startServer(env);
    assert.ok(!second.stdout.includes("Demo data created"), "no second seeding: the data survived");
    // the admin CLI reaches the running server's embedded database and finds the demo user
    const dup = await runToEnd("admin.ts", { DATA_DIR: dir }, [
      "user",
      "create",
      "--email",
      "demo@portico.local",
      "--password",
      "a long enough password",
      "--json",
    ]);
    assert.equal(dup.code, 1);
    assertOneLine(dup.stderr, "admin: a user with email demo@portico.local already exists");
    // a second server on the same data directory refuses instead of opening it twice
    const third = await runToEnd("main.ts", { PORT: String(freePort()), DATA_DIR: dir });
    assert.equal(third.code, 1);
    assert.match(
      third.stderr,
      /^portico: the embedded database in .* is in use by another Portico process \(pid \d+\)/,
    );
    assert.equal((await second.stop()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
