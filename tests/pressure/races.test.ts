// Races through real HTTP: 20–30 concurrent requests on one served instance with a 40-connection pool.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { sha256Hex } from "../../lib/crypto.ts";
import { createDb } from "../../lib/db/client.ts";
import { testApp } from "../helpers/app.ts";
import { DATABASE_URL, TEST_CONNECT_TIMEOUT_S, TEST_STATEMENT_TIMEOUT_MS } from "../helpers/db.ts";
import { buildFixture, callOk, callTool, type ToolCall } from "../helpers/mcp.ts";
import { familyState, tokenStanding } from "../helpers/refresh_family.ts";
import { asApp, type HttpTarget, serveApp, type ServedApp } from "../helpers/serve.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  type Registered,
  registerPublic,
  setup,
  token,
} from "../oauth/helpers.ts";

// Postgres only: embedded PGlite serialises everything on its one connection, so nothing would race there.
const ignore = !DATABASE_URL;
const PARALLEL = 30;
const POOL = 40;

function times<T>(n: number, f: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => f(i)));
}

/**
 * `n` requests at once; asserts the server really had many of them in flight together. They are held at the
 * server's door until all have arrived (or every other call has ended without a request), then let in together:
 * sent "at once" alone, a loaded host may have served the first before the last arrived.
 */
async function burst<T>(http: ServedApp, n: number, f: (i: number) => Promise<T>): Promise<T[]> {
  http.takePeak();
  let settled = 0;
  const door = http.gate((held) => held + settled >= n);
  const out = await times(n, (i) =>
    f(i).finally(() => {
      settled++;
      door.recheck();
    }));
  const peak = http.takePeak();
  assert.ok(peak >= n / 2, `only ${peak} of ${n} requests were in flight together`);
  return out;
}

