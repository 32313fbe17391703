// Signing key rotation across two app instances on one database, on an injected clock: the next key is
// published before anyone signs with it, both instances switch at its activation time, and the previous key
// stays published until its last token has expired.
import assert from "node:assert/strict";
import { decodeProtectedHeader, type JWK } from "jose";
import { parseConfig } from "../../lib/config.ts";
import { createDb, type Sql } from "../../lib/db/client.ts";
import { silentLogger } from "../../lib/log.ts";
import {
  createKeyStore,
  JWKS_MAX_AGE_SECONDS,
  KEY_PUBLISH_DELAY_SECONDS,
  KEY_REFRESH_SECONDS,
  type KeyStore,
  RETIRED_KEY_GRACE_SECONDS,
  rotateSigningKey,
  SIGNED_TOKEN_TTL_SECONDS,
} from "../../lib/oauth/keys.ts";
import { type RsaSigner, webCryptoSigner } from "../../lib/oauth/signer.ts";
import { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS, signAccessToken } from "../../lib/oauth/tokens.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { bearerFor, MCP_RESOURCE, TEST_ISSUER } from "../helpers/bearer.ts";
import {
  DATABASE_URL,
  freshDatabase,
  TEST_CONNECT_TIMEOUT_S,
  TEST_STATEMENT_TIMEOUT_MS,
} from "../helpers/db.ts";
import { buildFixture, postMcp } from "../helpers/mcp.ts";

const SECOND = 1000;

interface Instance {
  app: ReturnType<typeof createApp>;
  keys: KeyStore;
  sql: Sql;
}

/** An app instance with its own key cache (and, on a Postgres server, its own pool) on the shared clock. */
function instance(url: string, shared: Sql, now: () => number): Instance {
  // PGlite serves one connection: there the two instances share the pool but still have separate caches.
  const sql = DATABASE_URL
    ? createDb(url, {
      max: 3,
      connectTimeout: TEST_CONNECT_TIMEOUT_S,
      statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS,
    })
    : shared;
  const keys = createKeyStore(sql, TEST_SECRET, { now });
  const config = parseConfig({ ISSUER: TEST_ISSUER, SECRET_KEY: TEST_SECRET });
  return { app: createApp({ config, sql, log: silentLogger, secretKey: TEST_SECRET, keys }), keys, sql };
}

async function kids(i: Instance): Promise<string[]> {
  const res = await i.app.request("/oauth/jwks");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  return ((await res.json()).keys as JWK[]).map((k) => k.kid!).sort();
}

Deno.test("the lifetimes the rotation rests on come from the token and JWKS constants", () => {
  assert.equal(SIGNED_TOKEN_TTL_SECONDS, Math.max(ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS));
  // a verifier's cached JWKS (fetched just before an instance's reload) has expired before the key signs
  assert.ok(KEY_PUBLISH_DELAY_SECONDS > KEY_REFRESH_SECONDS + JWKS_MAX_AGE_SECONDS);
  assert.ok(RETIRED_KEY_GRACE_SECONDS > SIGNED_TOKEN_TTL_SECONDS);
});

