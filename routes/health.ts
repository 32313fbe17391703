// GET /healthz: 200 when the database answers, 503 when it does not or is known to be failing (disk full).
import { Hono } from "hono";
import { ping, type Sql } from "../lib/db/client.ts";
import type { AppEnv } from "../lib/http/types.ts";

export function createHealthRoutes(
  deps: { sql: Sql; databaseProblem?: () => string | undefined },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/healthz", async (c) => {
    c.header("Cache-Control", "no-store");
    // Embedded mode on a full or read-only disk still answers `select 1`; only writes fail (or hang).
    const problem = deps.databaseProblem?.();
    if (problem) {
      c.header("Retry-After", "5");
      return c.json({ status: "unavailable", database: "failing", reason: problem }, 503);
    }
    if (await ping(deps.sql)) return c.json({ status: "ok" });
    c.header("Retry-After", "5");
    return c.json({ status: "unavailable", database: "unreachable" }, 503);
  });
  return app;
}
