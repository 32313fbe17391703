// oauth4webapi 3 (panva's strict, certified-client building blocks) against Portico: discovery, the
// authorization response (RFC 9207 `iss`), the code exchange with its ID token checks, refresh, UserInfo,
// RFC 9068 access-token validation, introspection and revocation — each answer through the library's own
// `process…` validators, which refuse anything off-spec.
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  type Ctx,
  ISSUER,
  pkce,
  REDIRECT,
  registerPublic,
  setup,
} from "./helpers.ts";

function options(ctx: Ctx) {
  return {
    [oauth.customFetch]: (url: string, init?: RequestInit) => Promise.resolve(ctx.app.request(url, init)),
    [oauth.allowInsecureRequests]: true, // the test issuer is http://localhost
  };
}

Deno.test("oauth4webapi 3: the whole lifecycle passes the library's strict validators", async () => {
  const ctx = await setup();
  try {
    const opts = options(ctx);
    const issuer = new URL(ISSUER);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, opts));
    assert.equal(as.issuer, ISSUER);
    assert.equal(as.authorization_response_iss_parameter_supported, true);

    const registered = await registerPublic(ctx.app, {
      token_endpoint_auth_method: "client_secret_post",
      grant_types: ["authorization_code", "refresh_token"],
      scope: "openid profile offline_access",
    });
    const client: oauth.Client = { client_id: registered.client_id };
    const auth = oauth.ClientSecretPost(registered.client_secret!);

    const { verifier, challenge } = pkce();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const callback = await authorizeThrough(
      new Browser(ctx.app),
      authorizeUrl({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        scope: "openid profile offline_access",
        code_challenge: challenge,
        code_challenge_method: "S256",
        state,
        nonce,
      }),
      ctx.user.email,
    );
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const code = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, verifier, opts),
      { expectedNonce: nonce, requireIdToken: true },
    );
    const claims = oauth.getValidatedIdTokenClaims(code)!;
    assert.equal(claims.sub, ctx.user.id);
    assert.equal(claims.nonce, nonce);
    assert.equal(code.token_type, "bearer");
    assert.ok(code.refresh_token);

    // RFC 9068: the access token is a JWT the library validates against the published keys.
    const jwt = await oauth.validateJwtAccessToken(
      as,
      new Request(`${ISSUER}/api`, { headers: { authorization: `Bearer ${code.access_token}` } }),
      ISSUER,
      opts,
    );
    assert.equal(jwt.sub, ctx.user.id);
    assert.equal(jwt.client_id, client.client_id);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, code.refresh_token!, opts),
    );
    assert.notEqual(refreshed.refresh_token, code.refresh_token);
    assert.equal(oauth.getValidatedIdTokenClaims(refreshed)!.auth_time, claims.auth_time);

    const info = await oauth.processUserInfoResponse(
      as,
      client,
      ctx.user.id,
      await oauth.userInfoRequest(as, client, refreshed.access_token, opts),
    );
    assert.equal(info.sub, ctx.user.id);
    assert.equal("picture" in info, false);

    const active = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, refreshed.access_token, opts),
    );
    assert.equal(active.active, true);
    assert.equal(active.sub, ctx.user.id);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.access_token, opts),
    );
    const after = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, refreshed.access_token, opts),
    );
    assert.equal(after.active, false);
    // The grant is gone: its refresh token is refused with the library's typed error.
    await assert.rejects(
      async () =>
        await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, opts),
        ),
      (err) => err instanceof oauth.ResponseBodyError && err.error === "invalid_grant",
    );
  } finally {
    await ctx.close();
  }
});
