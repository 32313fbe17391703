// The OAuth sign-in flow's pages in German and French (issue 30 point 4): sign-in (empty, wrong password,
// throttled), the account chooser, consent (scopes, workspace, toolsets, a refused choice), the operators'
// approval (ask, wait, denied, not answered), sign-out (/oauth/logout) and the error pages of /oauth/authorize and
// /oauth/logout — each speaks the browser's language with no English left; and ui_locales beats Accept-Language
// from /oauth/authorize through sign-in to consent (the ticket carries it), and through /oauth/logout.
import assert from "node:assert/strict";
import type { Hono } from "hono";
import type { AppEnv } from "../../lib/http/types.ts";
import { sealWaiting, waitPath } from "../../lib/oauth/approval_flow.ts";
import { decideRequest } from "../../lib/oauth/approvals.ts";
import { SIGN_IN_BRAKE } from "../../lib/oauth/sign_in.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { assertSpeaks, Speaking } from "../helpers/i18n.ts";
import {
  authorizeUrl,
  Browser,
  field,
  ISSUER,
  location,
  PASSWORD,
  pkce,
  REDIRECT,
  registerPublic,
  setup,
} from "../oauth/helpers.ts";

const ctx = await setup();
Deno.test.afterAll(() => ctx.close());

const ws = await createWorkspace(ctx.db.sql, "Atelier Nord", ["projects"]);
const company = await createCompany(ctx.db.sql, ws.id, "Müller GmbH");
await addMember(ctx.db.sql, ws.id, ctx.user.id, "owner", null);
await addMember(ctx.db.sql, ws.id, ctx.other.id, "member", null);
await ctx.db.sql`update users set operator = true where id = ${ctx.other.id}`;

/** The data the pages repeat (names, addresses): not words of any language. */
const DATA = ["Dana", "Olly", "Atelier Nord", "Müller GmbH", "Research Assistant"];

let ips = 0;
/** A browser asking for `lang`, from a /24 of its own: the sign-in brake counts per network. */
const LangBrowser = class extends Speaking {
  constructor(app: Hono<AppEnv>, lang: string) {
    super(app, lang, `198.18.${++ips}.7`);
  }
};

/** Follows redirects inside the app; returns the page reached, or the redirect that leaves it. */
async function follow(b: Browser, res: Response): Promise<Response> {
  while (res.status === 302 || res.status === 303) {
    const next = location(res);
    if (next.origin !== ISSUER) return res;
    res = await b.get(next.pathname + next.search);
  }
  return res;
}

function authUrl(clientId: string, extra: Record<string, string> = {}): string {
  return authorizeUrl({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "st",
    ...extra,
  });
}

/** The page's HTML after asserting its status. */
async function page(res: Response, status = 200): Promise<string> {
  const html = await res.text();
  assert.equal(res.status, status, html.slice(0, 400));
  return html;
}

async function signInOn(b: Browser, html: string, email: string, password = PASSWORD): Promise<Response> {
  return await b.post("/signin", {
    csrf: field(html, "csrf")!,
    ticket: field(html, "ticket")!,
    email,
    password,
  });
}

/** A self-registered app the operators trust: it may ask for `workspace` without an approval step. */
async function trustedApp(name: string) {
  const client = await registerPublic(ctx.app, { client_name: name });
  await ctx.db.sql`update oauth_clients set trusted = true where client_id = ${client.client_id}`;
  return client;
}

