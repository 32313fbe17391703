// The RS256 signer seam: OpenSSL's libcrypto through Deno FFI where it is permitted and present (about 3× the
// signatures per second of Deno's WebCrypto RSA on this machine), WebCrypto everywhere else (Deno Deploy has no
// FFI, `deno task start` does not grant it by default).
import type { JWK } from "jose";

export type SignerKind = "openssl" | "webcrypto";
export type SignerChoice = SignerKind | "auto";

/** A private key imported once; `sign` returns the RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature. */
export interface SigningKey {
  sign(data: Uint8Array): Promise<Uint8Array>;
}

export interface RsaSigner {
  readonly kind: SignerKind;
  /** Why this signer was chosen (for the start-up log line). */
  readonly reason: string;
  importKey(privateJwk: JWK): Promise<SigningKey>;
}

export class SignerError extends Error {
  override name = "SignerError";
}

const RS256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

export function webCryptoSigner(reason = "chosen"): RsaSigner {
  return {
    kind: "webcrypto",
    reason,
    async importKey(jwk) {
      const key = await crypto.subtle.importKey("jwk", jwk as JsonWebKey, RS256, false, ["sign"]);
      return {
        async sign(data) {
          return new Uint8Array(await crypto.subtle.sign(RS256, key, data as Uint8Array<ArrayBuffer>));
        },
      };
    },
  };
}

const LIBCRYPTO_SYMBOLS = {
  d2i_AutoPrivateKey: { parameters: ["pointer", "buffer", "i64"], result: "pointer" },
  EVP_PKEY_free: { parameters: ["pointer"], result: "void" },
  EVP_PKEY_get_size: { parameters: ["pointer"], result: "i32" },
  EVP_sha256: { parameters: [], result: "pointer" },
  EVP_MD_CTX_new: { parameters: [], result: "pointer" },
  EVP_MD_CTX_free: { parameters: ["pointer"], result: "void" },
  EVP_DigestSignInit: {
    parameters: ["pointer", "pointer", "pointer", "pointer", "pointer"],
    result: "i32",
  },
  // The RSA private-key operation, called synchronously on the event loop (about 0.28 ms per 2048-bit signature
  // here; 0.76 ms on a slower day). Handing it to Deno's blocking thread pool (`nonblocking: true`) was measured
  // to cost more than it saved: 0.389 against 0.279 ms of CPU per signature (the thread hand-off and wake-up),
  // on 2 cores that Postgres and the HTTP work already keep busy under load; and a non-blocking call reads its
  // buffers after the caller has yielded, so their lifetime becomes the caller's problem. A refresh signs once
  // its SQL statement has been written (`statementWritten`, grants/refresh_token.ts), so the signatures still
  // overlap the database's work. Figures: BENCHMARKS.md "Every benchmark in one sitting, second".
  EVP_DigestSign: {
    parameters: ["pointer", "buffer", "buffer", "buffer", "usize"],
    result: "i32",
  },
} as const;

type Libcrypto = Deno.DynamicLibrary<typeof LIBCRYPTO_SYMBOLS>;

/** Library names tried in order when no path is configured. */
export const LIBCRYPTO_NAMES: Record<string, string[]> = {
  linux: ["libcrypto.so.3"],
  darwin: ["libcrypto.3.dylib", "/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib"],
  windows: ["libcrypto-3-x64.dll"],
};

function ffiPermitted(): boolean {
  // Query first: an ungranted FFI call would prompt on a terminal instead of falling back.
  try {
    return typeof Deno.dlopen === "function" &&
      Deno.permissions.querySync({ name: "ffi" }).state === "granted";
  } catch {
    return false;
  }
}

function openLibcrypto(path?: string): Libcrypto {
  const names = path ? [path] : LIBCRYPTO_NAMES[Deno.build.os] ?? [];
  let last: unknown;
  for (const name of names) {
    try {
      return Deno.dlopen(name, LIBCRYPTO_SYMBOLS);
    } catch (err) {
      last = err;
    }
  }
  throw new SignerError(
    `libcrypto not found (${names.join(", ")}): ${(last as Error)?.message ?? "no candidates"}`,
  );
}

/** PKCS#8 DER of a private JWK, through WebCrypto (an extractable copy that lives only here). */
async function pkcs8(jwk: JWK): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("jwk", jwk as JsonWebKey, RS256, true, ["sign"]);
  return new Uint8Array(await crypto.subtle.exportKey("pkcs8", key));
}

