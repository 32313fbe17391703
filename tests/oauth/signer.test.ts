// The RS256 signer seam: OpenSSL through FFI and WebCrypto produce the same signatures, and the choice falls
// back (or fails) exactly as documented.
import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { Hono } from "hono";
import { requestAnswered, requestsInFlight, requestStarted } from "../../lib/http/in_flight.ts";
import { requestContext } from "../../lib/http/middleware.ts";
import { createLogger } from "../../lib/log.ts";
import {
  type Calibration,
  createSigner,
  offloadPays,
  SignerError,
  webCryptoSigner,
} from "../../lib/oauth/signer.ts";

const RS256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

async function keyPair(): Promise<{ privateJwk: JWK; publicKey: CryptoKey }> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", {
    extractable: true,
    modulusLength: 2048,
  });
  return { privateJwk: await exportJWK(privateKey), publicKey: publicKey as CryptoKey };
}

const enc = new TextEncoder();

Deno.test("signer: OpenSSL and WebCrypto sign identically (PKCS#1 v1.5 is deterministic) and verify", async () => {
  const openssl = createSigner({ choice: "openssl" });
  assert.equal(openssl.kind, "openssl");
  const web = webCryptoSigner();
  const { privateJwk, publicKey } = await keyPair();
  const a = await openssl.importKey(privateJwk);
  const b = await web.importKey(privateJwk);
  for (const text of ["", "header.payload", "x".repeat(10_000)]) {
    const data = enc.encode(text);
    const sa = await a.sign(data);
    const sb = await b.sign(data);
    assert.equal(sa.length, 256);
    assert.deepEqual(sa, sb);
    assert.equal(await crypto.subtle.verify(RS256, publicKey, sa as Uint8Array<ArrayBuffer>, data), true);
  }
});

Deno.test("signer: 64 concurrent OpenSSL signatures with one key all verify", async () => {
  const signer = createSigner({ choice: "openssl" });
  const { privateJwk, publicKey } = await keyPair();
  const key = await signer.importKey(privateJwk);
  const results = await Promise.all(Array.from({ length: 64 }, async (_, i) => {
    const data = enc.encode(`message ${i}`);
    const sig = await key.sign(data);
    return await crypto.subtle.verify(RS256, publicKey, sig as Uint8Array<ArrayBuffer>, data);
  }));
  assert.equal(results.filter(Boolean).length, 64);
});

Deno.test("signer: the caller's buffer may change after sign() is called", async () => {
  const { privateJwk, publicKey } = await keyPair();
  const key = await createSigner({ choice: "openssl" }).importKey(privateJwk);
  const data = enc.encode("original");
  const pending = key.sign(data);
  data.fill(0);
  const sig = await pending;
  assert.equal(
    await crypto.subtle.verify(RS256, publicKey, sig as Uint8Array<ArrayBuffer>, enc.encode("original")),
    true,
  );
});

Deno.test("signer: on the thread pool, signatures equal the calling thread's, verify, and ignore later changes to the caller's buffer", async () => {
  const { privateJwk, publicKey } = await keyPair();
  const pooled = createSigner({ choice: "openssl", offload: () => true });
  const here = createSigner({ choice: "openssl", offload: () => false });
  const a = await pooled.importKey(privateJwk);
  const b = await here.importKey(privateJwk);
  const before = { pooled: pooled.counts(), here: here.counts() };
  const texts = ["", "header.payload", "x".repeat(10_000)];
  const sigs = await Promise.all(texts.map((t) => a.sign(enc.encode(t))));
  for (const [i, text] of texts.entries()) {
    assert.deepEqual(sigs[i], await b.sign(enc.encode(text)));
    assert.equal(
      await crypto.subtle.verify(RS256, publicKey, sigs[i] as Uint8Array<ArrayBuffer>, enc.encode(text)),
      true,
    );
  }
  // 64 at once through the pool, each message overwritten as soon as it was handed over
  const datas = Array.from({ length: 64 }, (_, i) => enc.encode(`message ${i}`));
  const pending = datas.map((d) => a.sign(d));
  for (const d of datas) d.fill(0);
  const many = await Promise.all(pending);
  for (const [i, sig] of many.entries()) {
    const data = enc.encode(`message ${i}`);
    assert.equal(
      await crypto.subtle.verify(RS256, publicKey, sig as Uint8Array<ArrayBuffer>, data),
      true,
      `${i}`,
    );
  }
  assert.deepEqual(pooled.counts(), {
    inline: before.pooled.inline,
    offloaded: before.pooled.offloaded + 67,
  });
  assert.deepEqual(here.counts(), { inline: before.here.inline + 3, offloaded: 0 });
});

