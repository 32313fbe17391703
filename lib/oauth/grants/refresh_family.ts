// A refresh token family's state in its grant row (migration 00031; docs/oauth.md "Refresh tokens: storage and
// format"): how it is read for a presented token, what the token is to it (`standing`), how a successor is
// written, the checks that name a refusal, and the locked path taken when the one-statement rotation lost a race.
import type { Fragment } from "postgres";
import type { Db } from "../../db/client.ts";
import { withTx } from "../../db/tx.ts";
import type { Client } from "../clients.ts";
import { OAuthError } from "../errors.ts";
import type { PresentedRefreshToken } from "./refresh_format.ts";
import { revokeGrant, revokeLater, type TokenDeps, touchClient } from "./shared.ts";

/**
 * Current tokens a family holds at most: the live one and the siblings issued for retries of the token rotated
 * last. A retry past this is refused (nothing changes); the tokens already issued keep working.
 */
export const FAMILY_CURRENT_MAX = 100;

/**
 * A family as a refresh reads it for one presented token (`familyColumns`). Arrays come as JSON: postgres.js
 * parses a new connection's first answer before it has learnt the array types (its type query's answer and the
 * next one arrive in one read), and then leaves that statement's arrays as strings for the connection's life.
 */
export interface FamilyRow {
  /** the grant's id; null when no grant has the token's family id */
  familyId: string | null;
  /** the client the family was issued to */
  clientId: string;
  userId: string;
  /** the grant's full scope, which every successor keeps */
  scopes: string[];
  resource: string | null;
  authTime: Date;
  amr: string[];
  /** the current tokens' generation (0: none issued in this format) */
  generation: number;
  /** the presented token's hash is one of the current tokens' */
  current: boolean;
  /** the presented token's hash is the one rotated last's */
  lastRotated: boolean;
  /** the token rotated last was rotated within REFRESH_REUSE_GRACE_SECONDS */
  inGrace: boolean;
  currentCount: number;
  grantLive: boolean;
  unexpired: boolean;
  withinCap: boolean;
  enabled: boolean;
  /** the grant row's version (xmin), for the statement's conditional write */
  version: string;
}

/**
 * The columns of `FamilyRow`, from `oauth_grants g join users u on u.id = g.user_id`; `tokenHash` is the presented
 * token's hash, a value or a column of the statement (./refresh_statements.ts).
 */
export function familyColumns(
  db: Db,
  input: { tokenHash: string | Fragment; graceSeconds: number; familyMaxDays: number },
): Fragment {
  return db`
    g.id as "familyId", g.client_id as "clientId", g.user_id as "userId", to_json(g.scopes) as scopes,
    g.resource, g.auth_time as "authTime", to_json(coalesce(g.amr, '{pwd}')) as amr,
    g.refresh_generation as generation, ${input.tokenHash}::text = any(g.refresh_hashes) as current,
    coalesce(g.refresh_rotated_hash = ${input.tokenHash}::text, false) as "lastRotated",
    coalesce(g.refresh_rotated_at > clock_timestamp() - make_interval(secs => ${input.graceSeconds}), false)
      as "inGrace",
    cardinality(g.refresh_hashes) as "currentCount", g.revoked_at is null as "grantLive",
    coalesce(g.refresh_expires_at > now(), false) as unexpired,
    g.created_at + make_interval(days => ${input.familyMaxDays}) > now() as "withinCap",
    u.disabled_at is null as enabled, g.xmin::text as version`;
}

/**
 * What a presented token is to its family:
 * - `current`: one of the current tokens — it is rotated;
 * - `retry`: the token rotated last, within the window, none of its successors used yet (a use would have
 *   rotated the family on) — a sibling successor is issued;
 * - `crowded`: such a retry, but the family already holds FAMILY_CURRENT_MAX current tokens — refused;
 * - `reuse`: a token this server issued to the family that is no longer current — the whole family is revoked;
 * - `unknown`: anything else — refused, nothing changes.
 * A token is proven this family's by its hash (current, or rotated last) or by its tag; only a token whose tag
 * verifies is judged by the generation it carries, so a forged token (or one minted under another SECRET_KEY)
 * never revokes a family, whatever family id it names. The refresh statement's `ok` states the same conditions
 * for `current` and `retry` in SQL.
 */
export type Standing = "current" | "retry" | "crowded" | "reuse" | "unknown";

export function standing(
  family: FamilyRow,
  presented: PresentedRefreshToken,
  graceSeconds: number,
): Standing {
  if (family.current) return family.generation === presented.generation ? "current" : "unknown";
  if (family.lastRotated) {
    if (graceSeconds > 0 && family.inGrace && family.generation === presented.generation + 1) {
      return family.currentCount < FAMILY_CURRENT_MAX ? "retry" : "crowded";
    }
    return "reuse";
  }
  return presented.tagValid && presented.generation < family.generation ? "reuse" : "unknown";
}

/**
 * The grant row's new refresh state with a successor of generation `generation` whose hash is `freshHash`:
 * when `rotate` holds, the presented token (`tokenHash`) is rotated and the successor is the family's only
 * current token (its siblings are superseded); otherwise the successor joins the current tokens (a sibling). The
 * successor gets a lifetime of its own, `ttlSeconds`, never past the family's cap. For `update oauth_grants g`;
 * each input is a value or a column of the statement (./refresh_statements.ts).
 */
