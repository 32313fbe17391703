// Portico behind a real PgBouncer in transaction mode (pool of 3 server connections for 10 client connections):
// with DATABASE_POOLER=transaction the OAuth flow, code and refresh races, reuse detection, tool calls (a cursor
// export among them) and migrations from two instances at once hold; without it, start-up is refused
// (statement_timeout in the start-up message) and, with nothing sent at start-up, a named statement prepared on
// one server connection is missing on the next. The silence watch still works through it. Needs a Postgres
// server (DATABASE_URL) and /usr/sbin/pgbouncer; skipped with a warning otherwise (the last test needs neither).
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { createAgent, createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { createDb, dbOptions, type Sql } from "../../lib/db/client.ts";
import { describeConnectFailure } from "../../lib/db/errors.ts";
import { openDatabase, serverTimeouts, StartupError } from "../../lib/db/open.ts";
import { createLogger, silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { startBlackHoleProxy } from "../helpers/black_hole_proxy.ts";
import {
  DATABASE_URL,
  emptyDatabase,
  freshDatabase,
  TEST_CONNECT_TIMEOUT_S,
  type TestDb,
} from "../helpers/db.ts";
import { migrate } from "../../lib/db/migrate.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { buildFixture, callOk, rpc } from "../helpers/mcp.ts";
import { havePgBouncer, type PgBouncer, startPgBouncer, warnIfNoPgBouncer } from "../helpers/pgbouncer.ts";
import { settles } from "../helpers/wait.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  PASSWORD,
  register,
  registerPublic,
  token,
} from "../oauth/helpers.ts";

const FILE = "tests/db/pgbouncer.test.ts";
const ignore = !havePgBouncer || !DATABASE_URL;
warnIfNoPgBouncer(
  FILE,
  DATABASE_URL ? undefined : "DATABASE_URL is unset (PgBouncer needs a Postgres server)",
);

const PARALLEL = 20;
/** The statement timeout the tests ask for, set on the test database as an operator sets it on the role. */
const TIMEOUT_MS = 120_000;

function configFor(url: string, env: Record<string, string> = {}) {
  return parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    DATABASE_URL: url,
    STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
    ...TEST_RATE_LIMITS,
    ...env,
  });
}

function appOn(sql: Sql, env: Record<string, string>) {
  const config = configFor("postgres://unused@127.0.0.1/unused", env);
  return createApp({ config, sql, log: silentLogger, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT });
}

async function withBouncer(fn: (db: TestDb, bouncer: PgBouncer) => Promise<void>) {
  const db = await freshDatabase();
  let bouncer: PgBouncer | undefined;
  try {
    const name = new URL(db.url).pathname.slice(1);
    // docs/operations.md "Behind a connection pooler": the timeouts live on the role (here: the database).
    await db.sql.unsafe(`alter database ${name} set statement_timeout = ${TIMEOUT_MS}`);
    await db.sql.unsafe(`alter database ${name} set idle_in_transaction_session_timeout = ${TIMEOUT_MS * 3}`);
    bouncer = await startPgBouncer(db.url, { poolSize: 3 });
    await fn(db, bouncer);
  } finally {
    await bouncer?.stop();
    await db.close();
  }
}

