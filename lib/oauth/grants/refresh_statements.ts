// The two refresh statements (docs/oauth.md "Refreshes in one statement"): the common refresh's checks and
// rotation (./refresh_token.ts) written once for a list of refreshes, which ./refresh_batch.ts sends together.
//
// The rotation statement (`rotationStatement`) writes every member it can — a current token rotated, or a retry of
// the one rotated last within the window given a sibling — and returns only those; the checking statement
// (`refreshStatement`) reads every member's family whatever the outcome, so that a refusal can be named, and is
// sent only for the members the rotation statement did not write (a refusal, a race). The common refresh is the
// first statement alone, with a third of the plan nodes and two thirds of Postgres's CPU (BENCHMARKS.md "The
// rotation statement").
//
// What a list does not change: each refresh's checks and write are the single refresh's, so a refresh among others
// gets exactly the row it would have got alone. Two refreshes of one family in one statement both read the row;
// the update applies one of them (Postgres updates a row once per statement), and the other goes on to the
// checking statement (a retry's sibling) or the locked path, as when two single statements race. Neither statement
// waits behind another transaction: each locks the rows it writes with SKIP LOCKED, and a member whose row another
// transaction holds (a revocation, another instance's locked path) takes the locked path on a connection of its
// own (./refresh_family.ts).
import type { Fragment } from "postgres";
import type { Sql } from "../../db/client.ts";
import { clientColumns, type ClientRow } from "../clients.ts";
import { FAMILY_CURRENT_MAX, familyColumns, type FamilyRow, successorState } from "./refresh_family.ts";
import { REFRESH_TTL_CONFIDENTIAL_SECONDS, REFRESH_TTL_PUBLIC_SECONDS } from "./shared.ts";

/** One refresh's part of the statement: what the request presented, and the successor it would get. */
export interface RefreshMember {
  clientId: string;
  secretHash: string | null;
  viaBody: boolean;
  /** the family (grant id) and generation the presented token names */
  familyId: string;
  generation: number;
  tokenHash: string;
  freshHash: string;
  /** the scopes asked for (null: the grant's) */
  asked: string[] | null;
  resource: string | null;
}

/**
 * What the statement answers for one refresh: the client named by the request (null when there is no such
 * client), the family the token names (`familyId` null when there is no such grant, and then the other family
 * fields too), and whether the statement issued the successor (`issued`).
 */
export interface RefreshRow extends FamilyRow {
  client: ClientRow | null;
  issued: boolean;
}

/** The settings every refresh of one instance shares (TokenDeps' part the statement reads). */
export interface RefreshSettings {
  sql: Sql;
  issuer: string;
  refreshGraceSeconds: number;
  familyMaxDays: number;
}

/**
 * The statement's first line, a comment: what pg_stat_activity shows of it (which keeps its first kilobyte only)
 * names it, for an operator and for the tests that wait for it.
 */
export const REFRESH_STATEMENT_MARK = "portico: refresh (lib/oauth/grants/refresh_statements.ts)";

/** The statement's parts that depend only on the instance's settings (./refresh_family.ts's columns). */
interface Parts {
  client: Fragment;
  family: Fragment;
  /** the successor, in both statements (their `ok` has the columns it names) */
  successor: Fragment;
  mark: Fragment;
  rotationMark: Fragment;
  /** the rotation statement's client note (`touched`, and when the next is due), with it and without */
  noting: { touched: Fragment; noteIn: Fragment };
  notNoting: { touched: Fragment; noteIn: Fragment };
}

/**
 * The parts, built once per settings object: postgres.js makes an object (and, per call site, a stack trace it
 * caches) for every fragment, and building the fixed ones anew was a measurable share of a lone refresh's time.
 * A fragment holds no state of its own, so one serves every statement of the instance.
 */
const partsCache = new WeakMap<RefreshSettings, Parts>();

