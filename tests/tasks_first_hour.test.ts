// The first hour as a newcomer lives it: the real `deno task dev|start|admin|bench`, each with its own
// permissions, and the lines they print pasted into a shell as printed.
import assert from "node:assert/strict";
import { BENCH_HELP, BENCHES, FULL, parseBenchArgs, QUICK } from "../bench/args.ts";
import { START_NEEDS_DATABASE_URL } from "../lib/welcome.ts";
import { DATABASE_URL, freshDatabase } from "./helpers/db.ts";
import { type RunningTask, startTask } from "./helpers/tasks.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const decoder = new TextDecoder();

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", ...extra };
  for (const k of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  return env;
}

/** stderr without the `Task <name> <command>` line deno task prints first. */
function errLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l !== "" && !l.startsWith("Task "));
}

async function task(name: string, args: string[], env: Record<string, string>, stdin?: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", name, ...args],
    cwd: ROOT,
    env: baseEnv(env),
    clearEnv: true,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: errLines(decoder.decode(out.stderr)) };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  return port;
}

Deno.test("deno task start without DATABASE_URL: one line naming the way out, exit 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await task("start", [], { DATA_DIR: dir, PORT: String(freePort()) });
    assert.equal(r.code, 1);
    assert.deepEqual(r.stderr, [`portico: ${START_NEEDS_DATABASE_URL}`]);
    assert.equal(
      START_NEEDS_DATABASE_URL,
      "deno task start needs DATABASE_URL (PostgreSQL); for the embedded database use deno task dev",
    );
    assert.equal(r.stdout, "");
    assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing was created");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task bench --help lists the options and exits 0; an unknown option exits 2", async () => {
  const help = await task("bench", ["--help"], {});
  assert.equal(help.code, 0);
  assert.equal(help.stdout, `${BENCH_HELP}\n`);
  for (
    const o of ["--full", "--bench=", "--requests=", "--warmup=", "--concurrency=", "--rounds=", "--only="]
  ) {
    assert.ok(help.stdout.includes(o), o);
  }
  const bad = await task("bench", ["--requets=5"], {});
  assert.equal(bad.code, 2);
  assert.deepEqual(bad.stderr, ["bench: unknown option --requets (deno task bench --help lists them)"]);
});

Deno.test("bench options: a short default, --full, each documented option reaches the load benchmark", () => {
  assert.deepEqual(parseBenchArgs([]), { help: false, benches: ["load"], load: QUICK.load });
  assert.deepEqual(QUICK.load, {
    requests: 200,
    warmup: 50,
    concurrency: 8,
    rounds: 1,
    maxSeconds: 3,
    logLevel: "info",
    only: "list_projects",
    cpuProf: "",
  });
  assert.deepEqual(parseBenchArgs(["--full"]), {
    help: false,
    benches: [...BENCHES], // every benchmark
    load: FULL.load,
  });
  assert.equal(FULL.load.requests, 3000);
  assert.deepEqual(
    parseBenchArgs([
      "--requests=3000",
      "--warmup",
      "300",
      "--concurrency=32",
      "--rounds=3",
      "--max-seconds=25",
      "--log-level=warn",
      "--only=tools/list",
      "--cpu-prof=/tmp/prof",
      "--bench=load,mcp",
    ]),
    {
      help: false,
      benches: ["mcp", "load"],
      load: {
        requests: 3000,
        warmup: 300,
        concurrency: 32,
        rounds: 3,
        maxSeconds: 25,
        logLevel: "warn",
        only: "tools/list",
        cpuProf: "/tmp/prof",
      },
    },
  );
  assert.equal(parseBenchArgs(["--full", "--only="]).load.only, "");
  assert.equal(parseBenchArgs(["--help"]).help, true);
  const refused: Array<[string[], string]> = [
    [["--requests=0"], "--requests must be a positive integer"],
    [["--requests=1e3"], "--requests must be a positive integer"],
    [["--bench=load,nope"], `--bench takes names from ${BENCHES.join(", ")}`],
    [["--log-level=loud"], "--log-level must be debug, info, warn or error"],
    [["--rounds"], "--rounds needs a value"],
    [["--full=yes"], "--full takes no value"],
    [["load"], "unexpected argument load"],
  ];
  for (const [args, message] of refused) {
    assert.throws(() => parseBenchArgs(args), { message }, args.join(" "));
  }
});

