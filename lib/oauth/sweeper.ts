// Deletes what can no longer be used (expired codes, sessions, tokens, grants, rate-limit rows, spent sign-in
// tickets, unused self-registered clients) in bounded batches; safe to run on several instances at once (skip locked).
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { errorFields } from "../log.ts";

/** Rows deleted per statement: each statement holds its locks briefly and its WAL stays small. */
export const SWEEP_BATCH_ROWS = 1000;
/** Statements per table per cycle, so one cycle is bounded too; the rest waits for the next cycle. */
export const SWEEP_MAX_BATCHES = 100;

export interface SweepOptions {
  /** REFRESH_FAMILY_MAX_DAYS: a grant older than this is over, whatever its tokens say */
  familyMaxDays: number;
  /** UNUSED_CLIENT_DAYS */
  unusedClientDays: number;
  batchRows?: number;
  maxBatches?: number;
}

/** The sweep's settings from the configuration (REFRESH_FAMILY_MAX_DAYS, UNUSED_CLIENT_DAYS). */
export function sweepOptions(config: Config): SweepOptions {
  return { familyMaxDays: config.refreshFamilyMaxDays, unusedClientDays: config.unusedClientDays };
}

export interface SweepResult {
  codes: number;
  sessions: number;
  grants: number;
  /** legacy refresh-token rows (oauth_refresh_legacy) */
  refresh_tokens: number;
  rate_limits: number;
  rate_buckets: number;
  spent_tickets: number;
  clients: number;
}

type Table = keyof SweepResult;

/**
 * One batch of `table`: `delete … where ctid = any(array(select ctid … limit n for update skip locked))`. The
 * array form makes Postgres fetch the rows by ctid (a TID scan) instead of joining the whole table; `skip
 * locked` lets another instance sweeping at the same moment take other rows instead of waiting for these.
 */
function batch(db: Db, table: Table, limit: number, opts: SweepOptions) {
  switch (table) {
    case "codes":
      // Kept a day past expiry so a late replay still revokes what the code produced.
      return db`delete from oauth_codes where ctid = any(array(
        select ctid from oauth_codes where expires_at < now() - interval '1 day'
         limit ${limit} for update skip locked))`;
    case "sessions":
      return db`delete from browser_sessions where ctid = any(array(
        select ctid from browser_sessions where expires_at < now()
         limit ${limit} for update skip locked))`;
    case "grants":
      // Over: revoked, past the family's absolute end, or with no refresh token that can still be used and
      // none issued in the last day (so no access token of it is alive). A day of slack in each case. Its
      // refresh state is its own row; legacy refresh tokens (migration 00031) count until the family moved into
      // the row, and go with the grant (cascade).
      return db`delete from oauth_grants where ctid = any(array(
        select g.ctid from oauth_grants g
         where g.revoked_at < now() - interval '1 day'
            or g.created_at < now() - make_interval(days => ${opts.familyMaxDays}) - interval '1 day'
            or (g.created_at < now() - interval '1 day'
                and not coalesce(g.refresh_issued_at > now() - interval '1 day', false)
                and not (cardinality(g.refresh_hashes) > 0
                         and coalesce(g.refresh_expires_at > now() - interval '1 day', false))
                and not exists (
                  select 1 from oauth_refresh_legacy rt
                   where rt.family_id = g.id and g.refresh_generation = 0
                     and (rt.created_at > now() - interval '1 day'
                          or (rt.revoked_at is null and rt.rotated_at is null
                              and rt.expires_at > now() - interval '1 day'))))
         limit ${limit} for update skip locked))`;
    case "refresh_tokens":
      // Legacy rows (migration 00031; never written now): a rotated or superseded one still revokes its family
      // when presented until its own expiry; a day after it, it could not be used anyway.
      return db`delete from oauth_refresh_legacy where ctid = any(array(
        select ctid from oauth_refresh_legacy where expires_at < now() - interval '1 day'
         limit ${limit} for update skip locked))`;
    case "rate_limits":
      // The sign-in brake reads a sliding day; older windows count for nothing.
      return db`delete from rate_limits where ctid = any(array(
        select ctid from rate_limits where window_start < now() - interval '2 days'
         limit ${limit} for update skip locked))`;
    case "rate_buckets":
      // A bucket whose theoretical arrival time has passed is full again: the same as no row.
      return db`delete from rate_buckets where ctid = any(array(
        select ctid from rate_buckets where tat < now()
         limit ${limit} for update skip locked))`;
    case "spent_tickets":
      // A spent ticket's id is only needed while the ticket itself could still be presented.
      return db`delete from oauth_spent_tickets where ctid = any(array(
        select ctid from oauth_spent_tickets where expires_at < now()
         limit ${limit} for update skip locked))`;
    case "clients":
      // Self-registered (and metadata-document) clients the operator did not trust, that obtained no token
      // for UNUSED_CLIENT_DAYS (or never since registration), and hold no grant (live, or over but not yet
      // swept) and no code. Operator-created and trusted clients are never deleted here.
      return db`delete from oauth_clients where ctid = any(array(
        select c.ctid from oauth_clients c
         where c.self_registered and not c.trusted
           and coalesce(c.last_used_at, c.created_at) < now() - make_interval(days => ${opts.unusedClientDays})
           and not exists (select 1 from oauth_grants g where g.client_id = c.client_id)
           and not exists (select 1 from oauth_codes k where k.client_id = c.client_id)
         limit ${limit} for update skip locked))`;
  }
}

/** Grants before clients (a client whose last grant ended becomes deletable in the same cycle). */
const ORDER: Table[] = [
  "codes",
  "sessions",
  "grants",
  "refresh_tokens",
  "rate_limits",
  "rate_buckets",
  "spent_tickets",
  "clients",
];

/** One sweep: every table, batch after batch until a batch comes back short (or the cycle's bound is hit). */
export async function sweep(db: Db, opts: SweepOptions): Promise<SweepResult> {
  const limit = opts.batchRows ?? SWEEP_BATCH_ROWS;
  const maxBatches = opts.maxBatches ?? SWEEP_MAX_BATCHES;
  const out = Object.fromEntries(ORDER.map((t) => [t, 0])) as unknown as SweepResult;
  for (const table of ORDER) {
    for (let i = 0; i < maxBatches; i++) {
      const { count } = await batch(db, table, limit, opts);
      out[table] += count;
      if (count < limit) break;
    }
  }
  return out;
}

export interface Sweeper {
  stop(): void;
}

/**
 * Sweeps every `intervalSeconds` (0: never), the first time after a random delay of up to a minute so that
 * instances starting together spread out. A failed cycle is logged and the next one tries again.
 */
export function startSweeper(
  db: Db,
  opts: SweepOptions & { intervalSeconds: number; log: Logger },
): Sweeper {
  if (opts.intervalSeconds <= 0) return { stop() {} };
  let running = false;
  let stopped = false;
  const cycle = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const deleted = await sweep(db, opts);
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      if (total > 0) opts.log.info("sweep", { deleted });
      else opts.log.debug("sweep", { deleted });
    } catch (err) {
      opts.log.warn("sweep failed", errorFields(err));
    } finally {
      running = false;
    }
  };
  let interval: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(() => {
    void cycle();
    const every = setInterval(() => void cycle(), opts.intervalSeconds * 1000);
    Deno.unrefTimer(every);
    interval = every;
  }, Math.floor(Math.random() * Math.min(60, opts.intervalSeconds) * 1000));
  Deno.unrefTimer(first);
  return {
    stop() {
      stopped = true;
      clearTimeout(first);
      if (interval !== undefined) clearInterval(interval);
    },
  };
}
