// Compact JWS serialisation for the signer seam: `base64url(header).base64url(payload).base64url(signature)`.
import type { SigningKey } from "./signer.ts";

import { Buffer } from "node:buffer";

const enc = new TextEncoder();

/** Unpadded base64url, natively: a binary string through `btoa` and three replaces was ≈ 30× slower. */
function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** Signs `payload` as an RS256 JWT; claims whose value is `undefined` or `null` are left out. */
export async function signJwt(
  key: SigningKey,
  header: { kid: string; typ: string },
  payload: Record<string, unknown>,
): Promise<string> {
  const claims: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (v !== undefined && v !== null) claims[k] = v;
  const input = `${b64url(enc.encode(JSON.stringify({ alg: "RS256", ...header })))}.${
    b64url(enc.encode(JSON.stringify(claims)))
  }`;
  return `${input}.${b64url(await key.sign(enc.encode(input)))}`;
}
