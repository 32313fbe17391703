// The account pages in German and French (issue 30 point 4): Connected apps, API keys, Sessions, Workspaces and
// the confirmation pages speak the browser's language (Accept-Language), their problems too (a bad key name, a
// toolset choice refused, a workspace policy a member may not change, a form that cannot be verified), with dates
// and numbers written the language's way; no English word is left on them.
import assert from "node:assert/strict";
import { createApiKey } from "../../lib/api_keys.ts";
import { addMember, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { assertSpeaks, Speaking } from "../helpers/i18n.ts";
import {
  type Ctx,
  exchange,
  field,
  getCode,
  location,
  registerPublic,
  setup,
  signInOnPage,
} from "../oauth/helpers.ts";

const CHROME_LINUX =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const FIREFOX_WIN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const AT = "2026-11-28T09:30:00Z";
const LATER = "2026-12-03T17:05:00Z";

/** A browser with its own User-Agent and language, signed in as `email`. */
class LangBrowser extends Speaking {
  constructor(ctx: Ctx, readonly ua: string, ip: string) {
    super(ctx.app, "de-DE,de;q=0.9,en;q=0.5", ip);
  }
  override request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("user-agent", this.ua);
    return super.request(path, { ...init, headers });
  }
}

async function signedIn(ctx: Ctx, ua: string, ip: string): Promise<LangBrowser> {
  const b = new LangBrowser(ctx, ua, ip);
  const res = await signInOnPage(b, await b.get("/signin"), ctx.user.email);
  assert.equal(res.status, 303);
  return b;
}

async function html(res: Response, status = 200): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, text.slice(0, 300));
  return text;
}

interface World {
  ctx: Ctx;
  here: LangBrowser;
  clientId: string;
  keyId: string;
  ownWs: string;
  memberWs: string;
}

/** Dana: owner of Home Studio (Olly a member there), member of Other Studio; one app, one key, two browsers. */
async function world(): Promise<World> {
  const ctx = await setup();
  const sql = ctx.db.sql;
  const own = await createWorkspace(sql, "Home Studio", ["projects"]);
  await addMember(sql, own.id, ctx.user.id, "owner", null);
  await addMember(sql, own.id, ctx.other.id, "member", null);
  const member = await createWorkspace(sql, "Other Studio", ["projects"]);
  await addMember(sql, member.id, ctx.user.id, "member", null);

  const here = await signedIn(ctx, CHROME_LINUX, "198.51.100.7");
  await signedIn(ctx, FIREFOX_WIN, "203.0.113.9");
  await sql`
    update browser_session_accounts a set auth_time = ${AT} from browser_sessions s
     where s.id = a.session_id and s.ip = '203.0.113.9'`;

  const client = await registerPublic(ctx.app, { client_name: "Pages App" });
  const { code, verifier } = await getCode(ctx, here, client);
  assert.equal((await exchange(ctx, client, code, verifier)).status, 200);
  // The app acts in Home Studio with two toolsets, read-only, and may chat with an agent (shown, not chosen here).
  await sql`
    update oauth_consents
       set workspace_id = ${own.id}, toolsets = ${["tasks", "time"]}, read_only = true,
           scopes = scopes || ${["workspace", `agent.chat:${ctx.agentId}`]}::text[]
     where client_id = ${client.client_id}`;
  await sql`update oauth_grants set last_used_at = ${AT} where client_id = ${client.client_id}`;

  const { id: keyId } = await createApiKey(sql, {
    workspaceId: own.id,
    userId: ctx.user.id,
    kind: "user",
    name: "Laptop",
  });
  await sql`update api_keys set created_at = ${AT}, last_used_at = ${LATER} where id = ${keyId}`;
  return { ctx, here, clientId: client.client_id, keyId, ownWs: own.id, memberWs: member.id };
}

const ALLOW = ["dana@example.com", "olly@example.com"];