async function oneWinner(responses: Response[]) {
  const bodies = await Promise.all(responses.map((r) => r.json()));
  const statuses = responses.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses}`);
  for (const [i, body] of bodies.entries()) {
    if (statuses[i] !== 200) assert.deepEqual([statuses[i], body.error], [400, "invalid_grant"]);
  }
  return bodies[statuses.indexOf(200)];
}

Deno.test({
  name:
    "with DATABASE_POOLER=transaction, the OAuth flow, refresh races and tool calls work through PgBouncer",
  ignore,
  fn: () =>
    withBouncer(async (db, bouncer) => {
      const lines: string[] = [];
      const config = configFor(bouncer.url, { DATABASE_POOLER: "transaction" });
      const opened = await openDatabase(config, { log: createLogger("warn", (l) => lines.push(l)) });
      try {
        const sql = opened.sql;
        // The role's timeouts reach every server connection; Portico reads them back and has nothing to say.
        assert.deepEqual(await serverTimeouts(sql), {
          statement: TIMEOUT_MS,
          idleInTransaction: TIMEOUT_MS * 3,
        });
        assert.deepEqual(lines, []);
        // An instance asking for another timeout than the role's hears about it once, at start.
        const other: string[] = [];
        const mismatched = await openDatabase(
          configFor(bouncer.url, { DATABASE_POOLER: "transaction", STATEMENT_TIMEOUT_MS: "5000" }),
          { log: createLogger("warn", (l) => other.push(l)) },
        );
        await mismatched.close();
        assert.equal(other.length, 1, other.join("\n"));
        const warned = JSON.parse(other[0]);
        assert.equal(warned.level, "warn");
        assert.equal(warned.msg, "statement_timeout through the pooler differs from STATEMENT_TIMEOUT_MS");
        assert.deepEqual([warned.statement_timeout_ms, warned.want_ms], [TIMEOUT_MS, 5000]);
        const app = createApp({
          config,
          sql,
          log: silentLogger,
          secretKey: TEST_SECRET,
          scrypt: TEST_SCRYPT,
        });
        const noGrace = appOn(sql, { REFRESH_REUSE_GRACE_SECONDS: "0" });
        const user = await createUser(sql, { email: "dana@example.com", password: PASSWORD, name: "Dana" }, {
          scrypt: TEST_SCRYPT,
        });
        const ctx = {
          db,
          app,
          user: { id: user.id, email: "dana@example.com" },
          other: { id: user.id, email: "dana@example.com" },
          agentId: (await createAgent(sql, "Assistant")).id,
          close: () => Promise.resolve(),
        } satisfies Ctx;
        const client = await registerPublic(app);

        // Authorization code flow; PARALLEL exchanges of one code: one winner.
        const { code, verifier } = await getCode(ctx, new Browser(app), client);
        const first = await oneWinner(
          await Promise.all(Array.from({ length: PARALLEL }, () => exchange(ctx, client, code, verifier))),
        );
        assert.equal(first.token_type, "Bearer");
        // The losers were code replays: the winner's tokens are revoked with the code (docs/oauth.md).
        const revoked = await token(app, {
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: client.client_id,
        });
        assert.deepEqual([revoked.status, (await revoked.json()).error], [400, "invalid_grant"]);
        const refreshAll = (a: typeof app, refresh_token: string) =>
          Promise.all(
            Array.from(
              { length: PARALLEL },
              () => token(a, { grant_type: "refresh_token", refresh_token, client_id: client.client_id }),
            ),
          );

        // Within the grace window every parallel refresh gets a successor of its own (docs/oauth.md).
        const fresh = await getCode(ctx, new Browser(app), client);
        const tokens = await (await exchange(ctx, client, fresh.code, fresh.verifier)).json();
        const all = await refreshAll(app, tokens.refresh_token);
        const bodies = await Promise.all(all.map((r) => r.json()));
        assert.deepEqual(all.map((r) => r.status), Array(PARALLEL).fill(200), JSON.stringify(bodies[0]));
        assert.equal(new Set(bodies.map((b) => b.refresh_token)).size, PARALLEL);
        const grantId = decodeJwt(tokens.access_token).grant_id as string;
        const [heads] = await db.sql<{ n: number }[]>`
          select cardinality(refresh_hashes) as n from oauth_grants where id = ${grantId}`;
        assert.equal(heads.n, PARALLEL);

        // Without the window: one winner; replaying the rotated token is reuse and ends the family.
        const second = await (await exchange(
          ctx,
          client,
          ...(Object.values(await getCode(ctx, new Browser(app), client)).slice(0, 2) as [string, string]),
        )).json();
        const winner = await oneWinner(await refreshAll(noGrace, second.refresh_token));
        const replay = await token(noGrace, {
          grant_type: "refresh_token",
          refresh_token: second.refresh_token,
          client_id: client.client_id,
        });
        assert.deepEqual([replay.status, (await replay.json()).error], [400, "invalid_grant"]);
        const afterReuse = await token(noGrace, {
          grant_type: "refresh_token",
          refresh_token: winner.refresh_token,
          client_id: client.client_id,
        });
        assert.deepEqual([afterReuse.status, (await afterReuse.json()).error], [400, "invalid_grant"]);
        const [grant] = await db.sql<{ revoked: boolean }[]>`
          select revoked_at is not null as revoked from oauth_grants
           where id = ${decodeJwt(second.access_token).grant_id as string}`;
        assert.equal(grant.revoked, true);

        // Tool calls with API keys, in parallel: reads and writes.
        const f = await buildFixture(sql);
        const made = await Promise.all(
          Array.from(
            { length: PARALLEL },
            (_, i) => callOk(app, f.keys.ownerCompanyA, "create_project", { name: `Pooled ${i}` }),
          ),
        );
        assert.equal(new Set(made.map((p) => p.id)).size, PARALLEL);
        const lists = await Promise.all(
          Array.from({ length: PARALLEL }, () => callOk(app, f.keys.owner, "list_projects", { limit: 50 })),
        );
        for (const l of lists) assert.equal(l.length, PARALLEL);
        const listed = await rpc(app, f.keys.owner, "tools/list");
        assert.equal(listed.status, 200);
        assert.ok(listed.body.result.tools.length > 10);

        // A cursor (export_contacts reads in chunks of 500) inside its read-only transaction, through the pooler.
        await db.sql`insert into contacts (workspace_id, contact_name)
                     select ${f.workspaceId}, 'Bulk ' || g from generate_series(1, 1200) g`;
        const exported = await callOk(app, f.keys.owner, "export_contacts", {});
        assert.deepEqual([exported.rows, exported.matched, exported.truncated], [1200, 1200, false]);

        // Many client connections shared few server connections, and PgBouncer carried the transactions.
        const [pool] = (await bouncer.show("pools")).filter((p) => p.database === db.url.split("/").pop());
        const servers = ["sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login"]
          .reduce((n, k) => n + Number(pool[k]), 0);
        assert.ok(Number(pool.cl_active) + Number(pool.cl_waiting) > 3, JSON.stringify(pool));
        assert.ok(servers <= 3, JSON.stringify(pool));
        assert.deepEqual(lines, []);
      } finally {
        await opened.close();
      }
    }),
});

Deno.test({
  name: "without DATABASE_POOLER, Portico cannot run through PgBouncer in transaction mode",
  ignore,
  fn: () =>
    withBouncer(async (_db, bouncer) => {
      // 1. statement_timeout in the start-up message: PgBouncer refuses the connection; start-up says what to set.
      await assert.rejects(openDatabase(configFor(bouncer.url)), (err: Error) => {
        assert.ok(err instanceof StartupError);
        assert.match(err.message, /unsupported startup parameter: statement_timeout/);
        assert.match(err.message, /set DATABASE_POOLER=transaction/);
        return true;
      });

      // 2. Nothing at start-up (STATEMENT_TIMEOUT_MS=0) but named statements: a statement prepared on one server
      // connection is unknown on another. One client connection (max 1), so the pool holds exactly one server
      // connection until another client takes it inside a transaction: the next registration (a transaction
      // that starts with the statement the first one prepared) must run on a second server connection.
      // postgres.js prepares a missing statement again once, which saves a lone statement but not a transaction.
      const run = async (pooler: "none" | "transaction") => {
        const sql = createDb(bouncer.url, {
          max: 1,
          connectTimeout: TEST_CONNECT_TIMEOUT_S,
          statementTimeoutMs: 0,
          pooler,
        });
        const holder = createDb(bouncer.url, { max: 1, statementTimeoutMs: 0, pooler: "transaction" });
        const app = appOn(sql, {});
        try {
          assert.equal((await register(app, {}, `192.0.2.${pooler === "none" ? 1 : 2}`)).status, 201);
          let release!: () => void;
          const held = new Promise<void>((r) => release = r);
          let holding!: () => void;
          const taken = new Promise<void>((r) => holding = r);
          const tx = holder.begin(async (t) => {
            await t`select 1`;
            holding();
            await held;
          });
          await settles(taken, "the other client holds the server connection");
          const again = await settles(
            register(app, {}, `192.0.2.${pooler === "none" ? 3 : 4}`),
            "the registration on a second server connection",
          );
          release();
          await tx;
          return { status: again.status, body: await again.json() };
        } finally {
          await holder.end({ timeout: 5 });
          await sql.end({ timeout: 5 });
        }
      };
      const named = await run("none");
      assert.deepEqual([named.status, named.body.error], [500, "server_error"], JSON.stringify(named.body));
      const unnamed = await run("transaction");
      assert.equal(unnamed.status, 201, JSON.stringify(unnamed.body));
    }),
});

Deno.test({
  name:
    "through PgBouncer with unnamed statements, the silence watch still drops a connection that goes silent",
  ignore,
  fn: () =>
    withBouncer(async (_db, bouncer) => {
      const proxy = startBlackHoleProxy(bouncer.url);
      const sql = createDb(proxy.url, {
        max: 1,
        connectTimeout: TEST_CONNECT_TIMEOUT_S,
        statementTimeoutMs: 300,
        pooler: "transaction",
      });
      try {
        assert.deepEqual([...await sql`select 1 as one`], [{ one: 1 }]);
        proxy.blackHole();
        await assert.rejects(settles(sql`select 2`, "the watch ends the silent query"), (err: Error) => {
          assert.equal((err as Error & { code?: string }).code, "ETIMEDOUT");
          return true;
        });
      } finally {
        await sql.end({ timeout: 1 }).catch(() => {});
        await proxy.close();
      }
    }),
});

Deno.test({
  name:
    "migrations run through PgBouncer: two instances starting at once apply them once (a transaction lock)",
  ignore,
  fn: async () => {
    const db = await emptyDatabase();
    let bouncer: PgBouncer | undefined;
    const pools: Sql[] = [];
    try {
      bouncer = await startPgBouncer(db.url, { poolSize: 3 });
      for (let i = 0; i < 2; i++) {
        pools.push(
          createDb(bouncer.url, { max: 2, connectTimeout: TEST_CONNECT_TIMEOUT_S, pooler: "transaction" }),
        );
      }
      const applied = await Promise.all(pools.map((sql) => migrate(sql)));
      assert.deepEqual(applied.map((a) => a.length).sort((x, y) => x - y), [0, MIGRATIONS.length]);
      const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
      assert.equal(n, MIGRATIONS.length);
    } finally {
      for (const p of pools) await p.end({ timeout: 5 });
      await bouncer?.stop();
      await db.close();
    }
  },
});

Deno.test("DATABASE_POOLER: none by default; transaction turns off named statements and start-up settings", async () => {
  const env = { SECRET_KEY: TEST_SECRET, DATABASE_URL: "postgres://u@127.0.0.1:1/d" };
  assert.equal(parseConfig(env).databasePooler, "none");
  assert.equal(parseConfig({ ...env, DATABASE_POOLER: "transaction" }).databasePooler, "transaction");
  assert.throws(() => parseConfig({ ...env, DATABASE_POOLER: "session" }), /DATABASE_POOLER must be none or/);
  assert.throws(() => parseConfig({ DATABASE_POOLER: "transaction" }), /DATABASE_POOLER needs DATABASE_URL/);
  const options = (sql: Sql) =>
    sql.options as unknown as { prepare: boolean; connection: Record<string, unknown> };
  const direct = createDb(env.DATABASE_URL, dbOptions(parseConfig(env)));
  const pooled = createDb(
    env.DATABASE_URL,
    dbOptions(parseConfig({ ...env, DATABASE_POOLER: "transaction" })),
  );
  try {
    assert.equal(options(direct).prepare, true);
    assert.equal(options(direct).connection.statement_timeout, 10_000);
    assert.equal(options(direct).connection.idle_in_transaction_session_timeout, 30_000);
    assert.equal(options(pooled).prepare, false);
    assert.equal(options(pooled).connection.statement_timeout, undefined);
    assert.equal(options(pooled).connection.idle_in_transaction_session_timeout, undefined);
    assert.equal(options(pooled).connection.application_name, "portico");
  } finally {
    await direct.end({ timeout: 0 });
    await pooled.end({ timeout: 0 });
  }
  // PgBouncer's refusal of a start-up parameter, as start-up reports it.
  const refusal = Object.assign(new Error("unsupported startup parameter: statement_timeout"), {
    code: "08P01",
  });
  assert.match(
    describeConnectFailure(refusal, "127.0.0.1:6432/portico", { database: "portico", user: "portico" }),
    /connection pooler that refused a start-up setting .*: set DATABASE_POOLER=transaction/,
  );
});
