// The demo person of `deno task dev` is an operator (issue 23), and `deno task admin user operator` / `client
// pending` work as run: the real tasks with their own permissions, on an embedded database of the test's own.
import assert from "node:assert/strict";
import { parseConfig } from "../lib/config.ts";
import { openDatabase } from "../lib/db/open.ts";
import { createUser } from "../lib/accounts.ts";
import { freePort, type RunningTask, runTask, startTask } from "./helpers/tasks.ts";
import { DATABASE_URL, freshDatabase } from "./helpers/db.ts";
import { TEST_SCRYPT } from "./helpers/app.ts";

const DEMO = "demo@portico.local";

async function adminJson(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const r = await runTask("admin", [...args, "--json"], env);
  assert.equal(r.code, 0, `admin ${args.join(" ")}: ${r.stderr}`);
  assert.equal(r.stderr, "");
  return JSON.parse(r.stdout);
}

function upgradeLines(stdout: string): Record<string, unknown>[] {
  return stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).filter((l) =>
    l.msg === "demo person made an operator"
  );
}

Deno.test("deno task dev: the demo person is an operator; a demo from before operators becomes one at the next start", async () => {
  const dir = await Deno.makeTempDir();
  const env = { PORT: String(freePort()), DATA_DIR: dir };
  const running: RunningTask[] = [];
  try {
    const first = await startTask("dev", env);
    running.push(first);
    assert.deepEqual(
      upgradeLines(first.stdout),
      [],
      "a fresh demo is seeded an operator: nothing to upgrade",
    );
    assert.deepEqual(await first.stop("SIGINT"), { code: 0, ended: true });

    const shown = await adminJson(["user", "show", "--email", DEMO], env);
    assert.equal(shown.operator, true, "seeded as an operator");
    const pending = await runTask("admin", ["client", "pending"], env);
    assert.deepEqual({ code: pending.code, stdout: pending.stdout, stderr: pending.stderr }, {
      code: 0,
      stdout: "no pending approval requests\n",
      stderr: "",
    });

    // A demo made before operators existed: the flag is off and no operator ever decided about the account.
    const db = await openDatabase(parseConfig({ DATA_DIR: dir }), { whenInUse: "connect" });
    try {
      await db.sql`update users set operator = false where lower(email) = ${DEMO}`;
    } finally {
      await db.close();
    }
    const second = await startTask("dev", env);
    running.push(second);
    const [line] = upgradeLines(second.stdout);
    assert.deepEqual({ ...line, time: undefined }, {
      time: undefined,
      level: "info",
      msg: "demo person made an operator",
      user_id: shown.id,
      email: DEMO,
    });
    assert.equal(upgradeLines(second.stdout).length, 1);
    // admin beside the running server: revoking is an operator's decision, and the next start respects it
    assert.deepEqual(await adminJson(["user", "operator", "--email", DEMO, "--revoke"], env), {
      id: shown.id,
      email: DEMO,
      operator: false,
    });
    assert.deepEqual(await second.stop("SIGINT"), { code: 0, ended: true });
    assert.equal((await adminJson(["user", "show", "--email", DEMO], env)).operator, false);
    const unknown = await runTask("admin", ["user", "operator", "--email", "nobody@example.com"], env);
    assert.deepEqual({ code: unknown.code, stderr: unknown.stderr }, {
      code: 1,
      stderr: "admin: no user with email nobody@example.com\n",
    });
  } finally {
    for (const t of running) await t.kill();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "deno task start on DATABASE_URL never makes the demo person an operator",
  ignore: !DATABASE_URL,
  fn: async () => {
    const db = await freshDatabase();
    const running: RunningTask[] = [];
    try {
      const { id } = await createUser(db.sql, { email: DEMO, password: "12345678" }, { scrypt: TEST_SCRYPT });
      const server = await startTask("start", {
        DATABASE_URL: db.url,
        SECRET_KEY: "s".repeat(40),
        PORT: String(freePort()),
      });
      running.push(server);
      assert.deepEqual(await server.stop("SIGINT"), { code: 0, ended: true });
      assert.deepEqual(upgradeLines(server.stdout), []);
      const [row] = await db.sql`select operator from users where id = ${id}`;
      assert.equal(row.operator, false);
    } finally {
      for (const t of running) await t.kill();
      await db.close();
    }
  },
});