Deno.test("the account pages speak German and French, problems included", async (t) => {
  const w = await world();
  const { here } = w;
  try {
    await t.step("Connected apps: German words, a German date, the limits and the scopes", async () => {
      here.lang = "de";
      const res = await here.get("/account/apps");
      assert.equal(res.headers.get("content-language"), "de");
      const page = await html(res);
      assertSpeaks(page, "de", ALLOW);
      assert.match(page, /<h1>Verbundene Apps<\/h1>/);
      assert.match(page, /<dd data-last-used>28\.11\.2026, 09:30 UTC<\/dd>/);
      assert.match(page, /<dd>Home Studio<\/dd>/);
      assert.match(page, /<dd data-limits>nur Aufgaben, Zeiterfassung; nur lesen<\/dd>/);
      assert.match(page, /data-scope="workspace">Ihre Arbeitsbereich-Werkzeuge in Ihrem Namen nutzen: /);
      assert.match(
        page,
        /data-scope="agent\.chat:[^"]+">In Ihrem Namen mit dem Agenten „Research Assistant“ chatten</,
      );
      assert.match(page, /data-registered-by="itself">\s*hat sich selbst registriert\s*</);
      assert.match(page, /<button type="submit" class="danger">Verbindung zu Pages App trennen<\/button>/);

      here.lang = "fr";
      const fr = await html(await here.get("/account/apps?disconnected=1"));
      assertSpeaks(fr, "fr", ALLOW);
      assert.match(fr, /<h1>Applications connectées<\/h1>/);
      assert.match(fr, /<dd data-last-used>28 nov\. 2026, 09:30 UTC<\/dd>/);
      assert.match(fr, /<dd data-limits>uniquement Tâches, Suivi du temps\u00a0; lecture seule<\/dd>/);
      assert.match(fr, /role="status">L'application a été déconnectée\.</);
    });

    await t.step("Disconnect: the confirmation page and an app that is not connected", async () => {
      for (const lang of ["de", "fr"] as const) {
        here.lang = lang;
        const page = await html(await here.get(`/account/apps/disconnect?client_id=${w.clientId}`));
        assertSpeaks(page, lang, ALLOW);
        if (lang === "de") {
          assert.match(page, /<h1>Verbindung zu Pages App trennen\?<\/h1>/);
          assert.match(page, /<p>Pages App verliert sofort den Zugriff auf Ihr Konto: /);
          assert.match(page, /<a class="button secondary" href="\/account\/apps">Abbrechen<\/a>/);
        } else {
          assert.match(page, /<h1>Déconnecter Pages App\u00a0\?<\/h1>/);
          assert.match(page, />Annuler<\/a>/);
        }
        const missing = await here.get("/account/apps/disconnect?client_id=pcl_unknown");
        const gone = await html(missing, 404);
        assertSpeaks(gone, lang);
        assert.match(gone, /data-error-code="not_found"/);
        assert.match(gone, lang === "de" ? /<h1>Nicht verbunden<\/h1>/ : /<h1>Non connectée<\/h1>/);
      }
      // A forged form: the common "form expired" page, in the browser's language.
      here.lang = "de";
      const forged = await html(
        await here.post("/account/apps/revoke", { csrf: "forged", client_id: w.clientId }),
        403,
      );
      assertSpeaks(forged, "de");
      assert.match(forged, /Laden Sie die Seite neu und versuchen Sie es erneut\./);
    });

    await t.step("API keys: the list with German dates, a new key, the configurations", async () => {
      here.lang = "de";
      const page = await html(await here.get("/account/keys"));
      assertSpeaks(page, "de", ALLOW);
      assert.match(page, /<h1>API-Schlüssel<\/h1>/);
      assert.match(page, /Ihre Rolle: Inhaber\. Ein Schlüssel handelt in Ihrem Namen/);
      assert.match(page, /placeholder="z\. B\. Claude"/);
      assert.match(page, /<legend>Erlaubte Werkzeuggruppen<\/legend>/);
      assert.match(page, /erstellt 28\.11\.2026, 09:30 UTC, zuletzt verwendet 03\.12\.2026, 17:05 UTC/);
      assert.match(page, /<h3>Alle Schlüssel von Home Studio<\/h3>/);
      assert.match(page, /data-copied="In die Zwischenablage kopiert\."/);
      assert.match(page, /Ihre Rolle: Mitglied\./);

      const created = await here.post("/account/keys", {
        csrf: field(page, "csrf")!,
        workspace_id: w.ownWs,
        name: "Tablet",
      });
      assert.equal(created.status, 303);
      const shown = await html(await here.get("/account/keys"));
      assertSpeaks(shown, "de", ALLOW);
      assert.match(
        shown,
        /<strong>Tablet<\/strong> für Home Studio\. Kopieren Sie ihn jetzt: Er wird nur dieses eine Mal angezeigt\./,
      );
      assert.match(shown, /Senden Sie ihn im Header <code>x-api-key<\/code> an <code>[^<]+\/mcp<\/code>/);

      here.lang = "fr";
      const fr = await html(await here.get("/account/keys?revoked=1"));
      assertSpeaks(fr, "fr", ALLOW);
      assert.match(fr, /créée le 28 nov\. 2026, 09:30 UTC, dernière utilisation le 3 déc\. 2026, 17:05 UTC/);
      assert.match(fr, /Votre rôle\u00a0: propriétaire\./);
      assert.match(fr, /role="status">La clé a été révoquée\./);
    });

    await t.step(
      "API keys: a bad name and a refused toolset choice, each in the page's language",
      async () => {
        here.lang = "de";
        const csrf = field(await html(await here.get("/account/keys")), "csrf")!;
        const noName = await here.post("/account/keys", { csrf, workspace_id: w.ownWs, name: "  " });
        assert.equal(location(noName).search, "?error=invalid_input");
        const bad = await html(await here.get("/account/keys?error=invalid_input"));
        assertSpeaks(bad, "de", ALLOW);
        assert.match(bad, /role="alert">Der Name des Schlüssels muss 1–200 Zeichen lang sein\.</);

        const none = await here.post("/account/keys", {
          csrf,
          workspace_id: w.ownWs,
          name: "Nothing",
          toolset_choice: "1",
        });
        assert.equal(location(none).search, "?error=no_toolset");
        here.lang = "fr";
        const refused = await html(await here.get("/account/keys?error=no_toolset"));
        assertSpeaks(refused, "fr", ALLOW);
        assert.match(refused, /role="alert">Choisissez au moins un groupe d'outils/);
        const unknown = await html(await here.get("/account/keys?error=unknown_toolset"));
        assert.match(unknown, /dans la liste\u00a0: Projets et idées, Tâches, Devis et factures, /);
        here.lang = "de";
        const german = await html(await here.get("/account/keys?error=unknown_toolset"));
        assert.match(german, /Wählen Sie Werkzeuggruppen aus der Liste: Projekte und Ideen, Aufgaben, /);
        // A code that is not one of the page's: no words at all, not an object's own property either.
        assert.doesNotMatch(await html(await here.get("/account/keys?error=constructor")), /role="alert"/);
      },
    );

    await t.step("Revoke: the confirmation page", async () => {
      for (const lang of ["de", "fr"] as const) {
        here.lang = lang;
        const page = await html(await here.get(`/account/keys/revoke?key_id=${w.keyId}`));
        assertSpeaks(page, lang, ALLOW);
        if (lang === "de") {
          assert.match(page, /<h1>Laptop widerrufen\?<\/h1>/);
          assert.match(
            page,
            /<p>Der Schlüssel <strong>Laptop<\/strong> <code>pak_[^<]+…<\/code> von Home Studio funktioniert ab seiner nächsten Anfrage nicht mehr\./,
          );
          assert.match(page, /<button type="submit" class="danger">Laptop widerrufen<\/button>/);
        } else {
          assert.match(page, /<h1>Révoquer Laptop\u00a0\?<\/h1>/);
          assert.match(page, /C'est irréversible/);
        }
      }
    });

    await t.step("Sessions: this browser and another, German devices and dates", async () => {
      here.lang = "de";
      const page = await html(await here.get("/account/sessions"));
      assertSpeaks(page, "de", ALLOW);
      assert.match(page, /<h1>Wo Sie angemeldet sind<\/h1>/);
      assert.match(
        page,
        /<strong>Chrome unter Linux<\/strong> <span class="badge" data-this-browser>Dieser Browser<\/span>/,
      );
      assert.match(page, /<strong>Firefox unter Windows<\/strong>/);
      assert.match(page, /<dt>Angemeldet<\/dt><dd>28\.11\.2026, 09:30 UTC<\/dd>/);
      assert.match(page, /<dd data-method>Passwort<\/dd>/);
      assert.match(page, /<dt>Zuletzt gesehen<\/dt><dd>jetzt<\/dd>/);
      assert.match(
        page,
        /aria-label="Abmelden von Firefox unter Windows, zuletzt gesehen \d\d\.\d\d\.\d{4}, \d\d:\d\d UTC"/,
      );
      assert.match(page, />In diesem Browser abmelden</);
      assert.match(page, />Überall sonst abmelden</);

      here.lang = "fr";
      const fr = await html(await here.get("/account/sessions"));
      assertSpeaks(fr, "fr", ALLOW);
      assert.match(fr, /<strong>Chrome sous Linux<\/strong>/);
      assert.match(fr, /<dt>Connexion<\/dt><dd>28 nov\. 2026, 09:30 UTC<\/dd>/);
      assert.match(fr, /<dd data-method>Mot de passe<\/dd>/);

      const ended = await here.post("/account/sessions/end-others", { csrf: field(fr, "csrf")! });
      assert.equal(ended.headers.get("location"), "/account/sessions?ended=others");
      const after = await html(await here.get("/account/sessions?ended=others"));
      assertSpeaks(after, "fr", ALLOW);
      assert.match(after, /role="status">Vous avez été déconnecté partout ailleurs\.</);
    });

    await t.step(
      "Workspaces: the policy, members without a second factor, a member refused (403)",
      async () => {
        here.lang = "de";
        const page = await html(await here.get("/account/workspaces"));
        assertSpeaks(page, "de", ALLOW);
        assert.match(page, /<h1>Arbeitsbereiche<\/h1>/);
        assert.match(page, /data-without-factor="2">2 Mitglieder haben noch keinen zweiten Faktor;/);
        assert.match(
          page,
          /<p data-policy="off">Zweistufige Anmeldung: für Mitglieder nicht verlangt\.<\/p>/,
        );
        assert.match(page, /Ihre Rolle: Mitglied/);
        assert.match(page, />Zweistufige Anmeldung in Home Studio verlangen</);
        const csrf = field(page, "csrf")!;

        const refused = await here.post("/account/workspaces/two-step", {
          csrf,
          workspace_id: w.memberWs,
          require: "on",
        });
        const forbidden = await html(refused, 403);
        assertSpeaks(forbidden, "de");
        assert.match(forbidden, /<h1>Nicht erlaubt<\/h1>/);
        assert.match(forbidden, /data-error-code="forbidden"/);

        const malformed = await html(
          await here.post("/account/workspaces/two-step", { csrf, workspace_id: w.ownWs, require: "maybe" }),
          400,
        );
        assertSpeaks(malformed, "de", ["require (on oder off)"]);
        assert.match(malformed, /Das Feld require \(on oder off\) des Formulars fehlt oder ist ungültig\./);

        const on = await here.post("/account/workspaces/two-step", {
          csrf,
          workspace_id: w.ownWs,
          require: "on",
        });
        assert.equal(on.status, 303);
        here.lang = "fr";
        const fr = await html(await here.get("/account/workspaces?changed=on"));
        assertSpeaks(fr, "fr", ALLOW);
        assert.match(fr, /role="status">La connexion en deux étapes est désormais exigée/);
        assert.match(
          fr,
          /<p data-policy="required">Connexion en deux étapes\u00a0: exigée pour les membres\.<\/p>/,
        );
        assert.match(fr, /votre rôle\u00a0: membre/);
        assert.match(fr, />Ne plus exiger la connexion en deux étapes dans Home Studio</);
        const frForbidden = await html(
          await here.post("/account/workspaces/two-step", {
            csrf: field(fr, "csrf")!,
            workspace_id: w.memberWs,
            require: "on",
          }),
          403,
        );
        assertSpeaks(frForbidden, "fr");
        assert.match(frForbidden, /Seul un propriétaire ou un administrateur/);
      },
    );
  } finally {
    await w.ctx.close();
  }
});
