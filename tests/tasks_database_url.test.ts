// Start-up against DATABASE_URL as an operator meets it: one line that says which problem it is, through the
// real `deno task migrate` (its own permissions).
import assert from "node:assert/strict";
import { freePort, runTask } from "./helpers/tasks.ts";

const SERVER = Deno.env.get("DATABASE_URL");
const SECRET_KEY = "s".repeat(40);

function withPath(url: string, user: string, database: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = "";
  u.pathname = `/${database}`;
  return u.toString();
}

async function migrateOneLine(databaseUrl: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    const r = await runTask("migrate", [], { DATABASE_URL: databaseUrl, SECRET_KEY, DATA_DIR: dir });
    assert.equal(r.code, 1);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
    return lines[0];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "DATABASE_URL naming a database that does not exist says so",
  ignore: !SERVER,
  fn: async () => {
    const url = withPath(SERVER!, new URL(SERVER!).username || "postgres", "portico_no_such_database");
    const u = new URL(url);
    assert.equal(
      await migrateOneLine(url),
      `portico: the database "portico_no_such_database" does not exist at ${u.hostname}:${
        u.port || "5432"
      }/portico_no_such_database (create it, or fix the name in DATABASE_URL)`,
    );
  },
});

Deno.test({
  name: "DATABASE_URL with a user the server refuses says authentication failed",
  ignore: !SERVER,
  fn: async () => {
    const url = withPath(SERVER!, "portico_no_such_role", "postgres");
    const u = new URL(url);
    assert.match(
      await migrateOneLine(url),
      new RegExp(
        `^portico: the database at ${u.hostname}:${
          u.port || "5432"
        }/postgres refused user "portico_no_such_role": authentication failed \\(.*portico_no_such_role.*\\)$`,
      ),
    );
  },
});

Deno.test("DATABASE_URL at a port where nothing listens says connection refused", async () => {
  const port = freePort();
  assert.equal(
    await migrateOneLine(`postgres://portico@127.0.0.1:${port}/portico`),
    `portico: cannot reach the database at 127.0.0.1:${port}/portico: connection refused (is Postgres running there?)`,
  );
});

Deno.test("DATABASE_URL with a host name that does not resolve says host not found", async () => {
  assert.equal(
    await migrateOneLine("postgres://portico@no-such-host.invalid:5432/portico"),
    "portico: cannot reach the database at no-such-host.invalid:5432/portico: host not found",
  );
});

Deno.test("a malformed DATABASE_URL is refused in one line that never shows its password (deno task start and migrate)", async () => {
  const password = "S3cretPassw0rd";
  for (
    const url of [
      `postgres://app:${password}@db host:5432/prod`,
      `postgres://app:${password}%zz@db:5432/prod`,
    ]
  ) {
    for (const task of ["migrate", "start"]) {
      const dir = await Deno.makeTempDir();
      try {
        const r = await runTask(task, [], {
          DATABASE_URL: url,
          SECRET_KEY,
          DATA_DIR: dir,
          PORT: String(freePort()),
        });
        assert.equal(r.code, 1, `${task}: ${r.stderr}`);
        assert.equal(
          r.stderr.trim(),
          "portico: config error: DATABASE_URL is not a valid URL (a space, or a character of the password that " +
            "must be percent-encoded: @ : / ? # %)",
        );
        assert.ok(
          !r.stdout.includes(password) && !r.stderr.includes(password),
          `${task} printed the password`,
        );
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  }
});
