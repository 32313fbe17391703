// Builds an app instance for HTTP tests through app.request(), with its own config and a silent logger.
import { parseConfig } from "../../lib/config.ts";
import type { Sql } from "../../lib/db/client.ts";
import { silentLogger } from "../../lib/log.ts";
import { createApp } from "../../routes/mod.ts";

export const TEST_SECRET = "test-secret-key-0123456789abcdef0123456789";

export function testApp(sql: Sql, env: Record<string, string> = {}) {
  const config = parseConfig({ ISSUER: "http://localhost:8000", SECRET_KEY: TEST_SECRET, ...env });
  return createApp({ config, sql, log: silentLogger, secretKey: TEST_SECRET });
}