/** Exactly one 200; every other answer 400 invalid_grant; all no-store. Returns the winner's token response. */
// deno-lint-ignore no-explicit-any
async function oneWinner(responses: Response[]): Promise<any> {
  const statuses = responses.map((r) => r.status);
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses}`);
  for (const [i, res] of responses.entries()) {
    assert.equal(res.headers.get("cache-control"), "no-store");
    if (res.status === 200) continue;
    assert.equal(res.status, 400, JSON.stringify(bodies[i]));
    assert.equal(bodies[i].error, "invalid_grant", JSON.stringify(bodies[i]));
  }
  return bodies[statuses.indexOf(200)];
}

async function userinfo(http: HttpTarget, accessToken: string): Promise<{ status: number; error?: string }> {
  const res = await http.request("/oauth/userinfo", { headers: { authorization: `Bearer ${accessToken}` } });
  const body = await res.json();
  if (res.status === 401) assert.match(res.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  return { status: res.status, error: body.error };
}

Deno.test({
  name:
    `races: ${PARALLEL} concurrent HTTP requests on one instance (codes, refresh, numbering, tranche, queue)`,
  ignore,
  async fn(t) {
    const ctx = await setup();
    const pool = createDb(ctx.db.url, {
      max: POOL,
      connectTimeout: TEST_CONNECT_TIMEOUT_S,
      statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
    });
    // The codes step makes 90 refused token requests from this one address on purpose (replays), and each burst
    // holds 30 at once: the default refusal budget (120 a minute per address, taken while a request is in flight)
    // would answer the last of a burst with 429 whenever the burst's requests overlap enough. The budget has its
    // own tests (tests/oauth/token_failure_limit.test.ts); here it is out of the way.
    const http = serveApp(testApp(pool, { TOKEN_FAILURE_RATE_LIMIT: "10000/60" }));
    const app = asApp(http);
    const hctx: Ctx = { ...ctx, app };
    const sql = ctx.db.sql;
    try {
      const client: Registered = await registerPublic(app);

      await t.step(
        "one code, 30 simultaneous exchanges: one token response, 29 invalid_grant, grant revoked",
        async () => {
          for (let round = 0; round < 3; round++) {
            const { code, verifier } = await getCode(hctx, new Browser(app), client);
            const won = await oneWinner(
              await burst(http, PARALLEL, () => exchange(hctx, client, code, verifier)),
            );
            // docs/oauth.md: the code is consumed by its first presentation; each later one is a replay and
            // revokes what the code produced — the winner's grant, its refresh token and its access token.
            const grants = await sql<{ id: string; revoked: boolean }[]>`
            select id, revoked_at is not null as revoked from oauth_grants where code_hash = ${
              sha256Hex(code)
            }`;
            assert.equal(grants.length, 1, "one grant per code");
            assert.deepEqual(await familyState(sql, grants[0].id), {
              revoked: true,
              generation: 1,
              current: [sha256Hex(won.refresh_token)],
              rotated: null,
            });
            assert.deepEqual(await userinfo(http, won.access_token), { status: 401, error: "invalid_token" });
            const refresh = await token(app, {
              grant_type: "refresh_token",
              refresh_token: won.refresh_token,
              client_id: client.client_id,
            });
            assert.equal(refresh.status, 400);
            assert.equal((await refresh.json()).error, "invalid_grant");
          }
        },
      );

      await t.step(
        "one refresh token, 30 simultaneous rotations: 30 successors (grace window), one branch survives its first use",
        async () => {
          for (let round = 0; round < 3; round++) {
            const { code, verifier } = await getCode(hctx, new Browser(app), client);
            const first = await (await exchange(hctx, client, code, verifier)).json();
            const grantId = decodeJwt(first.access_token).grant_id as string;
            const responses = await burst(http, PARALLEL, () =>
              token(app, {
                grant_type: "refresh_token",
                refresh_token: first.refresh_token,
                client_id: client.client_id,
              }));
            // docs/oauth.md "Refresh retries and parallel refreshes": within the grace window every presentation
            // by the same client gets a successor of its own (one rotation, 29 siblings); nothing is revoked.
            const bodies = await Promise.all(responses.map((r) => r.json()));
            assert.deepEqual(responses.map((r) => r.status), Array(PARALLEL).fill(200));
            for (const r of responses) assert.equal(r.headers.get("cache-control"), "no-store");
            const successors = new Set(bodies.map((b) => sha256Hex(b.refresh_token)));
            assert.equal(successors.size, PARALLEL);
            assert.deepEqual(await familyState(sql, grantId), {
              revoked: false,
              generation: 2,
              current: [...successors].sort(),
              rotated: sha256Hex(first.refresh_token),
            });
            // The first successor used wins; its 29 siblings are revoked, and presenting one of them afterwards
            // is reuse: the whole family ends.
            const [won, lost] = [bodies[round], bodies[(round + 1) % PARALLEL]];
            const next = await token(app, {
              grant_type: "refresh_token",
              refresh_token: won.refresh_token,
              client_id: client.client_id,
            });
            assert.equal(next.status, 200);
            await next.body?.cancel();
            // One current token (the winner's successor); the winner rotated; its 29 siblings superseded.
            const after = await familyState(sql, grantId);
            assert.equal(after.current.length, 1);
            assert.equal(after.rotated, sha256Hex(won.refresh_token));
            assert.equal(after.current.some((h) => successors.has(h)), false);
            const others = bodies.filter((b) => b !== won);
            assert.deepEqual(
              await Promise.all(others.map((b) => tokenStanding(sql, b.refresh_token))),
              Array(PARALLEL - 1).fill({ standing: "superseded", familyRevoked: false }),
            );
            const stale = await token(app, {
              grant_type: "refresh_token",
              refresh_token: lost.refresh_token,
              client_id: client.client_id,
            });
            assert.equal(stale.status, 400);
            assert.equal((await stale.json()).error, "invalid_grant");
            assert.equal((await familyState(sql, grantId)).revoked, true);
            assert.deepEqual(await userinfo(http, won.access_token), { status: 401, error: "invalid_token" });
          }
        },
      );

      const f = await buildFixture(sql);
      const owner = f.keys.owner;

      await t.step(
        "30 concurrent create_invoice: numbers 2040-0001 … 2040-0030, unique and gapless",
        async () => {
          const made = await burst(http, PARALLEL, (i) =>
            callOk(http, owner, "create_invoice", {
              invoiceDate: "2040-03-01",
              rows: [{ description: `race ${i}`, unitPrice: i + 1 }],
            }));
          const expected = Array.from(
            { length: PARALLEL },
            (_, i) => `2040-${String(i + 1).padStart(4, "0")}`,
          );
          assert.deepEqual(
            made.map((inv) => inv.number).sort(),
            expected,
          );
          const stored = await sql<{ number: string }[]>`
          select number from invoices where workspace_id = ${f.workspaceId} and year = 2040 order by number`;
          assert.deepEqual(stored.map((r) => r.number), expected);
          const [counter] = await sql<{ last: number }[]>`
          select last from invoice_counters where workspace_id = ${f.workspaceId} and year = 2040`;
          assert.equal(counter.last, PARALLEL);
        },
      );

      await t.step(
        "30 concurrent generate_invoice_from_offer_tranche on one tranche: one invoice, 29 conflict",
        async () => {
          const c = await callOk(http, owner, "create_client", { companyName: "Race Client" });
          const offer = await callOk(http, owner, "create_offer", {
            subject: "Race",
            clientId: c.id,
            rows: [{ description: "Build", quantity: 10, unitPrice: "100" }],
            tranches: [{ label: "Deposit", percentage: 30 }, { percentage: 70 }],
          });
          const tranche = offer.tranches[0];
          const calls: ToolCall[] = await burst(
            http,
            PARALLEL,
            () =>
              callTool(http, owner, "generate_invoice_from_offer_tranche", {
                offerId: offer.id,
                trancheId: tranche.id,
                invoiceDate: "2041-01-15",
              }),
          );
          const ok = calls.filter((r) => !r.isError);
          assert.equal(
            ok.length,
            1,
            calls.filter((r) => r.isError).map((r) => r.text).slice(0, 3).join(" | "),
          );
          assert.equal(ok[0].data.invoice.number, "2041-0001");
          assert.equal(ok[0].data.tranche.invoiceId, ok[0].data.invoice.id);
          for (const r of calls.filter((r) => r.isError)) {
            assert.match(r.text, /^conflict: tranche .* is invoiced \(invoice 2041-0001\)/);
          }
          const invoices = await sql<{ id: string; number: string }[]>`
          select id, number from invoices where workspace_id = ${f.workspaceId} and offer_id = ${offer.id}`;
          assert.deepEqual(invoices.map((r) => ({ ...r })), [{
            id: ok[0].data.invoice.id,
            number: "2041-0001",
          }]);
          const [row] = await sql`select status, invoice_id from offer_tranches where id = ${tranche.id}`;
          assert.deepEqual({ ...row }, { status: "invoiced", invoice_id: ok[0].data.invoice.id });
          // the refused calls took no number: the next one of that year is 0002
          const next = await callOk(http, owner, "create_invoice", { invoiceDate: "2041-02-01" });
          assert.equal(next.number, "2041-0002");
        },
      );

      await t.step("30 concurrent create_task in one project: numbers 1 … 30, unique", async () => {
        const p = await callOk(http, owner, "create_project", { name: "Race", taskPrefix: "RACE" });
        const made = await burst(
          http,
          PARALLEL,
          (i) => callOk(http, owner, "create_task", { title: `race ${i}`, projectId: p.id }),
        );
        assert.deepEqual(
          made.map((task) => task.number).sort((a, b) => a - b),
          Array.from({ length: PARALLEL }, (_, i) => i + 1),
        );
        assert.deepEqual(
          made.map((task) => task.displayId).sort(),
          Array.from({ length: PARALLEL }, (_, i) => `RACE-${i + 1}`).sort(),
        );
        const [proj] = await sql<{ next: number; n: number }[]>`
          select next_task_number as next, (select count(*)::int from tasks where project_id = ${p.id}) as n
            from projects where id = ${p.id}`;
        assert.deepEqual({ ...proj }, { next: PARALLEL + 1, n: PARALLEL });
      });

      await t.step(
        "20 concurrent focus moves and placements on one queue: a consistent queue afterwards",
        async () => {
          const user = f.users.member;
          const p = await callOk(http, owner, "create_project", { name: "Queue", taskPrefix: "QUE" });
          const ids: string[] = [];
          for (let i = 0; i < 20; i++) {
            ids.push(
              (await callOk(http, owner, "create_task", {
                title: `queue ${i}`,
                projectId: p.id,
                assigneeIds: [user],
              })).id,
            );
          }
          // Tasks 0–9 are moved to focus while tasks 5–14 are placed: half of the tasks see both at once.
          const calls = await burst(
            http,
            20,
            (i) =>
              i % 2 === 0
                ? callTool(http, owner, "move_task_to_focus", { taskId: ids[i / 2], userId: user })
                : callTool(http, owner, "set_task_queue_position", {
                  taskId: ids[5 + (i - 1) / 2],
                  userId: user,
                  slotIndex: (i * 7) % 20,
                }),
          );
          for (const r of calls) {
            assert.equal(r.isError, false, r.text);
          }
          for (
            const r of calls.filter((r) => r.data.slotIndex !== undefined)
          ) {
            assert.equal(r.data.queueLength, 20, "every placement counted the whole queue");
            assert.ok(r.data.slotIndex >= 0 && r.data.slotIndex < 20);
          }
          const rows = await sql<{ id: string; status: string; sort_order: number; focus: boolean }[]>`
          select t.id, t.status, t.sort_order,
                 exists (select 1 from task_focus f where f.user_id = ${user} and f.task_id = t.id) as focus
            from tasks t join task_assignees a on a.task_id = t.id and a.user_id = ${user}
           where t.workspace_id = ${f.workspaceId} and t.status in ('todo', 'in_progress') and t.start_date is null
           order by t.sort_order, t.created_at, t.id`;
          // The queue (docs/tasks.md): the focus first, then by sortOrder — a permutation of the 20 tasks.
          const queue = [...rows.filter((r) => r.focus), ...rows.filter((r) => !r.focus)].map((r) => r.id);
          assert.equal(queue.length, 20);
          assert.deepEqual([...queue].sort(), [...ids].sort());
          assert.equal(new Set(rows.map((r) => r.sort_order)).size, 20, "no two tasks share a sort order");
          const [{ n }] = await sql<{ n: number }[]>`
          select count(*)::int as n from task_focus where workspace_id = ${f.workspaceId} and user_id = ${user}`;
          assert.ok(n <= 1);
          const inProgress = rows.filter((r) => r.status === "in_progress").map((r) => r.id);
          const focus = rows.filter((r) => r.focus && r.status === "in_progress").map((r) => r.id);
          assert.ok(focus.length <= 1, "at most one focus task");
          assert.deepEqual(
            inProgress,
            focus,
            "every other task went back to todo: only the focus is in progress",
          );
          if (focus.length === 1) assert.equal(queue[0], focus[0]);
        },
      );
    } finally {
      await http.close();
      await pool.end({ timeout: 5 });
      await ctx.close();
    }
  },
});