function partsFor(deps: RefreshSettings): Parts {
  let parts = partsCache.get(deps);
  if (parts) return parts;
  const sql = deps.sql;
  parts = {
    client: clientColumns(sql),
    family: familyColumns(sql, {
      tokenHash: sql`m.m_token`,
      graceSeconds: deps.refreshGraceSeconds,
      familyMaxDays: deps.familyMaxDays,
    }),
    successor: successorState(sql, {
      rotate: sql`ok.current`,
      tokenHash: sql`ok.m_token`,
      freshHash: sql`ok.m_fresh`,
      // the successor's generation, after a rotation or as a sibling: one past the presented token's
      generation: sql`ok.m_generation + 1`,
      ttlSeconds: sql`case when ok.public then ${REFRESH_TTL_PUBLIC_SECONDS}::int
                           else ${REFRESH_TTL_CONFIDENTIAL_SECONDS}::int end`,
      familyMaxDays: deps.familyMaxDays,
    }),
    mark: sql.unsafe(REFRESH_STATEMENT_MARK),
    rotationMark: sql.unsafe(ROTATION_STATEMENT_MARK),
    noting: {
      touched: sql`,
    -- The client's last use, at most hourly; a client row another transaction holds is left for the next time.
    touched as (
      update oauth_clients set last_used_at = now()
       where client_id in (
         select x.client_id from oauth_clients x
          where x.client_id in (select ok."clientId" from ok join issued i on i.idx = ok.idx)
            and (x.last_used_at is null or x.last_used_at < now() - interval '1 hour')
            for update skip locked)
      returning client_id)`,
      // seconds until the client's next note: an hour when noted now, else what is left of its last note's hour
      noteIn: sql`case when ok."clientId" in (select client_id from touched) then 3600
                 else greatest(0, extract(epoch from (select c.last_used_at from oauth_clients c
                                                        where c.client_id = ok."clientId")
                                                     + interval '1 hour' - now()))
            end::float8`,
    },
    notNoting: { touched: sql``, noteIn: sql`null::float8` },
  };
  partsCache.set(deps, parts);
  return parts;
}

/**
 * The members as the rows of `m`: one refresh (the common case on a quiet instance) as typed parameters, several
 * as one JSON document; the rest of a statement is the same text for both.
 */
function membersAsRows(sql: Sql, members: RefreshMember[]): Fragment {
  const one = members.length === 1 ? members[0] : undefined;
  return one
    ? sql`select 0 as idx, ${one.clientId}::text as m_client, ${one.secretHash}::text as m_secret,
             ${one.viaBody}::boolean as m_via_body, ${one.familyId}::uuid as m_family,
             ${one.generation}::int as m_generation, ${one.tokenHash}::text as m_token,
             ${one.freshHash}::text as m_fresh, ${one.asked}::text[] as m_asked, ${one.resource}::text as m_resource`
    : sql`select * from jsonb_to_recordset(${
      sql.json(members.map((m, idx) => ({
        idx,
        m_client: m.clientId,
        m_secret: m.secretHash,
        m_via_body: m.viaBody,
        m_family: m.familyId,
        m_generation: m.generation,
        m_token: m.tokenHash,
        m_fresh: m.freshHash,
        m_asked: m.asked,
        m_resource: m.resource,
      })))
    }::jsonb) as m (
        idx int, m_client text, m_secret text, m_via_body boolean, m_family uuid, m_generation int,
        m_token text, m_fresh text, m_asked text[], m_resource text)`;
}

/**
 * The checking statement for `members` (at least one; `refreshRows` sends it for the members the rotation statement
 * did not write), one row per member in their order. Per member it
 * authenticates the client, reads the family the token names (by the grant's primary key) with its person, and,
 * only when every check of `refreshGrant` passes, writes the successor into the grant row — a rotation (the
 * successor becomes the only current token, its siblings are superseded) or, for a retry within the grace window,
 * a sibling — and notes the client's use. A refused member changes nothing.
 *
 * The statement sees one snapshot, so it writes a member's row only while it is still the version it read
 * (`xmin`), and only if no other transaction holds it: it locks the row first, skipping one that is held (`locked`).
 * A change committed since fails the version condition (Postgres re-checks it on the row's newest version), a row
 * held is skipped, and either way nothing is written for that member; `refreshGrant` then takes the locked path,
 * which waits for the row. So the statement never waits behind another transaction. The columns written are in no
 * index, so each write is a HOT update (migration 00031).
 */
