// The sign-in security pages in German and French (issue 30 point 4): the second step of a sign-in and its
// problems (a wrong code, a wrong recovery code, the brake's 429 page, few recovery codes left, an expired
// sign-in), the set-up walk a workspace requires, the two-step settings, passkeys (list, rename with a bad name,
// remove, the second step with a passkey, the ceremony's JSON errors and the script's words), the security
// overview and changing the password (a wrong one, a weak one with its reason), "Forgot password?" with bad and
// expired links and the dev mailbox — each through the app with the browser's Accept-Language, checked with
// assertSpeaks and exact texts. The authorization request's ui_locales holds through /signin/verify. The reset
// mail, through a real SMTP server, speaks the person's setting, else the language of the request.
import assert from "node:assert/strict";
import { createUser } from "../../lib/accounts.ts";
import { parseConfig } from "../../lib/config.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { createLogger } from "../../lib/log.ts";
import { createMailer } from "../../lib/mail.ts";
import { useRecoveryCode } from "../../lib/security/recovery_codes.ts";
import { currentStep, totpCode } from "../../lib/security/totp.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { createApp } from "../../routes/mod.ts";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { freshDatabase } from "../helpers/db.ts";
import { assertSpeaks, Speaking, visibleText } from "../helpers/i18n.ts";
import { smtpServer } from "../helpers/smtp_server.ts";
import { SoftAuthenticator } from "../helpers/soft_authenticator.ts";
import { eventually } from "../helpers/wait.ts";
import {
  authorizeUrl,
  Browser,
  type Ctx,
  field,
  ISSUER,
  location,
  PASSWORD,
  pkce,
  REDIRECT,
  registerPublic,
  setup,
} from "../oauth/helpers.ts";

type Lang = "de" | "fr";
const LANGS: Lang[] = ["de", "fr"];

/** The page at `path`: its status is `status`; its HTML. */
async function page(b: Browser, path: string, status = 200): Promise<string> {
  const res = await b.get(path);
  const html = await res.text();
  assert.equal(res.status, status, `${path}: ${html.slice(0, 300)}`);
  return html;
}

/** A form answered with a page (a problem): its status is `status`; its HTML. */
async function posted(b: Browser, path: string, fields: Record<string, string>, status: number) {
  const res = await b.post(path, fields);
  const html = await res.text();
  assert.equal(res.status, status, `${path}: ${html.slice(0, 300)}`);
  return html;
}

/** The page's visible text contains `text` exactly (entities decoded). */
function says(html: string, text: string): void {
  const visible = visibleText(html);
  assert.ok(visible.includes(text), `expected «${text}» in: ${visible}`);
}

/** Signs in with the password from the sign-in page; returns where the sign-in sent the browser. */
async function signIn(b: Browser, email: string): Promise<string> {
  const csrf = field(await (await b.get("/signin")).text(), "csrf")!;
  const res = await b.post("/signin", { csrf, email, password: PASSWORD });
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return res.headers.get("location")!;
}

function manualKey(html: string): string {
  return html.match(/data-manual-key>([A-Z2-7 ]+)</)![1].replaceAll(" ", "");
}

function codesOn(html: string): string[] {
  return [...html.matchAll(/<li[^>]*><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]);
}

/** Sets up the authenticator app from the account page of `b`; returns the secret and the recovery codes. */
async function setUpApp(b: Browser, lang: Lang) {
  const html = await page(b, "/account/security/two-step/setup");
  const secret = manualKey(html);
  const res = await b.post("/account/security/two-step/setup", {
    csrf: field(html, "csrf")!,
    setup: field(html, "setup")!,
    code: totpCode(secret, currentStep()),
  });
  await res.body?.cancel();
  assert.equal(res.headers.get("location"), "/account/security/two-step?done=on");
  const shown = await page(b, "/account/security/two-step?done=on");
  assert.match(shown, new RegExp(`<html lang="${lang}"`));
  return { secret, codes: codesOn(shown), shown };
}