for (const lang of ["de", "fr"] as const) {
  Deno.test(`${lang}: sign-in — empty, wrong password, throttled; the account pages' sign-in and chooser`, async () => {
    const app = await registerPublic(ctx.app, { client_name: "Kalender-Sync" });
    const b = new LangBrowser(ctx.app, lang);
    const empty = await b.get(authUrl(app.client_id));
    assert.equal(empty.headers.get("content-language"), lang);
    const html = await page(empty);
    assertSpeaks(html, lang, DATA);
    if (lang === "de") {
      assert.match(html, /<title>Anmelden · Portico<\/title>/);
      assert.match(html, /<h1>Anmelden<\/h1>/);
      assert.match(html, /<p>um mit <strong>Kalender-Sync<\/strong> fortzufahren<\/p>/);
      assert.match(html, /<label for="password">Passwort<\/label>/);
      assert.match(html, /<button type="submit">Anmelden<\/button>/);
      assert.match(html, /Oder melden Sie sich ohne Passwort mit einem Passkey an:/);
    } else {
      assert.match(html, /<h1>Se connecter<\/h1>/);
      assert.match(html, /<p>pour continuer vers <strong>Kalender-Sync<\/strong><\/p>/);
      assert.match(html, /<label for="email">Adresse e-mail<\/label>/);
      assert.match(html, />Mot de passe oublié\u00a0\?<\/a>/);
    }

    const wrong = await page(await follow(b, await signInOn(b, html, ctx.user.email, "wrong password")));
    assertSpeaks(wrong, lang, DATA);
    assert.ok(
      wrong.includes(
        lang === "de"
          ? '<p class="error" role="alert">Diese E-Mail-Adresse und dieses Passwort passen zu keinem Konto.</p>'
          : '<p class="error" role="alert">Cette adresse e-mail et ce mot de passe ne correspondent à aucun compte.</p>',
      ),
    );

    // The brake: guesses at one address from this network, until the page says to wait.
    let last = wrong;
    for (let i = 0; i <= SIGN_IN_BRAKE.perNetwork; i++) {
      last = await page(
        await follow(b, await signInOn(b, last, `guessed-${lang}@example.com`, `guess-${i}`)),
      );
    }
    assertSpeaks(last, lang, DATA);
    assert.ok(
      last.includes(
        lang === "de"
          ? "Zu viele fehlgeschlagene Versuche. Warten Sie einige Minuten und versuchen Sie es erneut."
          : "Trop de tentatives échouées. Attendez quelques minutes et réessayez.",
      ),
      "throttled",
    );

    // The account pages' sign-in (no application), after a password reset.
    const reset = await page(await b.get("/signin?reset=done"));
    assertSpeaks(reset, lang, DATA);
    assert.ok(
      reset.includes(
        lang === "de"
          ? '<p role="status">Ihr Passwort wurde geändert. Melden Sie sich mit dem neuen Passwort an.</p>'
          : '<p role="status">Votre mot de passe a été modifié. Connectez-vous avec le nouveau.</p>',
      ),
    );
  });

  Deno.test(`${lang}: the account chooser, for an app and for the account pages`, async () => {
    const app = await registerPublic(ctx.app, { client_name: "Notizblock" });
    const b = new LangBrowser(ctx.app, lang);
    // Two accounts signed in to this browser.
    for (const who of [ctx.user, ctx.other]) {
      const login = await page(await b.get("/signin?add=1"));
      const res = await b.post("/signin", {
        csrf: field(login, "csrf")!,
        email: who.email,
        password: PASSWORD,
      });
      assert.equal(res.status, 303);
    }
    const html = await page(await b.get(authUrl(app.client_id)));
    assertSpeaks(html, lang, DATA);
    assert.match(html, /action="\/oauth\/authorize\/select"/);
    if (lang === "de") {
      assert.match(html, /<h1>Konto auswählen<\/h1>/);
      assert.match(html, /<p>um mit <strong>Notizblock<\/strong> fortzufahren<\/p>/);
      assert.match(html, /<button type="submit" class="secondary">Anderes Konto verwenden<\/button>/);
    } else {
      assert.match(html, /<h1>Choisir un compte<\/h1>/);
      assert.match(html, /<button type="submit" class="secondary">Se déconnecter<\/button>/);
    }
    const own = await page(await b.get("/signin"));
    assertSpeaks(own, lang, DATA);
    assert.match(own, /action="\/account\/switch"/);
  });

  Deno.test(`${lang}: consent — scopes, workspace, toolsets; a refused choice; a workspace not one's own`, async () => {
    const app = await trustedApp("Planungshelfer");
    const b = new LangBrowser(ctx.app, lang);
    const signIn = await page(
      await b.get(authUrl(app.client_id, { scope: `openid profile workspace agent.chat:${ctx.agentId}` })),
    );
    const html = await page(await follow(b, await signInOn(b, signIn, ctx.user.email)));
    assert.match(html, /action="\/oauth\/authorize\/consent"/);
    assertSpeaks(html, lang, DATA);
    if (lang === "de") {
      assert.match(html, /<title>Planungshelfer zulassen\? · Portico<\/title>/);
      assert.match(html, /<h1><strong>Planungshelfer<\/strong> Zugriff auf Ihr Konto erlauben\?<\/h1>/);
      assert.match(html, /Angemeldet als Dana \(dana@example\.com\)/);
      assert.match(
        html,
        /<p>Die Antwort für Planungshelfer geht an <strong>127\.0\.0\.1:8976<\/strong>\. Diese Anwendung hat sich selbst registriert; Portico hat sie nicht geprüft\./,
      );
      assert.match(
        html,
        /<li {1,2}data-scope="openid">Wissen, wer Sie sind \(eine dauerhafte Kontokennung\)<\/li>/,
      );
      assert.ok(html.includes("In Ihrem Namen mit dem Agenten „Research Assistant“ chatten"));
      assert.ok(html.includes("Atelier Nord (als Inhaber, alle Unternehmen, die Sie sehen dürfen)"));
      assert.ok(html.includes("Atelier Nord, nur Müller GmbH"));
      assert.ok(html.includes("<legend>Erlaubte Werkzeuggruppen</legend>"));
      assert.match(html, /value="finance" checked\s*\/?> Angebote und Rechnungen<\/label>/);
      assert.match(html, /<button type="submit" name="decision" value="allow">Erlauben<\/button>/);
    } else {
      assert.match(
        html,
        /<h1>Autoriser <strong>Planungshelfer<\/strong> à utiliser votre compte\u00a0\?<\/h1>/,
      );
      assert.match(html, /Connecté en tant que Dana \(dana@example\.com\)/);
      assert.ok(html.includes("Savoir qui vous êtes (un identifiant de compte stable)"));
      assert.ok(
        html.includes("Atelier Nord (en tant que propriétaire, toutes les entreprises que vous voyez)"),
      );
      assert.ok(html.includes("<legend>Groupes d'outils autorisés</legend>"));
      assert.match(
        html,
        /<button type="submit" name="decision" value="deny" class="secondary">Refuser<\/button>/,
      );
    }

    // The toolset choice offered and every box cleared: the page again, with the reason.
    const again = await b.post("/oauth/authorize/consent", {
      csrf: field(html, "csrf")!,
      ticket: field(html, "ticket")!,
      decision: "allow",
      place: ws.id,
      toolset_choice: "1",
    });
    const refused = await page(again, 400);
    assertSpeaks(refused, lang, DATA);
    assert.ok(
      refused.includes(
        lang === "de"
          ? '<p class="error" role="alert">Wählen Sie mindestens eine Werkzeuggruppe, die sie nutzen darf, oder lehnen Sie die Anfrage ab.</p>'
          : '<p class="error" role="alert">Choisissez au moins un groupe d\'outils qu\'elle peut utiliser, ou refusez la demande.</p>',
      ),
    );

    // A place that is not one the person belongs to: the error page, its code word unchanged.
    const bad = await b.post("/oauth/authorize/consent", {
      csrf: field(refused, "csrf")!,
      ticket: field(refused, "ticket")!,
      decision: "allow",
      place: `${crypto.randomUUID()}:${company.id}`,
    });
    const badHtml = await page(bad, 400);
    assertSpeaks(badHtml, lang, DATA);
    assert.match(badHtml, /data-error-code="invalid_workspace"/);
    assert.match(
      badHtml,
      lang === "de" ? /<h1>Arbeitsbereich auswählen<\/h1>/ : /<h1>Choisissez un espace de travail<\/h1>/,
    );
  });

  Deno.test(`${lang}: approval — ask (a bad choice, an operator's own), wait, denied, not answered`, async () => {
    const app = await registerPublic(ctx.app, { client_name: "Wartezimmer" });
    const b = new LangBrowser(ctx.app, lang);
    const signIn = await page(await b.get(authUrl(app.client_id, { scope: "openid workspace" })));
    const ask = await page(await follow(b, await signInOn(b, signIn, ctx.user.email)));
    assert.match(ask, /action="\/oauth\/authorize\/approval"/);
    assertSpeaks(ask, lang, DATA);
    assert.match(
      ask,
      lang === "de"
        ? /<h1><strong>Wartezimmer<\/strong> braucht die Freigabe eines Betreibers<\/h1>/
        : /<h1><strong>Wartezimmer<\/strong> doit être approuvée par un opérateur<\/h1>/,
    );
    assert.ok(
      ask.includes(lang === "de" ? "Freigabe anfordern</button>" : "Demander l'approbation</button>"),
    );

    // Neither Ask nor Cancel: the page again, with the reason.
    const odd = await page(
      await b.post("/oauth/authorize/approval", {
        csrf: field(ask, "csrf")!,
        ticket: field(ask, "ticket")!,
        decision: "maybe",
        place: ws.id,
      }),
      400,
    );
    assertSpeaks(odd, lang, DATA);
    assert.ok(
      odd.includes(
        lang === "de"
          ? "Wählen Sie „Freigabe anfordern“ oder „Abbrechen“."
          : "Choisissez «\u00a0Demander l'approbation\u00a0» ou «\u00a0Annuler\u00a0».",
      ),
    );
    // Approve, from an account that is not an operator: refused with a page.
    const notOperator = await page(
      await b.post("/oauth/authorize/approval", {
        csrf: field(odd, "csrf")!,
        ticket: field(odd, "ticket")!,
        decision: "approve",
        place: ws.id,
      }),
      403,
    );
    assertSpeaks(notOperator, lang, DATA);
    assert.match(
      notOperator,
      lang === "de"
        ? /<h1>Nur Betreiber geben Apps frei<\/h1>/
        : /<h1>Seuls les opérateurs approuvent les applications<\/h1>/,
    );

    // Ask: the waiting page.
    const again = await page(await b.get(authUrl(app.client_id, { scope: "openid workspace" })));
    const asked = await b.post("/oauth/authorize/approval", {
      csrf: field(again, "csrf")!,
      ticket: field(again, "ticket")!,
      decision: "ask",
      place: ws.id,
    });
    assert.equal(asked.status, 303);
    const waitAt = location(asked);
    const wait = await page(await b.get(waitAt.pathname + waitAt.search));
    assertSpeaks(wait, lang, DATA);
    const [request] = await ctx.db.sql<{ id: string; askedAt: Date }[]>`
      select id, asked_at as "askedAt" from oauth_approval_requests where client_id = ${app.client_id}`;
    const askedAt = new Intl.DateTimeFormat(lang, {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone: "UTC",
    }).format(request.askedAt);
    assert.ok(
      wait.includes(
        lang === "de"
          ? `Sie haben die Betreiber von Portico gebeten, <strong>Wartezimmer</strong> für Atelier Nord freizugeben (angefragt am ${askedAt} UTC).`
          : `Vous avez demandé aux opérateurs de Portico d'approuver <strong>Wartezimmer</strong> pour Atelier Nord (demande du ${askedAt} UTC).`,
      ),
      wait,
    );
    assert.match(wait, lang === "de" ? />Erneut prüfen<\/a>/ : />Vérifier à nouveau<\/a>/);

    // Not answered in time (a wait past its end), then denied.
    const stale = await sealWaiting(TEST_SECRET, {
      req: {
        clientId: app.client_id,
        redirectUri: REDIRECT,
        scopes: ["openid", "workspace"],
        codeChallenge: pkce().challenge,
        prompt: [],
        state: "st",
        iat: Math.floor(Date.now() / 1000),
      },
      userId: ctx.user.id,
      requestId: request.id,
      until: Math.floor(Date.now() / 1000) - 1,
    });
    const expired = await page(await b.get(waitPath(stale)), 410);
    assertSpeaks(expired, lang, DATA);
    assert.match(expired, lang === "de" ? /<h1>Noch keine Antwort<\/h1>/ : /<h1>Pas encore de réponse<\/h1>/);
    assert.match(expired, lang === "de" ? />Zurück zu Wartezimmer<\/a>/ : />Revenir à Wartezimmer<\/a>/);

    await decideRequest(ctx.db.sql, request.id, false, { via: "cli" });
    const denied = await page(await b.get(waitAt.pathname + waitAt.search), 403);
    assertSpeaks(denied, lang, DATA);
    assert.ok(
      denied.includes(
        lang === "de"
          ? "Ein Betreiber von Portico hat <strong>Wartezimmer</strong> nicht für Ihre Arbeitsbereich-Werkzeuge freigegeben."
          : "Un opérateur de Portico n'a pas approuvé <strong>Wartezimmer</strong> pour vos outils d'espace de travail.",
      ),
    );
  });

  Deno.test(`${lang}: approval as an operator — Approve and continue`, async () => {
    const app = await registerPublic(ctx.app, { client_name: "Zeitwerk" });
    const b = new LangBrowser(ctx.app, lang);
    const signIn = await page(await b.get(authUrl(app.client_id, { scope: "openid workspace" })));
    const ask = await page(await follow(b, await signInOn(b, signIn, ctx.other.email)));
    assertSpeaks(ask, lang, DATA);
    assert.match(
      ask,
      lang === "de"
        ? /value="approve">\s*Zeitwerk freigeben und fortfahren\s*<\/button>/
        : /value="approve">\s*Approuver Zeitwerk et continuer\s*<\/button>/,
    );
    assert.ok(
      ask.includes(lang === "de" ? "Atelier Nord (als Mitglied," : "Atelier Nord (en tant que membre,"),
    );
  });

  Deno.test(`${lang}: sign-out — the question, the signed-out page, the refusals`, async () => {
    const app = await registerPublic(ctx.app, { client_name: "Abmeldetest" });
    const b = new LangBrowser(ctx.app, lang);
    const login = await page(await b.get("/signin"));
    await b.post("/signin", { csrf: field(login, "csrf")!, email: ctx.user.email, password: PASSWORD });
    const ask = await page(await b.get(`/oauth/logout?client_id=${app.client_id}`));
    assertSpeaks(ask, lang, DATA);
    if (lang === "de") {
      assert.match(ask, /<h1>Von Portico abmelden\?<\/h1>/);
      assert.match(ask, /<p><strong>Abmeldetest<\/strong> hat darum gebeten, Sie abzumelden\.<\/p>/);
      assert.match(ask, /<button type="submit" class="danger">Abmelden<\/button>/);
      assert.match(ask, />Angemeldet bleiben<\/a>/);
    } else {
      assert.match(ask, /<h1>Se déconnecter de Portico\u00a0\?<\/h1>/);
      assert.match(ask, />Rester connecté<\/a>/);
    }
    // A form that cannot be verified: refused in the page's language.
    const forged = await page(
      await b.post("/oauth/logout/confirm", { request: field(ask, "request")! }),
      403,
    );
    assertSpeaks(forged, lang, DATA);
    assert.match(forged, /data-error-code="invalid_csrf"/);
    const done = await b.post("/oauth/logout/confirm", {
      csrf: field(ask, "csrf")!,
      request: field(ask, "request")!,
    });
    assert.equal(done.headers.get("location"), "/oauth/logout/done");
    const out = await page(await b.get("/oauth/logout/done"));
    assertSpeaks(out, lang, DATA);
    assert.match(
      out,
      lang === "de" ? /<h1>Sie sind abgemeldet<\/h1>/ : /<h1>Vous êtes déconnecté<\/h1>/,
    );

    const unknown = await page(await b.get("/oauth/logout?client_id=pcl_nobody"), 400);
    assertSpeaks(unknown, lang, DATA);
    assert.match(unknown, /data-error-code="unknown_client"/);
    assert.match(
      unknown,
      lang === "de" ? /<h1>Unbekannte Anwendung<\/h1>/ : /<h1>Application inconnue<\/h1>/,
    );
    const badUri = await page(
      await b.get(
        `/oauth/logout?client_id=${app.client_id}&post_logout_redirect_uri=https://elsewhere.example/`,
      ),
      400,
    );
    assertSpeaks(badUri, lang, DATA);
    assert.match(badUri, /data-error-code="invalid_post_logout_redirect_uri"/);
    const expired = await page(await b.get("/oauth/logout/continue?request=forged"), 400);
    assertSpeaks(expired, lang, DATA);
    assert.match(expired, /data-error-code="request_expired"/);
  });

  Deno.test(`${lang}: /oauth/authorize's error pages — unknown app, unregistered redirect, refused request`, async () => {
    const b = new LangBrowser(ctx.app, lang);
    const unknown = await page(await b.get(authUrl("pcl_nobody")), 400);
    assertSpeaks(unknown, lang, DATA);
    assert.match(unknown, /data-error-code="unknown_client"/);
    assert.ok(
      unknown.includes(
        lang === "de"
          ? '<p role="alert">Die Anwendung, die Sie hierher geschickt hat, ist nicht registriert. Gehen Sie zurück und versuchen Sie es erneut, oder wenden Sie sich an die Anwendung.</p>'
          : "<p role=\"alert\">L'application qui vous a envoyé ici n'est pas enregistrée. Revenez en arrière et réessayez, ou contactez-la.</p>",
      ),
    );
    const noId = await page(await b.get("/oauth/authorize?response_type=code"), 400);
    assertSpeaks(noId, lang, DATA);
    assert.match(noId, /data-error-code="unknown_client"/);

    const app = await registerPublic(ctx.app, { client_name: "Umleiter" });
    const redirect = await page(
      await b.get(authUrl(app.client_id, { redirect_uri: "https://evil.example/cb" })),
      400,
    );
    assertSpeaks(redirect, lang, DATA);
    assert.match(redirect, /data-error-code="invalid_redirect_uri"/);
    assert.ok(redirect.includes("<code data-redirect-sent>https://evil.example/cb</code>"));
    assert.match(
      redirect,
      lang === "de" ? /<h1>Ungültige Weiterleitung<\/h1>/ : /<h1>Redirection non valable<\/h1>/,
    );

    // A self-registered app never used here gets no redirect for a refused request: a page says why; the OAuth
    // error_description in it is the client's (English, for its developer), shown as it is.
    const description = "only response_type=code is supported";
    const refused = await page(await b.get(authUrl(app.client_id, { response_type: "token" })), 400);
    assertSpeaks(refused, lang, [...DATA, description]);
    assert.match(refused, /data-error-code="unsupported_response_type"/);
    assert.ok(
      refused.includes(
        lang === "de"
          ? `Umleiter hat eine Anfrage gesendet, die Portico nicht annehmen kann: ${description}. Portico leitet Sie nicht an 127.0.0.1:8976 weiter`
          : `Umleiter a envoyé une demande que Portico ne peut pas accepter\u00a0: ${description}. Portico ne vous envoie pas vers 127.0.0.1:8976`,
      ),
    );
  });
}

