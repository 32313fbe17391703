// Reading a refresh-token family the way the server stores it (migration 00031: its state is its grant row), so
// tests can say what each token is to its family now: current, rotated last, superseded, or an older generation.
import { sha256Hex } from "../../lib/crypto.ts";
import type { Db } from "../../lib/db/client.ts";
import { readRefreshToken } from "../../lib/oauth/grants/refresh_format.ts";
import { TEST_SECRET } from "./app.ts";

/** A family's refresh state: the grant revoked or not, the generation, the current tokens' hashes (sorted). */
export interface FamilyState {
  revoked: boolean;
  generation: number;
  /** SHA-256 of each current token, sorted */
  current: string[];
  /** SHA-256 of the token rotated last */
  rotated: string | null;
}

export async function familyState(db: Db, grantId: string): Promise<FamilyState> {
  const [row] = await db<FamilyState[]>`
    select revoked_at is not null as revoked, refresh_generation as generation,
           to_json(array(select h from unnest(refresh_hashes) h order by h)) as current,
           refresh_rotated_hash as rotated
      from oauth_grants where id = ${grantId}`;
  if (!row) throw new Error(`no grant ${grantId}`);
  return { ...row };
}

/**
 * What a token (issued under TEST_SECRET) is to its family now:
 * - `current`: one of the current tokens;
 * - `rotated`: the token rotated last (a retry within the window gets a sibling; later, reuse);
 * - `superseded`: a sibling of the token rotated last's generation that was not the one rotated;
 * - `older`: of an earlier generation (rotated or superseded before);
 * - `unknown`: none of these (not this family's).
 * `familyRevoked`: the grant is revoked (every token of it ends).
 */
export type TokenStanding = "current" | "rotated" | "superseded" | "older" | "unknown";

export async function tokenStanding(
  db: Db,
  token: string,
): Promise<{ standing: TokenStanding; familyRevoked: boolean }> {
  const presented = readRefreshToken(TEST_SECRET, token);
  if (!presented?.tagValid) throw new Error("not a refresh token of this format issued under TEST_SECRET");
  const family = await familyState(db, presented.familyId);
  const hash = sha256Hex(token);
  const standing: TokenStanding = family.current.includes(hash)
    ? "current"
    : family.rotated === hash
    ? "rotated"
    : presented.generation === family.generation - 1
    ? "superseded"
    : presented.generation < family.generation - 1
    ? "older"
    : "unknown";
  return { standing, familyRevoked: family.revoked };
}

/** The grant (family) a token of this format names. */
export function familyOf(token: string): string {
  const presented = readRefreshToken(TEST_SECRET, token);
  if (!presented) throw new Error("not a refresh token of this format");
  return presented.familyId;
}
