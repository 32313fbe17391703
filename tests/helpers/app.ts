// Builds an app instance for HTTP tests through app.request(), with its own config and a silent logger.
import { parseConfig } from "../../lib/config.ts";
import type { ScryptParams } from "../../lib/crypto.ts";
import type { Sql } from "../../lib/db/client.ts";
import { silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";

export const TEST_SECRET = "test-secret-key-0123456789abcdef0123456789";
/**
 * A cheap scrypt cost for tests (1 MiB, ~2 ms) instead of OWASP's N=2^17 (128 MiB, ~0.6-1 s): passed explicitly
 * to createUser and to the app (deps.scrypt), never read from the environment. Tests of the real cost and of
 * rehashing build their app without it.
 */
export const TEST_SCRYPT: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };

/**
 * /mcp rate limits on, but out of the way: suites send thousands of calls with one key, and every app.request()
 * comes from the same (unknown) address. tests/mcp/rate_limit.test.ts tests the limits themselves.
 */
export const TEST_RATE_LIMITS = { MCP_RATE_LIMIT: "1000000/60", MCP_UNAUTH_RATE_LIMIT: "1000000/60" };

export function testApp(sql: Sql, env: Record<string, string> = {}) {
  const config = parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    ...TEST_RATE_LIMITS,
    ...env,
  });
  return createApp({ config, sql, log: silentLogger, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT });
}