Deno.test("rotation across two instances: published first, used at activation, retired after its tokens", async (t) => {
  const db = await freshDatabase();
  let clock = Date.now();
  const now = () => clock;
  const a = instance(db.url, db.sql, now);
  const b = instance(db.url, db.sql, now);
  try {
    const f = await buildFixture(db.sql);
    // A grant bound to the workspace (and its first token, signed by a third process's cache).
    const grant = await bearerFor(db.sql, {
      userId: f.users.owner,
      workspaceId: f.workspaceId,
      scopes: ["openid", "workspace"],
    });
    // The shared clock starts now, after the first key was made (on the real clock).
    clock = Date.now();
    const sign = (i: Instance, audience: string) =>
      signAccessToken(i.keys, {
        issuer: TEST_ISSUER,
        userId: f.users.owner,
        audience,
        clientId: grant.clientId,
        scopes: ["openid", "workspace"],
        grantId: grant.grantId,
        authTime: new Date(),
      });
    const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid!;
    const mcpStatus = async (i: Instance, jwt: string) => {
      const res = await postMcp(i.app, `Bearer ${jwt}`, { jsonrpc: "2.0", id: 1, method: "ping" });
      await res.body?.cancel();
      return res.status;
    };
    const userinfoStatus = async (i: Instance, jwt: string) => {
      const res = await i.app.request("/oauth/userinfo", { headers: { authorization: `Bearer ${jwt}` } });
      await res.body?.cancel();
      return res.status;
    };

    const oldKid = kidOf(grant.token);
    assert.deepEqual(await kids(a), [oldKid]);
    assert.deepEqual(await kids(b), [oldKid]);
    const oldMcp = await sign(b, MCP_RESOURCE);
    const oldUserinfo = await sign(b, TEST_ISSUER);
    assert.equal(kidOf(oldMcp), oldKid);

    // Instance A rotates (as `deno task admin keys rotate` run next to it would).
    const rotated = await rotateSigningKey(db.sql, TEST_SECRET, now);
    const newKid = rotated.kid;
    const activatesAt = Date.parse(rotated.activates_at);
    assert.equal(activatesAt, clock + KEY_PUBLISH_DELAY_SECONDS * SECOND);
    a.keys.invalidate();
    const both = [oldKid, newKid].sort();

    await t.step("A publishes the new key at once, B at its next reload; neither signs with it", async () => {
      assert.deepEqual(await kids(a), both);
      assert.equal(kidOf(await sign(a, MCP_RESOURCE)), oldKid);
      assert.equal(kidOf(await sign(b, MCP_RESOURCE)), oldKid);
      // B's cache lives at most KEY_REFRESH_SECONDS, whatever it was asked for
      clock += KEY_REFRESH_SECONDS * SECOND;
      assert.deepEqual(await kids(b), both);
      assert.deepEqual(await kids(a), both);
    });

    await t.step("up to the activation time both still sign with the old key", async () => {
      clock = activatesAt - SECOND;
      assert.equal(kidOf(await sign(a, MCP_RESOURCE)), oldKid);
      assert.equal(kidOf(await sign(b, MCP_RESOURCE)), oldKid);
      assert.deepEqual(await kids(a), both);
      assert.deepEqual(await kids(b), both);
    });

    let fromA = "", fromB = "";
    await t.step(
      "from the activation time both sign with the new key, without waiting for a reload",
      async () => {
        clock = activatesAt;
        fromA = await sign(a, MCP_RESOURCE);
        fromB = await sign(b, MCP_RESOURCE);
        assert.equal(kidOf(fromA), newKid);
        assert.equal(kidOf(fromB), newKid);
      },
    );

    await t.step(
      "during the overlap tokens of both keys verify at /mcp and UserInfo of both instances",
      async () => {
        for (const i of [a, b]) {
          assert.equal(await mcpStatus(i, oldMcp), 200);
          assert.equal(await mcpStatus(i, fromA), 200);
          assert.equal(await mcpStatus(i, fromB), 200);
          assert.equal(await userinfoStatus(i, oldUserinfo), 200);
          assert.equal(await userinfoStatus(i, await sign(i === a ? b : a, TEST_ISSUER)), 200);
        }
      },
    );

    await t.step("the old key stays published until its last token expired, then leaves", async () => {
      clock = activatesAt + RETIRED_KEY_GRACE_SECONDS * SECOND - SECOND;
      assert.deepEqual(await kids(a), both);
      assert.deepEqual(await kids(b), both);
      assert.equal(await mcpStatus(b, oldMcp), 200);
      clock = activatesAt + RETIRED_KEY_GRACE_SECONDS * SECOND;
      assert.deepEqual(await kids(a), [newKid]);
      assert.deepEqual(await kids(b), [newKid]);
      // (the old token's own exp is checked on the real clock, so it is still unexpired here: its key is gone)
      assert.equal(await userinfoStatus(b, oldUserinfo), 401);
      assert.equal(await mcpStatus(b, fromA), 200);
    });

    await t.step("a rotation overtaking a pending one: the pending key never signs", async () => {
      const second = await rotateSigningKey(db.sql, TEST_SECRET, now);
      clock += 10 * SECOND;
      const third = await rotateSigningKey(db.sql, TEST_SECRET, now);
      a.keys.invalidate();
      b.keys.invalidate();
      assert.deepEqual(await kids(a), [newKid, second.kid, third.kid].sort());
      clock = Date.parse(second.activates_at);
      assert.equal(kidOf(await sign(a, MCP_RESOURCE)), newKid);
      assert.equal(kidOf(await sign(b, MCP_RESOURCE)), newKid);
      clock = Date.parse(third.activates_at) - SECOND;
      assert.equal(kidOf(await sign(a, MCP_RESOURCE)), newKid);
      clock = Date.parse(third.activates_at);
      assert.equal(kidOf(await sign(b, MCP_RESOURCE)), third.kid);
      clock += RETIRED_KEY_GRACE_SECONDS * SECOND;
      assert.deepEqual(await kids(a), [third.kid]);
    });
  } finally {
    if (DATABASE_URL) await Promise.all([a.sql.end({ timeout: 5 }), b.sql.end({ timeout: 5 })]);
    await db.close();
  }
});

