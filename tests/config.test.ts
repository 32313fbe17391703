import assert from "node:assert/strict";
import { ConfigError, loadConfig, parseConfig } from "../lib/config.ts";

Deno.test("config: defaults for a laptop", () => {
  const c = parseConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.host, "127.0.0.1");
  assert.equal(c.issuer, "http://localhost:8000");
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.dataDir, "./.data");
  assert.equal(c.mcpVariant, "A");
  assert.deepEqual(c.registrationRateLimit, { max: 20, windowSeconds: 3600 });
  assert.deepEqual(c.trustedProxies, []);
  assert.equal(c.logLevel, "info");
});

Deno.test("config: values are parsed and the issuer loses its trailing slash", () => {
  const c = parseConfig({
    PORT: "9000",
    ISSUER: "https://auth.example.com/",
    MCP_VARIANT: "B",
    REGISTRATION_RATE_LIMIT: "5/60",
    TRUSTED_PROXIES: "10.0.0.1, 10.0.0.2",
    DATABASE_URL: "postgres://u@db/portico",
    SECRET_KEY: "x".repeat(32),
    LOG_LEVEL: "warn",
  });
  assert.equal(c.port, 9000);
  assert.equal(c.issuer, "https://auth.example.com");
  assert.equal(c.mcpVariant, "B");
  assert.deepEqual(c.registrationRateLimit, { max: 5, windowSeconds: 60 });
  assert.deepEqual(c.trustedProxies, ["10.0.0.1", "10.0.0.2"]);
  assert.equal(c.logLevel, "warn");
});

Deno.test("config: the default issuer follows PORT; empty strings count as unset", () => {
  assert.equal(parseConfig({ PORT: "8123", ISSUER: "" }).issuer, "http://localhost:8123");
});

const bad: Array<[Record<string, string>, string]> = [
  [{ PORT: "eighty" }, "config error: PORT must be a number"],
  [{ PORT: "70000" }, "config error: PORT must be between 0 and 65535"],
  [{ MCP_VARIANT: "C" }, "config error: MCP_VARIANT must be A or B"],
  [{ LOG_LEVEL: "loud" }, "config error: LOG_LEVEL must be debug, info, warn or error"],
  [{ ISSUER: "auth.example.com" }, "config error: ISSUER must be an absolute http(s) URL"],
  [{ ISSUER: "https://a.example/?x=1" }, "config error: ISSUER must not carry a query or fragment"],
  [{ DATABASE_URL: "mysql://x" }, "config error: DATABASE_URL must start with postgres://"],
  [{ SECRET_KEY: "short" }, "config error: SECRET_KEY must be at least 32 characters"],
  [
    { REGISTRATION_RATE_LIMIT: "20 per hour" },
    "config error: REGISTRATION_RATE_LIMIT must look like MAX/SECONDS, e.g. 20/3600",
  ],
  [
    { REGISTRATION_RATE_LIMIT: "0/60" },
    "config error: REGISTRATION_RATE_LIMIT MAX and SECONDS must both be at least 1",
  ],
  [
    { DATABASE_URL: "postgres://u@db/portico" },
    "config error: SECRET_KEY is required when DATABASE_URL is set (at least 32 random characters)",
  ],
];

for (const [env, message] of bad) {
  Deno.test(`config: refuses ${JSON.stringify(env)}`, () => {
    assert.throws(() => parseConfig(env), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.message, message);
      return true;
    });
  });
}

Deno.test("config: /mcp rate limits default to 600/60 per credential and 60/60 per address; 0 turns one off", () => {
  const d = parseConfig({});
  assert.deepEqual(d.mcpRateLimit, { max: 600, windowSeconds: 60 });
  assert.deepEqual(d.mcpUnauthRateLimit, { max: 60, windowSeconds: 60 });
  const c = parseConfig({ MCP_RATE_LIMIT: "1200/60", MCP_UNAUTH_RATE_LIMIT: "0" });
  assert.deepEqual(c.mcpRateLimit, { max: 1200, windowSeconds: 60 });
  assert.equal(c.mcpUnauthRateLimit, null);
  assert.equal(parseConfig({ MCP_RATE_LIMIT: "0" }).mcpRateLimit, null);
});

const badMcpLimits: Array<[Record<string, string>, string]> = [
  [
    { MCP_RATE_LIMIT: "600 per minute" },
    "config error: MCP_RATE_LIMIT must look like MAX/SECONDS, e.g. 600/60, or 0 for no limit",
  ],
  [
    { MCP_RATE_LIMIT: "off" },
    "config error: MCP_RATE_LIMIT must look like MAX/SECONDS, e.g. 600/60, or 0 for no limit",
  ],
  [
    { MCP_UNAUTH_RATE_LIMIT: "-1" },
    "config error: MCP_UNAUTH_RATE_LIMIT must look like MAX/SECONDS, e.g. 600/60, or 0 for no limit",
  ],
  [
    { MCP_RATE_LIMIT: "0/60" },
    "config error: MCP_RATE_LIMIT MAX and SECONDS must both be at least 1 (0 alone turns the limit off)",
  ],
  [
    { MCP_UNAUTH_RATE_LIMIT: "60/0" },
    "config error: MCP_UNAUTH_RATE_LIMIT MAX and SECONDS must both be at least 1 (0 alone turns the limit off)",
  ],
];

for (const [env, message] of badMcpLimits) {
  Deno.test(`config: refuses ${JSON.stringify(env)}`, () => {
    assert.throws(() => parseConfig(env), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.message, message);
      return true;
    });
  });
}

Deno.test("loadConfig reads exactly the schema's variables: a set environment variable reaches the config", () => {
  const set = { SWEEP_INTERVAL_SECONDS: "1234", SECRET_KEY: "s".repeat(40) };
  const before = Object.fromEntries(Object.keys(set).map((k) => [k, Deno.env.get(k)]));
  for (const [k, v] of Object.entries(set)) Deno.env.set(k, v);
  try {
    assert.equal(loadConfig().sweepIntervalSeconds, 1234);
  } finally {
    for (const [k, v] of Object.entries(before)) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
  }
});
