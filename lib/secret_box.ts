// Authenticated encryption of small secrets at rest (signing keys) with a key derived from SECRET_KEY.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const cache = new Map<string, Promise<CryptoKey>>();

function deriveKey(secret: string, purpose: string): Promise<CryptoKey> {
  const id = `${purpose}\0${secret}`;
  let key = cache.get(id);
  if (!key) {
    key = (async () => {
      const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
      return await crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(0),
          info: encoder.encode(`portico:${purpose}`),
        },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    cache.set(id, key);
  }
  return key;
}

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** `v1.<iv>.<ciphertext>`; `purpose` separates keys derived for different uses. */
export async function seal(secret: string, purpose: string, plaintext: string): Promise<string> {
  const key = await deriveKey(secret, purpose);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, encoder.encode(plaintext)),
  );
  return `v1.${b64url(iv)}.${b64url(ct)}`;
}

/** Decrypts what `seal` made; throws when the secret differs or the text was altered. */
export async function open(secret: string, purpose: string, sealed: string): Promise<string> {
  const [version, iv, ct] = sealed.split(".");
  if (version !== "v1" || !iv || !ct) throw new Error("sealed value has an unknown format");
  const key = await deriveKey(secret, purpose);
  const pt = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64url(iv) }, key, unb64url(ct));
  return decoder.decode(pt);
}
