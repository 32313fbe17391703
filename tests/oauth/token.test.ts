// The token endpoint itself: client authentication, the form, and the grant lookup (unsupported and missing
// grant types). Each grant's own rules are tested beside it, in tests/oauth/grants/.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import {
  Browser,
  exchange,
  expectError,
  getCode,
  registerConfidential,
  registerPublic,
  setup,
  token,
} from "./helpers.ts";

Deno.test("token endpoint", async (t) => {
  const ctx = await setup();
  const app = ctx.app;
  const browser = new Browser(app);
  try {
    const pub = await registerPublic(app);

    await t.step(
      "confidential client: wrong secret → 401 invalid_client; Basic adds WWW-Authenticate",
      async () => {
        const conf = await registerConfidential(app);
        const { code, verifier } = await getCode(ctx, browser, conf);
        const wrong = await exchange(ctx, { ...conf, client_secret: "pcs_wrong" }, code, verifier);
        await expectError(wrong, 401, "invalid_client");
        const basic = await token(app, {
          grant_type: "authorization_code",
          code,
          redirect_uri: "http://127.0.0.1:8976/callback",
          code_verifier: verifier,
        }, { authorization: `Basic ${btoa(`${conf.client_id}:wrong`)}` });
        await expectError(basic, 401, "invalid_client");
        assert.match(basic.headers.get("www-authenticate")!, /^Basic realm="portico"/);
        // no secret at all
        const none = await token(app, {
          grant_type: "authorization_code",
          code,
          redirect_uri: "http://127.0.0.1:8976/callback",
          code_verifier: verifier,
          client_id: conf.client_id,
        });
        await expectError(none, 401, "invalid_client");
      },
    );

    await t.step("confidential client with correct Basic credentials succeeds", async () => {
      const conf = await registerConfidential(app, { token_endpoint_auth_method: "client_secret_basic" });
      const { code, verifier } = await getCode(ctx, browser, conf);
      const res = await token(app, {
        grant_type: "authorization_code",
        code,
        redirect_uri: "http://127.0.0.1:8976/callback",
        code_verifier: verifier,
      }, {
        authorization: `Basic ${
          btoa(`${encodeURIComponent(conf.client_id)}:${encodeURIComponent(conf.client_secret!)}`)
        }`,
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.match(body.refresh_token, /^prt_/);
      assert.equal(decodeJwt(body.access_token).client_id, conf.client_id);
    });

    await t.step(
      "unknown client, unsupported grant type, missing grant type, wrong content type",
      async () => {
        await expectError(
          await token(app, { grant_type: "authorization_code", client_id: "pcl_nope" }),
          401,
          "invalid_client",
        );
        await expectError(
          await token(app, { grant_type: "password", client_id: pub.client_id }),
          400,
          "unsupported_grant_type",
        );
        await expectError(await token(app, { client_id: pub.client_id }), 400, "invalid_request");
        const json = await app.request("/oauth/token", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ grant_type: "authorization_code" }),
        });
        await expectError(json, 400, "invalid_request");
        const repeated = await app.request("/oauth/token", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=refresh_token&grant_type=refresh_token",
        });
        await expectError(repeated, 400, "invalid_request");
      },
    );
    await t.step(
      "a public client may use Basic with an empty password; a public client sending a secret is refused",
      async () => {
        const { code, verifier } = await getCode(ctx, browser, pub);
        const res = await token(app, {
          grant_type: "authorization_code",
          code,
          redirect_uri: "http://127.0.0.1:8976/callback",
          code_verifier: verifier,
        }, { authorization: `Basic ${btoa(`${pub.client_id}:`)}` });
        assert.equal(res.status, 200);
        await res.body?.cancel();
        const { code: c2, verifier: v2 } = await getCode(ctx, browser, pub);
        await expectError(
          await exchange(ctx, { ...pub, client_secret: "pcs_made_up" }, c2, v2),
          401,
          "invalid_client",
        );
      },
    );
  } finally {
    await ctx.close();
  }
});
