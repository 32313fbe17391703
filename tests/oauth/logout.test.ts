// OpenID Connect RP-Initiated Logout 1.0 at /oauth/logout, driven by a certified relying-party library
// (openid-client's buildEndSessionUrl): discovery, registered post_logout_redirect_uris, the confirmation page
// and its CSRF, the exact redirect with state, refused hints and addresses (a page, never a redirect), and the
// ways a client registers its addresses (dynamic registration, the admin CLI, a metadata document).
import assert from "node:assert/strict";
import * as oidc from "openid-client";
import { generateKeyPair, SignJWT } from "jose";
import { runAdmin } from "../../lib/admin/cli.ts";
import { createKeyStore } from "../../lib/oauth/keys.ts";
import { signJwt } from "../../lib/oauth/jwt_sign.ts";
import { validateMetadataDocument } from "../../lib/oauth/metadata_document.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import {
  Browser,
  type Ctx,
  exchange,
  field,
  getCode,
  ISSUER,
  register,
  type Registered,
  registerPublic,
  setup,
} from "./helpers.ts";

const BYE = "https://rp.example/bye";
const BYE_QUERY = "https://rp.example/bye?from=portico";

async function oidcConfig(ctx: Ctx, clientId: string): Promise<oidc.Configuration> {
  const metadata = await (await ctx.app.request("/.well-known/openid-configuration")).json();
  const config = new oidc.Configuration(metadata, clientId);
  oidc.allowInsecureRequests(config); // the test issuer is http://localhost
  return config;
}

/** A browser signed in as the test user through a full authorization; its ID token for `client`. */
async function signedIn(ctx: Ctx, client: Registered): Promise<{ browser: Browser; idToken: string }> {
  // Each step starts from no browser session at all.
  await ctx.db.sql`delete from browser_sessions`;
  const browser = new Browser(ctx.app);
  const { code, verifier } = await getCode(ctx, browser, client);
  const body = await (await exchange(ctx, client, code, verifier)).json();
  assert.ok(body.id_token, "an ID token");
  return { browser, idToken: body.id_token };
}

function pathOf(url: URL): string {
  return url.pathname + url.search;
}

async function sessionsOf(ctx: Ctx, userId: string): Promise<number> {
  const [row] = await ctx.db.sql<{ n: number }[]>`
    select count(*)::int as n from browser_session_accounts where user_id = ${userId}`;
  return row.n;
}

async function assertRefusedPage(res: Response, code: string) {
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("location"), null);
  assert.match(res.headers.get("content-type")!, /^text\/html/);
  const html = await res.text();
  assert.ok(html.includes(`data-error-code="${code}"`), `error code ${code} in ${html.slice(0, 300)}`);
}