const TWO_STEP = {
  de: {
    off: "Deaktiviert. Die Anmeldung fragt nur nach Ihrem Passwort.",
    qr: 'aria-label="QR-Code für Ihre Authenticator-App"',
    wrongCode:
      "Dieser Code ist nicht richtig. Prüfen Sie, ob die App dieses Konto anzeigt, und geben Sie den " +
      "neuesten Code ein.",
    on:
      "Die zweistufige Anmeldung ist aktiviert. Nach Ihrem Passwort fragt die Anmeldung jetzt nach einem Code " +
      "aus Ihrer App.",
    codes: "Ihre Wiederherstellungscodes",
    wrongPassword: "Dieses Passwort ist nicht richtig. Es wurde nichts geändert.",
    typeCode: "Geben Sie den 6-stelligen Code ein, den Ihre Authenticator-App für dieses Konto anzeigt.",
    recovery: "Dieser Wiederherstellungscode ist nicht richtig oder wurde bereits verwendet.",
    low:
      "Sie haben noch 2 Wiederherstellungscodes. Erstellen Sie in Ihrem Konto unter Sicherheit, Zweistufige " +
      "Anmeldung neue, bevor Sie einen brauchen.",
    braked: "Zu viele falsche Codes. Versuchen Sie es in 1 Minute erneut.",
  },
  fr: {
    off: "Désactivée. La connexion ne demande que votre mot de passe.",
    qr: `aria-label="Code QR pour votre application d'authentification"`,
    wrongCode:
      "Ce code n'est pas correct. Vérifiez que l'application affiche bien ce compte, et saisissez le " +
      "code le plus récent.",
    on:
      "La connexion en deux étapes est activée. Après votre mot de passe, la connexion demande désormais un " +
      "code de votre application.",
    codes: "Vos codes de récupération",
    wrongPassword: "Ce mot de passe n'est pas correct. Rien n'a été modifié.",
    typeCode:
      "Saisissez le code à 6 chiffres que votre application d'authentification affiche pour ce compte.",
    recovery: "Ce code de récupération n'est pas correct, ou a déjà été utilisé.",
    low: "Il vous reste 2 codes de récupération. Créez-en de nouveaux dans votre compte, sous Sécurité, " +
      "Connexion en deux étapes, avant d'en avoir besoin.",
    braked: "Trop de codes erronés. Réessayez dans 1 minute.",
  },
};

Deno.test("two-step settings and the second step of a sign-in speak German and French, problems included", async () => {
  for (const lang of LANGS) {
    const ctx = await setup();
    try {
      const t = TWO_STEP[lang];
      const email = ctx.user.email;
      const b = new Speaking(ctx.app, lang);
      assert.equal(await signIn(b, email), "/account/apps");

      const off = await page(b, "/account/security/two-step");
      assertSpeaks(off, lang, [email]);
      says(off, t.off);
      const setupPage = await page(b, "/account/security/two-step/setup");
      assertSpeaks(setupPage, lang);
      assert.ok(setupPage.includes(t.qr), "the QR code's label");
      const wrong = await posted(b, "/account/security/two-step/setup", {
        csrf: field(setupPage, "csrf")!,
        setup: field(setupPage, "setup")!,
        code: "12345x",
      }, 400);
      assertSpeaks(wrong, lang);
      says(wrong, t.wrongCode);
      const { codes, shown } = await setUpApp(b, lang);
      assertSpeaks(shown, lang, [email]);
      says(shown, t.on);
      says(shown, t.codes);
      const badOff = await b.post("/account/security/two-step/off", {
        csrf: field(shown, "csrf")!,
        password: "no",
      });
      await badOff.body?.cancel();
      assert.equal(badOff.headers.get("location"), "/account/security/two-step?error=password");
      const refused = await page(b, "/account/security/two-step?error=password");
      assertSpeaks(refused, lang, [email]);
      says(refused, t.wrongPassword);
      // A word the page does not know names nothing, not even an inherited property.
      assertSpeaks(await page(b, "/account/security/two-step?done=constructor&error=toString"), lang, [
        email,
      ]);

      // The second step of a sign-in in another browser.
      const second = new Speaking(ctx.app, lang);
      const verifyPath = await signIn(second, email);
      const p = new URL(verifyPath, ISSUER).searchParams.get("p")!;
      const verify = await page(second, verifyPath);
      assertSpeaks(verify, lang, [email]);
      says(verify, t.typeCode);
      const form = { csrf: field(verify, "csrf")!, p };
      const wrongCode = await posted(second, "/signin/verify/totp", { ...form, code: "12345x" }, 400);
      assertSpeaks(wrongCode, lang, [email]);
      says(wrongCode, t.wrongCode);
      const wrongRecovery = await posted(
        second,
        "/signin/verify/recovery",
        { ...form, code: "aaaaa-aaaaa" },
        400,
      );
      assertSpeaks(wrongRecovery, lang, [email]);
      says(wrongRecovery, t.recovery);
      // Few recovery codes left: seven used already, the eighth over HTTP leaves two.
      for (const code of codes.slice(0, 7)) {
        assert.notEqual(await useRecoveryCode(ctx.db.sql, ctx.user.id, code), null);
      }
      const low = await posted(second, "/signin/verify/recovery", { ...form, code: codes[7] }, 200);
      assertSpeaks(low, lang);
      says(low, t.low);
      // Wrong codes until the brake answers (5 failures pass within a day; 4 were counted above).
      let braked: Response | undefined;
      for (let i = 0; i < 10 && !braked; i++) {
        const res = await second.post("/signin/verify/totp", { ...form, code: "12345x" });
        if (res.status === 429) braked = res;
        else await res.body?.cancel();
      }
      assert.ok(braked, "the brake answered 429");
      assert.equal(braked.headers.get("retry-after"), "60");
      const brakedHtml = await braked.text();
      assertSpeaks(brakedHtml, lang);
      says(brakedHtml, t.braked);
    } finally {
      await ctx.close();
    }
  }
});

