// Refresh tokens issued before migration 00031: rows of oauth_refresh_legacy, found by hash and never written.
// The live one of its family is rotated into the grant row once (the family's state starts there, with a
// successor of the new format); from then on every legacy row of that family counts as rotated, so presenting
// one again is a retry within the window or reuse, as for any rotated token (docs/oauth.md "Tokens issued
// before the in-place rotation").
import { withTx } from "../../db/tx.ts";
import { sha256Hex } from "../../crypto.ts";
import type { Client } from "../clients.ts";
import { OAuthError } from "../errors.ts";
import { mintRefreshToken } from "./refresh_format.ts";
import {
  familyColumns,
  type FamilyRow,
  invalidRefresh,
  refreshResource,
  standing,
  successorState,
} from "./refresh_family.ts";
import { revokeGrant, type TokenDeps, touchClient } from "./shared.ts";

interface LegacyRow extends FamilyRow {
  familyId: string;
  /** the client the legacy token was issued to */
  tokenClientId: string;
  /** rotated or revoked before the family moved into its grant row */
  spent: boolean;
  tokenUnexpired: boolean;
  tokenAuthTime: Date;
  tokenAmr: string[];
}

/** What a legacy token's refresh issues: the claims of its tokens and the new-format successor. */
export interface LegacyRefresh {
  familyId: string;
  userId: string;
  /** the grant's full scope (the successor's) */
  grantScopes: string[];
  /** the scope asked for now (a subset), else the grant's */
  scopes: string[];
  resource: string | null;
  authTime: Date;
  amr: string[];
  refreshToken: string;
}

/**
 * grant_type=refresh_token for a token of the old format, under its grant row's lock (these are rare: each
 * family takes this path once, or when a legacy token comes back). The rules are the ones of any refresh:
 * another client's token or a dead family → invalid_grant; a rotated or revoked legacy token, or any legacy
 * token of a family already moved, outside the retry window → the family is revoked; expired, past the cap, a
 * disabled person → invalid_grant; then scope and resource. A refused request changes nothing.
 */
export async function legacyRefresh(
  deps: TokenDeps,
  input: {
    client: Client;
    ttlSeconds: number;
    tokenHash: string;
    asked: string[];
    resource: string | undefined;
  },
): Promise<LegacyRefresh> {
  const { client, tokenHash } = input;
  type Outcome = { ok: true; issued: LegacyRefresh } | { ok: false };
  const outcome = await withTx(deps.sql, async (tx): Promise<Outcome> => {
    const family = familyColumns(tx, {
      tokenHash,
      graceSeconds: deps.refreshGraceSeconds,
      familyMaxDays: deps.familyMaxDays,
    });
    const [row] = await tx<LegacyRow[]>`
      select l.client_id as "tokenClientId", l.rotated_at is not null or l.revoked_at is not null as spent,
             l.expires_at > now() as "tokenUnexpired", l.auth_time as "tokenAuthTime",
             to_json(l.amr) as "tokenAmr", ${family}
        from oauth_refresh_legacy l join oauth_grants g on g.id = l.family_id join users u on u.id = g.user_id
       where l.token_hash = ${tokenHash}
         for update of g`;
    if (!row || row.tokenClientId !== client.clientId || !row.grantLive) return { ok: false };
    // A family already in its grant row: this token was rotated there (generation 0 stands for "before it").
    const moved = row.generation > 0;
    const judged = moved
      ? standing(row, { familyId: row.familyId, generation: 0, tagValid: true }, deps.refreshGraceSeconds)
      : row.spent
      ? "reuse"
      : "current";
    if (judged === "reuse") {
      await revokeGrant(tx, row.familyId);
      return { ok: false };
    }
    if (judged !== "current" && judged !== "retry") return { ok: false };
    const unexpired = moved ? row.unexpired : row.tokenUnexpired;
    if (!unexpired || !row.withinCap || !row.enabled) return { ok: false };
    const extra = input.asked.find((s) => !row.scopes.includes(s));
    if (extra) throw new OAuthError("invalid_scope", `scope ${extra} was not granted`);
    const resource = refreshResource(row.resource, input.resource, deps.issuer);
    const generation = moved ? row.generation : 1;
    const refreshToken = mintRefreshToken(deps.secretKey, row.familyId, generation);
    const authTime = new Date(moved ? row.authTime : row.tokenAuthTime);
    const amr = moved ? row.amr : row.tokenAmr;
    const successor = successorState(tx, {
      rotate: tx`${!moved}::boolean`,
      tokenHash,
      freshHash: sha256Hex(refreshToken),
      generation,
      ttlSeconds: tx`${input.ttlSeconds}::int`,
      familyMaxDays: deps.familyMaxDays,
    });
    // The sign-in behind the family moves into the grant row with it.
    await tx`
      update oauth_grants g set ${successor}, auth_time = ${authTime}, amr = ${amr} where g.id = ${row.familyId}`;
    await touchClient(tx, client.clientId);
    return {
      ok: true,
      issued: {
        familyId: row.familyId,
        userId: row.userId,
        grantScopes: row.scopes,
        scopes: input.asked.length > 0 ? input.asked : row.scopes,
        resource,
        authTime,
        amr,
        refreshToken,
      },
    };
  });
  if (!outcome.ok) throw invalidRefresh();
  return outcome.issued;
}