Deno.test("signer: a hand-off pays where a signature costs three of them or more (the machines measured)", () => {
  // BENCHMARKS.md "Signatures beside the event loop", "One refresh statement in flight", "The rotation
  // statement": where the pool won (20 and about 6 hand-offs a signature, and the fourth machine's start-ups that
  // measured under four) and where it lost (2.5).
  assert.equal(offloadPays(0.9, 0.045), true);
  assert.equal(offloadPays(0.245, 0.041), true);
  assert.equal(offloadPays(0.245, 0.033), true);
  assert.equal(offloadPays(0.203, 0.054), true);
  assert.equal(offloadPays(0.205, 0.051), true);
  assert.equal(offloadPays(0.28, 0.11), false);
  assert.equal(offloadPays(0.75, 0.25), true);
  assert.equal(offloadPays(0.75, 0.2501), false);
});

Deno.test("signer: the first import measures a signature against a hand-off; by default a busy process signs on the pool only when the hand-off pays", async () => {
  const seen: Calibration[] = [];
  const signer = createSigner({ choice: "openssl", onCalibrated: (c) => seen.push(c) });
  assert.equal(signer.calibration?.(), undefined);
  const { privateJwk, publicKey } = await keyPair();
  // Three keys imported at once, then a fourth: measured once per signer.
  const others = await Promise.all([keyPair(), keyPair()]);
  const [key] = await Promise.all(
    [privateJwk, ...others.map((o) => o.privateJwk)].map((j) => signer.importKey(j)),
  );
  await signer.importKey((await keyPair()).privateJwk);
  assert.equal(seen.length, 1);
  const [c] = seen;
  assert.deepEqual(signer.calibration?.(), c);
  assert.ok(c.signatureMs > 0 && c.handOffMs > 0, JSON.stringify(c));
  assert.equal(c.offloads, offloadPays(c.signatureMs, c.handOffMs));

  const data = enc.encode("payload");
  const count = () => signer.counts();
  // One request in flight (this one): the calling thread.
  requestStarted();
  try {
    assert.equal(requestsInFlight(), 1);
    const before = count();
    await key.sign(data);
    assert.deepEqual(count(), { inline: before.inline + 1, offloaded: before.offloaded });
    // Another request arrives: the pool, if the hand-off pays on this machine.
    requestStarted();
    try {
      const busyBefore = count();
      const sig = await key.sign(data);
      assert.equal(await crypto.subtle.verify(RS256, publicKey, sig as Uint8Array<ArrayBuffer>, data), true);
      assert.deepEqual(
        count(),
        c.offloads
          ? { inline: busyBefore.inline, offloaded: busyBefore.offloaded + 1 }
          : { inline: busyBefore.inline + 1, offloaded: busyBefore.offloaded },
      );
    } finally {
      requestAnswered();
    }
  } finally {
    requestAnswered();
  }
  assert.equal(requestsInFlight(), 0);
});

Deno.test("requestsInFlight: the app's first middleware counts requests while they run, and after a thrown error", async () => {
  const app = new Hono();
  const seen: number[] = [];
  const gates: (() => void)[] = [];
  app.use("*", requestContext(createLogger("error", () => {})));
  app.get("/wait", async (c) => {
    seen.push(requestsInFlight());
    await new Promise<void>((resolve) => gates.push(resolve));
    return c.text("ok");
  });
  app.onError((_err, c) => c.text("failed", 500));
  app.get("/throw", () => {
    seen.push(requestsInFlight());
    throw new Error("boom");
  });
  assert.equal(requestsInFlight(), 0);
  const three = [app.request("/wait"), app.request("/wait"), app.request("/wait")];
  while (gates.length < 3) await new Promise((r) => setTimeout(r, 1));
  assert.equal(requestsInFlight(), 3);
  const thrown = await app.request("/throw");
  assert.equal(thrown.status, 500);
  assert.equal(requestsInFlight(), 3);
  for (const g of gates) g();
  for (const r of await Promise.all(three)) assert.equal(await r.text(), "ok");
  assert.deepEqual(seen.slice(0, 3), [1, 2, 3]);
  assert.equal(seen[3], 4);
  assert.equal(requestsInFlight(), 0);
});

