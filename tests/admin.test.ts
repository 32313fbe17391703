import assert from "node:assert/strict";
import { runAdmin } from "../lib/admin/cli.ts";
import { sha256Hex, verifyPassword } from "../lib/crypto.ts";
import { open } from "../lib/secret_box.ts";
import { KEY_PURPOSE } from "../lib/oauth/keys.ts";
import type { Sql } from "../lib/db/client.ts";
import { freshDatabase, type TestDb } from "./helpers/db.ts";
import { TEST_SECRET } from "./helpers/app.ts";

let db: TestDb;

interface Run {
  code: number;
  out: string[];
  err: string[];
  json: Record<string, unknown>;
}

async function admin(sql: Sql, ...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin([...argv, "--json"], {
    sql,
    secretKey: TEST_SECRET,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err, json: code === 0 ? JSON.parse(out.join("\n")) : {} };
}

async function ok(...argv: string[]): Promise<Record<string, unknown>> {
  const r = await admin(db.sql, ...argv);
  assert.equal(r.code, 0, `${argv.join(" ")} failed: ${r.err.join(" ")}`);
  assert.equal(r.out.length, 1, "exactly one JSON object on stdout");
  assert.deepEqual(r.err, []);
  return r.json;
}

async function refused(code: number, message: string, ...argv: string[]) {
  const r = await admin(db.sql, ...argv);
  assert.equal(r.code, code, `${argv.join(" ")} should exit ${code}`);
  assert.deepEqual(r.out, []);
  assert.equal(r.err[0], `admin: ${message}`);
}

const uuid = /^[0-9a-f-]{36}$/;
const missingId = "00000000-0000-4000-8000-000000000000";

Deno.test("admin commands", async (t) => {
  db = await freshDatabase();
  try {
    let userId = "", agentId = "", workspaceId = "", companyId = "", keyId = "";

    await t.step("user create", async () => {
      const r = await ok(
        "user",
        "create",
        "--email",
        "Ann@Example.com",
        "--password",
        "correct horse",
        "--name",
        "Ann",
      );
      userId = String(r.id);
      assert.match(userId, uuid);
      const [u] = await db
        .sql`select email, name, plan, credits, password_hash from users where id = ${userId}`;
      assert.equal(u.email, "Ann@Example.com");
      assert.equal(u.plan, "free");
      assert.equal(u.credits, 0);
      assert.ok(u.password_hash.startsWith("scrypt$"));
      assert.equal(await verifyPassword("correct horse", u.password_hash), true);
      assert.equal(await verifyPassword("wrong", u.password_hash), false);
      const r2 = await ok(
        "user",
        "create",
        "--email",
        "b@example.com",
        "--password",
        "12345678",
        "--plan",
        "pro",
        "--credits",
        "7",
      );
      const [u2] = await db.sql`select plan, credits from users where id = ${String(r2.id)}`;
      assert.deepEqual({ ...u2 }, { plan: "pro", credits: 7 });
    });

    await t.step("user create: bad input", async () => {
      await refused(
        1,
        "a user with email ann@example.com already exists",
        "user",
        "create",
        "--email",
        "ann@example.com",
        "--password",
        "12345678",
      );
      await refused(
        1,
        "email must be an email address",
        "user",
        "create",
        "--email",
        "nope",
        "--password",
        "12345678",
      );
      await refused(
        1,
        "password must be at least 8 characters",
        "user",
        "create",
        "--email",
        "c@example.com",
        "--password",
        "short",
      );
      await refused(
        2,
        "--credits must be a non-negative integer",
        "user",
        "create",
        "--email",
        "c@example.com",
        "--password",
        "12345678",
        "--credits=-1",
      );
      await refused(2, "missing --password", "user", "create", "--email", "c@example.com");
    });

    await t.step("agent create, unlock, subscribe", async () => {
      agentId = String((await ok("agent", "create", "--name", "Research")).id);
      assert.match(agentId, uuid);
      assert.deepEqual(await ok("agent", "unlock", "--user", userId, "--agent", agentId), { ok: true });
      assert.deepEqual(await ok("agent", "unlock", "--user", userId, "--agent", agentId), { ok: true });
      assert.deepEqual(
        await ok("agent", "subscribe", "--user", userId, "--agent", agentId, "--plan", "monthly"),
        { ok: true },
      );
      const [s] = await db.sql`select plan, status from agent_subscriptions where user_id = ${userId}`;
      assert.deepEqual({ ...s }, { plan: "monthly", status: "active" });
      await refused(1, `no agent ${missingId}`, "agent", "unlock", "--user", userId, "--agent", missingId);
      await refused(
        1,
        `no user ${missingId}`,
        "agent",
        "subscribe",
        "--user",
        missingId,
        "--agent",
        agentId,
        "--plan",
        "x",
      );
      await refused(
        1,
        "agent must be a UUID",
        "agent",
        "unlock",
        "--user",
        userId,
        "--agent",
        "1; drop table users",
      );
      await refused(1, "name must be 1-200 characters", "agent", "create", "--name", " ");
    });

    await t.step("workspace, company, member", async () => {
      workspaceId = String((await ok("workspace", "create", "--name", "Acme", "--modules", "all")).id);
      const [w] = await db.sql`select modules from workspaces where id = ${workspaceId}`;
      assert.ok(w.modules.includes("finance_collections"));
      const bare = String((await ok("workspace", "create", "--name", "Bare")).id);
      const [b] = await db.sql`select modules from workspaces where id = ${bare}`;
      assert.deepEqual(b.modules, []);
      await refused(
        1,
        "unknown module bogus (known: projects, tasks, crm, finance_collections, ai_activities, documents, recordings, time_tracking, calendar, booking)",
        "workspace",
        "create",
        "--name",
        "X",
        "--modules",
        "crm,bogus",
      );
      companyId = String((await ok("company", "create", "--workspace", workspaceId, "--name", "North")).id);
      await refused(
        1,
        `no workspace ${missingId}`,
        "company",
        "create",
        "--workspace",
        missingId,
        "--name",
        "N",
      );
      assert.deepEqual(
        await ok(
          "member",
          "add",
          "--workspace",
          workspaceId,
          "--user",
          userId,
          "--role",
          "admin",
          "--companies",
          companyId,
        ),
        { ok: true },
      );
      const [m] = await db.sql`select role, company_ids from workspace_members where user_id = ${userId}`;
      assert.deepEqual({ ...m }, { role: "admin", company_ids: [companyId] });
      await refused(
        1,
        "role must be one of owner, admin, manager, accounting, member, guest",
        "member",
        "add",
        "--workspace",
        workspaceId,
        "--user",
        userId,
        "--role",
        "king",
      );
      await refused(
        1,
        `no company ${missingId} in workspace ${workspaceId}`,
        "member",
        "add",
        "--workspace",
        workspaceId,
        "--user",
        userId,
        "--role",
        "member",
        "--companies",
        missingId,
      );
    });

    await t.step("apikey create and revoke", async () => {
      const r = await ok(
        "apikey",
        "create",
        "--workspace",
        workspaceId,
        "--user",
        userId,
        "--company",
        companyId,
        "--name",
        "ci",
      );
      keyId = String(r.id);
      const key = String(r.key);
      assert.match(key, /^pak_[A-Za-z0-9_-]{43}$/);
      const [k] = await db
        .sql`select key_hash, kind, company_id, name, revoked_at from api_keys where id = ${keyId}`;
      assert.equal(k.key_hash, sha256Hex(key));
      assert.equal(k.kind, "user");
      assert.equal(k.company_id, companyId);
      const ws = await ok("apikey", "create", "--workspace", workspaceId, "--kind", "workspace");
      assert.match(String(ws.key), /^pak_/);
      await refused(
        1,
        "a key of kind internal needs --user",
        "apikey",
        "create",
        "--workspace",
        workspaceId,
        "--kind",
        "internal",
      );
      await refused(
        1,
        "kind must be user, workspace or internal",
        "apikey",
        "create",
        "--workspace",
        workspaceId,
        "--kind",
        "root",
      );
      const stranger = String(
        (await ok("user", "create", "--email", "s@example.com", "--password", "12345678")).id,
      );
      await refused(
        1,
        `user ${stranger} is not a member of workspace ${workspaceId}`,
        "apikey",
        "create",
        "--workspace",
        workspaceId,
        "--user",
        stranger,
      );
      assert.deepEqual(await ok("apikey", "revoke", "--id", keyId), { ok: true });
      const [rv] = await db.sql`select revoked_at from api_keys where id = ${keyId}`;
      assert.ok(rv.revoked_at instanceof Date);
      await refused(1, `no API key ${missingId}`, "apikey", "revoke", "--id", missingId);
    });

    await t.step("client trust and untrust (positional id), user disable and enable", async () => {
      const [{ client_id }] = await db.sql`
        insert into oauth_clients (client_id, name, redirect_uris, scopes, self_registered)
        values ('pcl_selfregisteredcli', 'Self', '{http://127.0.0.1/cb}', '{openid,profile}', true)
        returning client_id`;
      assert.deepEqual(await ok("client", "trust", client_id), { client_id, trusted: true });
      const [t1] = await db.sql`select trusted from oauth_clients where client_id = ${client_id}`;
      assert.equal(t1.trusted, true);
      assert.deepEqual(await ok("client", "untrust", "--id", client_id), { client_id, trusted: false });
      const [t2] = await db.sql`select trusted from oauth_clients where client_id = ${client_id}`;
      assert.equal(t2.trusted, false);
      await refused(1, "no client pcl_nope", "client", "trust", "pcl_nope");
      await refused(2, "too many arguments", "client", "trust", client_id, "extra");
      await refused(
        2,
        "give id once, as --id or positionally",
        "client",
        "trust",
        client_id,
        "--id",
        client_id,
      );

      assert.deepEqual(await ok("user", "disable", "--id", userId), { ok: true });
      const [d] = await db.sql`select disabled_at from users where id = ${userId}`;
      assert.ok(d.disabled_at instanceof Date);
      assert.deepEqual(await ok("user", "enable", "--id", userId), { ok: true });
      const [e] = await db.sql`select disabled_at from users where id = ${userId}`;
      assert.equal(e.disabled_at, null);
      await refused(1, "id must be a UUID", "user", "disable", "--id", "nope");
      await refused(1, `no user ${missingId}`, "user", "disable", "--id", missingId);
    });

    await t.step("client create", async () => {
      const pub = await ok(
        "client",
        "create",
        "--name",
        "CLI app",
        "--redirect-uri",
        "http://127.0.0.1/callback",
      );
      assert.match(String(pub.client_id), /^pcl_/);
      assert.equal(pub.client_secret, undefined);
      const conf = await ok(
        "client",
        "create",
        "--name",
        "Backend",
        "--redirect-uri",
        "https://app.example.com/cb",
        "--redirect-uri",
        "https://app.example.com/cb2",
        "--confidential",
        "--scope",
        "openid profile workspace",
      );
      assert.match(String(conf.client_secret), /^pcs_/);
      const [c] = await db.sql`
        select secret_hash, scopes, redirect_uris, self_registered, grant_types from oauth_clients
        where client_id = ${String(conf.client_id)}`;
      assert.equal(c.secret_hash, sha256Hex(String(conf.client_secret)));
      assert.deepEqual(c.scopes, ["openid", "profile", "workspace"]);
      assert.deepEqual(c.redirect_uris, ["https://app.example.com/cb", "https://app.example.com/cb2"]);
      assert.equal(c.self_registered, false);
      assert.deepEqual(c.grant_types, ["authorization_code", "refresh_token"]);
      await refused(
        1,
        "redirect_uri http://evil.example/cb may use http only for loopback hosts",
        "client",
        "create",
        "--name",
        "X",
        "--redirect-uri",
        "http://evil.example/cb",
      );
      await refused(
        1,
        "redirect_uri https://a.example/cb#x must not contain a fragment",
        "client",
        "create",
        "--name",
        "X",
        "--redirect-uri",
        "https://a.example/cb#x",
      );
      await refused(
        2,
        "unknown scope admin",
        "client",
        "create",
        "--name",
        "X",
        "--redirect-uri",
        "https://a.example/cb",
        "--scope",
        "openid admin",
      );
      await refused(
        1,
        "grant type password is not supported (authorization_code, refresh_token)",
        "client",
        "create",
        "--name",
        "X",
        "--redirect-uri",
        "https://a.example/cb",
        "--grant-types",
        "password",
      );
      await refused(2, "missing --redirect-uri", "client", "create", "--name", "X");
    });

    await t.step("keys rotate", async () => {
      const first = String((await ok("keys", "rotate")).kid);
      const second = String((await ok("keys", "rotate")).kid);
      assert.notEqual(first, second);
      const rows = await db
        .sql`select kid, retired_at, private_jwk_encrypted, public_jwk from signing_keys order by created_at`;
      const mine = rows.filter((r) => r.kid === first || r.kid === second);
      assert.equal(mine.length, 2);
      assert.ok(mine.find((r) => r.kid === first)?.retired_at instanceof Date);
      assert.equal(mine.find((r) => r.kid === second)?.retired_at, null);
      const row = mine.find((r) => r.kid === second)!;
      assert.equal(row.public_jwk.d, undefined, "the public JWK holds no private part");
      assert.ok(!row.private_jwk_encrypted.includes('"d"'), "the private JWK is stored encrypted");
      const priv = JSON.parse(await open(TEST_SECRET, KEY_PURPOSE, row.private_jwk_encrypted));
      assert.equal(priv.kid, second);
      assert.ok(typeof priv.d === "string");
    });

    await t.step("unknown command, unknown flag, no command", async () => {
      await refused(2, 'unknown command "user delete"', "user", "delete");
      await refused(2, `Unknown option '--bogus'`, "agent", "create", "--name", "x", "--bogus");
      const r = await runAdmin([], { sql: db.sql, secretKey: TEST_SECRET, out: () => {}, err: () => {} });
      assert.equal(r, 2);
    });
  } finally {
    await db.close();
  }
});