Deno.test({
  name: "`deno task admin keys rotate` and `keys list`: the next key, its activation time, the signing key",
  // The task opens its own connection; embedded PGlite serves one, so this runs on a Postgres server.
  ignore: !DATABASE_URL,
  async fn() {
    const db = await freshDatabase();
    const task = async (...args: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["task", "--quiet", "admin", ...args, "--json"],
        cwd: new URL("../../", import.meta.url),
        env: { DATABASE_URL: db.url, SECRET_KEY: TEST_SECRET, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return JSON.parse(new TextDecoder().decode(out.stdout));
    };
    try {
      const first = await createKeyStore(db.sql, TEST_SECRET).signing();
      const before = Date.now();
      const rotated = await task("keys", "rotate");
      const activates = Date.parse(rotated.activates_at);
      assert.ok(activates >= before + KEY_PUBLISH_DELAY_SECONDS * SECOND);
      assert.ok(activates <= Date.now() + KEY_PUBLISH_DELAY_SECONDS * SECOND);
      const { keys } = await task("keys", "list");
      assert.deepEqual(keys.map((k: { kid: string; state: string }) => [k.kid, k.state]), [
        [rotated.kid, "next"],
        [first.kid, "signing"],
      ]);
      assert.equal(keys[0].activates_at, rotated.activates_at);
      assert.equal(keys[0].retired_at, null);
      assert.equal(keys[1].retired_at, rotated.activates_at);
      assert.equal(
        keys[1].unpublished_at,
        new Date(activates + RETIRED_KEY_GRACE_SECONDS * SECOND).toISOString(),
      );
    } finally {
      await db.close();
    }
  },
});

Deno.test("KEY_ROTATION_DAYS: an instance whose newest key is older rotates once, however many instances look", async () => {
  assert.equal(parseConfig({}).keyRotationDays, 0);
  assert.equal(parseConfig({ KEY_ROTATION_DAYS: "30" }).keyRotationDays, 30);
  assert.throws(
    () => parseConfig({ KEY_ROTATION_DAYS: "-1" }),
    /KEY_ROTATION_DAYS must be between 0 and 3650/,
  );
  const db = await freshDatabase();
  try {
    let clock = Date.now();
    const now = () => clock;
    const first = await createKeyStore(db.sql, TEST_SECRET, { now }).signing();
    const a = createKeyStore(db.sql, TEST_SECRET, { now, rotateAfterDays: 30 });
    const b = createKeyStore(db.sql, TEST_SECRET, { now, rotateAfterDays: 30 });
    assert.deepEqual((await a.jwks()).keys.map((k) => k.kid), [first.kid]);
    clock += 30 * 86_400 * SECOND + SECOND;
    await Promise.all([a.jwks(), b.jwks()]);
    const [{ count }] = await db.sql<{ count: number }[]>`select count(*)::int as count from signing_keys`;
    assert.equal(count, 2);
    const next = (await b.jwks()).keys.map((k) => k.kid).find((kid) => kid !== first.kid)!;
    assert.equal((await a.signing()).kid, first.kid, "the automatic key waits for its activation too");
    clock += KEY_PUBLISH_DELAY_SECONDS * SECOND;
    assert.equal((await a.signing()).kid, next);
  } finally {
    await db.close();
  }
});

Deno.test("a private key is imported once however many requests sign at once; a failed import is retried", async () => {
  const db = await freshDatabase();
  try {
    const real = webCryptoSigner();
    let imports = 0;
    let failNext = true;
    const signer: RsaSigner = {
      ...real,
      async importKey(jwk) {
        imports++;
        await new Promise((r) => setTimeout(r, 5)); // an import takes a while: the others arrive meanwhile
        if (failNext) {
          failNext = false;
          throw new Error("libcrypto refused the key");
        }
        return await real.importKey(jwk);
      },
    };
    const keys = createKeyStore(db.sql, TEST_SECRET, { signer });
    const failed = await Promise.allSettled(Array.from({ length: 16 }, () => keys.signing()));
    assert.equal(imports, 1, "sixteen concurrent requests, one import");
    assert.ok(failed.every((r) => r.status === "rejected"), "they all share its failure");
    const again = await Promise.all(Array.from({ length: 16 }, () => keys.signing()));
    assert.equal(imports, 2, "the next requests import again, once");
    assert.equal(new Set(again.map((k) => k.signer)).size, 1);
    await keys.signing();
    assert.equal(imports, 2);
  } finally {
    await db.close();
  }
});