Deno.test("signer: choices — webcrypto never loads a library; a missing libcrypto fails openssl, auto falls back", () => {
  assert.equal(createSigner({ choice: "webcrypto" }).kind, "webcrypto");
  assert.equal(createSigner({ choice: "auto" }).kind, "openssl"); // tests run with FFI granted
  assert.throws(
    () => createSigner({ choice: "openssl", libcryptoPath: "/nonexistent/libcrypto.so.3" }),
    (err) => err instanceof SignerError && /libcrypto not found/.test(err.message),
  );
  const auto = createSigner({ choice: "auto", libcryptoPath: "/nonexistent/libcrypto.so.3" });
  assert.equal(auto.kind, "webcrypto");
  assert.match(auto.reason, /libcrypto not found/);
});

Deno.test("signer: a key libcrypto cannot read is refused under openssl and signed by WebCrypto under auto", async () => {
  const { privateJwk, publicKey } = await keyPair();
  // A private JWK whose public half does not match its private half: OpenSSL signs, the self-test refuses.
  const other = (await keyPair()).privateJwk;
  const mismatched = { ...privateJwk, n: other.n };
  await assert.rejects(
    createSigner({ choice: "openssl" }).importKey(mismatched),
    (err) => err instanceof Error,
  );
  const reasons: string[] = [];
  const auto = createSigner({ choice: "auto", onFallback: (r) => reasons.push(r) });
  const key = await auto.importKey(privateJwk);
  const data = enc.encode("ok");
  assert.equal(
    await crypto.subtle.verify(RS256, publicKey, (await key.sign(data)) as Uint8Array<ArrayBuffer>, data),
    true,
  );
  assert.deepEqual(reasons, []);
});

Deno.test("signer: without FFI permission auto uses WebCrypto and openssl refuses (no prompt)", async () => {
  const code = `
    import { createSigner } from ${
    JSON.stringify(new URL("../../lib/oauth/signer.ts", import.meta.url).href)
  };
    const auto = createSigner({ choice: "auto" });
    let refused = "";
    try { createSigner({ choice: "openssl" }); } catch (e) { refused = e.message; }
    console.log(JSON.stringify({ kind: auto.kind, reason: auto.reason, refused }));
  `;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, code);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-read", file],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(file);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
    kind: "webcrypto",
    reason: "FFI not permitted",
    refused: "SIGNER=openssl needs FFI permission (--allow-ffi)",
  });
});

Deno.test("signJwt: jose verifies tokens from both signers; null and undefined claims are left out", async () => {
  const { signJwt } = await import("../../lib/oauth/jwt_sign.ts");
  const { jwtVerify, decodeProtectedHeader } = await import("jose");
  const { privateJwk, publicKey } = await keyPair();
  for (const signer of [createSigner({ choice: "openssl" }), webCryptoSigner()]) {
    const key = await signer.importKey(privateJwk);
    const token = await signJwt(key, { kid: "k1", typ: "at+jwt" }, {
      sub: "u1",
      name: "Zoë ✓",
      picture: null,
      nonce: undefined,
      exp: Math.floor(Date.now() / 1000) + 60,
    });
    assert.deepEqual(decodeProtectedHeader(token), { alg: "RS256", kid: "k1", typ: "at+jwt" });
    const { payload } = await jwtVerify(token, publicKey, { typ: "at+jwt", algorithms: ["RS256"] });
    assert.equal(payload.sub, "u1");
    assert.equal(payload.name, "Zoë ✓");
    assert.equal("picture" in payload, false);
    assert.equal("nonce" in payload, false);
  }
});
