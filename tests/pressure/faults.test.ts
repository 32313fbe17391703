// Faults: the database cut (through a TCP proxy) and restored under a running app, mid-transaction cuts, SIGTERM.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { createDb, type Sql } from "../../lib/db/client.ts";
import { onError, requestContext } from "../../lib/http/middleware.ts";
import type { AppEnv } from "../../lib/http/types.ts";
import { silentLogger } from "../../lib/log.ts";
import type { KeyStore } from "../../lib/oauth/keys.ts";
import { createOAuthApiRoutes } from "../../routes/oauth_api.ts";
import { createClientDirectory } from "../../lib/oauth/client_directory.ts";
import { Hono } from "hono";
import { TEST_SECRET, testApp } from "../helpers/app.ts";
import { DATABASE_URL, freshDatabase, type TestDb } from "../helpers/db.ts";
import { type DbProxy, startDbProxy } from "../helpers/db_proxy.ts";
import { buildFixture, callOk, type Fixture, postMcp, rpc } from "../helpers/mcp.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  field,
  PASSWORD,
  pkce,
  REDIRECT,
  registerPublic,
  token,
} from "../oauth/helpers.ts";

// The proxy needs a server to put itself in front of; embedded PGlite has no network port of its own here.
const ignore = !DATABASE_URL;
const UNAVAILABLE_RPC = {
  code: -32603,
  message: "Service Unavailable: the database is not reachable; retry shortly",
};
/** What no answer may show while the database is away: driver errors, addresses, stack frames. */
const INTERNALS =
  /ECONN|CONNECTION_|postgres|5432|127\.0\.0\.1:\d|\.ts:\d|\bat [A-Za-z_.]+ \(|stack|Error:|socket|connect /i;

interface World {
  db: TestDb;
  proxy: DbProxy;
  /** the app's pool, through the proxy */
  appSql: Sql;
  app: ReturnType<typeof testApp>;
  f: Fixture;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const db = await freshDatabase();
  const proxy = startDbProxy(db.url);
  const appSql = createDb(proxy.url, { max: 4, connectTimeout: 2 });
  const app = testApp(appSql);
  const f = await buildFixture(db.sql);
  return {
    db,
    proxy,
    appSql,
    app,
    f,
    async close() {
      await appSql.end({ timeout: 1 }).catch(() => {});
      await proxy.close();
      await db.close();
    },
  };
}

/**
 * Drops the app's connections and lets it reconnect, so the next statements go out with their SQL text (a
 * connection sends a statement's text once, then only its name) and a cut on that text can fire.
 */
async function freshConnections(w: World) {
  w.proxy.cut();
  await new Promise((r) => setTimeout(r, 100)); // postgres.js notices the closed sockets
  await w.proxy.restore();
}

/** Polls /healthz until it answers 200 (postgres.js reconnects on its own); returns how many polls it took. */
async function waitHealthy(app: World["app"], timeoutMs = 15_000): Promise<number> {
  const start = Date.now();
  for (let i = 1;; i++) {
    const res = await app.request("/healthz");
    await res.body?.cancel();
    if (res.status === 200) return i;
    if (Date.now() - start > timeoutMs) throw new Error("the app did not recover");
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function assertTemporarilyUnavailable(res: Response, what: string) {
  const text = await res.text();
  assert.equal(res.status, 503, `${what}: ${text}`);
  assert.equal(res.headers.get("retry-after"), "5", what);
  assert.equal(res.headers.get("cache-control"), "no-store", what);
  assert.match(res.headers.get("content-type")!, /^application\/json/, what);
  assert.deepEqual(JSON.parse(text), {
    error: "temporarily_unavailable",
    error_description: "the service is temporarily unavailable; retry in 5 s",
  }, what);
}

async function assertUnavailablePage(res: Response, what: string) {
  const html = await res.text();
  assert.equal(res.status, 503, `${what}: ${html.slice(0, 300)}`);
  assert.equal(res.headers.get("retry-after"), "5", what);
  assert.equal(res.headers.get("location"), null, `${what}: no redirect before the client is verified`);
  assert.match(res.headers.get("content-type")!, /^text\/html/, what);
  assert.match(html, /Temporarily unavailable/, what);
  assert.doesNotMatch(html, INTERNALS, what);
}

async function assertMcpUnavailable(res: Response, id: number | null, what: string) {
  const text = await res.text();
  assert.equal(res.status, 503, `${what}: ${text}`);
  assert.equal(res.headers.get("retry-after"), "5", what);
  assert.deepEqual(JSON.parse(text), { jsonrpc: "2.0", id, error: UNAVAILABLE_RPC }, what);
}

function form(fields: Record<string, string>): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  };
}

Deno.test({
  name:
    "database cut and restored: healthz, /mcp and OAuth answer 503 meanwhile; service resumes without restart",
  ignore,
  async fn() {
    const w = await world();
    const { app, f } = w;
    try {
      // Before the outage: a signed-in browser, a public client with a refresh token, an access token.
      const email = "faults@example.com";
      await createUser(w.db.sql, { email, password: PASSWORD, name: "Fay" });
      const browser = new Browser(app);
      const client = await registerPublic(app);
      const { verifier, challenge } = pkce();
      const authorize = authorizeUrl({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "st",
        scope: "openid profile",
      });
      const back = await authorizeThrough(browser, authorize, email);
      const first = await token(app, {
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: client.client_id,
      });
      assert.equal(first.status, 200);
      const tokens = await first.json();
      assert.equal((await app.request("/oauth/jwks")).status, 200); // the key cache is warm
      const csrfBrowser = new Browser(app);
      const signinPage = await csrfBrowser.get("/signin");
      const csrf = field(await signinPage.text(), "csrf")!;
      await callOk(app, f.keys.owner, "create_project", { name: "Before the cut" });

      w.proxy.cut();

      const health = await app.request("/healthz");
      assert.equal(health.status, 503);
      assert.equal(health.headers.get("retry-after"), "5");
      assert.deepEqual(await health.json(), { status: "unavailable", reason: "database_unreachable" });

      // /mcp: initialize, tools/list and tools/call all need the caller (one query): 503, Retry-After, JSON-RPC.
      for (
        const [i, method, params] of [
          [1, "initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          }],
          [2, "tools/list", {}],
          [3, "tools/call", { name: "list_projects", arguments: {} }],
        ] as const
      ) {
        const res = await postMcp(app, f.keys.owner, { jsonrpc: "2.0", id: i, method, params });
        await assertMcpUnavailable(res, null, `/mcp ${method}`);
      }

      // OAuth JSON endpoints: RFC 6749 temporarily_unavailable, 503 + Retry-After.
      await assertTemporarilyUnavailable(
        await token(app, {
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token,
          client_id: client.client_id,
        }),
        "token (refresh)",
      );
      await assertTemporarilyUnavailable(
        await token(app, {
          grant_type: "authorization_code",
          code: "pco_nothing",
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: client.client_id,
        }),
        "token (code)",
      );
      await assertTemporarilyUnavailable(
        await app.request("/oauth/register", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ client_name: "During", redirect_uris: [REDIRECT] }),
        }),
        "register",
      );
      await assertTemporarilyUnavailable(
        await app.request(
          "/oauth/revoke",
          form({ token: tokens.refresh_token, client_id: client.client_id }),
        ),
        "revoke",
      );
      await assertTemporarilyUnavailable(
        await app.request("/oauth/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } }),
        "userinfo (a valid token is not called invalid while the grant cannot be checked)",
      );
      // Discovery needs no database; JWKS is served from the key cache loaded before the cut.
      assert.equal((await app.request("/.well-known/openid-configuration")).status, 200);
      const jwks = await app.request("/oauth/jwks");
      assert.equal(jwks.status, 200);
      assert.equal((await jwks.json()).keys.length, 1);

      // Pages: the client cannot be verified without the database, so an error page (never a redirect).
      await assertUnavailablePage(await browser.get(authorize), "authorize");
      await assertUnavailablePage(
        await csrfBrowser.post("/signin", { csrf, email, password: PASSWORD }),
        "sign-in POST",
      );
      await assertUnavailablePage(await browser.get("/account/keys"), "account keys");
      await assertUnavailablePage(await browser.get("/account/apps"), "connected apps");

      await w.proxy.restore();
      await waitHealthy(app);

      // The same app instance serves again: MCP, the refresh token (untouched by the outage), userinfo, pages.
      const list = await callOk(app, f.keys.owner, "list_projects", {});
      assert.deepEqual(list.map((p: { name: string }) => p.name), ["Before the cut"]);
      const refreshed = await token(app, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: client.client_id,
      });
      assert.equal(refreshed.status, 200, await refreshed.clone().text());
      const next = await refreshed.json();
      const info = await app.request("/oauth/userinfo", {
        headers: { authorization: `Bearer ${next.access_token}` },
      });
      assert.equal(info.status, 200);
      assert.equal((await info.json()).email, email);
      const again = await authorizeThrough(browser, authorize, email);
      assert.ok(again.searchParams.get("code"), "authorize issues codes again");
      assert.equal((await registerPublic(app, { client_name: "After" })).client_id.length > 0, true);
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "a cut after the client is verified sends the browser back with error=temporarily_unavailable",
  ignore,
  async fn() {
    const w = await world();
    const { app } = w;
    try {
      const email = "redirect@example.com";
      await createUser(w.db.sql, { email, password: PASSWORD, name: "Ray" });
      const browser = new Browser(app);
      const client = await registerPublic(app);
      const url = authorizeUrl({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
        state: "keep-me",
      });
      await authorizeThrough(browser, url, email); // signed in, consent given
      // Fresh connections, so the next statements are sent with their SQL text; then cut at the session lookup,
      // which comes after the client and its redirect URI were checked.
      await freshConnections(w);
      const cutDone = w.proxy.cutWhenSent("from browser_sessions");
      const res = await browser.get(url);
      await cutDone;
      assert.equal(res.status, 302);
      const to = new URL(res.headers.get("location")!);
      assert.equal(to.origin + to.pathname, REDIRECT);
      assert.equal(to.searchParams.get("error"), "temporarily_unavailable");
      assert.equal(to.searchParams.get("state"), "keep-me");
      assert.equal(to.searchParams.get("iss"), "http://localhost:8000");
      assert.equal(to.searchParams.get("code"), null);
      // and the next attempt works
      const ok = await authorizeThrough(browser, url, email);
      assert.ok(ok.searchParams.get("code"));
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "a tool whose query meets the database gone answers HTTP 503 + Retry-After with a JSON-RPC error",
  ignore,
  async fn() {
    const w = await world();
    try {
      const { app, f } = w;
      await callOk(app, f.keys.owner, "list_projects", {});
      await freshConnections(w);
      // The caller query passes; the projects query (sent on a fresh connection, with its text) is cut.
      const cut = w.proxy.cutWhenSent("from projects p");
      const res = await postMcp(app, f.keys.owner, {
        jsonrpc: "2.0",
        id: 42,
        method: "tools/call",
        params: { name: "list_projects", arguments: {} },
      });
      await cut;
      await assertMcpUnavailable(res, 42, "tools/call cut mid-request");
      // a batch (protocol 2025-03-26) keeps the answers of its other messages, under HTTP 503
      await freshConnections(w);
      const cut2 = w.proxy.cutWhenSent("from projects p");
      const batch = await postMcp(app, f.keys.owner, [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_projects", arguments: {} } },
      ], { "mcp-protocol-version": "2025-03-26" });
      await cut2;
      assert.equal(batch.status, 503);
      assert.equal(batch.headers.get("retry-after"), "5");
      assert.deepEqual(await batch.json(), [
        { jsonrpc: "2.0", id: 1, result: {} },
        { jsonrpc: "2.0", id: 2, error: UNAVAILABLE_RPC },
      ]);
      const after = await rpc(app, f.keys.owner, "tools/call", { name: "list_projects", arguments: {} });
      assert.equal(after.status, 200);
      assert.equal(after.body.result.isError, undefined);
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "no half-written business change: cuts inside invoice-from-tranche and numbered task transactions",
  ignore,
  async fn() {
    const w = await world();
    try {
      const { app, f, db } = w;
      const key = f.keys.owner;
      const offer = await callOk(app, key, "create_offer", {
        subject: "Website",
        rows: [{ description: "Build", unitPrice: "1000" }],
        tranches: [{ percentage: 50 }, { percentage: 50 }],
      });
      const trancheId = offer.tranches[0].id;
      const project = await callOk(app, key, "create_project", { name: "Numbered", taskPrefix: "NUM" });
      const snapshot = async () => {
        const [r] = await db.sql`
          select (select count(*)::int from invoices) as invoices,
                 (select count(*)::int from invoice_rows) as invoice_rows,
                 (select coalesce(sum(last), 0)::int from invoice_counters) as counters,
                 (select status from offer_tranches where id = ${trancheId}) as tranche,
                 (select count(*)::int from tasks) as tasks,
                 (select count(*)::int from task_assignees) as assignees,
                 (select next_task_number from projects where id = ${project.id}) as next_number`;
        return { ...r };
      };
      const before = await snapshot();
      assert.deepEqual(before, {
        invoices: 0,
        invoice_rows: 0,
        counters: 0,
        tranche: "to_invoice",
        tasks: 0,
        assignees: 0,
        next_number: 1,
      });

      // 1. The tranche is claimed, the number taken, the invoice and its rows inserted — then, at the last
      //    statement (linking the tranche), the connection dies. Nothing of it may remain.
      await freshConnections(w);
      let cut = w.proxy.cutWhenSent("update offer_tranches set invoice_id");
      let res = await postMcp(app, key, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "generate_invoice_from_offer_tranche", arguments: { offerId: offer.id, trancheId } },
      });
      await cut;
      await assertMcpUnavailable(res, 1, "invoice cut");
      assert.deepEqual(await snapshot(), before, "the invoice transaction left nothing behind");

      // 2. A numbered task with two assignees: the counter is bumped and the task inserted, then the cut.
      await freshConnections(w);
      cut = w.proxy.cutWhenSent("insert into task_assignees");
      res = await postMcp(app, key, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "create_task",
          arguments: { title: "Cut", projectId: project.id, assigneeIds: [f.users.owner, f.users.member] },
        },
      });
      await cut;
      await assertMcpUnavailable(res, 2, "task cut");
      assert.deepEqual(await snapshot(), before, "the task transaction left nothing behind");

      // Retried after the outage, both succeed with the numbers the failed attempts had taken: no gaps.
      const invoice = await callOk(app, key, "generate_invoice_from_offer_tranche", {
        offerId: offer.id,
        trancheId,
      });
      assert.match(invoice.invoice.number, /^\d{4}-0001$/);
      const task = await callOk(app, key, "create_task", {
        title: "Cut",
        projectId: project.id,
        assigneeIds: [f.users.owner, f.users.member],
      });
      assert.equal(task.number, 1);
      const afterRetry = await snapshot();
      assert.equal(afterRetry.invoices, 1);
      assert.equal(afterRetry.tranche, "invoiced");
      assert.equal(afterRetry.assignees, 2);
      assert.equal(afterRetry.next_number, 2);
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "database cut during 24 concurrent numbered task creations: every task whole, numbers gapless",
  ignore,
  async fn() {
    const w = await world();
    try {
      const { app, f, db } = w;
      const key = f.keys.owner;
      const project = await callOk(app, key, "create_project", { name: "Busy", taskPrefix: "BSY" });
      const assignees = [f.users.owner, f.users.member, f.users.manager];
      const calls = Array.from({ length: 24 }, (_, i) =>
        postMcp(app, key, {
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: {
            name: "create_task",
            arguments: { title: `Load ${i}`, projectId: project.id, assigneeIds: assignees },
          },
        }).then(async (r) => ({ status: r.status, body: await r.json() })));
      // Cut once some transactions have run (a few tasks exist), restore shortly after.
      for (let i = 0; i < 200; i++) {
        const [{ n }] = await db.sql`select count(*)::int as n from tasks`;
        if (n >= 3) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      w.proxy.cut();
      const answers = await Promise.all(calls);

      await w.proxy.restore();
      await waitHealthy(app);

      const ok = answers.filter((a) => a.status === 200);
      const down = answers.filter((a) => a.status === 503);
      assert.equal(
        ok.length + down.length,
        24,
        JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 503)),
      );
      assert.ok(down.length >= 1, "the cut reached some requests");
      for (const a of ok) assert.equal(a.body.result.isError, undefined, JSON.stringify(a.body));
      for (const a of down) assert.deepEqual(a.body.error, UNAVAILABLE_RPC);

      const rows = await db.sql<{ title: string; number: number; assignees: number }[]>`
        select t.title, t.number, (select count(*)::int from task_assignees a where a.task_id = t.id) as assignees
          from tasks t where t.project_id = ${project.id} order by t.number`;
      // Whole or absent: every stored task has all its assignees; every 200 answer's task is stored.
      for (const r of rows) assert.equal(r.assignees, 3, `task ${r.title} is half-written`);
      const stored = new Set(rows.map((r) => r.title));
      for (const a of ok) assert.ok(stored.has(a.body.result.structuredContent.title));
      // Numbers are 1..n without gaps, and the project's counter agrees with them.
      assert.deepEqual(rows.map((r) => r.number), rows.map((_, i) => i + 1));
      const [{ next }] = await db.sql`select next_task_number as next from projects where id = ${project.id}`;
      assert.equal(next, rows.length + 1);
      // and the app goes on numbering from there
      const later = await callOk(app, key, "create_task", { title: "After", projectId: project.id });
      assert.equal(later.number, rows.length + 1);
    } finally {
      await w.close();
    }
  },
});

Deno.test({
  name: "keys that cannot be loaded are an outage, not a bad token: userinfo and revoke answer 503",
  ignore,
  async fn() {
    const db = await freshDatabase();
    try {
      // The key cache must reload (stale, or an unknown kid) exactly while the database is away.
      const down = () =>
        Promise.reject(
          Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
        );
      const keys: KeyStore = { signing: down, verificationKey: down, jwks: down, invalidate() {} };
      const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET });
      const app = new Hono<AppEnv>();
      app.use("*", requestContext(silentLogger));
      app.onError(onError(silentLogger));
      app.route(
        "/",
        createOAuthApiRoutes({
          config,
          sql: db.sql,
          log: silentLogger,
          secretKey: TEST_SECRET,
          keys,
          clients: createClientDirectory(db.sql),
        }),
      );
      const client = await registerPublic(app);
      const b64 = (o: unknown) =>
        btoa(JSON.stringify(o)).replaceAll("=", "").replaceAll("+", "-").replaceAll("/", "_");
      const jwt = `${b64({ alg: "RS256", typ: "at+jwt", kid: "k1" })}.${b64({ sub: "u" })}.c2ln`;
      await assertTemporarilyUnavailable(
        await app.request("/oauth/userinfo", { headers: { authorization: `Bearer ${jwt}` } }),
        "userinfo while the keys cannot load (was 401 invalid_token)",
      );
      await assertTemporarilyUnavailable(
        await app.request(
          "/oauth/revoke",
          form({ token: jwt, token_type_hint: "access_token", client_id: client.client_id }),
        ),
        "revoke of an access token while the keys cannot load (was 200, nothing revoked)",
      );
      await assertTemporarilyUnavailable(await app.request("/oauth/jwks"), "jwks with no cached keys");
    } finally {
      await db.close();
    }
  },
});

