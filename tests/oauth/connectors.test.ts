// Every hosted connector's registration, as the client sends it (tests/fixtures/connectors/), registered and
// driven through authorize → sign-in → consent → code → token; what discovery tells Claude to pick metadata
// documents; and what `offline_access` does at authorize, token and refresh.
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { CONNECTORS } from "../fixtures/connectors/hosted_clients.ts";
import {
  authorizeThrough,
  authorizeUrl,
  Browser,
  consentPageFor,
  ISSUER,
  pkce,
  register,
  registerPublic,
  setup,
  token,
} from "./helpers.ts";

const MCP = `${ISSUER}/mcp`;

/** The URL without its query: where the browser was sent. */
function target(url: URL): string {
  return url.href.split("?")[0];
}

Deno.test("hosted connectors: each registers as it does today and completes a flow per redirect URI", async (t) => {
  const ctx = await setup({ REGISTRATION_RATE_LIMIT: "100/3600" });
  try {
    let source = 0;
    for (const connector of CONNECTORS) {
      await t.step(connector.name, async () => {
        const res = await register(ctx.app, connector.registration, `198.51.100.${++source}`);
        const client = await res.json();
        assert.equal(res.status, 201, JSON.stringify(client));
        assert.deepEqual(client.redirect_uris, connector.registration.redirect_uris);
        assert.equal(client.token_endpoint_auth_method, connector.registration.token_endpoint_auth_method);
        // Asked for nothing it may have on its own (workspace, another server's `claudeai`): openid profile.
        assert.equal(
          client.scope,
          connector.registration.scope === undefined ? "openid profile agent.purchase" : "openid profile",
        );
        assert.equal(client.application_type, connector.registration.application_type ?? "web");
        const browser = new Browser(ctx.app);
        for (const redirectUri of connector.authorizeWith) {
          const { verifier, challenge } = pkce();
          const back = await authorizeThrough(
            browser,
            authorizeUrl({
              response_type: "code",
              client_id: client.client_id,
              redirect_uri: redirectUri,
              scope: "openid profile",
              resource: MCP,
              code_challenge: challenge,
              code_challenge_method: "S256",
              state: "st-connector",
            }),
            ctx.user.email,
          );
          assert.equal(target(back), redirectUri);
          assert.equal(back.searchParams.get("state"), "st-connector");
          assert.equal(back.searchParams.get("iss"), ISSUER);
          const code = back.searchParams.get("code");
          assert.ok(code, back.href);
          const fields: Record<string, string> = {
            grant_type: "authorization_code",
            code,
            redirect_uri: redirectUri,
            code_verifier: verifier,
            resource: MCP,
          };
          const headers: Record<string, string> = {};
          if (client.client_secret) {
            headers.authorization = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`;
          } else {
            fields.client_id = client.client_id;
          }
          const tokenRes = await token(ctx.app, fields, headers);
          const tokens = await tokenRes.json();
          assert.equal(tokenRes.status, 200, JSON.stringify(tokens));
          assert.equal(tokens.scope, "openid profile");
          assert.equal(typeof tokens.refresh_token, "string");
          const claims = decodeJwt(tokens.access_token);
          assert.equal(claims.aud, MCP);
          assert.equal(claims.client_id, client.client_id);
          assert.equal(claims.sub, ctx.user.id);
        }
      });
    }

    await t.step(
      "a redirect URI of the registration, but not the one authorized with, is no redirect",
      async () => {
        const cursor = CONNECTORS.find((c) => c.name === "Cursor")!;
        const res = await register(ctx.app, cursor.registration, "198.51.100.200");
        const client = await res.json();
        const page = await new Browser(ctx.app).get(authorizeUrl({
          response_type: "code",
          client_id: client.client_id,
          redirect_uri: "cursor://anysphere.cursor-mcp/oauth/callback/",
          code_challenge: pkce().challenge,
          code_challenge_method: "S256",
        }));
        // Exact matching stays exact for private-use schemes: an error page, never a redirect.
        assert.equal(page.status, 400);
        assert.equal(page.headers.get("location"), null);
        await page.body?.cancel();
      },
    );
  } finally {
    await ctx.close();
  }
});

Deno.test("discovery tells Claude to use its metadata document: CIMD supported, and `none` as auth method", async () => {
  const ctx = await setup();
  try {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const meta = await (await ctx.app.request(path)).json();
      assert.equal(meta.client_id_metadata_document_supported, true, path);
      assert.ok(meta.token_endpoint_auth_methods_supported.includes("none"), path);
      assert.ok(meta.scopes_supported.includes("offline_access"), path);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("offline_access is accepted and never granted: refresh tokens follow the registered grant", async (t) => {
  const ctx = await setup();
  try {
    const withRefresh = await registerPublic(ctx.app, {
      redirect_uris: ["http://127.0.0.1:5173/cb"],
      scope: "openid profile offline_access",
    });
    const codeOnly = await registerPublic(ctx.app, {
      redirect_uris: ["http://127.0.0.1:5173/cb"],
      grant_types: ["authorization_code"],
      scope: "openid profile offline_access",
    });
    const asked = "openid profile offline_access";
    const url = (clientId: string, challenge: string) =>
      authorizeUrl({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "http://127.0.0.1:5173/cb",
        scope: asked,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s",
      });
    const exchange = async (clientId: string) => {
      const { verifier, challenge } = pkce();
      const back = await authorizeThrough(new Browser(ctx.app), url(clientId, challenge), ctx.user.email);
      const res = await token(ctx.app, {
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: "http://127.0.0.1:5173/cb",
        code_verifier: verifier,
        client_id: clientId,
      });
      assert.equal(res.status, 200);
      return await res.json();
    };

    await t.step("at authorize: consent does not list it as something to approve", async () => {
      const html = await consentPageFor(
        new Browser(ctx.app),
        url(withRefresh.client_id, pkce().challenge),
        ctx.user.email,
      );
      assert.ok(html.includes('action="/oauth/authorize/consent"'));
      assert.ok(!html.includes("offline_access"), "offline_access is not a permission the person grants");
    });

    let refreshToken = "";
    await t.step(
      "at token: not in the granted scope; a refresh token because refresh_token is registered",
      async () => {
        const body = await exchange(withRefresh.client_id);
        assert.equal(body.scope, "openid profile");
        assert.equal(decodeJwt(body.access_token).scope, "openid profile");
        assert.equal(typeof body.refresh_token, "string");
        refreshToken = body.refresh_token;
      },
    );

    await t.step("at token: asking for it gives no refresh token to a client without the grant", async () => {
      const body = await exchange(codeOnly.client_id);
      assert.equal(body.scope, "openid profile");
      assert.equal(body.refresh_token, undefined);
    });

    await t.step("at refresh: asked again, it is ignored, not refused", async () => {
      const res = await token(ctx.app, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: withRefresh.client_id,
        scope: "openid offline_access",
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.scope, "openid");
      assert.equal(typeof body.refresh_token, "string");
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("VS Code's metadata document (device-code grant and all) completes a flow", async () => {
  const ctx = await setup();
  // VS Code's published document, served from here so the test needs no network; only client_id differs.
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req): Response =>
      Response.json({
        client_id: `http://127.0.0.1:${server.addr.port}${new URL(req.url).pathname}`,
        client_name: "Visual Studio Code",
        logo_uri: "https://code.visualstudio.com/assets/branding/code-stable.png",
        grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        application_type: "native",
        client_uri: "https://vscode.dev/product",
        redirect_uris: ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"],
      }),
  );
  try {
    const clientId = `http://127.0.0.1:${server.addr.port}/oauth/client-metadata.json`;
    for (
      const redirectUri of [
        "http://127.0.0.1:33418/",
        "http://127.0.0.1:61012/",
        "https://vscode.dev/redirect",
      ]
    ) {
      const { verifier, challenge } = pkce();
      const back = await authorizeThrough(
        new Browser(ctx.app),
        authorizeUrl({
          response_type: "code",
          client_id: clientId,
          redirect_uri: redirectUri,
          scope: "openid profile",
          code_challenge: challenge,
          code_challenge_method: "S256",
          state: "vs",
        }),
        ctx.user.email,
      );
      assert.equal(target(back), redirectUri);
      const res = await token(ctx.app, {
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: clientId,
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(decodeJwt(body.access_token).client_id, clientId);
      assert.equal(typeof body.refresh_token, "string");
    }
  } finally {
    await server.shutdown();
    await ctx.close();
  }
});
