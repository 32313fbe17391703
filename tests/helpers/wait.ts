// Waiting in tests: for an event (a state, a log line, a lock wait), never for a duration.
//
// A fixed sleep or a short deadline is a guess at how fast the host is, and a busy host (CI on a developer's
// machine, a CPU hog beside the suite) proves it wrong. What a test waits for must be a fact it can observe; the
// only duration left is HANG_MS, which turns a real hang into a failed test instead of a suite that never ends.
import type { Sql } from "../../lib/db/client.ts";

/**
 * How long a test waits for something that must happen before calling it a hang: minutes, where a loaded host
 * needs seconds, so only a real hang reaches it.
 */
export const HANG_MS = 180_000;

/** Resolves once `check` holds (checked every `everyMs`); fails after HANG_MS, saying what never happened. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened within ${HANG_MS / 1000} s (a hang): ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `p`'s outcome, or a failed test after HANG_MS if it never settles (a hang). */
export function settles<T>(p: T | Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    Promise.resolve(p),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what}: still waiting after ${HANG_MS / 1000} s (a hang)`)),
        HANG_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Watches promises settle: `atLeast(n)` resolves once `n` of them have, in whatever order. */
export function settleCounter(): {
  /** `p`, counted when it settles */
  track<T>(p: Promise<T>): Promise<T>;
  readonly settled: number;
  atLeast(n: number, what: string): Promise<void>;
} {
  let settled = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const tick = () => {
    settled++;
    for (const w of waiters.filter((w) => settled >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  return {
    track(p) {
      p.then(tick, tick);
      return p;
    },
    get settled() {
      return settled;
    },
    atLeast(n, what) {
      if (settled >= n) return Promise.resolve();
      return settles(new Promise<void>((resolve) => waiters.push({ n, resolve })), what);
    },
  };
}

/**
 * Resolves once at least `n` sessions of the current database wait on a lock (pg_stat_activity), optionally only
 * those whose query matches the LIKE pattern `query`: the moment a statement is known to be blocked.
 */
export async function waitingOnLock(sql: Sql, what: string, n = 1, query = "%"): Promise<void> {
  await eventually(what, async () => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
       where wait_event_type = 'Lock' and datname = current_database() and query like ${query}`;
    return row.n >= n;
  });
}
