// Refresh in one SQL round trip (issue 17.2): client authentication, the token's checks, rotation (or a sibling
// within the grace window), superseding and the successor are one statement (the rotation statement); a refused
// request changes nothing and costs a second statement, which names the refusal;
// a change to the family held by another transaction sends the refresh to the locked path, never past it.
import { LOCKED_PATH_MARK } from "../../lib/oauth/grants/refresh_family.ts";
import {
  REFRESH_STATEMENT_MARK,
  ROTATION_STATEMENT_MARK,
} from "../../lib/oauth/grants/refresh_statements.ts";
import assert from "node:assert/strict";
import postgres from "postgres";
import { decodeJwt } from "jose";
import { sha256Hex } from "../../lib/crypto.ts";
import { testApp } from "../helpers/app.ts";
import { countingSql } from "../helpers/db.ts";
import { familyState, tokenStanding } from "../helpers/refresh_family.ts";
import { waitingOnLock } from "../helpers/wait.ts";
import {
  Browser,
  type Ctx,
  exchange,
  getCode,
  REDIRECT,
  registerConfidential,
  type Registered,
  registerPublic,
  setup,
  token,
} from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Tokens = any;

async function start(
  ctx: Ctx,
  client: Registered,
  basic = false,
): Promise<{ first: Tokens; grantId: string }> {
  const { code, verifier } = await getCode(ctx, new Browser(ctx.app), client);
  const res = basic
    ? await token(
      ctx.app,
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier },
      { authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}` },
    )
    : await exchange(ctx, client, code, verifier);
  assert.equal(res.status, 200);
  const first = await res.json();
  return { first, grantId: decodeJwt(first.access_token).grant_id as string };
}

function refresh(
  app: Ctx["app"],
  client: Registered,
  refreshToken: string,
  opts: { basic?: boolean; extra?: Record<string, string> } = {},
) {
  const fields: Record<string, string> = {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    ...opts.extra,
  };
  const headers: Record<string, string> = {};
  if (opts.basic) headers.authorization = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`;
  else {
    fields.client_id = client.client_id;
    if (client.client_secret) fields.client_secret = client.client_secret;
  }
  return token(app, fields, headers);
}