export function successorState(
  db: Db,
  input: {
    rotate: Fragment;
    tokenHash: string | Fragment;
    freshHash: string | Fragment;
    generation: number | Fragment;
    ttlSeconds: Fragment;
    familyMaxDays: number;
  },
): Fragment {
  return db`
    refresh_generation = ${input.generation},
    refresh_hashes = case when ${input.rotate} then array[${input.freshHash}::text]
                          else g.refresh_hashes || ${input.freshHash}::text end,
    refresh_rotated_hash = case when ${input.rotate} then ${input.tokenHash}::text else g.refresh_rotated_hash end,
    refresh_rotated_at = case when ${input.rotate} then now() else g.refresh_rotated_at end,
    refresh_issued_at = now(),
    refresh_expires_at = least(now() + make_interval(secs => ${input.ttlSeconds}),
                               g.created_at + make_interval(days => ${input.familyMaxDays}))`;
}

/** The locked path's first line, a comment: what pg_stat_activity shows of it names it (as REFRESH_STATEMENT_MARK). */
export const LOCKED_PATH_MARK = "portico: refresh, locked path (lib/oauth/grants/refresh_family.ts)";

export function invalidRefresh(): OAuthError {
  return new OAuthError("invalid_grant", "the refresh token is invalid");
}

/**
 * A refresh keeps the audience bound at the code exchange (the grant's resource, or the issuer when none was
 * named): `resource` may repeat it, never change it — else every refresh could pick a new audience.
 */
export function refreshResource(
  bound: string | null,
  requested: string | undefined,
  issuer: string,
): string | null {
  if (requested !== undefined && requested !== (bound ?? issuer)) {
    throw new OAuthError(
      "invalid_target",
      `this grant's tokens are for ${bound ?? issuer}; a refresh cannot change it`,
    );
  }
  return bound;
}

/**
 * The checks of a refresh whose statement changed nothing or whose outcome must be named, in the order that
 * picks the refusal: another client's or a dead family's token, a stale copy (which revokes the family), an
 * unusable one, an expired one, a wider scope, another resource. Returns what the tokens carry, and whether the
 * token is a retry (a sibling is due) rather than a current one.
 */
export async function checkPresented(
  deps: TokenDeps,
  family: FamilyRow,
  presented: PresentedRefreshToken,
  client: Client,
  asked: string[],
  requestedResource: string | undefined,
): Promise<{ scopes: string[]; resource: string | null; again: boolean }> {
  // Another client's token is not this client's to end; a revoked family has nothing left to end.
  if (family.familyId === null || family.clientId !== client.clientId || !family.grantLive) {
    throw invalidRefresh();
  }
  const judged = standing(family, presented, deps.refreshGraceSeconds);
  if (judged === "reuse") {
    // Presented after its successor was used, after the window, or after a sibling won: the client or a thief
    // holds a stale copy; end the whole family. A generation only grows, so a read is enough to decide.
    await revokeLater(deps.sql, [family.familyId]);
    throw invalidRefresh();
  }
  if (judged !== "current" && judged !== "retry") throw invalidRefresh();
  if (!family.unexpired || !family.withinCap || !family.enabled) throw invalidRefresh();
  const extra = asked.find((s) => !family.scopes.includes(s));
  if (extra) throw new OAuthError("invalid_scope", `scope ${extra} was not granted`);
  return {
    scopes: asked.length > 0 ? asked : family.scopes,
    resource: refreshResource(family.resource, requestedResource, deps.issuer),
    again: judged === "retry",
  };
}

/**
 * The locked path, for a refresh whose checks pass but whose statement wrote nothing (the grant row changed
 * since its snapshot, or was changing). Under the row's lock (SELECT … FOR UPDATE) the family is read again
 * and judged: a current token is rotated, a retry within the window gets a sibling, reuse revokes the family
 * (in the same transaction), anything else is refused. The successor (`freshHash`, generation one past the
 * presented token's) is the one the statement would have written.
 */
export async function lockedRotation(
  deps: TokenDeps,
  input: {
    client: Client;
    ttlSeconds: number;
    presented: PresentedRefreshToken;
    tokenHash: string;
    freshHash: string;
  },
): Promise<void> {
  const { client, presented } = input;
  const outcome = await withTx(deps.sql, async (tx): Promise<"issued" | "refused"> => {
    const columns = familyColumns(tx, {
      tokenHash: input.tokenHash,
      graceSeconds: deps.refreshGraceSeconds,
      familyMaxDays: deps.familyMaxDays,
    });
    const [family] = await tx<FamilyRow[]>`
      -- ${tx.unsafe(LOCKED_PATH_MARK)}
      select ${columns} from oauth_grants g join users u on u.id = g.user_id
       where g.id = ${presented.familyId}
         for update of g`;
    if (!family || family.clientId !== client.clientId || !family.grantLive) return "refused";
    const judged = standing(family, presented, deps.refreshGraceSeconds);
    if (judged === "reuse") {
      await revokeGrant(tx, presented.familyId);
      return "refused";
    }
    if (judged !== "current" && judged !== "retry") return "refused";
    if (!family.unexpired || !family.withinCap || !family.enabled) return "refused";
    const successor = successorState(tx, {
      rotate: tx`${judged === "current"}::boolean`,
      tokenHash: input.tokenHash,
      freshHash: input.freshHash,
      generation: presented.generation + 1,
      ttlSeconds: tx`${input.ttlSeconds}::int`,
      familyMaxDays: deps.familyMaxDays,
    });
    await tx`update oauth_grants g set ${successor} where g.id = ${presented.familyId}`;
    await touchClient(tx, client.clientId);
    return "issued";
  });
  if (outcome !== "issued") throw invalidRefresh();
}
