// `deno task admin` beside a serving `deno task dev`, as README recommends: both reach the one embedded database
// through its gate, and neither breaks the other. Real processes with their own permissions: 200 admin commands
// (reads, key creation and revocation, sweeps) interleaved with 1,000 /mcp calls (reads and writes), with every
// admin answer checked and no error anywhere.
import assert from "node:assert/strict";
import { freePort, type RunningTask, runTask, startTask } from "../helpers/tasks.ts";

const ADMIN_COMMANDS = 200;
const MCP_CALLS = 1_000;

async function admin(env: Record<string, string>, args: string[]): Promise<unknown> {
  const r = await runTask("admin", [...args, "--json"], env);
  assert.equal(r.stderr, "", `admin ${args.join(" ")}: ${r.stderr}`);
  assert.equal(r.code, 0, `admin ${args.join(" ")}`);
  return JSON.parse(r.stdout);
}

/** Runs `jobs` with at most `width` at a time. */
async function pool(width: number, jobs: Array<() => Promise<void>>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) await jobs[next++]();
  }));
}

Deno.test("embedded: 200 admin commands beside a serving dev server and 1,000 /mcp calls, 0 errors", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  // The per-key /mcp limit would answer 429 long before 1,000 calls; this test is about the database.
  const env = { DATA_DIR: dir, PORT: String(port), MCP_RATE_LIMIT: "0" };
  let dev: RunningTask | undefined;
  try {
    dev = await startTask("dev", env);
    const key = dev.stdout.match(/MCP API key\s+(pak_\S+)/)?.[1];
    assert.ok(key, dev.stdout);
    const { workspaces } = await admin(env, ["workspace", "list"]) as { workspaces: { id: string }[] };
    const workspace = workspaces[0].id;
    const { users } = await admin(env, ["user", "list", "--email", "demo@portico.local"]) as {
      users: { id: string; email: string }[];
    };
    const user = users[0].id;

    const mcpFailures: string[] = [];
    let call = 0;
    const mcp = async (): Promise<void> => {
      const n = call++;
      // reads and a write (an idea), so that both kinds of statements meet admin's
      const params = n % 4 === 3
        ? { name: "create_idea", arguments: { title: `idea ${n}` } }
        : n % 4 === 2
        ? { name: "list_tasks", arguments: {} }
        : { name: "list_projects", arguments: {} };
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "x-api-key": key! },
        body: JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/call", params }),
      });
      const text = await res.text();
      if (res.status !== 200) {
        mcpFailures.push(`${params.name}: HTTP ${res.status} ${text.slice(0, 200)}`);
        return;
      }
      const body = JSON.parse(text);
      if (body.error || body.result?.isError) mcpFailures.push(`${params.name}: ${text.slice(0, 300)}`);
    };

    const adminAnswers: string[] = [];
    const adminJobs: Array<() => Promise<void>> = [];
    // 40 rounds of five commands: a key is created, found in the list, revoked, gone from the live list; a sweep
    for (let round = 0; round < ADMIN_COMMANDS / 5; round++) {
      adminJobs.push(async () => {
        const name = `beside dev ${round}`;
        const created = await admin(env, [
          "apikey",
          "create",
          "--workspace",
          workspace,
          "--user",
          user,
          "--name",
          name,
        ]) as {
          id: string;
          key: string;
        };
        assert.match(created.key, /^pak_/);
        const listed = await admin(env, ["apikey", "list", "--workspace", workspace, "--limit", "1000"]) as {
          keys: { id: string; name: string }[];
        };
        assert.deepEqual(listed.keys.filter((k) => k.id === created.id).map((k) => k.name), [name]);
        assert.deepEqual(await admin(env, ["apikey", "revoke", "--id", created.id]), { ok: true });
        const after = await admin(env, ["apikey", "list", "--workspace", workspace, "--limit", "1000"]) as {
          keys: { id: string }[];
        };
        assert.equal(after.keys.some((k) => k.id === created.id), false);
        const swept = await admin(env, ["sweep"]) as Record<string, number>;
        assert.equal(typeof swept.codes, "number");
        adminAnswers.push(created.id);
      });
    }
    const mcpJobs = Array.from({ length: MCP_CALLS }, () => mcp);
    await Promise.all([pool(2, adminJobs), pool(4, mcpJobs)]);

    assert.equal(adminAnswers.length, ADMIN_COMMANDS / 5);
    assert.deepEqual(mcpFailures, []);
    // the server logged no error and answered no 5xx while admin ran beside it
    const problems = dev.stdout.split("\n").filter((l) => /"level":"error"|"status":5\d\d/.test(l));
    assert.deepEqual(problems, []);
    assert.deepEqual(await dev.stop("SIGINT"), { code: 0, ended: true });
  } finally {
    await dev?.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
