// The embedded database as an operator uses it: `deno task dev`, `admin`, `migrate` and a second `dev` on one
// DATA_DIR, each with its own permissions from deno.json; and SIGTERM stopping `deno task dev`.
import assert from "node:assert/strict";
import postgres from "postgres";
import { freePort, portClosed, type RunningTask, runTask, startTask } from "./helpers/tasks.ts";

async function publishedUrl(dir: string): Promise<string> {
  return JSON.parse(await Deno.readTextFile(`${dir}/embedded.json`)).url;
}

async function userRows(url: string, email: string): Promise<{ id: string; email: string }[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return [
      ...await sql<{ id: string; email: string }[]>`select id, email from users where email = ${email}`,
    ];
  } finally {
    await sql.end({ timeout: 1 });
  }
}

Deno.test("embedded: admin and migrate work on the running dev server's database; the row survives a restart", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const env = { DATA_DIR: dir, PORT: String(port) };
  const running: RunningTask[] = [];
  try {
    const dev = await startTask("dev", env);
    running.push(dev);
    const email = "while-dev-runs@example.com";
    const created = await runTask("admin", [
      "user",
      "create",
      "--email",
      email,
      "--password",
      "correct horse battery",
      "--json",
    ], env);
    assert.equal(created.stderr, "");
    assert.equal(created.code, 0);
    const id = JSON.parse(created.stdout).id;
    assert.match(id, /^[0-9a-f-]{36}$/);
    // the running server's own database holds the row (read through the port it published)
    assert.deepEqual(await userRows(await publishedUrl(dir), email), [{ id, email }]);
    // The port takes only clients that read the password from DATA_DIR (owner-only): not another local user
    // who finds the port, with no password or a wrong one.
    assert.equal((await Deno.stat(`${dir}/embedded.json`)).mode! & 0o777, 0o600);
    const published = new URL(await publishedUrl(dir));
    assert.match(published.password, /^[\w-]{32}$/);
    for (const password of ["", "wrong"]) {
      const stranger = new URL(published);
      stranger.password = password;
      await assert.rejects(
        userRows(stranger.toString(), email),
        (err: { code?: string; message?: string }) => {
          assert.equal(err.code, "28P01", String(err.message));
          assert.equal(err.message, 'password authentication failed for user "postgres"');
          return true;
        },
      );
    }

    // migrate goes through the same server: nothing left to apply, no second copy of the data
    const migrated = await runTask("migrate", [], { ...env, LOG_LEVEL: "info" });
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /"msg":"migrations","applied":\[\]/);

    // A second server on the same DATA_DIR refuses with one line and ends, the watcher too (which reports
    // status 0 whenever it ends on SIGINT; `deno task start` and main.ts exit 1, see tests/main.test.ts).
    const second = await runTask("dev", [], { DATA_DIR: dir, PORT: String(freePort()) });
    assert.equal(second.code, 0);
    const ours = second.stderr.split("\n").filter((l) => l.trim() && !l.startsWith("Watcher "));
    assert.equal(ours.length, 1, second.stderr);
    assert.match(
      ours[0],
      new RegExp(
        `^portico: the embedded database in ${dir} is in use by another Portico process \\(pid \\d+\\); ` +
          `stop it first, or set a different DATA_DIR$`,
      ),
    );

    const stopped = await dev.stop("SIGINT");
    assert.deepEqual(stopped, { code: 0, ended: true });

    const again = await startTask("dev", env);
    running.push(again);
    assert.ok(!again.stdout.includes("Demo data created"));
    assert.deepEqual(await userRows(await publishedUrl(dir), email), [{ id, email }]);
    const dup = await runTask("admin", [
      "user",
      "create",
      "--email",
      email,
      "--password",
      "a long enough password",
    ], env);
    assert.equal(dup.code, 1);
    assert.equal(dup.stderr.trim(), `admin: a user with email ${email} already exists`);
    assert.deepEqual(await again.stop("SIGINT"), { code: 0, ended: true });

    // with no server running, admin owns the database for its own run and leaves no port behind
    const listed = await runTask("admin", ["audit", "list", "--json"], env);
    assert.equal(listed.code, 0, listed.stderr);
    await assert.rejects(Deno.stat(`${dir}/embedded.json`), Deno.errors.NotFound);
  } finally {
    for (const t of running) await t.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("embedded: SIGTERM stops `deno task dev` as Ctrl-C does, and the port closes", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const running: RunningTask[] = [];
  try {
    const dev = await startTask("dev", { DATA_DIR: dir, PORT: String(port) });
    running.push(dev);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const stopped = await dev.stop("SIGTERM");
    assert.deepEqual(stopped, { code: 0, ended: true });
    assert.match(dev.stdout, /"msg":"shutting down","signal":"SIGTERM"/);
    assert.equal(await portClosed(port), true);
    // the lock went with the process: a new server takes the database at once
    const next = await startTask("dev", { DATA_DIR: dir, PORT: String(port) });
    running.push(next);
    assert.deepEqual(await next.stop("SIGTERM"), { code: 0, ended: true });
  } finally {
    for (const t of running) await t.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