Deno.test("deno task admin, as run: help without a database, set-password from stdin, lists as JSON", async () => {
  // Help needs no database at all: not even DATA_DIR is touched.
  const help = await task("admin", ["--help"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
  assert.equal(help.code, 0);
  assert.equal(
    help.stdout.split("\n")[0],
    "usage: deno task admin <command> [--json]   (deno task admin <command> --help for one command)",
  );
  const one = await task("admin", ["demo", "reset-password", "--help", "--json"], {});
  assert.equal(one.code, 0);
  assert.equal(JSON.parse(one.stdout).usage, "deno task admin demo reset-password");
  const bogus = await task("admin", ["frobnicate"], {});
  assert.equal(bogus.code, 2);
  assert.deepEqual(bogus.stderr, [
    'admin: unknown command "frobnicate"',
    "admin: deno task admin --help lists the commands",
  ]);

  // Against Postgres when DATABASE_URL is set (a fresh database), else the embedded database in a temp dir.
  const db = DATABASE_URL ? await freshDatabase() : undefined;
  const dir = await Deno.makeTempDir();
  const env: Record<string, string> = db
    ? { DATABASE_URL: db.url, SECRET_KEY: "s".repeat(40) }
    : { DATA_DIR: dir };
  try {
    const created = await task("admin", [
      "user",
      "create",
      "--email",
      "Newcomer@example.com",
      "--password",
      "first password",
      "--json",
    ], env);
    assert.equal(created.code, 0, created.stderr.join("\n"));
    const id = JSON.parse(created.stdout).id;
    const set = await task(
      "admin",
      ["user", "set-password", "--email", "newcomer@example.com", "--password-stdin", "--json"],
      env,
      "a new password\n",
    );
    assert.equal(set.code, 0, set.stderr.join("\n"));
    assert.deepEqual(JSON.parse(set.stdout), {
      id,
      email: "Newcomer@example.com",
      sessions_ended: 0,
      brake_cleared: 0,
    });
    const listed = await task("admin", ["user", "list", "--json"], env);
    assert.equal(listed.code, 0);
    const users = JSON.parse(listed.stdout);
    assert.deepEqual(users.users.map((u: { id: string; email: string }) => [u.id, u.email]), [
      [id, "Newcomer@example.com"],
    ]);
    assert.equal(users.truncated, false);
    const missing = await task("admin", ["user", "unlock", "--email", "nobody@example.com"], env);
    assert.equal(missing.code, 1);
    assert.deepEqual(missing.stderr, ["admin: no user with email nobody@example.com"]);
  } finally {
    await db?.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task dev prints the key, a curl and client lines with the real port; pasted, they work; day two", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const env = { PORT: String(port), DATA_DIR: dir };
  const running: RunningTask[] = [];
  try {
    // The banner comes before the "listening" line startTask waits for.
    const first = await startTask("dev", env);
    running.push(first);
    const lines = first.stdout.split("\n");
    const exportLine = lines.find((l) => l.trim().startsWith("export PORTICO_KEY="))!.trim();
    assert.match(exportLine, /^export PORTICO_KEY=pak_[A-Za-z0-9_-]{43}$/);
    const curlAt = lines.findIndex((l) => l.trim().startsWith("curl -s "));
    const curl = `${lines[curlAt].trim()}\n${lines[curlAt + 1].trim()}`;
    assert.ok(curl.startsWith(`curl -s http://localhost:${port}/mcp `), curl);
    assert.ok(
      lines.includes(
        `    Claude Code          claude mcp add --transport http portico http://localhost:${port}/mcp`,
      ),
    );
    assert.ok(!first.stdout.includes("localhost:8000"), "no hard-coded port");

    // Pasted into a shell exactly as printed.
    const sh = await new Deno.Command("sh", {
      args: ["-c", `${exportLine}\n${curl}`],
      env: baseEnv({}),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(sh.code, 0, decoder.decode(sh.stderr));
    const answer = JSON.parse(decoder.decode(sh.stdout));
    assert.equal(answer.id, 1);
    assert.ok(answer.result.tools.some((t: { name: string }) => t.name === "list_projects"));
    assert.deepEqual(await first.stop("SIGINT"), { code: 0, ended: true });

    // Day two: the demo person's ids, read with no server running (admin then owns the database).
    const shown = await task("admin", ["user", "show", "--email", "demo@portico.local", "--json"], env);
    assert.equal(shown.code, 0, shown.stderr.join("\n"));
    const demo = JSON.parse(shown.stdout);
    const workspaceId = demo.memberships.find((m: { workspace: string }) => m.workspace === "Demo Studio")
      .workspace_id;

    const second = await startTask("dev", env);
    running.push(second);
    const again = second.stdout.split("\n");
    const at = again.indexOf("  Demo data (from the first start):");
    assert.ok(at > 0, second.stdout);
    assert.deepEqual(again.slice(at - 1, at + 12), [
      "",
      "  Demo data (from the first start):",
      "    sign in as   demo@portico.local",
      "",
      "  Lost the password, or signed in wrongly too often? deno task admin demo reset-password",
      "",
      `  Call the MCP tool server: make a key on http://localhost:${port}/account/keys (it is shown once), or in a shell:`,
      `    deno task admin apikey create --workspace ${workspaceId} --user ${demo.id}`,
      "  then paste:",
      "    export PORTICO_KEY=pak_…                # the key you made",
      `    curl -s http://localhost:${port}/mcp -H 'content-type: application/json' -H "x-api-key: $PORTICO_KEY" \\`,
      `      -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
      "",
    ]);
    assert.ok(!second.stdout.includes("password     "), "no password: a later start does not know it");
    // The keys page it points to is there (it asks the person to sign in first).
    const keys = await fetch(`http://localhost:${port}/account/keys`, { redirect: "manual" });
    await keys.body?.cancel();
    assert.equal(keys.status, 303);
    assert.equal(keys.headers.get("location"), "/signin?return_to=%2Faccount%2Fkeys");
    assert.deepEqual(await second.stop("SIGINT"), { code: 0, ended: true });

    // The one CLI line, pasted as printed, makes a key for the demo person in the demo workspace.
    const made = await new Deno.Command("sh", {
      args: ["-c", again[at + 6].trim()],
      cwd: ROOT,
      env: baseEnv(env),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(made.code, 0, decoder.decode(made.stderr));
    assert.match(decoder.decode(made.stdout), /^key: pak_[A-Za-z0-9_-]{43}$/m);
  } finally {
    for (const t of running) await t.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