Deno.test("the set-up walk a workspace requires and an expired sign-in speak German and French; ui_locales holds through /signin/verify", async () => {
  const ctx = await setup();
  try {
    const ws = await createWorkspace(ctx.db.sql, "Acme Books", ["projects"]);
    await ctx.db.sql`update workspaces set require_two_factor = true where id = ${ws.id}`;
    const people: Record<Lang, { id: string; email: string }> = { de: ctx.user, fr: ctx.other };
    const texts = {
      de: {
        intro: "Acme Books verlangt die zweistufige Anmeldung: nach Ihrem Passwort ein Code aus einer " +
          "Authenticator-App auf Ihrem Smartphone.",
        wrong: "Dieser Code ist nicht richtig.",
        on: "Die zweistufige Anmeldung ist aktiviert",
        expired: "Diese Anmeldung ist abgelaufen",
      },
      fr: {
        intro: "Acme Books exige la connexion en deux étapes : après votre mot de passe, un code d'une " +
          "application d'authentification sur votre téléphone.",
        wrong: "Ce code n'est pas correct.",
        on: "La connexion en deux étapes est activée",
        expired: "Cette connexion a expiré",
      },
    };
    for (const lang of LANGS) {
      const who = people[lang];
      await addMember(ctx.db.sql, ws.id, who.id, "member", null);
      const b = new Speaking(ctx.app, lang);
      const path = await signIn(b, who.email);
      const p = new URL(path, ISSUER).searchParams.get("p")!;
      const intro = await page(b, path);
      assertSpeaks(intro, lang, [who.email, "Acme Books"]);
      says(intro, texts[lang].intro);
      const setupPage = await page(b, `/signin/setup?p=${encodeURIComponent(p)}`);
      assertSpeaks(setupPage, lang, [who.email]);
      const base = { csrf: field(setupPage, "csrf")!, p, setup: field(setupPage, "setup")! };
      const wrong = await posted(b, "/signin/setup", { ...base, code: "12345x" }, 400);
      assertSpeaks(wrong, lang, [who.email]);
      says(wrong, texts[lang].wrong);
      const right = await b.post("/signin/setup", {
        ...base,
        code: totpCode(manualKey(setupPage), currentStep()),
      });
      await right.body?.cancel();
      assert.equal(right.status, 303);
      const codes = await page(b, right.headers.get("location")!);
      assertSpeaks(codes, lang);
      says(codes, texts[lang].on);
      const expired = await page(b, "/signin/verify?p=forged", 400);
      assertSpeaks(expired, lang);
      says(expired, texts[lang].expired);
    }

    // ui_locales=fr in the authorization request wins over the browser's German on the second step.
    const client = await registerPublic(ctx.app, { client_name: "Lingo" });
    const b = new Speaking(ctx.app, "de");
    let res = await b.get(authorizeUrl({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      scope: "openid",
      state: "s",
      ui_locales: "fr-CA de",
    }));
    while (res.status === 302 || res.status === 303) {
      await res.body?.cancel();
      const next = location(res);
      res = await b.get(next.pathname + next.search);
    }
    const signInPage = await res.text();
    const answer = await b.post("/signin", {
      csrf: field(signInPage, "csrf")!,
      ticket: field(signInPage, "ticket")!,
      email: ctx.user.email,
      password: PASSWORD,
    });
    await answer.body?.cancel();
    const verifyPath = answer.headers.get("location")!;
    assert.equal(new URL(verifyPath, ISSUER).pathname, "/signin/verify");
    const verify = await b.get(verifyPath);
    assert.equal(verify.headers.get("content-language"), "fr");
    const html = await verify.text();
    assertSpeaks(html, "fr", [ctx.user.email]);
    const wrong = await posted(b, "/signin/verify/totp", {
      csrf: field(html, "csrf")!,
      p: new URL(verifyPath, ISSUER).searchParams.get("p")!,
      code: "12345x",
    }, 400);
    assertSpeaks(wrong, "fr", [ctx.user.email]);
    says(wrong, "Ce code n'est pas correct.");

    // Without ui_locales, the person's own setting (read with the password) wins over the browser's French on
    // the second step, before the account has joined any session.
    await ctx.db.sql`update users set locale = 'de' where id = ${ctx.user.id}`;
    const own = new Speaking(ctx.app, "fr");
    const form = await (await own.get("/signin")).text();
    const signedIn = await own.post("/signin", {
      csrf: field(form, "csrf")!,
      email: ctx.user.email,
      password: PASSWORD,
    });
    await signedIn.body?.cancel();
    const ownVerify = await own.get(signedIn.headers.get("location")!);
    assert.equal(ownVerify.headers.get("content-language"), "de");
    assertSpeaks(await ownVerify.text(), "de", [ctx.user.email]);
  } finally {
    await ctx.close();
  }
});