Deno.test("ui_locales=de beats Accept-Language: fr from /oauth/authorize through sign-in to consent", async () => {
  const app = await trustedApp("Sprachwahl");
  const b = new LangBrowser(ctx.app, "fr");
  const signIn = await b.get(
    authUrl(app.client_id, { scope: "openid workspace", ui_locales: "es de-AT fr" }),
  );
  assert.equal(signIn.headers.get("content-language"), "de");
  const signInHtml = await page(signIn);
  assertSpeaks(signInHtml, "de", DATA);
  assert.match(signInHtml, /<h1>Anmelden<\/h1>/);

  // A wrong password: the page again (a resume URL of its own), still German.
  const wrong = await page(await follow(b, await signInOn(b, signInHtml, ctx.user.email, "wrong password")));
  assertSpeaks(wrong, "de", DATA);
  assert.match(wrong, /passen zu keinem Konto/);

  const consent = await page(await follow(b, await signInOn(b, wrong, ctx.user.email)));
  assert.match(consent, /action="\/oauth\/authorize\/consent"/);
  assertSpeaks(consent, "de", DATA);
  assert.match(consent, /<h1><strong>Sprachwahl<\/strong> Zugriff auf Ihr Konto erlauben\?<\/h1>/);

  // The refused choice on consent stays German too (its form carries the ticket).
  const again = await page(
    await b.post("/oauth/authorize/consent", {
      csrf: field(consent, "csrf")!,
      ticket: field(consent, "ticket")!,
      decision: "allow",
      place: ws.id,
      toolset_choice: "1",
    }),
    400,
  );
  assertSpeaks(again, "de", DATA);
  // And a form that cannot be verified (no CSRF token) is refused in German: its ticket says so.
  const forged = await page(
    await b.post("/oauth/authorize/consent", { ticket: field(again, "ticket")!, decision: "allow" }),
    403,
  );
  assertSpeaks(forged, "de", DATA);
  assert.match(forged, /<h1>Formular abgelaufen<\/h1>/);

  // Without ui_locales the same browser gets French.
  const plain = await page(
    await b.get(authUrl(app.client_id, { scope: "openid workspace", prompt: "login" })),
  );
  assertSpeaks(plain, "fr", DATA);
});

