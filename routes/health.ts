// GET /healthz: 200 when the database answers; 503 saying why not: failing (embedded: disk full), pool busy,
// or unreachable.
import { Hono } from "hono";
import { pingDetail, probe, type Sql } from "../lib/db/client.ts";
import { UNAVAILABLE_RETRY_AFTER } from "../lib/db/errors.ts";
import type { AppEnv } from "../lib/http/types.ts";

/** How long /healthz waits for a connection of the pool (and its answer) before asking the server directly. */
export const HEALTH_POOL_WAIT_MS = 1_000;
/** How long the direct probe (a new connection outside the pool) may take. */
export const HEALTH_PROBE_MS = 2_000;
/** A probe's answer serves every /healthz for this long: an open GET must not open connections at will. */
const PROBE_REUSE_MS = 1_000;

export type HealthReason = "database_unreachable" | "pool_busy" | "database_failing";

export function createHealthRoutes(
  deps: { sql: Sql; databaseProblem?: () => string | undefined },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let lastProbe: { at: number; answer: Promise<boolean> } | undefined;

  /** At most one probe at a time, and its answer reused briefly. */
  function probeOnce(): Promise<boolean> {
    const now = performance.now();
    if (!lastProbe || now - lastProbe.at > PROBE_REUSE_MS) {
      const answer = probe(deps.sql, HEALTH_PROBE_MS);
      lastProbe = { at: now, answer };
      // the reuse window starts when the answer is in, so a slow probe is never started twice at once
      answer.finally(() => {
        if (lastProbe?.answer === answer) lastProbe.at = performance.now();
      });
    }
    return lastProbe.answer;
  }

  app.get("/healthz", async (c) => {
    c.header("Cache-Control", "no-store");
    // Embedded mode on a full or read-only disk still answers `select 1`; only writes fail (or hang).
    const problem = deps.databaseProblem?.();
    if (problem) {
      c.header("Retry-After", String(UNAVAILABLE_RETRY_AFTER));
      const reason: HealthReason = "database_failing";
      return c.json({ status: "unavailable", reason, detail: problem }, 503);
    }
    const pinged = await pingDetail(deps.sql, HEALTH_POOL_WAIT_MS);
    if (pinged === "ok") return c.json({ status: "ok" });
    // No answer through the pool in time: if the server answers a connection of its own, the pool is busy.
    const reason: HealthReason = pinged === "timeout" && await probeOnce()
      ? "pool_busy"
      : "database_unreachable";
    c.header("Retry-After", String(UNAVAILABLE_RETRY_AFTER));
    return c.json({ status: "unavailable", reason }, 503);
  });
  return app;
}
