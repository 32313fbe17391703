// Ending grants from outside the token endpoint: RFC 7009 revocation, and whether a grant is still in force
// (UserInfo's check). Revoking a family itself is `revokeGrant` in ./shared.ts, which the grants use too.
import type { Db } from "../../db/client.ts";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import { sha256Hex } from "../../crypto.ts";
import { isUuid } from "../../errors.ts";
import type { Client } from "../clients.ts";
import { OAuthError } from "../errors.ts";
import { verifyAccessToken } from "../tokens.ts";
import { readRefreshToken } from "./refresh_format.ts";
import { revokeGrant, type TokenDeps } from "./shared.ts";

/**
 * RFC 7009. A refresh token revokes its family; an access token revokes its grant (which RFC 7009 §2.1 allows),
 * so userinfo refuses it and its refresh tokens end. A live token of another client is refused (§2.1: "the
 * request is refused and the client is informed of the error") and left alone; unknown, malformed, expired and
 * already-revoked tokens are not errors (§2.2) and change nothing.
 */
export async function revokeToken(
  deps: TokenDeps,
  client: Client,
  token: string,
  hint?: string,
): Promise<void> {
  const tryRefresh = async () => {
    const row = await refreshTokenOwner(deps, token);
    if (!row) return false;
    if (row.clientId === client.clientId) await revokeGrant(deps.sql, row.familyId);
    else if (row.live) throw notYours();
    return true;
  };
  const tryAccess = async () => {
    if (token.split(".").length !== 3) return false;
    let claims;
    try {
      claims = await verifyAccessToken(deps.keys, deps.issuer, token);
    } catch (err) {
      // An outage must not pass for "not an access token": the client would believe the token revoked.
      if (isDatabaseUnavailable(err)) throw err;
      return false;
    }
    if (claims.client_id === client.clientId) {
      if (claims.grant_id) await revokeGrant(deps.sql, claims.grant_id);
    } else if (await grantActive(deps.sql, claims.grant_id)) throw notYours();
    return true;
  };
  if (hint === "access_token") {
    if (!(await tryAccess())) await tryRefresh();
  } else if (!(await tryRefresh())) {
    await tryAccess();
  }
}

/**
 * The family of a refresh token this server issued, its client, and whether the token is live (current, of a
 * live family, unexpired); undefined for anything else. A token of the current format names its family: it is
 * this family's when its hash is a current one or the one rotated last, or when its tag verifies and its
 * generation is an earlier one (a forged token is unknown, whatever family it names). A token of the old format
 * is found by its hash; it is live only while its family has not moved into its grant row.
 */
async function refreshTokenOwner(
  deps: TokenDeps,
  token: string,
): Promise<{ familyId: string; clientId: string; live: boolean } | undefined> {
  const hash = sha256Hex(token);
  const presented = readRefreshToken(deps.secretKey, token);
  if (presented) {
    const [row] = await deps.sql<{ familyId: string; clientId: string; known: boolean; live: boolean }[]>`
      select id as "familyId", client_id as "clientId",
             ${hash}::text = any(refresh_hashes) or coalesce(refresh_rotated_hash = ${hash}::text, false)
               or (${presented.tagValid}::boolean and ${presented.generation}::int < refresh_generation) as known,
             ${hash}::text = any(refresh_hashes) and revoked_at is null and refresh_expires_at > now() as live
        from oauth_grants where id = ${presented.familyId}`;
    return row?.known ? row : undefined;
  }
  const [row] = await deps.sql<{ familyId: string; clientId: string; live: boolean }[]>`
    select t.family_id as "familyId", t.client_id as "clientId",
           t.rotated_at is null and t.revoked_at is null and t.expires_at > now() and g.revoked_at is null
             and g.refresh_generation = 0 as live
      from oauth_refresh_legacy t join oauth_grants g on g.id = t.family_id
     where t.token_hash = ${hash}`;
  return row;
}

/** docs/oauth.md "Revocation of another client's token": why invalid_request; nothing about whose token it is. */
function notYours(): OAuthError {
  return new OAuthError("invalid_request", "the token was not issued to this client");
}

/** Whether the grant behind an access token is still in force. */
export async function grantActive(db: Db, grantId: string | undefined): Promise<boolean> {
  if (!grantId || !isUuid(grantId)) return false;
  const [row] = await db<{ active: boolean }[]>`
    select revoked_at is null as active from oauth_grants where id = ${grantId}`;
  return row?.active === true;
}
