// RS256 signatures per second: OpenSSL through FFI against Deno's WebCrypto, alternating rounds in one process,
// at 1 and 8 signatures in flight (the token endpoint signs two per refresh).
import { exportJWK, generateKeyPair } from "jose";
import { createSigner, type SigningKey, webCryptoSigner } from "../lib/oauth/signer.ts";

async function rate(key: SigningKey, inFlight: number, ms: number): Promise<number> {
  const data = new TextEncoder().encode("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJiZW5jaCJ9");
  let n = 0;
  const end = performance.now() + ms;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (performance.now() < end) {
      await key.sign(data);
      n++;
    }
  }));
  return n / (ms / 1000);
}

export async function benchSigner(opts: { roundMs?: number; rounds?: number } = {}): Promise<void> {
  const roundMs = opts.roundMs ?? 1000;
  const rounds = opts.rounds ?? 3;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  const openssl = createSigner({ choice: "auto" });
  if (openssl.kind !== "openssl") {
    console.log(`signer: OpenSSL unavailable (${openssl.reason}); nothing to compare`);
    return;
  }
  const keys = { openssl: await openssl.importKey(jwk), webcrypto: await webCryptoSigner().importKey(jwk) };
  for (const inFlight of [1, 8]) {
    const sums = { openssl: 0, webcrypto: 0 };
    for (let r = 0; r < rounds; r++) {
      // alternate which goes first so drift in the host's speed hits both
      const order = r % 2 ? ["webcrypto", "openssl"] as const : ["openssl", "webcrypto"] as const;
      for (const k of order) sums[k] += await rate(keys[k], inFlight, roundMs);
    }
    const o = sums.openssl / rounds, w = sums.webcrypto / rounds;
    console.log(
      `signer: ${inFlight} in flight — openssl ${o.toFixed(0)}/s, webcrypto ${w.toFixed(0)}/s, ratio ${
        (o / w).toFixed(2)
      }×`,
    );
  }
}

if (import.meta.main) await benchSigner();
