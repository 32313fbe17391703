// The operators' commands of issue 23 (`user operator`, `client pending|approve|deny|trust|untrust`, prefixes):
// exact output and exit codes, the rows they change, the decision trail (via = 'cli'), and the refusals.
import assert from "node:assert/strict";
import { runAdmin } from "../lib/admin/cli.ts";
import { askApproval } from "../lib/oauth/approvals.ts";
import { createUser } from "../lib/accounts.ts";
import { createWorkspace } from "../lib/workspace/workspaces.ts";
import { type Config, parseConfig } from "../lib/config.ts";
import { freshDatabase, type TestDb } from "./helpers/db.ts";
import { TEST_SCRYPT, TEST_SECRET } from "./helpers/app.ts";

let db: TestDb;
const missingId = "00000000-0000-4000-8000-000000000000";

interface Run {
  code: number;
  out: string[];
  err: string[];
}

async function run(argv: string[], config?: Config): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, {
    sql: db.sql,
    secretKey: TEST_SECRET,
    config,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err };
}

async function ok(...argv: string[]): Promise<Record<string, unknown>> {
  const r = await run([...argv, "--json"]);
  assert.equal(r.code, 0, `${argv.join(" ")} failed: ${r.err.join(" ")}`);
  assert.deepEqual(r.err, []);
  assert.equal(r.out.length, 1);
  return JSON.parse(r.out[0]);
}

async function refused(code: number, message: string, ...argv: string[]) {
  const r = await run(argv);
  assert.deepEqual({ code: r.code, out: r.out, err: r.err[0] }, { code, out: [], err: `admin: ${message}` });
}

interface DecisionRow {
  operator_id: string | null;
  via: string;
  action: string;
  request_id: string | null;
  client_id: string | null;
  subject: string | null;
}

async function decisions(): Promise<DecisionRow[]> {
  const rows = await db.sql<DecisionRow[]>`
    select operator_id, via, action, request_id, client_id, subject from operator_decisions order by id`;
  return rows.map((r) => ({ ...r }));
}

async function client(clientId: string, name: string) {
  await db.sql`
    insert into oauth_clients (client_id, name, redirect_uris, scopes, self_registered)
    values (${clientId}, ${name}, '{http://127.0.0.1/cb}', '{openid,profile,workspace}', true)`;
}