const soft = new SoftAuthenticator(ISSUER, "localhost");

async function postJson(b: Browser, path: string, body: unknown): Promise<Response> {
  return await b.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const PASSKEYS = {
  de: {
    none: "Noch keine Passkeys.",
    waiting: 'data-say-waiting="Warten auf Ihren Passkey …"',
    nameProblem: "Geben Sie dem Passkey eine Bezeichnung mit 1 bis 100 Zeichen.",
    added: "Der Passkey wurde hinzugefügt. Sie können sich jetzt damit anmelden.",
    facts: /nur auf einem Gerät, hinzugefügt \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC, zuletzt verwendet nie/,
    remove: "Der Passkey Dana Laptop funktioniert hier ab sofort nicht mehr",
    confirm: "Mit einem Passkey bestätigen",
    expired: "Beginnen Sie erneut auf der Anmeldeseite.",
    pageExpired: "Die Seite ist abgelaufen. Laden Sie sie neu und versuchen Sie es erneut.",
  },
  fr: {
    none: "Aucune clé d'accès pour l'instant.",
    waiting: `data-say-waiting="En attente de votre clé d'accès…"`,
    nameProblem: "Donnez à la clé d'accès un nom de 1 à 100 caractères.",
    added: "La clé d'accès a été ajoutée. Vous pouvez maintenant vous connecter avec.",
    facts:
      /sur un seul appareil, ajoutée le \d{1,2} \S+ \d{4}, \d{2}:\d{2} UTC, dernière utilisation : jamais/,
    remove: "La clé d'accès Dana Laptop cesse immédiatement de fonctionner ici",
    confirm: "Confirmer avec une clé d'accès",
    expired: "Recommencez depuis la page de connexion.",
    pageExpired: "La page a expiré. Rechargez-la et réessayez.",
  },
};

Deno.test("passkey pages, the script's words and the ceremonies' JSON errors speak German and French", async () => {
  for (const lang of LANGS) {
    const ctx = await setup();
    try {
      const t = PASSKEYS[lang];
      const email = ctx.user.email;
      const b = new Speaking(ctx.app, lang);
      await signIn(b, email);
      const list = await page(b, "/account/security/passkeys");
      assertSpeaks(list, lang, [email]);
      says(list, t.none);
      assert.ok(list.includes(t.waiting), "the script's words come from the page");
      const csrf = field(list, "csrf")!;
      const bad = await postJson(b, "/account/security/passkeys/options", { csrf, name: " " });
      assert.equal(bad.status, 400);
      assert.deepEqual(await bad.json(), { error: "invalid_name", error_description: t.nameProblem });

      const name = "Dana Laptop";
      const options = await (await postJson(b, "/account/security/passkeys/options", { csrf, name })).json();
      const { response } = await soft.register(options);
      const done = await postJson(b, "/account/security/passkeys", { csrf, name, response });
      assert.deepEqual(await done.json(), { redirect: "/account/security/passkeys?done=added" });
      const added = await page(b, "/account/security/passkeys?done=added");
      assertSpeaks(added, lang, [email, name]);
      says(added, t.added);
      assert.match(visibleText(added), t.facts);
      const id = added.match(/data-passkey-id="([^"]+)"/)![1];

      const rename = await page(b, `/account/security/passkeys/rename?id=${id}`);
      assertSpeaks(rename, lang, [name]);
      const badName = await posted(b, "/account/security/passkeys/rename", {
        csrf: field(rename, "csrf")!,
        id,
        name: "   ",
      }, 400);
      assertSpeaks(badName, lang, [name]);
      says(badName, t.nameProblem);
      const remove = await page(b, `/account/security/passkeys/remove?id=${id}`);
      assertSpeaks(remove, lang, [name]);
      says(remove, t.remove);

      // The second step with a passkey, and its expired page.
      const second = new Speaking(ctx.app, lang);
      const verifyPath = await signIn(second, email);
      const p = new URL(verifyPath, ISSUER).searchParams.get("p")!;
      assertSpeaks(await page(second, verifyPath), lang, [email]);
      const withPasskey = await page(second, `/signin/verify/passkey?p=${encodeURIComponent(p)}`);
      assertSpeaks(withPasskey, lang, [email]);
      says(withPasskey, t.confirm);
      assert.ok(withPasskey.includes(t.waiting));
      const expired = await page(second, "/signin/verify/passkey?p=forged", 400);
      assertSpeaks(expired, lang);
      says(expired, t.expired);
      assert.match(expired, /data-error-code="pending_expired"/);
      const forged = await postJson(second, "/signin/passkey/options", { csrf: "forged" });
      assert.equal(forged.status, 403);
      assert.deepEqual(await forged.json(), { error: "invalid_csrf", error_description: t.pageExpired });
    } finally {
      await ctx.close();
    }
  }
});

