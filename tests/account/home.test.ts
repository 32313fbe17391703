// /account (issue 30 point 1): the person's home — profile (name, picture) that apps then receive, and a line for
// each account page with what it holds; reachable through the account navigation of every account page.
import assert from "node:assert/strict";
import { createApiKey } from "../../lib/api_keys.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { assertSpeaks } from "../helpers/i18n.ts";
import {
  Browser,
  type Ctx,
  exchange,
  field,
  getCode,
  location,
  PASSWORD,
  registerPublic,
  setup,
} from "../oauth/helpers.ts";

async function signedIn(ctx: Ctx): Promise<Browser> {
  const b = new Browser(ctx.app);
  const page = await b.get("/signin");
  const res = await b.post("/signin", {
    csrf: field(await page.text(), "csrf")!,
    email: ctx.user.email,
    password: PASSWORD,
  });
  assert.equal(res.status, 303);
  return b;
}

Deno.test("the home shows the profile and a count for each account page; every account page links to it", async () => {
  const ctx = await setup();
  try {
    const ws = await createWorkspace(ctx.db.sql, "Home Studio", ["projects"]);
    await addMember(ctx.db.sql, ws.id, ctx.user.id, "owner", null);
    await createApiKey(ctx.db.sql, { workspaceId: ws.id, userId: ctx.user.id, kind: "user", name: "laptop" });
    const b = await signedIn(ctx);
    const client = await registerPublic(ctx.app);
    await getCode(ctx, b, client);
    const res = await b.get("/account");
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<a\s+href="\/account" aria-current="page">Account<\/a>/);
    assert.match(html, /Signed in as dana@example\.com/);
    assert.match(html, /<input id="name" name="name" value="Dana"/);
    assert.match(html, /data-summary="apps"><a href="\/account\/apps">Connected apps<\/a>: 1 application</);
    assert.match(html, /data-summary="keys"><a href="\/account\/keys">API keys<\/a>: 1 key in use/);
    assert.match(html, /data-summary="two-step"><a href="\/account\/security">Two-step sign-in<\/a>: off/);
    assert.match(html, /data-summary="sessions"><a href="\/account\/sessions">Signed in<\/a> on 1 browser</);
    assert.match(html, /data-summary="workspaces"><a href="\/account\/workspaces">Workspaces<\/a>: 1</);
    for (
      const path of [
        "/account/apps",
        "/account/keys",
        "/account/security",
        "/account/sessions",
        "/account/workspaces",
      ]
    ) {
      assert.match(await (await b.get(path)).text(), /<a\s+href="\/account"\s*>Account<\/a>/, path);
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("saving the profile: apps receive the new name and picture; bad input is refused with the reason", async () => {
  const ctx = await setup();
  try {
    const b = await signedIn(ctx);
    const csrf = field(await (await b.get("/account")).text(), "csrf")!;
    const saved = await b.post("/account/profile", {
      csrf,
      name: "  Dana Doe ",
      picture: "https://pics.example/dana.png",
    });
    assert.equal(saved.status, 303);
    assert.equal(location(saved).pathname + location(saved).search, "/account?saved=1");
    const [row] = await ctx.db.sql`select name, picture from users where id = ${ctx.user.id}`;
    assert.deepEqual({ ...row }, { name: "Dana Doe", picture: "https://pics.example/dana.png" });
    assert.match(await (await b.get("/account?saved=1")).text(), /Your profile was saved\./);

    const client = await registerPublic(ctx.app);
    const { code, verifier } = await getCode(ctx, b, client, { scope: "openid profile" });
    const tokens = await (await exchange(ctx, client, code, verifier)).json();
    const info = await (await ctx.app.request("/oauth/userinfo", {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })).json();
    assert.equal(info.name, "Dana Doe");
    assert.equal(info.picture, "https://pics.example/dana.png");

    for (
      const [form, reason] of [
        [{ name: "   ", picture: "" }, "Enter a name."],
        [{ name: "x".repeat(201), picture: "" }, "Use at most 200 characters for your name."],
        [{ name: "x".repeat(5000), picture: "" }, "Use at most 200 characters for your name."],
        [
          { name: "Dana", picture: `https://pics.example/${"p".repeat(5000)}` },
          "longer than 2000 characters",
        ],
        [
          { name: "Dana", picture: "http://pics.example/d.png" },
          "must be a web address starting with https://",
        ],
        [{ name: "Dana", picture: "javascript:alert(1)" }, "must be a web address starting with https://"],
        [
          { name: "Dana", picture: "https://user:pw@pics.example/d.png" },
          "must be a web address starting with https://",
        ],
      ] as const
    ) {
      const res = await b.post("/account/profile", { csrf, ...form });
      assert.equal(res.status, 400, reason);
      assert.ok((await res.text()).includes(reason), reason);
    }
    // The picture can be removed.
    assert.equal((await b.post("/account/profile", { csrf, name: "Dana Doe", picture: "" })).status, 303);
    const [cleared] = await ctx.db.sql`select name, picture from users where id = ${ctx.user.id}`;
    assert.deepEqual({ ...cleared }, { name: "Dana Doe", picture: null });

    // Without the CSRF token, or signed out: nothing changes.
    assert.equal(
      (await b.post("/account/profile", { csrf: "forged", name: "Mallory", picture: "" })).status,
      403,
    );
    const out = await new Browser(ctx.app).get("/account");
    assert.equal(out.status, 303);
    assert.equal(location(out).pathname + location(out).search, "/signin?return_to=%2Faccount");
    const [after] = await ctx.db.sql`select name from users where id = ${ctx.user.id}`;
    assert.equal(after.name, "Dana Doe");
  } finally {
    await ctx.close();
  }
});

Deno.test("the language: Accept-Language until the person chooses one on /account, which then wins; bounded", async () => {
  const ctx = await setup();
  try {
    const b = await signedIn(ctx);
    const fr = (path: string) => b.request(path, { headers: { "accept-language": "fr-FR,fr;q=0.9" } });
    // No setting yet: the browser's French.
    const before = await fr("/account");
    assert.equal(before.headers.get("content-language"), "fr");
    const french = await before.text();
    assertSpeaks(french, "fr", [ctx.user.email, "Dana Doe"]);
    assert.match(french, /<h1>Votre compte<\/h1>/);
    assert.match(french, /<option value="" selected>Selon mon navigateur<\/option>/);
    const csrf = field(french, "csrf")!;

    // A language that is not on the list is refused with the reason, and nothing is stored.
    const bad = await b.post("/account/profile", { csrf, name: "Dana", picture: "", locale: "xx" });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /Choose a language from the list\./);
    const [unset] = await ctx.db.sql`select locale from users where id = ${ctx.user.id}`;
    assert.equal(unset.locale, null);

    // German chosen: it wins over the browser's French, on this page and on every other account page.
    assert.equal(
      (await b.post("/account/profile", { csrf, name: "Dana", picture: "", locale: "de" })).status,
      303,
    );
    const [stored] = await ctx.db.sql`select locale from users where id = ${ctx.user.id}`;
    assert.equal(stored.locale, "de");
    const after = await fr("/account?saved=1");
    assert.equal(after.headers.get("content-language"), "de");
    const german = await after.text();
    assertSpeaks(german, "de", [ctx.user.email, "Dana"]);
    assert.match(german, /Ihr Profil wurde gespeichert\./);
    assert.match(german, /<option\s+value="de" lang="de" selected>Deutsch<\/option>/);
    assert.match(german, /<nav class="account-nav" aria-label="Ihr Konto">/);
    assert.match(await (await fr("/account/sessions")).text(), /<html lang="de"/);
    // The problem of a submitted form in the person's language.
    const empty = await b.post("/account/profile", { csrf, name: " ", picture: "", locale: "de" });
    assert.match(await empty.text(), /Geben Sie einen Namen ein\./);

    // Back to "as my browser asks": French again.
    assert.equal(
      (await b.post("/account/profile", { csrf, name: "Dana", picture: "", locale: "" })).status,
      303,
    );
    assert.equal((await fr("/account")).headers.get("content-language"), "fr");
    // Signed out, the setting is not known: the browser decides.
    const out = await new Browser(ctx.app).request("/signin", { headers: { "accept-language": "de" } });
    assert.match(await out.text(), /<html lang="de"/);
  } finally {
    await ctx.close();
  }
});