/** A free TCP port on loopback. */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test({
  name: "SIGTERM under load: every request already sent gets a complete 200, then the process exits 0",
  ignore: ignore || Deno.build.os === "windows",
  async fn() {
    const db = await freshDatabase();
    let child: Deno.ChildProcess | undefined;
    try {
      const f = await buildFixture(db.sql);
      // Slow requests, in this test database only: inserting a project named "Slow …" sleeps 0.5 s in Postgres.
      await db.sql.unsafe(`
        create function slow_insert() returns trigger language plpgsql as
          $$ begin perform pg_sleep(0.5); return new; end $$;
        create trigger slow_insert before insert on projects for each row
          when (new.name like 'Slow %') execute function slow_insert();`);
      const port = freePort();
      child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "main.ts"],
        cwd: new URL("../..", import.meta.url).pathname,
        env: {
          DATABASE_URL: db.url,
          SECRET_KEY: TEST_SECRET,
          PORT: String(port),
          HOST: "127.0.0.1",
          ISSUER: `http://127.0.0.1:${port}`,
          LOG_LEVEL: "error",
        },
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0;; i++) {
        try {
          const r = await fetch(`${base}/healthz`);
          await r.body?.cancel();
          if (r.status === 200) break;
        } catch {
          // not listening yet
        }
        if (i > 300) throw new Error("the server did not start");
        await new Promise((r) => setTimeout(r, 100));
      }

      // 50 requests at once: 6 slow creations, and tools/list, list_projects and /healthz around them. Fewer
      // slow ones than the pool's 10 connections: this test is about the shutdown, not a full pool — with 10
      // holding every connection, a loaded host made /healthz wait past its 1 s and answer pool_busy.
      const N = 50;
      const SLOW = 6;
      const mcp = (id: number, method: string, params: unknown) =>
        fetch(`${base}/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            "x-api-key": f.keys.owner,
            "mcp-protocol-version": "2025-11-25",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        }).then(async (r) => ({ what: `${method} ${id}`, status: r.status, body: await r.json() }));
      const requests = Array.from({ length: N }, (_, i) =>
        i < SLOW
          // distinct task prefixes: equal ones would queue on the unique index
          ? mcp(i, "tools/call", {
            name: "create_project",
            arguments: { name: `Slow ${i}`, taskPrefix: `SD${i}` },
          })
          : i % 3 === 0
          ? mcp(i, "tools/list", {})
          : i % 3 === 1
          ? mcp(i, "tools/call", { name: "list_projects", arguments: {} })
          : fetch(`${base}/healthz`).then(async (r) => ({
            what: `healthz ${i}`,
            status: r.status,
            body: await r.json(),
          })));
      // Wait until the slow creations sleep in Postgres, then SIGTERM.
      for (let i = 0; i < 400; i++) {
        const [{ n }] = await db.sql`
          select count(*)::int as n from pg_stat_activity where wait_event = 'PgSleep' and datname = current_database()`;
        if (n >= 3) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      // give the server a moment to have read every request (loopback: well under this)
      await new Promise((r) => setTimeout(r, 200));
      const [{ done }] = await db.sql`select count(*)::int as done from projects`;
      assert.ok(done < SLOW, "requests were still in flight when the signal came");
      child.kill("SIGTERM");

      const answers = await Promise.all(requests);
      for (const a of answers) {
        assert.equal(a.status, 200, `${a.what}: ${JSON.stringify(a.body)}`);
        if (a.what.startsWith("healthz")) assert.deepEqual(a.body, { status: "ok" });
        else assert.equal(a.body.result.isError, undefined, `${a.what}: ${JSON.stringify(a.body)}`);
      }
      const status = await child.status;
      const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
      child = undefined;
      assert.equal(status.code, 0, stderr);
      const [{ n }] = await db.sql`select count(*)::int as n from projects where name like 'Slow %'`;
      assert.equal(n, SLOW, "every answered creation is stored");
      // and the port is free again: the server stopped listening
      await assert.rejects(fetch(`${base}/healthz`));
    } finally {
      if (child) {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
        await child.status;
        await child.stderr.cancel().catch(() => {});
      }
      await db.close();
    }
  },
});
