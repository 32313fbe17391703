// A software WebAuthn authenticator for server-level tests: one ES256 key per credential, attestation "none",
// and assertions whose every part (origin, challenge, RP ID, counter, flags, signature) a test can get wrong on
// purpose. Answers have the JSON shape @simplewebauthn/browser sends.
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";

const enc = new TextEncoder();

async function sha256(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>));
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
}

/** WebCrypto's raw r||s ECDSA signature as the DER WebAuthn carries. */
function derSignature(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.slice(i);
    if (v[0] & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

const b64 = (b: Uint8Array) => isoBase64URL.fromBuffer(b as Uint8Array<ArrayBuffer>);

export interface SoftCredential {
  id: string;
  rawId: Uint8Array;
  keys: CryptoKeyPair;
  /** the user handle the server gave at registration (base64url) */
  userHandle: string;
  counter: number;
}

export interface AssertOptions {
  origin?: string;
  rpId?: string;
  challenge?: string;
  /** the counter to send (default: one more than the last) */
  counter?: number;
  userVerified?: boolean;
  /** sign with another key (a forged signature) */
  signWith?: CryptoKey;
  /** send this credential id instead */
  id?: string;
}

export class SoftAuthenticator {
  constructor(readonly origin: string, readonly rpId: string) {}

  private clientData(type: string, challenge: string, origin: string): Uint8Array {
    return enc.encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** Creates a credential for registration options; returns it and the registration answer. */
  async register(
    options: { challenge: string; user: { id: string } },
    opts: { origin?: string; userVerified?: boolean } = {},
  ): Promise<{ credential: SoftCredential; response: Record<string, unknown> }> {
    const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey("jwk", keys.publicKey);
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, isoBase64URL.toBuffer(jwk.x!)],
        [-3, isoBase64URL.toBuffer(jwk.y!)],
      ]),
    );
    const rawId = crypto.getRandomValues(new Uint8Array(32));
    const flags = 0x01 | 0x40 | (opts.userVerified === false ? 0 : 0x04);
    const authData = concat(
      await sha256(enc.encode(this.rpId)),
      new Uint8Array([flags]),
      u32(0),
      new Uint8Array(16),
      new Uint8Array([0, rawId.length]),
      rawId,
      cose,
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]) as never,
    );
    const clientDataJSON = this.clientData("webauthn.create", options.challenge, opts.origin ?? this.origin);
    const id = b64(rawId);
    return {
      credential: { id, rawId, keys, userHandle: options.user.id, counter: 0 },
      response: {
        id,
        rawId: id,
        type: "public-key",
        response: {
          clientDataJSON: b64(clientDataJSON),
          attestationObject: b64(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      },
    };
  }

  /** An assertion for `challenge` with `credential`; `opts` gets parts of it wrong. */
  async assert(credential: SoftCredential, challenge: string, opts: AssertOptions = {}) {
    const counter = opts.counter ?? credential.counter + 1;
    credential.counter = counter;
    const flags = 0x01 | (opts.userVerified === false ? 0 : 0x04);
    const authData = concat(
      await sha256(enc.encode(opts.rpId ?? this.rpId)),
      new Uint8Array([flags]),
      u32(counter),
    );
    const clientDataJSON = this.clientData(
      "webauthn.get",
      opts.challenge ?? challenge,
      opts.origin ?? this.origin,
    );
    const signed = concat(authData, await sha256(clientDataJSON));
    const raw = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        opts.signWith ?? credential.keys.privateKey,
        signed,
      ),
    );
    const id = opts.id ?? credential.id;
    return {
      id,
      rawId: id,
      type: "public-key",
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(derSignature(raw)),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
