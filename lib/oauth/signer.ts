// The RS256 signer seam: OpenSSL's libcrypto through Deno FFI where it is permitted and present (about 3× the
// signatures per second of Deno's WebCrypto RSA on this machine), WebCrypto everywhere else (Deno Deploy has no
// FFI, `deno task start` does not grant it by default).
import type { JWK } from "jose";
import { requestsInFlight } from "../http/in_flight.ts";

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
  /**
   * Signatures made so far by this signer's keys (an import's self-test and calibration included): on the
   * calling thread, and on another thread.
   */
  counts(): { inline: number; offloaded: number };
  /** OpenSSL only: what it measured of this machine when its first key was imported (undefined before) */
  calibration?(): Calibration | undefined;
}

export class SignerError extends Error {
  override name = "SignerError";
}

const RS256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

export function webCryptoSigner(reason = "chosen"): RsaSigner {
  // Deno's WebCrypto signs on its blocking thread pool: every signature leaves the event loop.
  let offloaded = 0;
  return {
    kind: "webcrypto",
    reason,
    async importKey(jwk) {
      const key = await crypto.subtle.importKey("jwk", jwk as JsonWebKey, RS256, false, ["sign"]);
      return {
        async sign(data) {
          offloaded++;
          return new Uint8Array(await crypto.subtle.sign(RS256, key, data as Uint8Array<ArrayBuffer>));
        },
      };
    },
    counts: () => ({ inline: 0, offloaded }),
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
  // The RSA private-key operation (0.28–0.97 ms per 2048-bit signature on the machines measured), called one of
  // two ways, chosen per signature by `offload` (SignerOptions): on the event loop, the cheaper in CPU (no
  // thread hand-off: 0.279 against 0.389 ms per signature in one measurement), or on Deno's blocking thread
  // pool, which leaves the event loop to the other requests waiting for it. BENCHMARKS.md "Signatures beside
  // the event loop".
  EVP_DigestSign: {
    parameters: ["pointer", "buffer", "buffer", "buffer", "usize"],
    result: "i32",
  },
  EVP_DigestSign_pooled: {
    name: "EVP_DigestSign",
    parameters: ["pointer", "buffer", "buffer", "buffer", "usize"],
    result: "i32",
    nonblocking: true,
  },
  // Does nothing: what a hand-off to the thread pool costs by itself (the calibration, below).
  OPENSSL_version_major_pooled: {
    name: "OPENSSL_version_major",
    parameters: [],
    result: "u32",
    nonblocking: true,
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

/**
 * A hand-off is worth it when a signature costs at least this many hand-offs: measured, moving signatures to the
 * thread pool under load gained 9–23 % of refreshes per second where a signature cost 20 hand-offs (0.9 against
 * 0.045 ms), gained 18–19 % where it cost about 6 (0.245 against 0.033–0.041 ms, a machine on which the earlier
 * threshold of 6 left the choice to the noise of the calibration), and lost 5–8 % where it cost 2.5 (0.28 against
 * 0.11 ms). Three, not four: on a fourth machine, where the pool gained up to a third at 16 connections, the ratio
 * measured at start-up ranged 3.15–26 over 151 starts and 8 of them fell under four. BENCHMARKS.md "Signatures
 * beside the event loop", "One refresh statement in flight", "The rotation statement".
 */
export const OFFLOAD_MIN_RATIO = 3;

/** Whether signatures of `signatureMs` leave a busy event loop, given a hand-off of `handOffMs` (Calibration). */
export function offloadPays(signatureMs: number, handOffMs: number): boolean {
  return signatureMs >= OFFLOAD_MIN_RATIO * handOffMs;
}

/** What the signer measured of this machine when it imported its first key (the start-up log line shows it). */
export interface Calibration {
  /** one 2048-bit RS256 signature on the calling thread, median of five, ms */
  signatureMs: number;
  /** one call through Deno's blocking thread pool that does nothing, median of 21, ms */
  handOffMs: number;
  /** signatureMs ≥ OFFLOAD_MIN_RATIO × handOffMs: signatures leave a busy event loop */
  offloads: boolean;
}

/** The calibration as log fields (main.ts's "signer calibrated" line). */
export function signerCalibrationFields(c: Calibration): Record<string, unknown> {
  return {
    signature_ms: Math.round(c.signatureMs * 1000) / 1000,
    hand_off_ms: Math.round(c.handOffMs * 1000) / 1000,
    offload_when_busy: c.offloads,
  };
}

function median(xs: number[]): number {
  return xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

/** By default: to another thread when the hand-off pays (Calibration) and another HTTP request is in flight. */
const busy = (): boolean => requestsInFlight() > 1;

export function openSslSigner(
  lib: Libcrypto,
  reason = "chosen",
  /** asked before each signature; by default `busy`, once the calibration found that a hand-off pays */
  offloadWhen?: () => boolean,
  onCalibrated?: (c: Calibration) => void,
): RsaSigner {
  const s = lib.symbols;
  let inline = 0;
  let offloaded = 0;
  let calibration: Calibration | undefined;
  let calibrating: Promise<Calibration> | undefined;
  // Until the first key is imported and measured, every signature is made on the calling thread.
  let offload: () => boolean = () => false;
  const sha256 = s.EVP_sha256();
  if (sha256 === null) throw new SignerError("libcrypto has no SHA-256");
  // Frees a key's EVP_PKEY when its SigningKey is garbage-collected (keys normally live for the process).
  const freeKey = new FinalizationRegistry<Deno.PointerObject>((pkey) => s.EVP_PKEY_free(pkey));

  /** Times `signNow` against an empty hand-off (OPENSSL_version_major on the pool) on this machine. */
  async function calibrate(signNow: (data: Uint8Array) => Uint8Array): Promise<Calibration> {
    const data = new Uint8Array(300); // about a JWT's signing input
    const signs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      signNow(data);
      signs.push(performance.now() - t);
    }
    const hops: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      await s.OPENSSL_version_major_pooled();
      hops.push(performance.now() - t);
    }
    // Medians: the fastest hand-off (a pool thread already awake) understates what one costs under load.
    const signatureMs = median(signs), handOffMs = median(hops);
    return { signatureMs, handOffMs, offloads: offloadPays(signatureMs, handOffMs) };
  }

  return {
    kind: "openssl",
    reason,
    calibration: () => calibration,
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
          if (offload()) return signOffloaded(data.slice());
          try {
            return Promise.resolve(signNow(data));
          } catch (err) {
            return Promise.reject(err);
          }
        },
      };
      /** A digest-sign context for this key (EVP_MD_CTX_free it). */
      function context(): Deno.PointerObject {
        const ctx = s.EVP_MD_CTX_new();
        if (ctx === null) throw new SignerError("EVP_MD_CTX_new failed");
        if (s.EVP_DigestSignInit(ctx, null, sha256, null, pkey) !== 1) {
          s.EVP_MD_CTX_free(ctx);
          throw new SignerError("EVP_DigestSignInit failed");
        }
        return ctx;
      }
      function signNow(data: Uint8Array): Uint8Array {
        const ctx = context();
        try {
          const sig = new Uint8Array(size);
          const len = new BigUint64Array([BigInt(size)]);
          if (s.EVP_DigestSign(ctx, sig, len, data, BigInt(data.length)) !== 1) {
            throw new SignerError("EVP_DigestSign failed");
          }
          inline++;
          return sig.subarray(0, Number(len[0]));
        } finally {
          s.EVP_MD_CTX_free(ctx);
        }
      }
      /**
       * The same on Deno's blocking thread pool. OpenSSL reads `data` (the caller's copy: see `sign`) and writes
       * `sig` and `len` after this function has yielded; they, the context and the key (whose finalizer frees
       * `pkey`) are held by this frame until the call has returned.
       */
      async function signOffloaded(data: Uint8Array): Promise<Uint8Array> {
        const ctx = context();
        const held = [key, data];
        try {
          const sig = new Uint8Array(size);
          const len = new BigUint64Array([BigInt(size)]);
          if (await s.EVP_DigestSign_pooled(ctx, sig, len, data, BigInt(data.length)) !== 1) {
            throw new SignerError("EVP_DigestSign failed");
          }
          offloaded++;
          return sig.subarray(0, Number(len[0]));
        } finally {
          s.EVP_MD_CTX_free(ctx);
          held.length = 0;
        }
      }
      freeKey.register(key, pkey);
      await selfTest(key, jwk);
      if (!calibrating) {
        calibrating = calibrate(signNow);
        calibration = await calibrating;
        offload = offloadWhen ?? (calibration.offloads ? busy : () => false);
        onCalibrated?.(calibration);
      } else await calibrating;
      return key;
    },
    counts: () => ({ inline, offloaded }),
  };
}

export interface SignerOptions {
  choice?: SignerChoice;
  /** a libcrypto path or name to load instead of the platform's default names */
  libcryptoPath?: string;
  /** told when `auto` falls back to WebCrypto for a key libcrypto could not sign correctly */
  onFallback?: (reason: string) => void;
  /**
   * Asked before each OpenSSL signature: true signs on Deno's blocking thread pool, false on the calling thread.
   * By default: the pool while another HTTP request is in flight in this process, when the start-up calibration
   * found a signature to cost at least OFFLOAD_MIN_RATIO hand-offs; the calling thread otherwise.
   */
  offload?: () => boolean;
  /** told what the OpenSSL signer measured when its first key was imported; main.ts logs it */
  onCalibrated?: (c: Calibration) => void;
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
    opts.offload,
    opts.onCalibrated,
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
    calibration: openssl.calibration,
    counts() {
      const a = openssl.counts(), b = fallback.counts();
      return { inline: a.inline + b.inline, offloaded: a.offloaded + b.offloaded };
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
