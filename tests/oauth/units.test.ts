// Unit rules: redirect URI matching, resource indicators, PKCE, scope resolution for operator clients.
import assert from "node:assert/strict";
import { createClient, getClient, redirectUriAllowed, redirectUriProblem } from "../../lib/oauth/clients.ts";
import { redirectHost } from "../../lib/oauth/consent.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";
import { s256, verifierMatches } from "../../lib/oauth/pkce.ts";
import { parseResource } from "../../lib/oauth/resource.ts";
import { needsApproval, resolveScopes } from "../../lib/oauth/scopes.ts";
import { safeReturnPath } from "../../lib/oauth/sessions.ts";
import { setup } from "./helpers.ts";

Deno.test("redirect URIs: exact match, loopback port excepted", () => {
  const reg = [
    "http://127.0.0.1:8976/callback",
    "https://app.example.com/cb",
    "http://[::1]/cb",
    "com.example.app:/oauth",
  ];
  assert.equal(redirectUriAllowed(reg, "http://127.0.0.1:8976/callback"), true);
  assert.equal(redirectUriAllowed(reg, "http://127.0.0.1:1234/callback"), true);
  assert.equal(redirectUriAllowed(reg, "http://127.0.0.1/callback"), true);
  assert.equal(redirectUriAllowed(reg, "http://[::1]:9999/cb"), true);
  assert.equal(redirectUriAllowed(reg, "com.example.app:/oauth"), true);
  assert.equal(redirectUriAllowed(reg, "http://127.0.0.1:1234/other"), false);
  assert.equal(redirectUriAllowed(reg, "http://localhost:8976/callback"), false, "host must match");
  assert.equal(redirectUriAllowed(reg, "https://app.example.com:444/cb"), false, "only loopback ports vary");
  assert.equal(redirectUriAllowed(reg, "https://app.example.com/cb?x=1"), false);
  assert.equal(redirectUriAllowed(reg, "https://app.example.com/cb/"), false);
  assert.equal(redirectUriAllowed(reg, "http://127.0.0.1:1234/callback#x"), false);
  assert.equal(redirectUriProblem("https://app.example.com/cb"), null);
  assert.match(redirectUriProblem("http://app.example.com/cb")!, /loopback/);
  assert.match(redirectUriProblem("https://app.example.com/cb#f")!, /fragment/);
});

Deno.test("resource indicators: absolute https (or loopback/issuer http), one value, no fragment", () => {
  const issuer = "http://localhost:8000";
  assert.equal(parseResource([], issuer), undefined);
  assert.equal(parseResource(["https://mcp.example.com/mcp"], issuer), "https://mcp.example.com/mcp");
  assert.equal(parseResource(["http://localhost:8000/mcp"], issuer), "http://localhost:8000/mcp");
  assert.equal(parseResource(["http://127.0.0.1:3000/mcp"], issuer), "http://127.0.0.1:3000/mcp");
  for (const bad of [["relative/path"], ["https://a.example/#x"], ["http://rs.example/"], ["a", "b"]]) {
    assert.throws(
      () => parseResource(bad, issuer),
      (e: unknown) => e instanceof OAuthError && e.error === "invalid_target",
    );
  }
});