const PASSWORDS = {
  de: {
    never: "Seit der Erstellung des Kontos nicht geändert.",
    event: "Angemeldet",
    wrongCurrent: "Das aktuelle Passwort ist nicht richtig.",
    weak: "Dieses Passwort ist zu leicht zu erraten. Wiederholte Zeichen wie „aaa“ sind leicht zu erraten. " +
      "Fügen Sie weitere Wörter oder Zeichen hinzu, die keinem Muster folgen.",
    common: "Dieses Passwort steht auf Listen häufiger Passwörter, die Angreifer zuerst ausprobieren.",
    changed: "Ihr Passwort wurde geändert, und Ihre anderen Browser wurden abgemeldet.",
    lastChanged: /Zuletzt geändert: \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC\./,
    required: "Ihr Passwort entspricht nicht unseren Passwortregeln",
  },
  fr: {
    never: "Pas modifié depuis la création du compte.",
    event: "Connexion",
    wrongCurrent: "Le mot de passe actuel n'est pas correct.",
    weak: "Ce mot de passe est trop facile à deviner. Les caractères répétés comme « aaa » sont faciles à " +
      "deviner. Ajoutez d'autres mots ou caractères qui ne suivent aucun schéma.",
    common: "Ce mot de passe figure sur des listes de mots de passe courants",
    changed: "Votre mot de passe a été modifié, et vos autres navigateurs ont été déconnectés.",
    lastChanged: /Dernière modification : \d{1,2} \S+ \d{4}, \d{2}:\d{2} UTC\./,
    required: "Votre mot de passe ne respecte pas nos règles",
  },
};