Deno.test("RP-initiated logout (openid-client)", async (t) => {
  const ctx = await setup();
  try {
    const client = await registerPublic(ctx.app, { post_logout_redirect_uris: [BYE, BYE_QUERY] });
    const config = await oidcConfig(ctx, client.client_id);

    await t.step("discovery advertises end_session_endpoint", () => {
      assert.equal(config.serverMetadata().end_session_endpoint, `${ISSUER}/oauth/logout`);
    });

    await t.step("confirm, then exactly the registered address with state; the session is gone", async () => {
      const { browser, idToken } = await signedIn(ctx, client);
      assert.equal(await sessionsOf(ctx, ctx.user.id), 1);
      const url = oidc.buildEndSessionUrl(config, {
        id_token_hint: idToken,
        post_logout_redirect_uri: BYE,
        state: "st 1&2",
      });
      const ask = await browser.get(pathOf(url));
      assert.equal(ask.status, 200);
      assert.equal(ask.headers.get("location"), null);
      const html = await ask.text();
      assert.match(html, /Sign out of .*Portico.*\?/s);
      assert.ok(html.includes(ctx.user.email));
      assert.ok(html.includes('action="/oauth/logout/confirm"'));
      // Asking changed nothing.
      assert.equal(await sessionsOf(ctx, ctx.user.id), 1);

      // Without the CSRF token (or with another browser's): refused, still signed in.
      const request = field(html, "request")!;
      const noCsrf = await browser.post("/oauth/logout/confirm", { request });
      assert.equal(noCsrf.status, 403);
      assert.equal(noCsrf.headers.get("location"), null);
      const stranger = new Browser(ctx.app);
      const strangersCsrf = field(await (await stranger.get("/signin")).text(), "csrf")!;
      const forged = await browser.post("/oauth/logout/confirm", { csrf: strangersCsrf, request });
      assert.equal(forged.status, 403);
      assert.equal(await sessionsOf(ctx, ctx.user.id), 1);

      const done = await browser.post("/oauth/logout/confirm", { csrf: field(html, "csrf")!, request });
      assert.equal(done.status, 303);
      assert.equal(done.headers.get("location"), "https://rp.example/bye?state=st%201%262");
      assert.equal(await sessionsOf(ctx, ctx.user.id), 0);
      const [left] = await ctx.db.sql<{ n: number }[]>`select count(*)::int as n from browser_sessions`;
      assert.equal(left.n, 0, "the session was this account's alone: it is deleted");
      const [event] = await ctx.db.sql<{ kind: string; detail: Record<string, string> }[]>`
        select kind, detail from security_events where user_id = ${ctx.user.id} and kind = 'signed_out'`;
      assert.equal(event.detail.client_id, client.client_id);
      // The browser is signed out: an account page sends it to sign in.
      const after = await browser.get("/account/apps");
      assert.equal(after.status, 303);
      assert.match(after.headers.get("location")!, /^\/signin/);
    });

    await t.step(
      "a registered address with its own query keeps it; no state, no state parameter",
      async () => {
        const { browser, idToken } = await signedIn(ctx, client);
        const ask = await browser.get(
          pathOf(
            oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: BYE_QUERY }),
          ),
        );
        const html = await ask.text();
        const done = await browser.post("/oauth/logout/confirm", {
          csrf: field(html, "csrf")!,
          request: field(html, "request")!,
        });
        assert.equal(done.headers.get("location"), BYE_QUERY);
      },
    );

    await t.step("an unregistered post_logout_redirect_uri: an error page, no redirect", async () => {
      const { browser, idToken } = await signedIn(ctx, client);
      for (const uri of ["https://evil.example/bye", "https://rp.example/bye/", "https://rp.example/BYE"]) {
        const res = await browser.get(
          pathOf(oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: uri })),
        );
        await assertRefusedPage(res, "invalid_post_logout_redirect_uri");
      }
      // Another client's registered address is not this client's.
      const other = await registerPublic(ctx.app, {
        post_logout_redirect_uris: ["https://other.example/bye"],
      });
      const res = await browser.get(
        pathOf(oidc.buildEndSessionUrl(config, {
          id_token_hint: idToken,
          post_logout_redirect_uri: "https://other.example/bye",
        })),
      );
      await assertRefusedPage(res, "invalid_post_logout_redirect_uri");
      // client_id of another client beside the hint: refused too.
      const mixed = await browser.get(
        `/oauth/logout?${new URLSearchParams({ id_token_hint: idToken, client_id: other.client_id })}`,
      );
      await assertRefusedPage(mixed, "invalid_request");
      // An address without any client: nothing to check it against.
      const bare = await browser.get(
        `/oauth/logout?${new URLSearchParams({ post_logout_redirect_uri: BYE })}`,
      );
      await assertRefusedPage(bare, "invalid_request");
      assert.equal(await sessionsOf(ctx, ctx.user.id), 1, "still signed in");
    });

    await t.step(
      "a forged hint and another issuer's hint are refused; an expired genuine one is not",
      async () => {
        const { browser, idToken } = await signedIn(ctx, client);
        const keys = createKeyStore(ctx.db.sql, TEST_SECRET);
        const { kid, signer } = await keys.signing();
        const now = Math.floor(Date.now() / 1000);
        const claims = {
          iss: ISSUER,
          sub: ctx.user.id,
          aud: client.client_id,
          iat: now - 7200,
          exp: now - 3600,
        };
        // The right kid, another key: the signature does not verify.
        const { privateKey } = await generateKeyPair("RS256");
        const forged = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid, typ: "JWT" }).sign(
          privateKey,
        );
        // Our key, another issuer.
        const foreign = await signJwt(signer, { kid, typ: "JWT" }, {
          ...claims,
          iss: "https://other.example",
        });
        // A tampered payload of a genuine token.
        const [h, , s] = idToken.split(".");
        const tampered = `${h}.${
          btoa(JSON.stringify({ ...claims, sub: ctx.other.id })).replace(/=+$/, "")
        }.${s}`;
        for (const hint of [forged, foreign, tampered, "not-a-jwt"]) {
          const res = await browser.get(
            pathOf(oidc.buildEndSessionUrl(config, { id_token_hint: hint, post_logout_redirect_uri: BYE })),
          );
          await assertRefusedPage(res, "invalid_id_token_hint");
        }
        const expired = await signJwt(signer, { kid, typ: "JWT" }, claims);
        const res = await browser.get(
          pathOf(oidc.buildEndSessionUrl(config, { id_token_hint: expired, post_logout_redirect_uri: BYE })),
        );
        assert.equal(res.status, 200, "an expired ID token of ours is a valid hint");
        assert.ok((await res.text()).includes('action="/oauth/logout/confirm"'));
      },
    );

    await t.step("the hint's account signs out; another account of the browser stays", async () => {
      const { browser, idToken } = await signedIn(ctx, client);
      // Olly signs in to the same browser too.
      const add = await browser.get("/signin?add=1");
      const signIn = await browser.post("/signin", {
        csrf: field(await add.text(), "csrf")!,
        email: ctx.other.email,
        password: "correct horse battery",
      });
      assert.equal(signIn.status, 303);
      const [{ id: sessionId }] = await ctx.db.sql<{ id: string }[]>`
        select session_id as id from browser_session_accounts where user_id = ${ctx.other.id}`;
      const ask = await browser.get(
        pathOf(oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: BYE })),
      );
      const html = await ask.text();
      assert.ok(html.includes(ctx.user.email) && !html.includes(ctx.other.email), "only Dana is named");
      const done = await browser.post("/oauth/logout/confirm", {
        csrf: field(html, "csrf")!,
        request: field(html, "request")!,
      });
      assert.equal(done.headers.get("location"), BYE);
      const rows = await ctx.db.sql<{ user_id: string }[]>`
        select user_id from browser_session_accounts where session_id = ${sessionId}`;
      assert.deepEqual(rows.map((r) => r.user_id), [ctx.other.id]);
      // A hint naming an account this browser is not signed in to: nothing to ask, straight back.
      const again = await browser.get(
        pathOf(
          oidc.buildEndSessionUrl(config, {
            id_token_hint: idToken,
            post_logout_redirect_uri: BYE,
            state: "x",
          }),
        ),
      );
      assert.equal(again.status, 303);
      assert.equal(again.headers.get("location"), `${BYE}?state=x`);
      assert.equal(await sessionsOf(ctx, ctx.other.id), 1, "Olly is still signed in");
      await ctx.db.sql`delete from browser_sessions`;
    });

    await t.step("without a hint: every account of the browser, after confirmation", async () => {
      const { browser } = await signedIn(ctx, client);
      const url = `/oauth/logout?${new URLSearchParams({
        client_id: client.client_id,
        post_logout_redirect_uri: BYE,
      })}`;
      const ask = await browser.get(url);
      assert.equal(ask.status, 200);
      const html = await ask.text();
      assert.ok(html.includes(ctx.user.email));
      const done = await browser.post("/oauth/logout/confirm", {
        csrf: field(html, "csrf")!,
        request: field(html, "request")!,
      });
      assert.equal(done.headers.get("location"), BYE);
      assert.equal(await sessionsOf(ctx, ctx.user.id), 0);
      // No client at all: the confirmation, then our own page.
      const second = await signedIn(ctx, client);
      const plain = await (await second.browser.get("/oauth/logout")).text();
      const end = await second.browser.post("/oauth/logout/confirm", {
        csrf: field(plain, "csrf")!,
        request: field(plain, "request")!,
      });
      assert.equal(end.headers.get("location"), "/oauth/logout/done");
      const page = await second.browser.get("/oauth/logout/done");
      assert.equal(page.status, 200);
      assert.match(await page.text(), /You are signed out/);
      assert.equal(await sessionsOf(ctx, ctx.user.id), 0);
    });

    await t.step("a POSTed request continues as a GET that carries the browser's cookies", async () => {
      const { browser, idToken } = await signedIn(ctx, client);
      const res = await browser.post("/oauth/logout", {
        id_token_hint: idToken,
        post_logout_redirect_uri: BYE,
        state: "p",
      });
      assert.equal(res.status, 303);
      const next = res.headers.get("location")!;
      assert.match(next, /^\/oauth\/logout\/continue\?request=/);
      const ask = await browser.get(next);
      assert.equal(ask.status, 200);
      const html = await ask.text();
      const done = await browser.post("/oauth/logout/confirm", {
        csrf: field(html, "csrf")!,
        request: field(html, "request")!,
      });
      assert.equal(done.headers.get("location"), `${BYE}?state=p`);
      // A POSTed unregistered address is refused the same way.
      const bad = await browser.post("/oauth/logout", {
        id_token_hint: idToken,
        post_logout_redirect_uri: "https://evil.example/",
      });
      await assertRefusedPage(bad, "invalid_post_logout_redirect_uri");
      const stale = await browser.get("/oauth/logout/continue?request=v1.forged.value");
      assert.equal(stale.status, 400);
    });
  } finally {
    await ctx.close();
  }
});