Deno.test("ui_locales on /oauth/logout beats Accept-Language, through to the signed-out page", async () => {
  const b = new LangBrowser(ctx.app, "fr");
  const login = await page(await b.get("/signin"));
  await b.post("/signin", { csrf: field(login, "csrf")!, email: ctx.user.email, password: PASSWORD });
  const ask = await b.get("/oauth/logout?ui_locales=de");
  assert.equal(ask.headers.get("content-language"), "de");
  const html = await page(ask);
  assertSpeaks(html, "de", DATA);
  assert.match(html, /<h1>Von Portico abmelden\?<\/h1>/);
  const done = await b.post("/oauth/logout/confirm", {
    csrf: field(html, "csrf")!,
    request: field(html, "request")!,
  });
  assert.equal(done.headers.get("location"), "/oauth/logout/done?ui_locales=de");
  const out = await page(await b.get(done.headers.get("location")!));
  assertSpeaks(out, "de", DATA);
  assert.match(out, /<h1>Sie sind abgemeldet<\/h1>/);
  // A refused request's page speaks it too.
  const refused = await page(await b.get("/oauth/logout?client_id=pcl_nobody&ui_locales=de"), 400);
  assertSpeaks(refused, "de", DATA);
});

Deno.test("discovery lists the pages' languages", async () => {
  const metadata = await (await ctx.app.request("/.well-known/openid-configuration")).json();
  assert.deepEqual(metadata.ui_locales_supported, ["en", "de", "fr"]);
});