Deno.test("the security overview and changing the password speak German and French, reasons included", async () => {
  for (const lang of LANGS) {
    const ctx = await setup();
    try {
      const t = PASSWORDS[lang];
      const email = ctx.user.email;
      const b = new Speaking(ctx.app, lang);
      await signIn(b, email);
      const overview = await page(b, "/account/security");
      assertSpeaks(overview, lang, [email]);
      says(overview, t.never);
      assert.match(overview, new RegExp(`<li\\s+data-event="sign_in"><strong>${t.event}</strong>`));

      const form = await page(b, "/account/security/password");
      assertSpeaks(form, lang, [email]);
      const csrf = field(form, "csrf")!;
      const change = (current: string, password: string, confirm = password) =>
        posted(b, "/account/security/password", { csrf, current, password, confirm }, 400);
      const wrong = await change("not my password", "lantern orbit pebble saffron");
      assertSpeaks(wrong, lang, [email]);
      says(wrong, t.wrongCurrent);
      const weak = await change(PASSWORD, "aaaaaaaaaaaaaaaa");
      assertSpeaks(weak, lang, [email]);
      says(weak, t.weak);
      says(await change(PASSWORD, "password1234"), t.common);

      const ok = await b.post("/account/security/password", {
        csrf,
        current: PASSWORD,
        password: "lantern orbit pebble saffron",
        confirm: "lantern orbit pebble saffron",
      });
      await ok.body?.cancel();
      assert.equal(ok.headers.get("location"), "/account/security?changed=1");
      const after = await page(b, "/account/security?changed=1");
      assertSpeaks(after, lang, [email]);
      says(after, t.changed);
      assert.match(visibleText(after), t.lastChanged);
      const required = await page(b, "/account/security/password?required=1");
      assertSpeaks(required, lang, [email]);
      says(required, t.required);
    } finally {
      await ctx.close();
    }
  }
});

/** A live reset link for `userId` (the token the mail would carry), stored as the app stores it. */
async function resetLink(
  ctx: Ctx,
  userId: string,
  token = `prt_test${crypto.randomUUID()}`,
): Promise<string> {
  await ctx.db.sql`
    insert into password_resets (user_id, token_hash, expires_at)
    values (${userId}, ${sha256Hex(token)}, now() + interval '30 minutes')
    on conflict (user_id) do update set token_hash = excluded.token_hash, expires_at = excluded.expires_at`;
  return token;
}

const RESET = {
  de: {
    forgot: "Geben Sie die E-Mail-Adresse Ihres Kontos ein.",
    sent: "Falls es zu dieser Adresse ein Konto gibt, haben wir einen Link gesendet",
    mismatch: "Die beiden Passwörter stimmen nicht überein.",
    common: "Dieses Passwort steht auf Listen häufiger Passwörter",
    invalid: "Dieser Link funktioniert nicht mehr",
    mailbox: "Dev-Postfach",
  },
  fr: {
    forgot: "Saisissez l'adresse e-mail de votre compte.",
    sent: "Si un compte existe pour cette adresse, nous avons envoyé un lien",
    mismatch: "Les deux mots de passe ne sont pas identiques.",
    common: "Ce mot de passe figure sur des listes de mots de passe courants",
    invalid: "Ce lien ne fonctionne plus",
    mailbox: "Boîte aux lettres de développement",
  },
};

Deno.test("Forgot password: the request, the answer, the reset page with its problems, bad and expired links, the dev mailbox", async () => {
  for (const lang of LANGS) {
    const ctx = await setup();
    try {
      const t = RESET[lang];
      const b = new Speaking(ctx.app, lang, "127.0.0.1");
      const forgot = await page(b, "/signin/forgot");
      assertSpeaks(forgot, lang);
      says(forgot, t.forgot);
      const asked = await b.post("/signin/forgot", { csrf: field(forgot, "csrf")!, email: ctx.user.email });
      await asked.body?.cancel();
      assert.equal(asked.headers.get("location"), "/signin/forgot/sent");
      const sent = await page(b, "/signin/forgot/sent");
      assertSpeaks(sent, lang);
      says(sent, t.sent);
      // The dev mailbox (`deno task dev`: no SMTP_URL), with the mail, in the request's language.
      const mailbox = await page(b, "/dev/mailbox");
      assertSpeaks(mailbox, lang, [ctx.user.email]);
      says(mailbox, t.mailbox);

      const token = await resetLink(ctx, ctx.user.id);
      const reset = await page(b, `/signin/reset?token=${token}`);
      assertSpeaks(reset, lang);
      const fields = { csrf: field(reset, "csrf")!, token };
      const mismatch = await posted(b, "/signin/reset", {
        ...fields,
        password: "a b c d e f g",
        confirm: "x",
      }, 400);
      assertSpeaks(mismatch, lang);
      says(mismatch, t.mismatch);
      const common = await posted(
        b,
        "/signin/reset",
        { ...fields, password: "password1234", confirm: "password1234" },
        400,
      );
      assertSpeaks(common, lang);
      says(common, t.common);
      const bad = await page(b, "/signin/reset?token=prt_nothing", 400);
      assertSpeaks(bad, lang);
      says(bad, t.invalid);
      await ctx.db.sql`update password_resets set expires_at = now() - interval '1 minute'`;
      const expired = await page(b, `/signin/reset?token=${token}`, 400);
      assertSpeaks(expired, lang);
      says(expired, t.invalid);
    } finally {
      await ctx.close();
    }
  }
});

