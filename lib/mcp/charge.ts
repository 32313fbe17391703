// The part of the /mcp caller statement (lib/mcp/caller.ts, lib/mcp/bearer.ts) that takes the request's units
// from the shared rate limits (lib/mcp/rate_limit.ts): `McpCharge`, what to take, and `chargeSql`, its CTEs.
import type postgres from "postgres";
import type { Db } from "../db/client.ts";
import { gcraCtes } from "../rate_limit/mod.ts";

/**
 * What the caller statement takes (`chargeSql`): `cost` units from the credential's bucket when the credential
 * is live (or was accepted here recently), else one unit from the address's bucket. Null fields: that limit is off.
 */
export interface McpCharge {
  cost: number;
  known: boolean;
  credential: { inc: number; win: number } | null;
  address: { bucket: string; inc: number; win: number } | null;
  nowMs: number | null;
}

/**
 * The CTEs that take a request's units inside a caller statement, which must define before them a CTE
 * `rl_found(cid text, live boolean)`: the key's or grant's id when the credential names one (no row when it
 * names none) and whether it is live. Adds the CTE `rl` (lib/rate_limit/shared.ts `GcraColumns`), one row or
 * none. Without a charge (a download link checked without limits), `rl` is empty.
 */
export function chargeSql(
  db: Db,
  charge: McpCharge | undefined,
  prefix: "key:" | "grant:",
): postgres.Fragment {
  if (!charge || (!charge.credential && !charge.address)) {
    return db`rl as (select null::text as rl_bucket, null::boolean as rl_ok, null::float8 as rl_ahead_ms
                      where false)`;
  }
  const c = charge.credential;
  const a = charge.address;
  return db`
    rl_w as (
      select (f.cid is not null and (${charge.known}::boolean or f.live)) as cred, f.cid
        from (values (1)) as one (x) left join rl_found f on true
    ),
    rl_pick as (
      select case when w.cred then ${c ? prefix : null}::text || w.cid else ${
    a?.bucket ?? null
  }::text end as bucket,
             case when w.cred then ${c?.inc ?? null}::float8 else ${a?.inc ?? null}::float8 end as inc,
             case when w.cred then ${c?.win ?? null}::float8 else ${a?.win ?? null}::float8 end as win
        from rl_w w
    ),
    ${gcraCtes(db, charge.nowMs)}`;
}
