// "A revoked key stops working on the next request", across two instances on one database (issue 17.5): the
// /mcp fast path keeps no key cache, so instance B refuses a key on the first request after A revoked it, even
// though B accepted it a moment before and its rate limiter still remembers it.
import assert from "node:assert/strict";
import { createDb } from "../../lib/db/client.ts";
import { RPC } from "../../lib/mcp/errors.ts";
import { testApp } from "../helpers/app.ts";
import { freshDatabase, TEST_CONNECT_TIMEOUT_S, TEST_STATEMENT_TIMEOUT_MS } from "../helpers/db.ts";
import { buildFixture, callOk, rpc } from "../helpers/mcp.ts";
import { Browser, field, signInOnPage } from "../oauth/helpers.ts";

const KEY = /pak_[A-Za-z0-9_-]{43}/g;

Deno.test("an API key revoked on instance A is refused by instance B on its next request", async () => {
  const db = await freshDatabase();
  // Two instances: their own pools, rate limiters, key stores and registries' views; one database.
  const sqlA = createDb(db.url, {
    max: 2,
    connectTimeout: TEST_CONNECT_TIMEOUT_S,
    statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
  });
  const sqlB = createDb(db.url, {
    max: 2,
    connectTimeout: TEST_CONNECT_TIMEOUT_S,
    statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
  });
  try {
    const f = await buildFixture(db.sql);
    const A = testApp(sqlA);
    const B = testApp(sqlB);
    const [{ email }] = await db.sql<
      { email: string }[]
    >`select email from users where id = ${f.users.manager}`;

    // Signed in on A, the manager makes a key there.
    const browser = new Browser(A);
    const first = await browser.get("/account/keys");
    const signin = await browser.get(
      new URL(first.headers.get("location")!, "http://localhost:8000").pathname +
        new URL(first.headers.get("location")!, "http://localhost:8000").search,
    );
    assert.equal((await signInOnPage(browser, signin, email, "test password 123")).status, 303);
    let html = await (await browser.get("/account/keys")).text();
    const made = await browser.post("/account/keys", {
      csrf: field(html, "csrf")!,
      workspace_id: f.workspaceId,
      name: "two instances",
      company_id: "",
    });
    assert.equal(made.status, 303);
    html = await (await browser.get("/account/keys")).text();
    const value = html.match(KEY)![0];
    const [{ id }] = await db.sql<{ id: string }[]>`select id from api_keys where key_prefix = ${
      value.slice(0, 10)
    }`;

    // Both instances accept it, several times (B's rate limiter now knows the credential).
    for (let i = 0; i < 3; i++) {
      assert.ok(Array.isArray(await callOk(A, value, "list_projects")));
      assert.ok(Array.isArray(await callOk(B, value, "list_projects")));
    }

    html = await (await browser.get("/account/keys")).text();
    const revoked = await browser.post("/account/keys/revoke", { csrf: field(html, "csrf")!, key_id: id });
    assert.equal(revoked.status, 303);
    assert.equal(revoked.headers.get("location"), "/account/keys?revoked=1");

    // The very next request on B, a tools/call, is refused; so is a ping, and the next request on A.
    const refusedB = await rpc(B, value, "tools/call", { name: "list_projects", arguments: {} });
    assert.equal(refusedB.status, 403);
    assert.deepEqual(refusedB.body, {
      jsonrpc: "2.0",
      id: null,
      error: { code: RPC.UNAUTHORIZED, message: "API key revoked" },
    });
    assert.equal((await rpc(B, value, "ping")).status, 403);
    assert.equal((await rpc(A, value, "ping")).status, 403);
  } finally {
    await sqlA.end({ timeout: 5 });
    await sqlB.end({ timeout: 5 });
    await db.close();
  }
});