Deno.test("the reset mail speaks the person's setting over the request's language, else the request's", async () => {
  const db = await freshDatabase();
  const smtp = await smtpServer();
  const log = createLogger("error");
  const config = parseConfig({
    ISSUER,
    SECRET_KEY: TEST_SECRET,
    ...TEST_RATE_LIMITS,
    SMTP_URL: smtp.url,
    MAIL_FROM: "Portico <no-reply@example.com>",
  });
  const mailer = createMailer(config, log);
  try {
    const app = createApp({ config, sql: db.sql, log, secretKey: TEST_SECRET, scrypt: TEST_SCRYPT, mailer });
    const opts = { scrypt: TEST_SCRYPT };
    const dana = await createUser(
      db.sql,
      { email: "dana@example.com", password: PASSWORD, name: "Dana" },
      opts,
    );
    await db.sql`update users set locale = 'de' where id = ${dana.id}`;
    await createUser(db.sql, { email: "olly@example.com", password: PASSWORD, name: "Olly" }, opts);
    const ask = async (lang: string, email: string, ip: string) => {
      const b = new Speaking(app, lang, ip);
      const csrf = field(await page(b, "/signin/forgot"), "csrf")!;
      const res = await b.post("/signin/forgot", { csrf, email });
      await res.body?.cancel();
      assert.equal(res.status, 303);
    };
    // Dana chose German: her mail is German though this browser asks for English.
    await ask("en", "dana@example.com", "198.51.100.1");
    // Olly chose nothing: the request's French.
    await ask("fr-FR,fr;q=0.9", "olly@example.com", "198.51.101.1");
    await eventually("both mails arrive", () => smtp.received.length >= 2);
    await mailer.idle();
    const to = (address: string) => smtp.received.find((m) => m.to[0] === address)!;
    const link = /^http:\/\/localhost:8000\/signin\/reset\?token=prt_[A-Za-z0-9_-]+$/;

    const german = to("dana@example.com");
    assert.equal(german.subject, "Passwort zurücksetzen");
    assert.match(german.headers["content-type"], /^text\/plain; charset=utf-8$/i);
    const de = german.body.trimEnd().split("\n");
    assert.equal(de.length, 6, german.body);
    assert.deepEqual([de[0], de[1], de[2], de[4], de[5]], [
      "Jemand (hoffentlich Sie) hat angefordert, das Passwort Ihres Kontos zurückzusetzen.",
      "",
      "Um ein neues Passwort zu wählen, öffnen Sie diesen Link innerhalb von 30 Minuten (er funktioniert einmal):",
      "",
      "Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.",
    ]);
    assert.match(de[3], link);

    const french = to("olly@example.com");
    assert.equal(french.subject, "Réinitialisez votre mot de passe");
    const fr = french.body.trimEnd().split("\n");
    assert.equal(fr.length, 6, french.body);
    assert.deepEqual([fr[0], fr[2], fr[5]], [
      "Quelqu'un (vous, espérons-le) a demandé à réinitialiser le mot de passe de votre compte.",
      "Pour choisir un nouveau mot de passe, ouvrez ce lien dans les 30 minutes (il ne fonctionne qu'une fois) :",
      "Si vous n'avez rien demandé, ignorez cet e-mail : votre mot de passe reste inchangé.",
    ]);
    assert.match(fr[3], link);
  } finally {
    await mailer.idle();
    await smtp.close();
    await db.close();
  }
});
