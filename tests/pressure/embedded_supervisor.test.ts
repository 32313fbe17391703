// The embedded database's supervisor: a hung PGlite (as on a full disk) is answered with 503, restarted with
// its data intact, and does not hold up shutdown. In-process, with the worker's test hook that makes it spin.
import assert from "node:assert/strict";
import { createDb } from "../../lib/db/client.ts";
import { isDatabaseUnavailable } from "../../lib/db/errors.ts";
import { startSupervisedEmbedded } from "../../lib/db/embedded_supervisor.ts";
import { parseConfig } from "../../lib/config.ts";
import { silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { TEST_CONNECT_TIMEOUT_S } from "../helpers/db.ts";
import { eventually as until } from "../helpers/wait.ts";
import type { Sql } from "../../lib/db/client.ts";

function appWith(sql: Sql, databaseProblem: () => string | undefined) {
  const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET });
  return createApp({ config, sql, log: silentLogger, secretKey: TEST_SECRET, databaseProblem });
}

Deno.test("supervisor: a hung embedded database answers 503, restarts by itself and keeps its data", async () => {
  const dir = await Deno.makeTempDir();
  // Production's heartbeat deadline: the statements before the hang must not trip it (1 s did: a worker busy
  // that long on a loaded host is restarted under the test's own `create table`), and the hang outlasts any.
  const db = await startSupervisedEmbedded(`${dir}/pgdata`, { heartbeatTimeoutMs: 10_000 });
  const sql = createDb(db.url, { max: 1, connectTimeout: TEST_CONNECT_TIMEOUT_S });
  try {
    await sql`create table kept (n int)`;
    await sql`insert into kept values (1), (2)`;
    assert.equal(db.state(), "ready");
    assert.equal(db.problem(), undefined);

    await db.spinForTest();
    // A statement sent to the hung database fails as "unavailable" once the supervisor gives up on it — it
    // does not wait forever — and so becomes a 503 in the app.
    const failed = await sql`select n from kept`.then(() => undefined, (err) => err);
    assert.ok(failed, "the statement must fail while the database hangs");
    assert.equal(isDatabaseUnavailable(failed), true, String(failed));

    await until("restarted", () => db.state() === "ready" && db.restarts() >= 1);
    assert.deepEqual([...await sql`select n from kept order by n`], [{ n: 1 }, { n: 2 }]);
    assert.equal(db.problem(), undefined);
  } finally {
    await sql.end({ timeout: 1 });
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("supervisor: /healthz answers 503 at once while the embedded database hangs", async () => {
  const dir = await Deno.makeTempDir();
  // a long heartbeat timeout keeps the worker hung while the app is asked
  const db = await startSupervisedEmbedded(`${dir}/pgdata`, { heartbeatTimeoutMs: 60_000 });
  const sql = createDb(db.url, { max: 1, connectTimeout: TEST_CONNECT_TIMEOUT_S });
  try {
    const app = appWith(sql, () => db.problem());
    await sql`select 1`; // connected: /healthz's 1 s wait for the pool is then about the pool, not a new connection
    const ok = await app.request("/healthz");
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { status: "ok" });

    await db.spinForTest();
    const hung = await app.request("/healthz");
    assert.equal(hung.status, 503);
    assert.equal(hung.headers.get("retry-after"), "5");
    assert.deepEqual(await hung.json(), { status: "unavailable", reason: "database_unreachable" });
  } finally {
    await sql.end({ timeout: 1 });
    // closing a hung worker does not wait for it (a clean stop would never answer)
    await db.close();
    assert.equal(db.state(), "stopped");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("supervisor: /healthz names a data directory that cannot be written", async () => {
  const dir = await Deno.makeTempDir();
  const db = await startSupervisedEmbedded(`${dir}/pgdata`, { probeIntervalMs: 100 });
  const sql = createDb(db.url, { max: 1, connectTimeout: TEST_CONNECT_TIMEOUT_S });
  try {
    const app = appWith(sql, () => db.problem());
    await sql`select 1`; // connected, for the last /healthz (its 1 s wait for the pool is not for a new connection)
    // Root ignores file modes, so the probe is made to fail by a directory where its file goes.
    // The probe itself creates and removes a file there every interval: retry until the directory wins.
    await until("probe path taken", async () => {
      try {
        await Deno.mkdir(`${dir}/.write_probe`);
        return true;
      } catch (err) {
        if (err instanceof Deno.errors.AlreadyExists) return false;
        throw err;
      }
    });
    await Deno.writeTextFile(`${dir}/.write_probe/x`, "");
    await until("probe failed", () => db.problem() !== undefined);
    const res = await app.request("/healthz");
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), {
      status: "unavailable",
      reason: "database_failing",
      detail: "the data directory is not writable",
    });
    await Deno.remove(`${dir}/.write_probe`, { recursive: true });
    await until("probe passes", () => db.problem() === undefined);
    assert.equal((await app.request("/healthz")).status, 200);
  } finally {
    await sql.end({ timeout: 1 });
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
