// Signing keys: RS256 key pairs in the database, private halves sealed with SECRET_KEY, rotatable.
import { exportJWK, generateKeyPair, type JWK } from "jose";
import type { Sql } from "../db/client.ts";
import { randomToken } from "../crypto.ts";
import { seal } from "../secret_box.ts";

export const KEY_PURPOSE = "signing-keys";

/** Generates a new key and makes it current; the previous one is retired but stays published. */
export async function rotateSigningKey(sql: Sql, secretKey: string): Promise<{ kid: string }> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", {
    extractable: true,
    modulusLength: 2048,
  });
  const kid = randomToken("", 16);
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: "RS256" };
  const sealed = await seal(secretKey, KEY_PURPOSE, JSON.stringify(privateJwk));
  await sql.begin(async (tx) => {
    await tx`update signing_keys set retired_at = now() where retired_at is null`;
    await tx`
      insert into signing_keys (kid, alg, public_jwk, private_jwk_encrypted)
      values (${kid}, 'RS256', ${tx.json(publicJwk as Record<string, string>)}, ${sealed})`;
  });
  return { kid };
}