Deno.test("refresh round trips", async (t) => {
  const ctx = await setup();
  // One more client on the same database, noting every statement it sends.
  const { sql: counted, sent: queries } = countingSql(ctx.db.url);
  const app = testApp(counted);
  try {
    const pub = await registerPublic(ctx.app);
    const conf = await registerConfidential(ctx.app); // client_secret_post
    const basic = await registerPublic(ctx.app, { token_endpoint_auth_method: "client_secret_basic" });

    await t.step(
      "one statement per refresh, public and confidential clients, and a retry in the window",
      async () => {
        for (const [client, useBasic] of [[pub, false], [conf, false], [basic, true]] as const) {
          const { first } = await start(ctx, client, useBasic);
          // warm: the signing key is loaded once per app
          const warm = await refresh(app, client, first.refresh_token, { basic: useBasic });
          assert.equal(warm.status, 200);
          const second = await warm.json();
          queries.length = 0;
          const res = await refresh(app, client, second.refresh_token, { basic: useBasic });
          assert.equal(res.status, 200, await res.clone().text());
          const body = await res.json();
          assert.ok(body.refresh_token && body.access_token && body.id_token);
          assert.equal(queries.length, 1, queries.join("\n---\n"));
          assert.deepEqual(await tokenStanding(ctx.db.sql, second.refresh_token), {
            standing: "rotated",
            familyRevoked: false,
          });
          // A retry of the token just rotated (a lost response): a sibling successor, also one statement.
          queries.length = 0;
          const retry = await refresh(app, client, second.refresh_token, { basic: useBasic });
          assert.equal(retry.status, 200);
          const sibling = await retry.json();
          assert.notEqual(sibling.refresh_token, body.refresh_token);
          assert.equal(queries.length, 1, queries.join("\n---\n"));
          // Using the sibling supersedes the first successor, in the same one statement.
          queries.length = 0;
          assert.equal((await refresh(app, client, sibling.refresh_token, { basic: useBasic })).status, 200);
          assert.equal(queries.length, 1, queries.join("\n---\n"));
          assert.deepEqual(await tokenStanding(ctx.db.sql, body.refresh_token), {
            standing: "superseded",
            familyRevoked: false,
          });
        }
      },
    );

    await t.step(
      "a client that fails authentication changes nothing: the token still rotates afterwards",
      async () => {
        const { first } = await start(ctx, conf);
        const attempts: [Record<string, string>, Record<string, string>][] = [
          // wrong secret
          [{ client_id: conf.client_id, client_secret: "pcs_wrong" }, {}],
          // no secret
          [{ client_id: conf.client_id }, {}],
          // the right secret the unregistered way (this client registered client_secret_post)
          [{}, { authorization: `Basic ${btoa(`${conf.client_id}:${conf.client_secret}`)}` }],
        ];
        for (const [fields, headers] of attempts) {
          const res = await token(app, {
            grant_type: "refresh_token",
            refresh_token: first.refresh_token,
            ...fields,
          }, headers);
          assert.equal(res.status, 401);
          assert.equal((await res.json()).error, "invalid_client");
          assert.deepEqual(await tokenStanding(ctx.db.sql, first.refresh_token), {
            standing: "current",
            familyRevoked: false,
          });
        }
        // A public client presenting a secret, and another client's token.
        const foreign = await refresh(app, pub, first.refresh_token);
        assert.equal(foreign.status, 400);
        assert.equal((await foreign.json()).error, "invalid_grant");
        const withSecret = await refresh(app, { ...pub, client_secret: "pcs_x" }, first.refresh_token);
        assert.equal(withSecret.status, 401);
        assert.equal((await withSecret.json()).error, "invalid_client");
        assert.deepEqual(await tokenStanding(ctx.db.sql, first.refresh_token), {
          standing: "current",
          familyRevoked: false,
        });
        assert.equal((await refresh(app, conf, first.refresh_token)).status, 200);
      },
    );

    await t.step(
      "invalid_scope and invalid_target change nothing either: the rotation finds nothing, the checks name it",
      async () => {
        const { first } = await start(ctx, pub);
        for (
          const [extra, error] of [
            [{ scope: "openid admin" }, "invalid_scope"],
            [{ resource: "https://elsewhere.example/api" }, "invalid_target"],
          ] as const
        ) {
          queries.length = 0;
          const res = await refresh(app, pub, first.refresh_token, { extra });
          assert.equal(res.status, 400);
          assert.equal((await res.json()).error, error);
          // Two statements for a refused refresh: the rotation statement, which rotates nothing, then the checking
          // statement, which names the refusal. A refusal is also counted in the shared TOKEN_FAILURE_RATE_LIMIT
          // bucket (issue 31: one statement more, only when refused).
          const limit = queries.filter((q) => q.includes("insert into rate_buckets"));
          assert.equal(limit.length, 1, queries.join("\n---\n"));
          assert.deepEqual(
            queries.filter((q) => !q.includes("insert into rate_buckets")).map((q) =>
              q.includes(ROTATION_STATEMENT_MARK)
                ? "rotation"
                : q.includes(REFRESH_STATEMENT_MARK)
                ? "checks"
                : q
            ),
            ["rotation", "checks"],
          );
          assert.deepEqual(await tokenStanding(ctx.db.sql, first.refresh_token), {
            standing: "current",
            familyRevoked: false,
          });
        }
        assert.equal(
          (await refresh(app, pub, first.refresh_token, { extra: { scope: "openid" } })).status,
          200,
        );
      },
    );

    await t.step({
      name:
        "a successor used while the retry waits for the family sends it to the locked path: the family is revoked",
      ignore: !ctx.db.server, // needs two connections at once
      fn: async () => {
        const { first, grantId } = await start(ctx, pub);
        const r1 = await refresh(app, pub, first.refresh_token);
        assert.equal(r1.status, 200);
        const successor = (await r1.json()).refresh_token;
        // Another process uses the successor: it holds the family (the grant row) while the retry of the first
        // token arrives. The retry read the family before that change committed, when a sibling was still due.
        // The change is what a rotation of the successor writes (lib/oauth/grants/refresh_family.ts).
        const other = postgres(ctx.db.url, { max: 1, onnotice: () => {} });
        const { promise: holding, resolve: held } = Promise.withResolvers<void>();
        const { promise: release, resolve: letGo } = Promise.withResolvers<void>();
        const tx = other.begin(async (tx) => {
          await tx`update oauth_grants
                      set refresh_generation = refresh_generation + 1, refresh_hashes = array['next'],
                          refresh_rotated_hash = ${sha256Hex(successor)}, refresh_rotated_at = now()
                    where id = ${grantId}`;
          held();
          await release;
        });
        try {
          await holding;
          const retry = refresh(app, pub, first.refresh_token);
          // Wait until the retry is blocked on the grant row (its statement skipped the held row; the locked path
          // waits for it), then commit the other change. (This
          // gave up after 500 × 10 ms and let go anyway: on a loaded host the retry then read the committed
          // state, and the interleaving under test never happened.)
          await waitingOnLock(
            ctx.db.sql,
            "the retry waits on the grant row",
            1,
            `%${LOCKED_PATH_MARK}%`,
          );
          letGo();
          await tx;
          const res = await retry;
          assert.equal(res.status, 400);
          assert.equal((await res.json()).error, "invalid_grant");
          // The family is revoked, every token with it (a family's tokens are its grant row's state).
          assert.deepEqual(await familyState(ctx.db.sql, grantId), {
            revoked: true,
            generation: 3,
            current: ["next"],
            rotated: sha256Hex(successor),
          });
        } finally {
          letGo();
          await tx.catch(() => {});
          await other.end({ timeout: 5 });
        }
      },
    });
  } finally {
    await counted.end({ timeout: 5 });
    await ctx.close();
  }
});