export function openSslSigner(lib: Libcrypto, reason = "chosen"): RsaSigner {
  const s = lib.symbols;
  const sha256 = s.EVP_sha256();
  if (sha256 === null) throw new SignerError("libcrypto has no SHA-256");
  // Frees a key's EVP_PKEY when its SigningKey is garbage-collected (keys normally live for the process).
  const freeKey = new FinalizationRegistry<Deno.PointerObject>((pkey) => s.EVP_PKEY_free(pkey));
  return {
    kind: "openssl",
    reason,
    async importKey(jwk) {
      const der = await pkcs8(jwk);
      let pkey: Deno.PointerValue;
      try {
        // d2i_* advances the pointer it is given: hand it a one-element pointer array.
        const cursor = new BigUint64Array([BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(der)))]);
        pkey = s.d2i_AutoPrivateKey(null, cursor, BigInt(der.length));
      } finally {
        der.fill(0); // the private key's bytes do not outlive the import
      }
      if (pkey === null) throw new SignerError("libcrypto could not read the private key");
      const size = s.EVP_PKEY_get_size(pkey);
      const key: SigningKey = {
        sign(data) {
          try {
            return Promise.resolve(signNow(data));
          } catch (err) {
            return Promise.reject(err);
          }
        },
      };
      function signNow(data: Uint8Array): Uint8Array {
        const ctx = s.EVP_MD_CTX_new();
        if (ctx === null) throw new SignerError("EVP_MD_CTX_new failed");
        try {
          if (s.EVP_DigestSignInit(ctx, null, sha256, null, pkey) !== 1) {
            throw new SignerError("EVP_DigestSignInit failed");
          }
          const sig = new Uint8Array(size);
          const len = new BigUint64Array([BigInt(size)]);
          if (s.EVP_DigestSign(ctx, sig, len, data, BigInt(data.length)) !== 1) {
            throw new SignerError("EVP_DigestSign failed");
          }
          return sig.subarray(0, Number(len[0]));
        } finally {
          s.EVP_MD_CTX_free(ctx);
        }
      }
      freeKey.register(key, pkey);
      await selfTest(key, jwk);
      return key;
    },
  };
}

export interface SignerOptions {
  choice?: SignerChoice;
  /** a libcrypto path or name to load instead of the platform's default names */
  libcryptoPath?: string;
  /** told when `auto` falls back to WebCrypto for a key libcrypto could not sign correctly */
  onFallback?: (reason: string) => void;
}

/**
 * Picks the signer: `openssl` requires FFI and libcrypto (fails otherwise), `webcrypto` never loads a library,
 * `auto` uses OpenSSL when FFI is granted and libcrypto loads, WebCrypto otherwise. Every key OpenSSL imports
 * signs a test message that WebCrypto verifies against the key's public half first; under `auto` a key that
 * fails it is signed by WebCrypto instead.
 */
export function createSigner(opts: SignerOptions = {}): RsaSigner {
  const choice = opts.choice ?? "auto";
  if (choice === "webcrypto") return webCryptoSigner("SIGNER=webcrypto");
  if (!ffiPermitted()) {
    if (choice === "openssl") throw new SignerError("SIGNER=openssl needs FFI permission (--allow-ffi)");
    return webCryptoSigner("FFI not permitted");
  }
  let lib: Libcrypto;
  try {
    lib = openLibcrypto(opts.libcryptoPath);
  } catch (err) {
    if (choice === "openssl") throw err;
    return webCryptoSigner((err as Error).message);
  }
  const openssl = openSslSigner(
    lib,
    choice === "openssl" ? "SIGNER=openssl" : "FFI granted and libcrypto loaded",
  );
  if (choice === "openssl") return openssl;
  const fallback = webCryptoSigner("fallback");
  return {
    kind: openssl.kind,
    reason: openssl.reason,
    async importKey(jwk) {
      try {
        return await openssl.importKey(jwk);
      } catch (err) {
        opts.onFallback?.((err as Error).message);
        return await fallback.importKey(jwk);
      }
    },
  };
}

/** Signs a test message with a freshly imported key and verifies it with WebCrypto and the public half. */
async function selfTest(key: SigningKey, jwk: JWK): Promise<void> {
  const pub = await crypto.subtle.importKey("jwk", { kty: "RSA", n: jwk.n, e: jwk.e }, RS256, false, [
    "verify",
  ]);
  const data = new TextEncoder().encode("portico signer self-test");
  const sig = await key.sign(data);
  if (!await crypto.subtle.verify(RS256, pub, sig as Uint8Array<ArrayBuffer>, data)) {
    throw new SignerError("libcrypto's signature did not verify");
  }
}