Deno.test("post_logout_redirect_uris: registration, the admin CLI and metadata documents", async (t) => {
  const ctx = await setup();
  try {
    await t.step("registration validates and answers them", async () => {
      const ok = await register(ctx.app, { post_logout_redirect_uris: [BYE, "http://127.0.0.1:9000/bye"] });
      assert.equal(ok.status, 201);
      const body = await ok.json();
      assert.deepEqual(body.post_logout_redirect_uris, [BYE, "http://127.0.0.1:9000/bye"]);
      const [row] = await ctx.db.sql<{ uris: string[] }[]>`
        select post_logout_redirect_uris as uris from oauth_clients where client_id = ${body.client_id}`;
      assert.deepEqual(row.uris, [BYE, "http://127.0.0.1:9000/bye"]);
      for (
        const bad of [
          ["http://rp.example/bye"],
          ["https://rp.example/bye#x"],
          ["com.example.app:/bye"],
          ["not a uri"],
          [`https://rp.example/${"a".repeat(2000)}`],
          Array.from({ length: 21 }, (_, i) => `https://rp.example/${i}`),
          "https://rp.example/bye",
        ]
      ) {
        const res = await register(ctx.app, { post_logout_redirect_uris: bad });
        assert.equal(res.status, 400, JSON.stringify(bad).slice(0, 80));
        const err = await res.json();
        assert.equal(err.error, "invalid_client_metadata");
        assert.match(err.error_description, /post_logout_redirect_uris/);
      }
    });

    await t.step("admin client create --post-logout-redirect-uri", async () => {
      const out: string[] = [];
      const err: string[] = [];
      const io = {
        sql: ctx.db.sql,
        secretKey: TEST_SECRET,
        out: (l: string) => out.push(l),
        err: (l: string) => err.push(l),
      };
      const code = await runAdmin([
        "client",
        "create",
        "--name",
        "CLI",
        "--redirect-uri",
        "https://app.example/cb",
        "--post-logout-redirect-uri",
        BYE,
        "--json",
      ], io);
      assert.equal(code, 0, err.join(" "));
      const { client_id } = JSON.parse(out[0]);
      const [row] = await ctx.db.sql<{ uris: string[] }[]>`
        select post_logout_redirect_uris as uris from oauth_clients where client_id = ${client_id}`;
      assert.deepEqual(row.uris, [BYE]);
      out.length = 0;
      assert.equal(await runAdmin(["client", "show", client_id, "--json"], io), 0);
      assert.deepEqual(JSON.parse(out[0]).post_logout_redirect_uris, [BYE]);
      const refused = await runAdmin([
        "client",
        "create",
        "--name",
        "CLI",
        "--redirect-uri",
        "https://app.example/cb",
        "--post-logout-redirect-uri",
        "http://rp.example/bye",
        "--json",
      ], { ...io, out: () => {}, err: (l: string) => err.push(l) });
      assert.notEqual(refused, 0);
      assert.match(err.join(" "), /post_logout_redirect_uri/);
    });

    await t.step("a metadata document's post_logout_redirect_uris are read and checked", () => {
      const id = "https://app.example/client.json";
      const doc = validateMetadataDocument(id, {
        client_id: id,
        redirect_uris: ["https://app.example/cb"],
        post_logout_redirect_uris: [BYE],
      });
      assert.deepEqual(doc.postLogoutRedirectUris, [BYE]);
      assert.throws(
        () =>
          validateMetadataDocument(id, {
            client_id: id,
            redirect_uris: ["https://app.example/cb"],
            post_logout_redirect_uris: ["javascript:alert(1)"],
          }),
        /post_logout_redirect_uris/,
      );
    });
  } finally {
    await ctx.close();
  }
});
