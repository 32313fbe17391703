// A refresh-token family for the benchmarks, as a code exchange leaves it (lib/oauth/grants/authorization_code.ts):
// a grant row holding the family's state (migration 00031) and the family's first token, generation 1.
import { sha256Hex } from "../lib/crypto.ts";
import type { Sql } from "../lib/db/client.ts";
import { mintRefreshToken } from "../lib/oauth/grants/refresh_format.ts";

/** Inserts one grant of `clientId` for `userId` with a live refresh token of 30 days; returns the token. */
export async function seedRefreshFamily(
  sql: Sql,
  secretKey: string,
  input: { clientId: string; userId: string; scopes: string[] },
): Promise<string> {
  const grantId = crypto.randomUUID();
  const token = mintRefreshToken(secretKey, grantId, 1);
  await sql`
    insert into oauth_grants (id, client_id, user_id, scopes, auth_time, amr, refresh_generation, refresh_hashes,
                              refresh_issued_at, refresh_expires_at)
    values (${grantId}, ${input.clientId}, ${input.userId}, ${input.scopes}, now(), ${["pwd"]}, 1,
            ${[sha256Hex(token)]}, now(), now() + interval '30 days')`;
  return token;
}
