import assert from "node:assert/strict";
import { runAdmin, textTable } from "../lib/admin/cli.ts";
import { accountKey, brakeBucket } from "../lib/oauth/sign_in.ts";
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
  return await adminWith(sql, undefined, ...argv, "--json");
}

async function adminWith(sql: Sql, stdin: string | undefined, ...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, {
    sql,
    secretKey: TEST_SECRET,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    readStdin: stdin === undefined ? undefined : () => Promise.resolve(stdin),
  });
  return { code, out, err, json: code === 0 && argv.includes("--json") ? JSON.parse(out.join("\n")) : {} };
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
        "good password 123",
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
        "good password 123",
      );
      await refused(
        1,
        "email must be an email address",
        "user",
        "create",
        "--email",
        "nope",
        "--password",
        "good password 123",
      );
      await refused(
        1,
        "password refused: Use at least 12 characters. Several words you can remember make a good password.",
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
        "good password 123",
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
        "role: must be one of owner, admin, manager, accounting, member, guest",
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
        (await ok("user", "create", "--email", "s@example.com", "--password", "good password 123")).id,
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

    await t.step("look-ups: user, workspace, company, member, client, apikey (list and show)", async () => {
      const users = await ok("user", "list");
      // In the order the list promises (created_at, then id), read from the table: the order of the create
      // commands is not the contract (a CI run once listed the user created later first).
      const stored = await db.sql<{ email: string; plan: string }[]>`
        select email, plan from users order by created_at, id`;
      assert.deepEqual(
        (users.users as Record<string, unknown>[]).map((u) => [u.email, u.plan, u.disabled]),
        stored.map((u) => [u.email, u.plan, false]),
      );
      assert.deepEqual(stored.map((u) => [u.email, u.plan]).sort(), [
        ["Ann@Example.com", "free"],
        ["b@example.com", "pro"],
        ["s@example.com", "free"],
      ]);
      assert.equal(users.truncated, false);
      const cut = await ok("user", "list", "--limit", "2");
      assert.equal((cut.users as unknown[]).length, 2);
      assert.equal(cut.truncated, true);
      const found = await ok("user", "list", "--email", "EXAMPLE.com", "--limit", "1");
      assert.equal((found.users as Record<string, unknown>[])[0].id, userId);
      assert.deepEqual((await ok("user", "list", "--email", "%")).users, [], "LIKE wildcards are literal");
      await refused(2, "--limit must be between 1 and 1000", "user", "list", "--limit", "1001");

      const shown = await ok("user", "show", "--email", "ann@example.COM");
      assert.equal(shown.id, userId);
      assert.equal(shown.email, "Ann@Example.com");
      assert.equal(shown.active_keys, 0, "the one key of Ann was revoked above");
      assert.deepEqual(shown.memberships, [
        { workspace_id: workspaceId, workspace: "Acme", role: "admin", company_ids: [companyId] },
      ]);
      await refused(
        1,
        "no user with email nobody@example.com",
        "user",
        "show",
        "--email",
        "nobody@example.com",
      );
      await refused(2, "give exactly one of --id, --email", "user", "show");
      await refused(
        2,
        "give exactly one of --id, --email",
        "user",
        "show",
        "--id",
        userId,
        "--email",
        "x@y.z",
      );

      const wsList = await ok("workspace", "list");
      const acme = (wsList.workspaces as Record<string, unknown>[]).find((w) => w.id === workspaceId)!;
      assert.deepEqual({ ...acme, created_at: undefined }, {
        id: workspaceId,
        name: "Acme",
        companies: 1,
        members: 1,
        created_at: undefined,
      });
      const ws = await ok("workspace", "show", workspaceId);
      assert.deepEqual(ws.companies, [{ id: companyId, name: "North" }]);
      assert.equal(ws.members, 1);
      assert.equal(ws.active_keys, 1, "the workspace key made above is live");
      await refused(1, `no workspace ${missingId}`, "workspace", "show", missingId);
      await refused(1, "workspace must be a UUID", "company", "list", "--workspace", "nope");

      const companies = await ok("company", "list", "--workspace", workspaceId);
      assert.deepEqual((companies.companies as Record<string, unknown>[]).map((c) => [c.id, c.name]), [
        [companyId, "North"],
      ]);
      const members = await ok("member", "list", "--workspace", workspaceId);
      assert.deepEqual(members, {
        members: [{
          user_id: userId,
          email: "Ann@Example.com",
          name: "Ann",
          role: "admin",
          companies: [companyId],
        }],
        truncated: false,
      });

      const keys = await ok("apikey", "list", "--workspace", workspaceId);
      assert.deepEqual(
        (keys.keys as Record<string, unknown>[]).map((k) => [k.kind, k.user_email, k.revoked]),
        [["workspace", null, false]],
        "revoked keys are left out by default",
      );
      assert.ok(!JSON.stringify(keys).includes("key_hash"), "never the hash");
      const all = await ok("apikey", "list", "--workspace", workspaceId, "--revoked");
      assert.deepEqual(
        (all.keys as Record<string, unknown>[]).map((k) => [k.kind, k.user_email, k.revoked]).sort(),
        [["user", "Ann@Example.com", true], ["workspace", null, false]],
      );
      const mine = await ok("apikey", "list", "--user", userId, "--revoked");
      assert.deepEqual((mine.keys as Record<string, unknown>[]).map((k) => k.id), [keyId]);

      const clients = await ok("client", "list");
      assert.deepEqual(
        (clients.clients as Record<string, unknown>[]).map((c) => [c.name, c.self_registered, c.trusted])
          .sort(),
        [["Backend", false, false], ["CLI app", false, false], ["Self", true, false]],
      );
      const client = await ok("client", "show", "pcl_selfregisteredcli");
      assert.deepEqual(client.redirect_uris, ["http://127.0.0.1/cb"]);
      assert.deepEqual(client.scopes, ["openid", "profile"]);
      assert.equal(client.active_grants, 0);
      await refused(1, "no client pcl_nope", "client", "show", "pcl_nope");
    });

    await t.step("look-ups as text: a table, and what was cut", async () => {
      const r = await adminWith(db.sql, undefined, "member", "list", "--workspace", workspaceId);
      assert.equal(r.code, 0);
      assert.deepEqual(r.out[0].split("\n"), [
        `user_id${" ".repeat(31)}email            name  role   companies`,
        `${userId}  Ann@Example.com  Ann   admin  ${companyId}`,
      ]);
      const cut = await adminWith(db.sql, undefined, "user", "list", "--limit", "1");
      const lines = cut.out[0].split("\n");
      assert.equal(lines.length, 3);
      assert.equal(lines[2], "(more than 1; raise --limit, or --json for every field)");
      assert.equal(
        textTable([{ a: "x", b: null }, { a: "longer", b: ["p", "q"] }], ["a", "b"]),
        "a       b\nx\nlonger  p,q",
      );
    });

    await t.step("user set-password (generated, from stdin), user unlock, demo reset-password", async () => {
      const [{ id: sessionId }] = await db.sql`
        insert into browser_sessions (token_hash, expires_at) values ('h1', now() + interval '1 day') returning id`;
      await db
        .sql`insert into browser_session_accounts (session_id, user_id) values (${sessionId}, ${userId})`;
      const brake = brakeBucket.account(accountKey("ann@example.com"));
      // Ann's brake is her account-wide bucket and one per client network; another account's stays.
      const annNetwork = brakeBucket.network(accountKey("ann@example.com"), "203.0.113.9");
      const bobNetwork = brakeBucket.network(accountKey("bob@example.com"), "203.0.113.9");
      await db.sql`insert into rate_limits (bucket, window_start, count) values
        (${brake}, now(), 10), (${annNetwork}, now(), 10), (${bobNetwork}, now(), 10),
        ('signin:ip:203.0.113.9', now(), 10)`;

      const r = await ok("user", "set-password", "--id", userId);
      const password = String(r.password);
      assert.match(password, /^[A-Za-z0-9_-]{16}$/);
      assert.deepEqual({ ...r, password: undefined }, {
        id: userId,
        email: "Ann@Example.com",
        password: undefined,
        sessions_ended: 1,
        brake_cleared: 2,
      });
      const [u] = await db.sql`select password_hash from users where id = ${userId}`;
      assert.equal(await verifyPassword(password, u.password_hash), true);
      assert.equal(await verifyPassword("correct horse", u.password_hash), false);
      const [n] = await db
        .sql`select count(*)::int as n from browser_session_accounts where user_id = ${userId}`;
      assert.equal(n.n, 0, "signed out everywhere");
      const left = await db.sql`select bucket from rate_limits where bucket like 'signin:%' order by bucket`;
      assert.deepEqual(
        left.map((x) => x.bucket),
        ["signin:ip:203.0.113.9", bobNetwork],
        "only the account's brake lifted",
      );

      const typed = await adminWith(
        db.sql,
        "typed in password\nignored second line\n",
        "user",
        "set-password",
        "--email",
        "ann@example.com",
        "--password-stdin",
        "--json",
      );
      assert.equal(typed.code, 0, typed.err.join(" "));
      assert.deepEqual(typed.json, {
        id: userId,
        email: "Ann@Example.com",
        sessions_ended: 0,
        brake_cleared: 0,
      });
      const [u2] = await db.sql`select password_hash from users where id = ${userId}`;
      assert.equal(await verifyPassword("typed in password", u2.password_hash), true);
      const short = await adminWith(
        db.sql,
        "short\n",
        "user",
        "set-password",
        "--id",
        userId,
        "--password-stdin",
      );
      assert.equal(short.code, 1);
      assert.deepEqual(short.err, [
        "admin: password refused: Use at least 12 characters. Several words you can remember make a good password.",
      ]);
      // The policy's other refusals say why too, and change nothing.
      const common = await adminWith(
        db.sql,
        "password1234\n",
        "user",
        "set-password",
        "--id",
        userId,
        "--password-stdin",
      );
      assert.equal(common.code, 1);
      assert.match(common.err[0], /^admin: password refused: This password is on lists of common passwords/);
      const [u2b] = await db.sql`select password_hash, password_changed_at from users where id = ${userId}`;
      assert.equal(u2b.password_hash, u2.password_hash);
      assert.ok(u2b.password_changed_at instanceof Date, "set-password records when the password changed");
      await refused(1, `no user ${missingId}`, "user", "set-password", "--id", missingId);

      await db.sql`insert into rate_limits (bucket, window_start, count) values (${brake}, now(), 12),
        (${brakeBucket.network(accountKey("ann@example.com"), "2001:db8::1")}, now(), 10),
        (${`2fa:user:${userId}`}, now(), 7)`;
      assert.deepEqual(await ok("user", "unlock", "--email", "Ann@example.com"), {
        id: userId,
        email: "Ann@Example.com",
        brake_cleared: 3,
      });
      const [u3] = await db.sql`select password_hash from users where id = ${userId}`;
      assert.equal(u3.password_hash, u2.password_hash, "unlock leaves the password alone");

      // Lost phone and recovery codes: the operator removes every second factor.
      await db
        .sql`insert into user_totp (user_id, secret_sealed, confirmed_at) values (${userId}, 'v1.x.y', now())`;
      await db
        .sql`insert into user_recovery_codes (user_id, code_hash) values (${userId}, 'a'), (${userId}, 'b')`;
      await db.sql`insert into user_passkeys (user_id, credential_id, public_key, name)
                   values (${userId}, 'cred-1', '\\x00', 'Phone')`;
      await db
        .sql`insert into rate_limits (bucket, window_start, count) values (${`2fa:user:${userId}`}, now(), 9)`;
      const [{ id: s2 }] = await db.sql`
        insert into browser_sessions (token_hash, expires_at) values ('h2', now() + interval '1 day') returning id`;
      await db.sql`insert into browser_session_accounts (session_id, user_id) values (${s2}, ${userId})`;
      assert.deepEqual(await ok("user", "reset-two-step", "--id", userId), {
        id: userId,
        email: "Ann@Example.com",
        authenticator_app: 1,
        recovery_codes: 2,
        passkeys: 1,
        sessions_ended: 1,
        brake_cleared: 1,
      });
      const [left2] = await db.sql`
        select (select count(*)::int from user_totp where user_id = ${userId}) +
               (select count(*)::int from user_recovery_codes where user_id = ${userId}) +
               (select count(*)::int from user_passkeys where user_id = ${userId}) as n`;
      assert.equal(left2.n, 0);
      const [removed] = await db.sql`
        select detail from security_events where user_id = ${userId} and kind = 'factor_removed'`;
      assert.deepEqual(removed.detail, { factor: "all", by: "operator" });

      await refused(
        1,
        "no demo person demo@portico.local (demo data is created by the first deno task dev)",
        "demo",
        "reset-password",
      );
      const demoId = String(
        (await ok("user", "create", "--email", "demo@portico.local", "--password", "forgotten password 1"))
          .id,
      );
      await db.sql`insert into rate_limits (bucket, window_start, count)
                   values (${brakeBucket.account(accountKey("demo@portico.local"))}, now(), 10)`;
      const demo = await ok("demo", "reset-password");
      assert.deepEqual({ ...demo, password: undefined }, {
        id: demoId,
        email: "demo@portico.local",
        password: undefined,
        sessions_ended: 0,
        brake_cleared: 1,
      });
      const [d] = await db.sql`select password_hash from users where id = ${demoId}`;
      assert.equal(await verifyPassword(String(demo.password), d.password_hash), true);
    });

    await t.step("--help at every depth, text and JSON; unknown commands point to it", async () => {
      const top = await adminWith(db.sql, undefined, "--help");
      assert.equal(top.code, 0);
      assert.match(top.out[0], /^usage: deno task admin <command> \[--json\]/);
      assert.ok(top.out[0].includes("\nuser:\n  user list "));
      assert.equal((await adminWith(db.sql, undefined, "help")).out[0], top.out[0]);
      const group = await adminWith(db.sql, undefined, "demo", "--help", "--json");
      assert.equal(group.code, 0);
      assert.deepEqual(group.json, {
        commands: [{
          command: "demo reset-password",
          usage: "deno task admin demo reset-password",
          help: "Gives the demo person (demo@portico.local) a new generated password, prints it once, and " +
            "lifts the sign-in brake: the way back into the demo.",
        }],
      });
      const userGroup = await adminWith(db.sql, undefined, "user", "-h", "--json");
      assert.deepEqual(
        (userGroup.json.commands as Record<string, unknown>[]).map((c) => c.command),
        [
          "user list",
          "user show",
          "user set-password",
          "user unlock",
          "user reset-two-step",
          "user create",
          "user disable",
          "user enable",
          "user operator",
        ],
      );
      const one = await adminWith(db.sql, undefined, "user", "unlock", "--help");
      assert.equal(one.code, 0);
      assert.deepEqual(one.out, [
        "usage: deno task admin user unlock --id U | --email E [--json]",
        "\nLifts the sign-in brake and the second-factor brake on a person's account after too many wrong " +
        "passwords or codes (no password change).",
      ]);
      const bogus = await adminWith(db.sql, undefined, "bogus", "--help");
      assert.equal(bogus.code, 2);
      assert.deepEqual(bogus.err, [
        'admin: unknown command "bogus"',
        "admin: deno task admin --help lists the commands",
      ]);
      const unknown = await adminWith(db.sql, undefined, "user", "delete");
      assert.equal(unknown.code, 2);
      assert.deepEqual(unknown.err, [
        'admin: unknown command "user delete"',
        "admin: deno task admin --help lists the commands",
      ]);
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