Deno.test("admin: operators and approval requests from the CLI", async (t) => {
  db = await freshDatabase();
  try {
    const ann = (await createUser(db.sql, { email: "Ann@Example.com", password: "12345678" }, {
      scrypt: TEST_SCRYPT,
    })).id;
    const bob = (await createUser(db.sql, { email: "bob@example.com", password: "12345678" }, {
      scrypt: TEST_SCRYPT,
    })).id;
    const ws = (await createWorkspace(db.sql, "Acme", [])).id;
    await client("pcl_agentapp", "Agent App");
    // A name an app gave itself may carry terminal escape sequences; text output neutralises them.
    await client("pcl_evilapp", "Evil\u001b]0;pwned\u0007App");
    const place = { workspaceId: ws, companyId: null };
    const ask = async (clientId: string, userId: string) => {
      const r = await askApproval(db.sql, {
        clientId,
        userId,
        place,
        scopes: ["openid", "workspace"],
        note: "hi",
      });
      assert.equal(r.kind, "asked");
      return r.kind === "asked" ? r.request : undefined!;
    };
    const annAgent = await ask("pcl_agentapp", ann);
    const bobAgent = await ask("pcl_agentapp", bob);
    const annEvil = await ask("pcl_evilapp", ann);

    await t.step("user operator --email / --id, --revoke; audited; unknown accounts refused", async () => {
      assert.deepEqual(await ok("user", "operator", "--email", "ann@EXAMPLE.com"), {
        id: ann,
        email: "Ann@Example.com",
        operator: true,
      });
      const [a] = await db.sql`select operator from users where id = ${ann}`;
      assert.equal(a.operator, true);
      const text = await run(["user", "operator", "--id", bob]);
      assert.deepEqual(text, {
        code: 0,
        out: [`id: ${bob}\nemail: bob@example.com\noperator: true`],
        err: [],
      });
      assert.deepEqual(await ok("user", "operator", "--id", bob, "--revoke"), {
        id: bob,
        email: "bob@example.com",
        operator: false,
      });
      const [b] = await db.sql`select operator from users where id = ${bob}`;
      assert.equal(b.operator, false);
      assert.deepEqual(await decisions(), [
        {
          operator_id: null,
          via: "cli",
          action: "grant_operator",
          request_id: null,
          client_id: null,
          subject: ann,
        },
        {
          operator_id: null,
          via: "cli",
          action: "grant_operator",
          request_id: null,
          client_id: null,
          subject: bob,
        },
        {
          operator_id: null,
          via: "cli",
          action: "revoke_operator",
          request_id: null,
          client_id: null,
          subject: bob,
        },
      ]);
      await refused(
        1,
        "no user with email nobody@example.com",
        "user",
        "operator",
        "--email",
        "nobody@example.com",
      );
      await refused(1, `no user ${missingId}`, "user", "operator", "--id", missingId);
      await refused(1, "id must be a UUID", "user", "operator", "--id", "nope");
      await refused(2, "give exactly one of --id, --email", "user", "operator", "--revoke");
      assert.equal((await decisions()).length, 3, "a refusal records nothing");
      const shown = await ok("user", "show", "--id", ann);
      assert.equal(shown.operator, true);
    });

    await t.step(
      "client pending: a table (newest ask first), JSON with every field, and what was cut",
      async () => {
        const r = await run(["client", "pending"]);
        assert.equal(r.code, 0);
        const at = (req: { askedAt: Date }) => req.askedAt.toISOString();
        // one width per column: the widest cell
        const rows = [
          ["id", "client_id", "client_name", "email", "workspace", "asked_at"],
          [annEvil.id, "pcl_evilapp", "Evil\ufffd]0;pwned\ufffdApp", "Ann@Example.com", "Acme", at(annEvil)],
          [bobAgent.id, "pcl_agentapp", "Agent App", "bob@example.com", "Acme", at(bobAgent)],
          [annAgent.id, "pcl_agentapp", "Agent App", "Ann@Example.com", "Acme", at(annAgent)],
        ];
        const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
        assert.deepEqual(
          r.out[0].split("\n"),
          rows.map((row) => row.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()),
        );
        assert.ok(!r.out[0].includes("\u001b"), "no escape sequence reaches the terminal");

        const json = await ok("client", "pending");
        assert.equal(json.total, 3);
        assert.equal(json.truncated, false);
        const [first] = json.requests as Record<string, unknown>[];
        assert.deepEqual(first, {
          id: annEvil.id,
          client_id: "pcl_evilapp",
          client_name: "Evil\u001b]0;pwned\u0007App",
          origin: "registered",
          document_host: null,
          redirect_uris: ["http://127.0.0.1/cb"],
          user_id: ann,
          email: "Ann@Example.com",
          user_name: "",
          workspace_id: ws,
          workspace: "Acme",
          company: null,
          scopes: ["openid", "workspace"],
          note: "hi",
          asked_at: at(annEvil),
          created_at: annEvil.createdAt.toISOString(),
        });

        // 102 more pending requests (older asks): 100 are shown, the last line says how many more there are.
        await db.sql`
        insert into users (email, password_hash)
        select 'flood' || n || '@example.com', 'x' from generate_series(1, 102) n`;
        await db.sql`
        insert into oauth_approval_requests (client_id, user_id, workspace_id, scopes, asked_at)
        select 'pcl_agentapp', id, ${ws}, '{workspace}', now() - interval '1 day'
          from users where email like 'flood%'`;
        const cut = await run(["client", "pending"]);
        const lines = cut.out[0].split("\n");
        assert.equal(lines.length, 1 + 100 + 1);
        assert.equal(lines.at(-1), "(5 more pending, not shown; 105 in all, newest first)");
        const cutJson = await ok("client", "pending");
        assert.equal((cutJson.requests as unknown[]).length, 100);
        assert.equal(cutJson.total, 105);
        assert.equal(cutJson.truncated, true);
        await db.sql`delete from users where email like 'flood%'`;
      },
    );

    await t.step(
      "client approve: the app is trusted, its other pending requests approved, each audited",
      async () => {
        const before = (await decisions()).length;
        assert.deepEqual(await ok("client", "approve", annAgent.id), {
          request_id: annAgent.id,
          client_id: "pcl_agentapp",
          user_id: ann,
          status: "approved",
          client_trusted: true,
          also_approved: 1,
        });
        const reqs = await db.sql`
        select id, status, decided_by from oauth_approval_requests where client_id = 'pcl_agentapp' order by id`;
        assert.deepEqual(
          reqs.map((r) => ({ ...r })),
          [annAgent.id, bobAgent.id].sort().map((id) => ({ id, status: "approved", decided_by: null })),
        );
        const [c] = await db.sql`select trusted from oauth_clients where client_id = 'pcl_agentapp'`;
        assert.equal(c.trusted, true);
        const added = (await decisions()).slice(before);
        assert.deepEqual(
          added.sort((x, y) => String(x.request_id).localeCompare(String(y.request_id))),
          [annAgent.id, bobAgent.id].sort().map((id) => ({
            operator_id: null,
            via: "cli",
            action: "approve",
            request_id: id,
            client_id: "pcl_agentapp",
            subject: null,
          })),
        );

        // Approving twice (or denying an approved one): refused with its status, nothing changed.
        await refused(
          1,
          `approval request ${annAgent.id} is already approved; nothing changed`,
          "client",
          "approve",
          annAgent.id,
        );
        await refused(
          1,
          `approval request ${bobAgent.id} is already approved; nothing changed`,
          "client",
          "deny",
          bobAgent.id,
        );
        const [{ n }] = await db.sql`
        select count(*)::int as n from operator_decisions where request_id = ${annAgent.id}`;
        assert.equal(n, 1, "exactly one decision row for the request approved twice");
        assert.equal((await decisions()).length, before + 2);
      },
    );

    await t.step("client deny: this person's request ends, the app stays untrusted", async () => {
      const r = await run(["client", "deny", annEvil.id]);
      assert.deepEqual(r, {
        code: 0,
        out: [`request_id: ${annEvil.id}\nclient_id: pcl_evilapp\nuser_id: ${ann}\nstatus: denied`],
        err: [],
      });
      const [req] = await db
        .sql`select status, decided_at from oauth_approval_requests where id = ${annEvil.id}`;
      assert.equal(req.status, "denied");
      assert.ok(req.decided_at instanceof Date);
      const [c] = await db.sql`select trusted from oauth_clients where client_id = 'pcl_evilapp'`;
      assert.equal(c.trusted, false);
      assert.deepEqual((await decisions()).at(-1), {
        operator_id: null,
        via: "cli",
        action: "deny",
        request_id: annEvil.id,
        client_id: "pcl_evilapp",
        subject: null,
      });
      await refused(
        1,
        `approval request ${annEvil.id} is already denied; nothing changed`,
        "client",
        "deny",
        annEvil.id,
      );
      await refused(
        1,
        `approval request ${annEvil.id} is already denied; nothing changed`,
        "client",
        "approve",
        annEvil.id,
      );
      const [still] = await db.sql`select trusted from oauth_clients where client_id = 'pcl_evilapp'`;
      assert.equal(still.trusted, false, "approving a denied request trusts nothing");
    });

    await t.step("approve/deny: unknown, malformed and missing ids", async () => {
      const before = (await decisions()).length;
      await refused(1, `no approval request ${missingId}`, "client", "approve", missingId);
      await refused(1, `no approval request ${missingId}`, "client", "deny", "--id", missingId);
      const malformed = "request id must be a UUID (deno task admin client pending lists them)";
      await refused(1, malformed, "client", "approve", "pcl_agentapp");
      await refused(1, malformed, "client", "deny", "1; drop table users");
      await refused(2, "missing --id", "client", "approve");
      await refused(2, "too many arguments", "client", "approve", missingId, annAgent.id);
      assert.equal((await decisions()).length, before);
      const [{ n }] = await db
        .sql`select count(*)::int as n from oauth_approval_requests where status = 'pending'`;
      assert.equal(n, 0);
    });

    await t.step("client trust / untrust are audited", async () => {
      const before = (await decisions()).length;
      assert.deepEqual(await ok("client", "trust", "pcl_evilapp"), {
        client_id: "pcl_evilapp",
        trusted: true,
      });
      assert.deepEqual(await ok("client", "untrust", "--id", "pcl_evilapp"), {
        client_id: "pcl_evilapp",
        trusted: false,
      });
      const [c] = await db.sql`select trusted from oauth_clients where client_id = 'pcl_evilapp'`;
      assert.equal(c.trusted, false);
      assert.deepEqual((await decisions()).slice(before).map((d) => [d.via, d.action, d.client_id]), [
        ["cli", "trust", "pcl_evilapp"],
        ["cli", "untrust", "pcl_evilapp"],
      ]);
      await refused(1, "no client pcl_nope", "client", "trust", "pcl_nope");
      assert.equal((await decisions()).length, before + 2);
    });

    await t.step("client trust-prefix, prefixes, untrust-prefix", async () => {
      const config = parseConfig({ TRUSTED_CLIENT_ID_PREFIXES: "https://vscode.dev/oauth/" });
      const before = (await decisions()).length;
      assert.deepEqual(await ok("client", "trust-prefix", "https://claude.ai/oauth/"), {
        prefix: "https://claude.ai/oauth/",
        trusted: true,
      });
      const [p] = await db.sql`select prefix, created_by from oauth_trusted_prefixes`;
      assert.deepEqual({ ...p }, { prefix: "https://claude.ai/oauth/", created_by: null });
      assert.deepEqual(await ok("client", "trust-prefix", "https://claude.ai/oauth/"), {
        prefix: "https://claude.ai/oauth/",
        trusted: true,
        already: true,
      });
      const bad = "prefix must be an https URL prefix with at least the host and a slash " +
        "(https://claude.ai/oauth/), or a loopback http origin and a slash; no query or fragment, " +
        "at most 500 characters";
      await refused(1, bad, "client", "trust-prefix", "http://claude.ai/oauth/");
      await refused(1, bad, "client", "trust-prefix", "https://claude.ai");
      await refused(1, bad, "client", "untrust-prefix", "https://claude.ai/?x=1");

      const listed = await run(["client", "prefixes"], config);
      const [{ created_at }] = await db.sql`select created_at from oauth_trusted_prefixes`;
      assert.deepEqual(listed.out[0].split("\n"), [
        "prefix                     source    created_at",
        `https://claude.ai/oauth/   database  ${(created_at as Date).toISOString()}`,
        "https://vscode.dev/oauth/  config",
      ]);
      const configured = await run(["client", "untrust-prefix", "https://vscode.dev/oauth/"], config);
      assert.deepEqual(configured, {
        code: 1,
        out: [],
        err: [
          "admin: prefix https://vscode.dev/oauth/ is trusted by TRUSTED_CLIENT_ID_PREFIXES, not in the " +
          "database: remove it there",
        ],
      });

      const untrusted = await run(["client", "untrust-prefix", "https://claude.ai/oauth/", "--json"], config);
      assert.deepEqual(JSON.parse(untrusted.out[0]), { prefix: "https://claude.ai/oauth/", trusted: false });
      await refused(
        1,
        "prefix https://claude.ai/oauth/ is not trusted",
        "client",
        "untrust-prefix",
        "https://claude.ai/oauth/",
      );
      assert.deepEqual((await decisions()).slice(before), [
        {
          operator_id: null,
          via: "cli",
          action: "trust_prefix",
          request_id: null,
          client_id: null,
          subject: "https://claude.ai/oauth/",
        },
        {
          operator_id: null,
          via: "cli",
          action: "untrust_prefix",
          request_id: null,
          client_id: null,
          subject: "https://claude.ai/oauth/",
        },
      ]);
      assert.deepEqual(await run(["client", "prefixes"]), { code: 0, out: ["no trusted prefixes"], err: [] });
      assert.deepEqual(await run(["client", "pending"]), {
        code: 0,
        out: ["no pending approval requests"],
        err: [],
      });
    });

    await t.step("--help lists the new commands in their groups", async () => {
      const r = await run(["client", "--help", "--json"]);
      assert.deepEqual(
        (JSON.parse(r.out[0]).commands as { command: string }[]).map((c) => c.command),
        [
          "client list",
          "client show",
          "client create",
          "client pending",
          "client approve",
          "client deny",
          "client trust",
          "client untrust",
          "client trust-prefix",
          "client untrust-prefix",
          "client prefixes",
        ],
      );
      const one = await run(["user", "operator", "--help"]);
      assert.deepEqual(one.out, [
        "usage: deno task admin user operator --id U | --email E [--revoke] [--json]",
        "\nMakes a person an operator (they approve and deny apps on the /operator pages), or no longer one " +
        "with --revoke. Audited.",
      ]);
    });
  } finally {
    await db.close();
  }
});
