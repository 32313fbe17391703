// A real full disk under the real `deno task dev`: DATA_DIR on a small tmpfs, filled while the server runs.
// Measured before the fix: PGlite spins in WASM on `vacuum full` with no space left, which blocked the server's
// only thread (no /healthz, no SIGTERM). Needs permission to mount a tmpfs (root on Linux); skipped elsewhere.
import assert from "node:assert/strict";
import postgres from "postgres";
import { freePort, portClosed, type RunningTask, startTask } from "../helpers/tasks.ts";
import { createDb } from "../../lib/db/client.ts";
import { TEST_CONNECT_TIMEOUT_S } from "../helpers/db.ts";
import { HANG_MS } from "../helpers/wait.ts";

function run(cmd: string, args: string[]): boolean {
  try {
    return new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

function canMountTmpfs(): boolean {
  if (Deno.build.os !== "linux") return false;
  const dir = Deno.makeTempDirSync();
  const ok = run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]);
  if (ok) run("umount", [dir]);
  Deno.removeSync(dir);
  return ok;
}

async function until(what: string, check: () => Promise<boolean>, boundMs = HANG_MS) {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function health(port: number): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(HANG_MS) });
  return { status: res.status, body: await res.json() };
}

function fillDisk(mnt: string): void {
  // dd stops at "No space left on device" and exits non-zero: that is the point
  run("dd", ["if=/dev/zero", `of=${mnt}/filler`, "bs=64k"]);
}

/**
 * This file's own clients. No array types are read here, so postgres.js does not fetch them: that fetch is a
 * promise no caller holds, and on a connection ended while PGlite hangs it rejected unhandled and failed this
 * file (CI, "CONNECTION_DESTROYED" from `end({ timeout: 0 })`). The server guards it (lib/db/client.ts).
 */
const QUIET = { max: 1, onnotice: () => {}, fetch_types: false } as const;

/**
 * Makes PGlite hang, for certain: `pg_sleep` in a transaction. the gate (lib/db/embedded_gate.ts) serves a connection's open
 * transaction alone, so once BEGIN is answered nothing else sent to PGlite gets an answer — `holds()` is true from then on —
 * and pg_sleep holds PGlite's one thread, as a full disk does (measured: `vacuum full` spinning). The server's side
 * of the test is what a hung database looks like, whatever hung it. This replaced "no answer to `select 1` within
 * a second" after `update`, `checkpoint` and `vacuum full` on the full disk: a loaded host gives that answer to a
 * database that is fine, and `checkpoint` there sometimes never answered while PGlite's thread went on turning
 * (seen here: no restart for a minute), so the test then waited for a restart that does not come.
 * The client is the server's own kind (createDb): its guards keep postgres.js's ROLLBACK on the connection the
 * restart cuts from ending this file; no statement deadline, the hang is the point.
 */
function hangDatabase(url: string): { sql: postgres.Sql; holds: () => boolean } {
  const sql = createDb(url, { max: 1, connectTimeout: TEST_CONNECT_TIMEOUT_S, statementTimeoutMs: 0 });
  let holding = false;
  sql.begin(async (tx) => {
    holding = true;
    await tx`select pg_sleep(3600)`;
  }).catch(() => {}); // ends when the supervisor restarts PGlite (or the test ends the client)
  return { sql, holds: () => holding };
}

Deno.test({
  name: "embedded on a full disk: 503 at once, restarts by itself when space is back, stops on SIGTERM",
  ignore: !canMountTmpfs(),
  fn: async () => {
    const mnt = await Deno.makeTempDir();
    assert.ok(run("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt]));
    const port = freePort();
    let dev: RunningTask | undefined;
    const clients: postgres.Sql[] = [];
    try {
      dev = await startTask("dev", { DATA_DIR: mnt, PORT: String(port) });
      // the welcome banner can follow the "listening" line that startTask waits for (seen on a loaded host)
      const banner = /MCP API key {2}(pak_\S+)/;
      await until("the welcome banner", () => Promise.resolve(banner.test(dev!.stdout)));
      const key = dev.stdout.match(banner)?.[1];
      assert.ok(key);
      const url = JSON.parse(await Deno.readTextFile(`${mnt}/embedded.json`)).url;
      const sql = postgres(url, QUIET);
      clients.push(sql);
      await sql`create table ballast (id int primary key, n int, pad text)`;
      await sql`insert into ballast select g, 0, repeat('y', 500) from generate_series(1, 5000) g`;
      await sql`checkpoint`;
      assert.deepEqual(await health(port), { status: 200, body: { status: "ok" } });

      fillDisk(mnt);
      await until("healthz reports the full disk", async () => (await health(port)).status === 503);
      assert.deepEqual(await health(port), {
        status: 503,
        body: {
          status: "unavailable",
          reason: "database_failing",
          detail: "the data directory's disk is full",
        },
      });

      // `checkpoint` on the full disk answers PANIC; the gate ends that connection and PGlite is restarted at
      // once (it answers nothing sensible after a PANIC), and serves again on the full disk
      // (postgres.js reports the closed connection: it waits for a ReadyForQuery that a PANIC never sends)
      await assert.rejects(sql`checkpoint`);
      await until(
        "the panic restart",
        () => Promise.resolve(dev!.stdout.includes('"msg":"embedded database restarted"')),
      );
      assert.match(
        dev.stdout,
        /"msg":"embedded database failed; restarting","reason":"PGlite panicked: could not write to file \\"pg_logical\/replorigin_checkpoint.tmp\\": No space left on device"/,
      );

      const hang = hangDatabase(url);
      clients.push(hang.sql);
      await until("PGlite hangs", () => Promise.resolve(hang.holds()));
      // the server's thread stays free: /healthz keeps answering, and a tool call gets a 503 with
      // Retry-After once the supervisor has given up on the hung database (not a hang, not a 500)
      assert.equal((await health(port)).status, 503);
      const call = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "x-api-key": key },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "list_projects", arguments: {} },
        }),
        signal: AbortSignal.timeout(HANG_MS),
      });
      assert.equal(call.status, 503);
      assert.equal(call.headers.get("retry-after"), "5");
      await call.body?.cancel();
      await until(
        "the hung database was restarted",
        () => Promise.resolve(dev!.stdout.includes('"reason":"no heartbeat for 10 s"')),
      );
      assert.match(
        dev.stdout,
        /"msg":"embedded database failed; restarting","reason":"no heartbeat for 10 s"/,
      );

      await Deno.remove(`${mnt}/filler`);
      await until("healthy again", async () => (await health(port)).status === 200);
      const back = postgres(url, QUIET);
      clients.push(back);
      assert.deepEqual([...await back`select count(*)::int as n from ballast`], [{ n: 5000 }]);

      // and once more, stopped with SIGTERM while the database hangs
      fillDisk(mnt);
      const again = hangDatabase(url);
      clients.push(again.sql);
      await until("PGlite hangs again", () => Promise.resolve(again.holds()));
      const stopped = await dev.stop("SIGTERM");
      assert.deepEqual(stopped, { code: 0, ended: true });
      assert.equal(await portClosed(port), true);
      dev = undefined;
    } finally {
      for (const c of clients) await c.end({ timeout: 0 }).catch(() => {});
      await dev?.kill();
      run("umount", ["-l", mnt]);
      await Deno.remove(mnt, { recursive: true });
    }
  },
});