export async function refreshStatement(
  deps: RefreshSettings,
  members: RefreshMember[],
): Promise<RefreshRow[]> {
  const sql = deps.sql;
  const grace = deps.refreshGraceSeconds;
  const rowsOfM = membersAsRows(sql, members);
  const { client, family, successor, mark } = partsFor(deps);
  const rows = await sql<(RefreshRow & { idx: number })[]>`
    -- ${mark}
    with m as (${rowsOfM}),
    -- Each member's client and family by primary key, looked up per member: "limit 1" keeps the planner from
    -- making the lookups joins, which it would plan for the hundred rows it assumes of jsonb_to_recordset.
    c as (
      select m.idx, to_json(x) as client, x.client_id, x.secret_hash, x.grant_types, x.token_endpoint_auth_method
        from m cross join lateral (select ${client} from oauth_clients where client_id = m.m_client limit 1) x
    ),
    f as materialized (
      select m.idx, x.*
        from m cross join lateral (
          select ${family} from oauth_grants g join users u on u.id = g.user_id where g.id = m.m_family limit 1) x
    ),
    ok as (
      select m.idx, m.m_token, m.m_fresh, m.m_generation, f."familyId", f.version, f.current,
             c.secret_hash is null as public
        from m join f on f.idx = m.idx join c on c.idx = m.idx and c.client_id = f."clientId"
       where 'refresh_token' = any(c.grant_types)
         and case when c.secret_hash is null then m.m_secret is null
                  else c.secret_hash = m.m_secret
                       and (c.token_endpoint_auth_method = 'client_secret_post') = m.m_via_body end
         and f."grantLive" and f.unexpired and f."withinCap" and f.enabled
         -- standing (./refresh_family.ts): a current token, or a retry of the one rotated last
         and ((f.current and f.generation = m.m_generation)
              or (${grace > 0}::boolean and not f.current and f."lastRotated" and f."inGrace"
                  and f.generation = m.m_generation + 1 and f."currentCount" < ${FAMILY_CURRENT_MAX}::int))
         -- every scope asked for was granted (f.scopes is a JSON array)
         and (m.m_asked is null or f.scopes::jsonb ?& m.m_asked)
         and (m.m_resource is null or m.m_resource = coalesce(f.resource, ${deps.issuer}))
    ),
    -- The rows to write, locked without waiting: a row another transaction holds is skipped (see above).
    locked as (
      select g.id from oauth_grants g join ok on g.id = ok."familyId" and g.xmin::text = ok.version
         for update of g skip locked
    ),
    issued as (
      -- Only the version read: else another change came in between (see above). Two members of one family
      -- join the same row; Postgres applies one, and RETURNING names which.
      update oauth_grants g set ${successor}
        from ok
       where g.id = ok."familyId" and g.xmin::text = ok.version and g.id in (select id from locked)
      returning ok.idx
    ),
    -- The client's last use, at most hourly; a client row another transaction holds is left for the next time.
    touched as (
      update oauth_clients set last_used_at = now()
       where client_id in (
         select x.client_id from oauth_clients x
          where x.client_id in (select m.m_client from m join issued i on i.idx = m.idx)
            and (x.last_used_at is null or x.last_used_at < now() - interval '1 hour')
            for update skip locked)
    )
    select c.client, f.*, exists (select 1 from issued i where i.idx = m.idx) as issued
      from m left join c on c.idx = m.idx left join f on f.idx = m.idx
     order by m.idx`;
  return rows;
}

/**
 * The rotation statement's first line (as REFRESH_STATEMENT_MARK for the checking statement): the common refresh,
 * rotated or given a retry's sibling, for every member it can.
 */
export const ROTATION_STATEMENT_MARK = "portico: refresh rotation (lib/oauth/grants/refresh_statements.ts)";

/** Clients whose next note this instance remembers at most; past it, the memory starts again (each noted once more). */
const CLIENT_USE_NOTES_MAX = 10_000;

/**
 * When each client's hourly `last_used_at` note is next due, as far as this instance knows: the rotation statement
 * carries the note only when a member's client is due (unknown, or its hour is over), so a busy client costs its
 * note once an hour, not a subquery per statement. Another instance's note only makes this one's redundant (the
 * SQL keeps the hour itself); a forgotten client is noted at its next refresh.
 */
class ClientUseNotes {
  #dueAt = new Map<string, number>();

  due(clientId: string, now: number): boolean {
    const at = this.#dueAt.get(clientId);
    return at === undefined || at <= now;
  }

