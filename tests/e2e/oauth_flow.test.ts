// End to end: openid-client (a certified relying-party library) against a live server, with a real headless
// Chromium signing in, choosing an account and approving consent — for a public and a confidential client.
import assert from "node:assert/strict";
import * as oidc from "openid-client";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { createAgent, createUser, unlockAgent } from "../../lib/accounts.ts";
import { freshDatabase } from "../helpers/db.ts";
import { haveChromium, launchChromium, warnIfMissing } from "../helpers/browser.ts";
import { serveAtIssuer } from "../helpers/serve.ts";
import { TEST_SCRYPT } from "../helpers/app.ts";

warnIfMissing("tests/e2e/oauth_flow.test.ts");

const EMAIL = "e2e@example.com";
const PASSWORD = "e2e password 123";

Deno.test({
  name:
    "openid-client + Chromium: discovery, registration, sign-in, chooser, consent, tokens, userinfo, refresh, revoke",
  ignore: !haveChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const db = await freshDatabase();
    const userId = (await createUser(db.sql, { email: EMAIL, password: PASSWORD, name: "Eve E2E" }, {
      scrypt: TEST_SCRYPT,
    })).id;
    const agentId = (await createAgent(db.sql, "Research Assistant")).id;
    await unlockAgent(db.sql, userId, agentId);

    // The app needs its issuer (with the port) before it exists, so it is created once the listener has a port.
    const { issuer, server } = serveAtIssuer(db.sql);

    // The client's loopback redirect target: records where the browser was sent.
    const arrivals: URL[] = [];
    const callback = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const url = new URL(req.url);
      // Chromium also asks for /favicon.ico; only the callback counts.
      if (url.pathname === "/callback") arrivals.push(url);
      return new Response("<!doctype html><title>done</title><p>back at the client</p>", {
        headers: { "content-type": "text/html" },
      });
    });
    const redirectUri = `http://127.0.0.1:${callback.addr.port}/callback`;

    const browser = await launchChromium();
    const context = await browser.newContext();
    const page = await context.newPage();
    const jwks = createRemoteJWKSet(new URL(`${issuer}/oauth/jwks`));

    /** Authorizes in the browser; `act` answers the pages; returns the URL the browser arrived at. */
    async function authorize(
      config: oidc.Configuration,
      params: Record<string, string>,
      act: () => Promise<void>,
    ): Promise<URL> {
      const before = arrivals.length;
      await page.goto(oidc.buildAuthorizationUrl(config, params).href);
      await act();
      await page.waitForURL((u) => u.href.startsWith(redirectUri));
      assert.equal(arrivals.length, before + 1);
      return arrivals[arrivals.length - 1];
    }

    async function flow(
      config: oidc.Configuration,
      act: () => Promise<void>,
      extra: Record<string, string> = {},
    ) {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const callbackUrl = await authorize(config, {
        redirect_uri: redirectUri,
        scope: `openid profile agent.chat:${agentId}`,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
        ...extra,
      }, act);
      assert.equal(callbackUrl.searchParams.get("iss"), issuer);
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      // ID token: openid-client validated iss/aud/nonce/exp; check the signature against the JWKS too.
      const claims = tokens.claims()!;
      assert.equal(claims.sub, userId);
      assert.equal(claims.nonce, nonce);
      assert.equal(typeof claims.auth_time, "number");
      await jwtVerify(tokens.id_token!, jwks, { issuer, audience: config.clientMetadata().client_id });
      const at = await jwtVerify(tokens.access_token, jwks, { issuer, typ: "at+jwt" });
      assert.equal(at.payload.client_id, config.clientMetadata().client_id);
      assert.equal(tokens.scope, `openid profile agent.chat:${agentId}`);
      return tokens;
    }

    async function useTokens(config: oidc.Configuration, tokens: oidc.TokenEndpointResponse) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, userId);
      assert.equal(info.email, EMAIL);
      assert.equal(info.name, "Eve E2E");
      assert.deepEqual(info.unlocked_agents, [{ id: agentId, name: "Research Assistant" }]);

      assert.ok(tokens.refresh_token, "a refresh token is issued");
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      assert.ok(refreshed.access_token);
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      // once its successor has been used, the rotated-out token is refused (docs/oauth.md, "Refresh retries and
      // parallel refreshes": before that, a retry within 60 s would get a sibling successor)
      const again = await oidc.refreshTokenGrant(config, refreshed.refresh_token!);
      assert.ok(again.access_token);
      await assert.rejects(() => oidc.refreshTokenGrant(config, tokens.refresh_token!), (err: unknown) => {
        return err instanceof oidc.ResponseBodyError && err.error === "invalid_grant";
      });

      const fresh = await flowAgainForRevocation(config);
      await oidc.tokenRevocation(config, fresh.refresh_token!);
      await assert.rejects(() => oidc.refreshTokenGrant(config, fresh.refresh_token!), (err: unknown) => {
        return err instanceof oidc.ResponseBodyError && err.error === "invalid_grant";
      });
    }

    // A second authorization for the same client: consent is remembered, so the browser comes straight back.
    async function flowAgainForRevocation(config: oidc.Configuration) {
      return await flow(config, async () => {});
    }

    const options = { execute: [oidc.allowInsecureRequests] };
    try {
      await t.step(
        "public client: discovery + registration, sign in, consent, tokens, userinfo, refresh, revoke",
        async () => {
          const config = await oidc.dynamicClientRegistration(
            new URL(issuer),
            {
              client_name: "E2E Public",
              redirect_uris: [redirectUri],
              grant_types: ["authorization_code", "refresh_token"],
              token_endpoint_auth_method: "none",
            },
            oidc.None(),
            options,
          );
          assert.equal(config.serverMetadata().issuer, issuer);
          assert.match(config.clientMetadata().client_id, /^pcl_/);
          const tokens = await flow(config, async () => {
            await page.getByLabel("Email").fill(EMAIL);
            await page.getByLabel("Password").fill(PASSWORD);
            await page.getByRole("button", { name: "Sign in" }).click();
            await page.getByRole("heading", { name: /Allow E2E Public/ }).waitFor();
            assert.ok(
              await page.getByText("Research Assistant").count() > 0,
              "the consent page names the agent",
            );
            await page.getByRole("button", { name: "Allow" }).click();
          });
          await useTokens(config, tokens);
        },
      );

      await t.step(
        "confidential client (client_secret_basic): choose the account, consent, tokens, refresh, revoke",
        async () => {
          const config = await oidc.dynamicClientRegistration(
            new URL(issuer),
            {
              client_name: "E2E Confidential",
              redirect_uris: [redirectUri],
              grant_types: ["authorization_code", "refresh_token"],
              token_endpoint_auth_method: "client_secret_basic",
            },
            oidc.ClientSecretBasic(),
            options,
          );
          assert.match(String(config.clientMetadata().client_secret), /^pcs_/);
          const tokens = await flow(config, async () => {
            await page.getByRole("heading", { name: "Choose an account" }).waitFor();
            await page.getByRole("button", { name: /Eve E2E/ }).click();
            await page.getByRole("heading", { name: /Allow E2E Confidential/ }).waitFor();
            await page.getByRole("button", { name: "Allow" }).click();
          }, { prompt: "select_account" });
          await useTokens(config, tokens);
        },
      );

      await t.step("denying consent sends access_denied back to the client", async () => {
        const config = await oidc.dynamicClientRegistration(
          new URL(issuer),
          {
            client_name: "E2E Denied",
            redirect_uris: [redirectUri],
            token_endpoint_auth_method: "none",
          },
          oidc.None(),
          options,
        );
        const url = await authorize(config, {
          redirect_uri: redirectUri,
          scope: "openid",
          code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
          code_challenge_method: "S256",
          state: "deny-state",
        }, async () => {
          await page.getByRole("button", { name: "Deny" }).click();
        });
        assert.equal(url.searchParams.get("error"), "access_denied");
        assert.equal(url.searchParams.get("state"), "deny-state");
        assert.equal(url.searchParams.get("iss"), issuer);
      });
    } finally {
      await browser.close();
      await callback.shutdown();
      await server.shutdown();
      await db.close();
    }
  },
});
