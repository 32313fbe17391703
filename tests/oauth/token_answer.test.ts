// The token endpoint's answer (routes/oauth_api.ts): a success is built complete — its own headers, CORS, the
// security headers and X-Request-Id in one Response that no middleware reopens — and every other answer of the
// open paths still gets `Access-Control-Allow-Origin: *` (a refusal, a GET; the preflight: discovery.test.ts).
import assert from "node:assert/strict";
import { unreachableDb } from "../helpers/db.ts";
import { builtComplete } from "../../lib/http/middleware.ts";
import { testApp } from "../helpers/app.ts";
import { expectError, refreshWith, registerPublic, setup, startGrant } from "./helpers.ts";

const headerNames = (res: Response) => [...res.headers.keys()].sort();

Deno.test("token answer: a success is the handler's own Response, every header on it; refusals and GETs keep CORS", async () => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app);
    const { first } = await startGrant(ctx, client);

    const res = await refreshWith(ctx.app, client, first.refresh_token);
    assert.equal(res.status, 200);
    // Without the complete answer, Hono wraps the handler's Response in another to copy CORS onto it.
    assert.equal(builtComplete(res), true);
    assert.deepEqual(headerNames(res), [
      "access-control-allow-origin",
      "cache-control",
      "content-security-policy",
      "content-type",
      "cross-origin-opener-policy",
      "pragma",
      "referrer-policy",
      "x-content-type-options",
      "x-frame-options",
      "x-request-id",
    ]);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("pragma"), "no-cache");
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.match(res.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      "access_token",
      "expires_in",
      "id_token",
      "refresh_token",
      "scope",
      "token_type",
    ]);
    assert.equal(body.token_type, "Bearer");

    // An incoming request id is echoed on the complete answer too.
    const echoed = await ctx.app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": "req-1234abcd" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: body.refresh_token,
        client_id: client.client_id,
      }).toString(),
    });
    assert.equal(echoed.status, 200);
    assert.equal(echoed.headers.get("x-request-id"), "req-1234abcd");
    await echoed.body?.cancel();

    // A refusal (the token already rotated, past its window: here, a token that never was) keeps every header.
    const refused = await refreshWith(ctx.app, client, "prt_not-a-token");
    assert.equal(builtComplete(refused), false);
    assert.equal(refused.headers.get("access-control-allow-origin"), "*");
    assert.equal(refused.headers.get("pragma"), "no-cache");
    assert.equal(refused.headers.get("content-type"), "application/json");
    assert.match(refused.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
    await expectError(refused, 400, "invalid_grant");

    const jwks = await ctx.app.request("/oauth/jwks");
    assert.equal(jwks.status, 200);
    assert.equal(jwks.headers.get("access-control-allow-origin"), "*");
    await jwks.body?.cancel();
  } finally {
    await ctx.close();
  }
});

Deno.test("token answer: in a database outage the 503 still carries CORS and no-store", async () => {
  const sql = unreachableDb();
  try {
    const res = await testApp(sql).request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&client_id=pcl_unknown&refresh_token=prt_unknown",
    });
    const body = await res.json();
    assert.equal(res.status, 503, JSON.stringify(body));
    assert.equal(body.error, "temporarily_unavailable");
    // Answered by the app's error handler (past the route's), within the CORS middleware's next().
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("cache-control"), "no-store");
  } finally {
    await sql.end({ timeout: 1 });
  }
});
