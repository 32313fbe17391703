// The batcher (docs/oauth.md "Refreshes in one statement"): the refreshes an instance receives while its refresh
// statements (./refresh_statements.ts) run go together in the next, one commit.
//
// Why: a refresh is one statement and one commit. Under load most of what it costs is not the statement's work but
// its passage: a socket write and a wake-up on each side, the executor's start and end, a commit (measured: eight
// one-row updates as eight statements cost Postgres 0.20 ms and the caller 0.15 ms per row; as one, 0.05 and 0.03;
// BENCHMARKS.md "Refreshes in one statement"). Every rotation is still committed before its answer is sent, and
// each refresh in a batch gets exactly the row it would have got alone. Batches in flight at once never share a
// family, so they never wait for each other.
//
// One statement in flight per instance (REFRESH_BATCHES_IN_FLIGHT): on a machine where waking another thread or
// process is dear (a virtual machine: each statement wakes a Postgres backend and the instance back, and each commit
// kicks the disk), fewer, fuller statements cost the host less per refresh than more, emptier ones, and a refresh
// waiting for the next statement signs its tokens meanwhile (./refresh_token.ts). The statements never wait behind
// another transaction, so one busy family never holds up the instance's other refreshes. BENCHMARKS.md "One
// refresh statement in flight".
import {
  type RefreshMember,
  type RefreshRow,
  refreshRows,
  type RefreshSettings,
} from "./refresh_statements.ts";

/** Refreshes in one statement at most: a bound on one statement's work (a larger queue goes in several). */
export const REFRESH_BATCH_MAX = 64;
/**
 * Statements of one instance's batcher in flight at once (the rest of the refreshes wait for the next one): one,
 * measured against two and four (see the head of this file).
 */
export const REFRESH_BATCHES_IN_FLIGHT = 1;

interface Waiting {
  member: RefreshMember;
  resolve(row: RefreshRow): void;
  reject(err: unknown): void;
}

/**
 * A failed statement changed nothing (one transaction). When Postgres itself refused it (anything one member's
 * values could cause; the statement waits for no row lock, so it is no deadlock's victim), each
 * refresh is sent again alone, so no refresh fails for another's sake; a lost connection (SQLSTATE class 08) or a
 * cancelled statement (57: the statement timeout, a shutdown) is every member's failure, as it would be alone.
 */
function retryAlone(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57)/.test(code);
}

/**
 * Values a batch cannot carry: the members travel as one JSON document, and jsonb refuses U+0000 and unpaired
 * surrogates, which would fail every member. The token endpoint lets neither through (its form refuses U+0000;
 * decoding leaves no unpaired surrogate; scope syntax and client ids are checked first); a caller inside the
 * process that passes one anyway has its refresh sent alone, as typed parameters.
 */
function jsonbSafe(s: string): boolean {
  return s.isWellFormed() && !s.includes("\0");
}

function batchable(m: RefreshMember): boolean {
  return jsonbSafe(m.clientId) && (m.resource === null || jsonbSafe(m.resource)) &&
    (m.asked === null || m.asked.every(jsonbSafe));
}

/**
 * One instance's refresh statements. A refresh that arrives while fewer than REFRESH_BATCHES_IN_FLIGHT statements
 * run is sent at once, alone; one that arrives while they run waits for the first to end and goes with every
 * refresh that waited (up to REFRESH_BATCH_MAX). No timer: a quiet instance sends every refresh at once, a busy one
 * sends fewer, larger statements. A family in flight is held back until its statement ends, so two statements in
 * flight never touch one row. A statement Postgres refuses is sent again member by member (see retryAlone).
 */
export class RefreshBatcher {
  #queue: Waiting[] = [];
  #inFlight = 0;
  #families = new Set<string>();
  /** statements sent (a batch sent again member by member counts each), and refreshes queued (for the tests) */
  statements = 0;
  refreshes = 0;

  constructor(
    private readonly deps: RefreshSettings,
    private readonly inFlight: number = REFRESH_BATCHES_IN_FLIGHT,
  ) {}

  run(member: RefreshMember): Promise<RefreshRow> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ member, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.inFlight && this.#queue.length > 0) {
      const batch: Waiting[] = [];
      const held: Waiting[] = [];
      const families = new Set<string>();
      for (const w of this.#queue) {
        const id = w.member.familyId;
        if (batch.length >= REFRESH_BATCH_MAX || (this.#families.has(id) && !families.has(id))) held.push(w);
        else {
          batch.push(w);
          families.add(id);
        }
      }
      this.#queue = held;
      if (batch.length === 0) return;
      for (const id of families) this.#families.add(id);
      this.#inFlight++;
      this.#send(batch).finally(() => {
        this.#inFlight--;
        for (const id of families) this.#families.delete(id);
        this.#pump();
      });
    }
  }

  #statement(members: RefreshMember[]): Promise<RefreshRow[]> {
    return refreshRows(this.deps, members, () => this.statements++);
  }

  async #send(batch: Waiting[]): Promise<void> {
    this.refreshes += batch.length;
    try {
      const rows = await this.#statement(batch.map((w) => w.member));
      batch.forEach((w, i) => w.resolve(rows[i]));
    } catch (err) {
      if (batch.length > 1 && retryAlone(err)) {
        await Promise.all(batch.map(async (w) => {
          try {
            w.resolve((await this.#statement([w.member]))[0]);
          } catch (e) {
            w.reject(e);
          }
        }));
      } else for (const w of batch) w.reject(err);
    }
  }
}

/**
 * Each instance's batcher, by its token endpoint's dependencies (routes/oauth_api.ts turns batching on for its
 * own). Kept here rather than in TokenDeps, which ./shared.ts declares and this module's imports reach.
 */
const batchers = new WeakMap<RefreshSettings, RefreshBatcher>();

/** Sends `deps`' refresh statements through a batcher of their own from now on; returns it. */
export function batchRefreshes(deps: RefreshSettings, inFlight = REFRESH_BATCHES_IN_FLIGHT): RefreshBatcher {
  const batcher = new RefreshBatcher(deps, inFlight);
  batchers.set(deps, batcher);
  return batcher;
}

/** The statement for one refresh: through the instance's batcher when it has one, else alone. */
export async function refreshOne(deps: RefreshSettings, member: RefreshMember): Promise<RefreshRow> {
  const batcher = batchers.get(deps);
  if (batcher && batchable(member)) return await batcher.run(member);
  return (await refreshRows(deps, [member]))[0];
}
