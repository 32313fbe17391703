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
import { TEST_SCRYPT, TEST_SECRET, testApp } from "../helpers/app.ts";
import { DATABASE_URL, freshDatabase, TEST_CONNECT_TIMEOUT_S, type TestDb } from "../helpers/db.ts";
import { type DbProxy, startDbProxy } from "../helpers/db_proxy.ts";
import { eventually, settleCounter, settles, waitingOnLock } from "../helpers/wait.ts";
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
  // No statement of these tests may be cancelled or refused for being slow: the faults are the proxy's cuts.
  const appSql = createDb(proxy.url, {
    max: 4,
    connectTimeout: TEST_CONNECT_TIMEOUT_S,
    statementTimeoutMs: 60_000,
  });
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
  await settles(w.proxy.cut(), "postgres.js closes the cut connections"); // it noticed: no query goes to them
  await w.proxy.restore();
}

/** Polls /healthz until it answers 200 (postgres.js reconnects on its own). */
async function waitHealthy(app: World["app"]): Promise<void> {
  await eventually("the app answers /healthz 200 again", async () => {
    const res = await app.request("/healthz");
    await res.body?.cancel();
    return res.status === 200;
  }, 100);
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
      await createUser(w.db.sql, { email, password: PASSWORD, name: "Fay" }, { scrypt: TEST_SCRYPT });
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

      await settles(w.proxy.cut(), "postgres.js closes the cut connections");

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
      await createUser(w.db.sql, { email, password: PASSWORD, name: "Ray" }, { scrypt: TEST_SCRYPT });
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
      await settles(cutDone, "the cut at the session lookup");
      assert.equal(res.status, 302);
      const to = new URL(res.headers.get("location")!);
      assert.equal(to.origin + to.pathname, REDIRECT);
      assert.equal(to.searchParams.get("error"), "temporarily_unavailable");
      assert.equal(to.searchParams.get("state"), "keep-me");
      assert.equal(to.searchParams.get("iss"), "http://localhost:8000");
      assert.equal(to.searchParams.get("code"), null);
      // and the next attempt, once the database is back, works
      await w.proxy.restore();
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
      // The caller query passes; the projects query (sent on a fresh connection, with its text) is cut. Its own
      // text, not "from projects p": the list's count query runs beside it, and one left queued by the first cut
      // is sent later — a needle it matches would fire the second cut under the next request's caller query.
      const LIST_ROWS = "order by p.created_at desc, p.id";
      const cut = w.proxy.cutWhenSent(LIST_ROWS);
      const res = await postMcp(app, f.keys.owner, {
        jsonrpc: "2.0",
        id: 42,
        method: "tools/call",
        params: { name: "list_projects", arguments: {} },
      });
      await settles(cut, "the cut");
      await assertMcpUnavailable(res, 42, "tools/call cut mid-request");
      // a batch (protocol 2025-03-26) keeps the answers of its other messages, under HTTP 503
      await freshConnections(w);
      const cut2 = w.proxy.cutWhenSent(LIST_ROWS);
      const batch = await postMcp(app, f.keys.owner, [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_projects", arguments: {} } },
      ], { "mcp-protocol-version": "2025-03-26" });
      await settles(cut2, "the cut");
      assert.equal(batch.status, 503);
      assert.equal(batch.headers.get("retry-after"), "5");
      assert.deepEqual(await batch.json(), [
        { jsonrpc: "2.0", id: 1, result: {} },
        { jsonrpc: "2.0", id: 2, error: UNAVAILABLE_RPC },
      ]);
      await w.proxy.restore();
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
      await settles(cut, "the cut");
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
      await settles(cut, "the cut");
      await assertMcpUnavailable(res, 2, "task cut");
      assert.deepEqual(await snapshot(), before, "the task transaction left nothing behind");

      // Retried after the outage, both succeed with the numbers the failed attempts had taken: no gaps.
      await w.proxy.restore();
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
      // The cut must come once a few tasks exist and while the others are mid-transaction — on a loaded host as
      // on an idle one. So, in this test database only, the fourth task's insert (its number already taken,
      // the project row locked) waits for a lock the test holds, and every later creation waits behind it.
      await db.sql.unsafe(`
        create function hold_fourth_task() returns trigger language plpgsql as $$ begin
          if (select count(*) from tasks where project_id = new.project_id) >= 3 then
            perform pg_advisory_xact_lock_shared(4343);
          end if;
          return new;
        end $$;
        create trigger hold_fourth_task before insert on tasks for each row execute function hold_fourth_task();`);
      let letGo = () => {};
      const locked = Promise.withResolvers<void>();
      const holder = db.sql.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(4343)`;
        locked.resolve();
        await new Promise<void>((r) => letGo = r);
      });
      holder.catch(() => {}); // should the test fail first, closing the database ends it
      await locked.promise;
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
      // Cut once some transactions have run (three tasks exist) and the fourth is held mid-transaction.
      await waitingOnLock(
        db.sql,
        "the fourth task's insert waits, mid-transaction",
        1,
        "%insert into tasks%",
      );
      const [{ n }] = await db.sql`select count(*)::int as n from tasks`;
      assert.equal(n, 3);
      await settles(w.proxy.cut(), "postgres.js closes the cut connections");
      const answers = await settles(Promise.all(calls), "every creation answered");
      // the held backend lost its client: once let go it finds the connection gone and rolls back
      letGo();
      await holder;

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
    let letGo = () => {};
    let holder: Promise<unknown> | undefined;
    try {
      const f = await buildFixture(db.sql);
      // Slow requests, in this test database only: inserting a project named "Slow …" waits for a lock the test
      // holds, so those requests are in flight when the signal comes, however slow or fast the host is.
      await db.sql.unsafe(`
        create function slow_insert() returns trigger language plpgsql as
          $$ begin perform pg_advisory_xact_lock_shared(4444); return new; end $$;
        create trigger slow_insert before insert on projects for each row
          when (new.name like 'Slow %') execute function slow_insert();`);
      const locked = Promise.withResolvers<void>();
      holder = db.sql.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(4444)`;
        locked.resolve();
        await new Promise<void>((r) => letGo = r);
      });
      holder.catch(() => {}); // should the test fail first, closing the database ends it
      await locked.promise;
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
          // the slow creations wait for the test, not for a statement deadline
          STATEMENT_TIMEOUT_MS: "0",
        },
        stdout: "null",
        stderr: "piped",
      }).spawn();
      let exited = false;
      child.status.then(() => exited = true);
      const base = `http://127.0.0.1:${port}`;
      await eventually("the server answers /healthz 200", async () => {
        if (exited) throw new Error("the server exited at start-up");
        try {
          const r = await fetch(`${base}/healthz`);
          await r.body?.cancel();
          return r.status === 200;
        } catch {
          return false; // not listening yet
        }
      }, 100);

      // 50 requests: 6 slow creations, and tools/list, list_projects and /healthz around them. The 6 hold 6 of the
      // pool's 10 connections until the test lets go; the others are answered meanwhile (the /healthz ones once
      // the tool calls are: /healthz gives the pool 1 s, and 40 calls on 4 connections may take that long on a
      // loaded host — pool_busy would be the right answer then, not the one this test is about).
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
      const health = (i: number) =>
        fetch(`${base}/healthz`).then(async (r) => ({
          what: `healthz ${i}`,
          status: r.status,
          body: await r.json(),
        }));
      const answered = settleCounter();
      const slow = Array.from({ length: SLOW }, (_, i) =>
        mcp(i, "tools/call", {
          name: "create_project",
          // distinct task prefixes: equal ones would queue on the unique index
          arguments: { name: `Slow ${i}`, taskPrefix: `SD${i}` },
        }));
      const calls = Array.from({ length: N - SLOW }, (_, j) => j + SLOW).filter((i) => i % 3 !== 2).map((i) =>
        answered.track(
          i % 3 === 0
            ? mcp(i, "tools/list", {})
            : mcp(i, "tools/call", { name: "list_projects", arguments: {} }),
        )
      );
      await waitingOnLock(db.sql, "the slow creations wait in Postgres", SLOW, "%insert into projects%");
      await answered.atLeast(calls.length, "the tool calls around the slow creations answered");
      const healthz = Array.from({ length: N - SLOW }, (_, j) => j + SLOW).filter((i) => i % 3 === 2).map(
        health,
      );
      const fast = [...calls, ...await settles(Promise.all(healthz), "the /healthz requests answered")];
      const [{ done }] = await db.sql`select count(*)::int as done from projects where name like 'Slow %'`;
      assert.equal(done, 0, "the slow creations were in flight when the signal came");
      child.kill("SIGTERM");
      // the server stops accepting (its graceful shutdown has begun); only then are the slow ones let go
      await eventually("the server stops listening", async () => {
        try {
          (await Deno.connect({ hostname: "127.0.0.1", port })).close();
          return false;
        } catch {
          return true;
        }
      });
      letGo();

      const answers = [
        ...await settles(Promise.all(slow), "the slow creations answered"),
        ...await Promise.all(fast),
      ];
      assert.equal(answers.length, N);
      for (const a of answers) {
        assert.equal(a.status, 200, `${a.what}: ${JSON.stringify(a.body)}`);
        if (a.what.startsWith("healthz")) assert.deepEqual(a.body, { status: "ok" });
        else assert.equal(a.body.result.isError, undefined, `${a.what}: ${JSON.stringify(a.body)}`);
      }
      const status = await settles(child.status, "the process exits");
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
      letGo();
      await holder?.catch(() => {});
      await db.close();
    }
  },
});