Deno.test("PKCE S256", () => {
  // RFC 7636 appendix B
  assert.equal(
    s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
  assert.equal(
    verifierMatches(
      "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    ),
    true,
  );
  assert.equal(verifierMatches("short", s256("short")), false, "verifier shorter than 43 characters");
});

Deno.test("return_to stays on this site", () => {
  assert.equal(safeReturnPath("/account/keys?x=1"), "/account/keys?x=1");
  for (const bad of ["//evil.example", "https://evil.example", "/\\evil.example", "account", "", "/a\nb"]) {
    assert.equal(safeReturnPath(bad), null, bad);
  }
});

Deno.test("scopes: workspace only for operator clients; agent.chat registered narrowly", async () => {
  const ctx = await setup();
  try {
    const op = await createClient(ctx.db.sql, {
      name: "Operator app",
      redirectUris: ["https://ops.example.com/cb"],
      confidential: true,
      scopes: ["openid", "workspace"],
      grantTypes: ["authorization_code"],
      selfRegistered: false,
    });
    const opClient = (await getClient(ctx.db.sql, op.clientId))!;
    assert.deepEqual(await resolveScopes(ctx.db.sql, opClient, "openid workspace"), ["openid", "workspace"]);
    // profile was not registered: dropped
    assert.deepEqual(await resolveScopes(ctx.db.sql, opClient, "openid profile offline_access"), ["openid"]);
    // agent.chat: registered none → any existing agent
    assert.deepEqual(await resolveScopes(ctx.db.sql, opClient, `agent.chat:${ctx.agentId}`), [
      `agent.chat:${ctx.agentId}`,
    ]);
    const narrow = await createClient(ctx.db.sql, {
      name: "One agent",
      redirectUris: ["https://one.example.com/cb"],
      confidential: false,
      scopes: ["openid", "agent.chat:00000000-0000-4000-8000-000000000001"],
      grantTypes: ["authorization_code"],
      selfRegistered: true,
    });
    const narrowClient = (await getClient(ctx.db.sql, narrow.clientId))!;
    assert.deepEqual(await resolveScopes(ctx.db.sql, narrowClient, `openid agent.chat:${ctx.agentId}`), [
      "openid",
    ]);
    // A self-registered client keeps `workspace` here: the flow's approval step gates it (needsApproval).
    assert.deepEqual(await resolveScopes(ctx.db.sql, narrowClient, "workspace"), ["workspace"]);
    assert.equal(needsApproval(narrowClient, ["workspace"]), true);
    assert.equal(needsApproval({ ...narrowClient, trusted: true }, ["workspace"]), false);
    assert.equal(needsApproval(narrowClient, ["openid"]), false);
    assert.equal(
      needsApproval(opClient, ["workspace"]),
      false,
      "operator clients are refused, not asked about",
    );
    assert.deepEqual(
      await resolveScopes(ctx.db.sql, narrowClient, undefined),
      ["openid"],
      "default openid profile",
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("rate counters: a burst straddling a window boundary still counts (sliding estimate)", async () => {
  const { hit, peek } = await import("../../lib/rate_limit/mod.ts");
  const ctx = await setup();
  try {
    const w = 600;
    // five attempts in the previous window
    await ctx.db.sql`
      insert into rate_limits (bucket, window_start, count)
      values ('t:burst', to_timestamp((floor(extract(epoch from now()) / ${w}) - 1) * ${w}), 5)`;
    const [{ f }] = await ctx.db.sql<{ f: number }[]>`
      select (extract(epoch from now()) - floor(extract(epoch from now()) / ${w}) * ${w}) / ${w} as f`;
    const weighted = Math.ceil(5 * (1 - f));
    const seen = (await peek(ctx.db.sql, ["t:burst", "t:none"], w)).get("t:burst")!;
    assert.ok(seen >= weighted - 1 && seen <= 5, `${seen} vs ${weighted}`);
    assert.equal((await peek(ctx.db.sql, ["t:none"], w)).get("t:none"), 0);
    const after = await hit(ctx.db.sql, "t:burst", w);
    assert.ok(after.count >= 2 && after.count <= 6, String(after.count));
    assert.ok(after.retryAfter >= 1 && after.retryAfter <= w);
    // windows older than the previous one are ignored
    await ctx.db.sql`
      insert into rate_limits (bucket, window_start, count)
      values ('t:old', to_timestamp((floor(extract(epoch from now()) / ${w}) - 2) * ${w}), 50)`;
    assert.equal((await peek(ctx.db.sql, ["t:old"], w)).get("t:old"), 0);
  } finally {
    await ctx.close();
  }
});

Deno.test("redirectHost: the host for http(s), the scheme with its authority for a private-use URI", () => {
  assert.equal(redirectHost("https://claude.ai/api/mcp/auth_callback"), "claude.ai");
  assert.equal(redirectHost("http://127.0.0.1:33418/"), "127.0.0.1:33418");
  assert.equal(redirectHost("cursor://anysphere.cursor-mcp/oauth/callback"), "cursor://anysphere.cursor-mcp");
  assert.equal(redirectHost("com.example.app:/callback"), "com.example.app");
  assert.equal(redirectHost("not a uri"), "not a uri");
});