  /** The client's note is next due in `seconds` (0: at its next refresh). */
  next(clientId: string, seconds: number, now: number): void {
    if (this.#dueAt.size >= CLIENT_USE_NOTES_MAX && !this.#dueAt.has(clientId)) this.#dueAt.clear();
    this.#dueAt.set(clientId, now + seconds * 1000);
  }
}

const useNotes = new WeakMap<RefreshSettings, ClientUseNotes>();

function useNotesFor(deps: RefreshSettings): ClientUseNotes {
  let notes = useNotes.get(deps);
  if (!notes) useNotes.set(deps, notes = new ClientUseNotes());
  return notes;
}

/**
 * The rotation statement for `members` (at least one): the refreshes that pass every check — a current token, or
 * a retry of the one rotated last within the window, of a live, unexpired family within its cap, of an enabled
 * person, presented by its own client, authenticated and holding the refresh_token grant, for scopes and a
 * resource the grant has — written exactly as the checking statement (`refreshStatement`) would write them (a
 * rotation, or a sibling). Returns a row for each member it wrote, by the member's index; a member without one
 * changed nothing and goes to the checking statement, which names the refusal, revokes a reused family's tokens
 * or sends it to the locked path.
 *
 * Why two statements: the checking statement reads every member's family whatever the outcome (to name a refusal
 * in the same round trip), and its plan has three times the nodes. Measured per statement, one member: 129 against
 * 183 µs of PostgreSQL's CPU; three: 175 against 252 (BENCHMARKS.md "The rotation statement"). A refusal costs
 * both statements.
 *
 * Concurrency: the family's row is locked where it is read (`FOR UPDATE SKIP LOCKED`). A row another transaction
 * holds is skipped; a row changed since the statement's snapshot is read again at its newest version and the
 * conditions are checked on it (PostgreSQL's rule for a locking read), so a token rotated meanwhile is not
 * current any more and the member is not rotated. Two members of one family both read the row; the update writes
 * it once, and RETURNING names the member it wrote.
 */
export async function rotationStatement(
  deps: RefreshSettings,
  members: RefreshMember[],
): Promise<Map<number, RefreshRow>> {
  const sql = deps.sql;
  const { client, successor, rotationMark, noting, notNoting } = partsFor(deps);
  const grace = deps.refreshGraceSeconds;
  const notes = useNotesFor(deps);
  const now = Date.now();
  const note = members.some((m) => notes.due(m.clientId, now)) ? noting : notNoting;
  const rows = await sql<(RefreshRow & { idx: number; noteIn: number | null })[]>`
    -- ${rotationMark}
    with m as (${membersAsRows(sql, members)}),
    ok as (
      select m.idx, m.m_token, m.m_fresh, m.m_generation, x.secret_hash is null as public, to_json(x) as client,
             g.id as "familyId", g.client_id as "clientId", g.user_id as "userId", to_json(g.scopes) as scopes,
             g.resource, g.auth_time as "authTime", to_json(coalesce(g.amr, '{pwd}')) as amr,
             g.refresh_generation as generation, m.m_token = any(g.refresh_hashes) as current,
             cardinality(g.refresh_hashes) as "currentCount"
        from m join oauth_grants g on g.id = m.m_family
        cross join lateral (select ${client} from oauth_clients where client_id = m.m_client) x
        join users u on u.id = g.user_id
       where x.client_id = g.client_id and 'refresh_token' = any(x.grant_types)
         and case when x.secret_hash is null then m.m_secret is null
                  else x.secret_hash = m.m_secret
                       and (x.token_endpoint_auth_method = 'client_secret_post') = m.m_via_body end
         -- standing (./refresh_family.ts): a current token, or a retry of the one rotated last
         and ((m.m_token = any(g.refresh_hashes) and g.refresh_generation = m.m_generation)
              or (${grace > 0}::boolean and not m.m_token = any(g.refresh_hashes)
                  and g.refresh_rotated_hash = m.m_token
                  and g.refresh_rotated_at > clock_timestamp() - make_interval(secs => ${grace})
                  and g.refresh_generation = m.m_generation + 1
                  and cardinality(g.refresh_hashes) < ${FAMILY_CURRENT_MAX}::int))
         and g.revoked_at is null and g.refresh_expires_at > now()
         and g.created_at + make_interval(days => ${deps.familyMaxDays}) > now() and u.disabled_at is null
         and (m.m_asked is null or m.m_asked <@ g.scopes)
         and (m.m_resource is null or m.m_resource = coalesce(g.resource, ${deps.issuer}))
         for update of g skip locked
    ),
    issued as (
      update oauth_grants g set ${successor} from ok where g.id = ok."familyId" returning ok.idx
    )${note.touched}
    select ok.idx, ok.client, ok."familyId", ok."clientId", ok."userId", ok.scopes, ok.resource, ok."authTime",
           ok.amr, ok.generation, ok.current, ok."currentCount", ${note.noteIn} as "noteIn"
      from ok join issued i on i.idx = ok.idx`;
  const out = new Map<number, RefreshRow>();
  for (const { idx, noteIn, ...r } of rows) {
    if (noteIn !== null) notes.next(r.clientId, noteIn, now);
    // What the statement's conditions established of the row it rotated (checkPresented judges it so).
    out.set(idx, {
      ...r,
      lastRotated: !r.current,
      inGrace: !r.current,
      grantLive: true,
      unexpired: true,
      withinCap: true,
      enabled: true,
      version: "",
      issued: true,
    });
  }
  return out;
}

/**
 * Every member's row: the rotation statement first, then the checking statement for the members it did not
 * rotate (none, in the common case). `count` is told of each statement sent.
 */
export async function refreshRows(
  deps: RefreshSettings,
  members: RefreshMember[],
  count: () => void = () => {},
): Promise<RefreshRow[]> {
  count();
  const rotated = await rotationStatement(deps, members);
  if (rotated.size === members.length) return members.map((_, i) => rotated.get(i)!);
  const rest = members.flatMap((_, i) => rotated.has(i) ? [] : [i]);
  count();
  const checked = await refreshStatement(deps, rest.map((i) => members[i]));
  rest.forEach((i, k) => rotated.set(i, checked[k]));
  return members.map((_, i) => rotated.get(i)!);
}
