// The activity pages in German and French (issue 30 point 4): /account/activity with its filters, empty state and
// paging links, a refused call's reason, the workspace page with its member apps, the Disconnect confirmation and
// its notice, the refusals (not allowed, not connected, an expired form); the CSV the same in every language; and
// the stored rule refusals read back and said in each language (English word for word as stored).
import assert from "node:assert/strict";
import { ACTIVITY_PAGE_SIZE } from "../../lib/activity.ts";
import { createAuditLog } from "../../lib/audit.ts";
import { parseConfig } from "../../lib/config.ts";
import { messagesFor } from "../../lib/i18n/mod.ts";
import { silentLogger } from "../../lib/log.ts";
import { readReason, reasonOf } from "../../lib/mcp/call_detail.ts";
import { type CallerRights, denial } from "../../lib/mcp/permissions.ts";
import { createApp } from "../../routes/mod.ts";
import { reasonText } from "../../views/activity.tsx";
import { TEST_RATE_LIMITS, TEST_SCRYPT, TEST_SECRET } from "../helpers/app.ts";
import { bearerFor } from "../helpers/bearer.ts";
import { freshDatabase } from "../helpers/db.ts";
import { assertSpeaks } from "../helpers/i18n.ts";
import { buildFixture, callOk, callTool } from "../helpers/mcp.ts";
import { Browser, field, signInOnPage } from "../oauth/helpers.ts";

const FIXTURE_PASSWORD = "test password 123";

Deno.test("a stored rule refusal is read back and said in each language; English repeats it word for word", () => {
  const tool = { name: "list_invoices", area: "invoices" as const, module: null, needsUser: false };
  const caller = (o: Partial<CallerRights>): CallerRights => ({
    keyKind: "user",
    role: "member",
    modules: [],
    areas: new Set(),
    ...o,
  });
  const stored = [
    reasonOf(denial(tool, caller({ userId: "u" }), "A")!, true),
    reasonOf(denial(tool, caller({ role: null, keyKind: "workspace" }), "A")!, true),
    reasonOf(denial({ ...tool, needsUser: true }, caller({ keyKind: "workspace" }), "A")!, true),
    reasonOf(denial({ ...tool, needsUser: true }, caller({ keyKind: "user", userId: "u" }), "B")!, true),
    reasonOf(
      denial(
        { ...tool, area: "projects", module: "time_tracking" },
        caller({ areas: new Set(["projects"]) }),
        "A",
      )!,
      true,
    ),
  ];
  assert.deepEqual(stored, [
    "access_denied: the member role may not use invoices tools in this workspace",
    "access_denied: the key's role may not use invoices tools in this workspace",
    "access_denied: list_invoices acts as a person and needs an API key bound to a user",
    "access_denied: list_invoices acts as a person and is only available to the workspace assistant (internal key)",
    "unavailable: the time_tracking module is disabled in this workspace",
  ]);
  assert.deepEqual(stored.map((r) => readReason(r).rule?.rule), [
    "roleArea",
    "roleArea",
    "needsUser",
    "needsInternalKey",
    "moduleOff",
  ]);
  // English: the stored sentence exactly, so the English page is what it always was.
  assert.deepEqual(
    stored.map((r) => reasonText(messagesFor("en"), r)),
    stored.map((r) => r.slice(r.indexOf(": ") + 2)),
  );
  assert.deepEqual(stored.map((r) => reasonText(messagesFor("de"), r)), [
    "Die Rolle „Mitglied“ darf in diesem Arbeitsbereich keine Tools des Bereichs „Rechnungen“ verwenden",
    "Die Rolle des Schlüssels darf in diesem Arbeitsbereich keine Tools des Bereichs „Rechnungen“ verwenden",
    "list_invoices handelt im Namen einer Person und braucht einen API-Schlüssel, der an ein Benutzerkonto " +
    "gebunden ist",
    "list_invoices handelt im Namen einer Person und steht nur dem Assistenten des Arbeitsbereichs zur " +
    "Verfügung (interner Schlüssel)",
    "Das Modul „Zeiterfassung“ ist in diesem Arbeitsbereich ausgeschaltet",
  ]);
  assert.deepEqual(stored.map((r) => reasonText(messagesFor("fr"), r)), [
    "Le rôle « membre » ne permet pas d'utiliser les outils « Factures » dans cet espace de travail",
    "Le rôle de la clé ne permet pas d'utiliser les outils « Factures » dans cet espace de travail",
    "list_invoices agit au nom d'une personne et nécessite une clé d'API liée à un compte utilisateur",
    "list_invoices agit au nom d'une personne et n'est disponible que pour l'assistant de l'espace de travail " +
    "(clé interne)",
    "Le module « Suivi du temps » est désactivé dans cet espace de travail",
  ]);
  // A bare code in plain words; a code or sentence not known here: the code's words, else the code.
  assert.equal(reasonText(messagesFor("de"), "invalid_input"), "die Eingabe war ungültig");
  assert.equal(reasonText(messagesFor("fr"), "not_confirmed"), "la personne a refusé ou n'a pas confirmé");
  assert.equal(reasonText(messagesFor("de"), "access_denied: some future rule"), "nicht erlaubt");
  assert.equal(reasonText(messagesFor("de"), "brand_new_code"), "brand_new_code");
  assert.equal(reasonText(messagesFor("de"), "toString"), "toString", "a code is looked up as own keys only");
});

async function world() {
  const db = await freshDatabase();
  const f = await buildFixture(db.sql);
  const audit = createAuditLog(db.sql, silentLogger, { flushMs: 60_000, batchSize: 1000 });
  const config = parseConfig({
    ISSUER: "http://localhost:8000",
    SECRET_KEY: TEST_SECRET,
    ...TEST_RATE_LIMITS,
  });
  const app = createApp({
    config,
    sql: db.sql,
    log: silentLogger,
    secretKey: TEST_SECRET,
    scrypt: TEST_SCRYPT,
    audit,
  });
  const emailOf = async (id: string) =>
    (await db.sql<{ email: string }[]>`select email from users where id = ${id}`)[0].email;
  const signedIn = async (userId: string) => {
    const b = new Browser(app);
    const res = await signInOnPage(b, await b.get("/signin"), await emailOf(userId), FIXTURE_PASSWORD);
    assert.equal(res.status, 303);
    return b;
  };
  return {
    db,
    f,
    app,
    audit,
    emailOf,
    signedIn,
    close: async () => {
      await audit.close();
      await db.close();
    },
  };
}

const inLang = (lang: string) => ({ headers: { "accept-language": lang } });

Deno.test("activity pages in German and French: filters, empty state, paging, reasons, workspace page, Disconnect, refusals, CSV", async (t) => {
  const w = await world();
  const { f, app, db } = w;
  try {
    const member = f.users.member;
    const memberEmail = await w.emailOf(member);
    const adminEmail = await w.emailOf(f.users.admin);
    const grant = await bearerFor(db.sql, { userId: member, workspaceId: f.workspaceId });
    await db.sql`insert into oauth_consents (user_id, client_id, scopes, workspace_id)
                 values (${member}, ${grant.clientId}, ${["openid", "workspace"]}, ${f.workspaceId})`;
    const [{ name: appName }] = await db.sql<{ name: string }[]>`
      select name from oauth_clients where client_id = ${grant.clientId}`;
    const project = await callOk(app, f.keys.member, "create_project", { name: "Quokka launch" });
    await callOk(app, grant.auth, "get_project", { projectId: project.id });
    assert.equal((await callTool(app, grant.auth, "list_invoices", {})).isError, true);
    assert.equal(
      (await callTool(app, f.keys.member, "get_project", { projectId: "not an id" })).isError,
      true,
    );
    await w.audit.flush();
    // Data on the pages, not page text: names, addresses. The tools' titles (English, MCP data) are marked
    // lang="en" on the page, which assertSpeaks leaves out.
    const allow = [memberEmail, adminEmail, appName, "Test Workspace"];

    const b = await w.signedIn(member);
    const page = async (path: string, lang: string) => {
      const res = await b.request(path, inLang(lang));
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("content-language"), lang);
      return await res.text();
    };

    await t.step(
      "the person's page: rows, outcomes, a refused call's reason, records, times, the CSV link",
      async () => {
        const de = await page("/account/activity", "de");
        assertSpeaks(de, "de", allow);
        assert.match(de, /<h1>Aktivität<\/h1>/);
        assert.ok(
          de.includes(
            `Jeder Tool-Aufruf Ihrer verbundenen Apps und API-Schlüssel, die neuesten zuerst. ` +
              `Angemeldet als ${memberEmail}.`,
          ),
        );
        assert.match(
          de,
          /<dd data-reason>Die Rolle „Mitglied“ darf in diesem Arbeitsbereich keine Tools des Bereichs „Rechnungen“ verwenden<\/dd>/,
        );
        assert.match(de, /<dd data-reason>die Eingabe war ungültig<\/dd>/);
        assert.match(de, /data-outcome-text>Abgelehnt: ungültige Eingabe</);
        assert.match(de, /data-outcome-text>Erledigt</);
        assert.ok(de.includes(`<dd data-by>App: ${appName}</dd>`));
        assert.match(de, /<dd data-by>Schlüssel: test pak_[^<]+…<\/dd>/);
        assert.ok(de.includes(`projectId <code>${project.id}</code>`));
        // The refused call's time, to the second, as German writes it (UTC).
        const [{ at }] = await db.sql<{ at: Date }[]>`select at from audit_log where tool = 'list_invoices'`;
        const two = (n: number) => String(n).padStart(2, "0");
        const german = `${two(at.getUTCDate())}.${two(at.getUTCMonth() + 1)}.${at.getUTCFullYear()}, ` +
          `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())} UTC`;
        assert.ok(de.includes(`">${german}</time>`), german);
        assert.ok(de.includes("Als CSV herunterladen (höchstens 10.000 Zeilen)"));
        // Tool titles stay English, and say so (WCAG 3.1.2); the English page is as it was.
        assert.match(de, /<strong lang="en">List invoices<\/strong>/);
        assert.match(de, /<option\s+value="create_project"\s+lang="en"\s*>Create project<\/option>/);
        const en = await page("/account/activity", "en");
        assert.match(en, /<strong>List invoices<\/strong>/);
        assert.equal(en.match(/ lang="en"/g)?.length, 1, "only <html lang>");
        assert.match(de, /<ul class="apps" aria-label="Tool-Aufrufe">/);

        const fr = await page("/account/activity", "fr");
        assertSpeaks(fr, "fr", allow);
        assert.match(fr, /<h1>Activité<\/h1>/);
        assert.match(
          fr,
          /<dd data-reason>Le rôle « membre » ne permet pas d'utiliser les outils « Factures » dans cet espace de travail<\/dd>/,
        );
        assert.match(fr, /data-outcome-text>Refusé</);
        assert.match(fr, /<time datetime="[^"]+">\d{1,2} [a-zéû.]+ \d{4}, \d{2}:\d{2}:\d{2} UTC<\/time>/);
        assert.ok(fr.includes("Télécharger en CSV (10\u202f000 lignes au maximum)"));
      },
    );

    await t.step("filters, their selected values, and the empty state", async () => {
      const de = await page(
        `/account/activity?outcome=denied&source=${encodeURIComponent(`app:${grant.clientId}`)}`,
        "de",
      );
      assertSpeaks(de, "de", allow);
      assert.match(
        de,
        /<form method="get" action="\/account\/activity" class="filters" aria-label="Aktivität filtern">/,
      );
      assert.match(de, /<option\s+value="denied" selected>Abgelehnt<\/option>/);
      assert.ok(de.includes(`selected>App: ${appName}</option>`));
      assert.match(de, /<label for="f-from">Von \(Datum, UTC\)<\/label>/);
      assert.match(de, /<a class="button secondary" href="\/account\/activity">Filter zurücksetzen<\/a>/);
      assert.equal((de.match(/<li data-activity=/g) ?? []).length, 1);

      const none = await page("/account/activity?to=2020-01-01", "de");
      assertSpeaks(none, "de", allow);
      assert.match(none, /<p data-no-activity>Keine Aufrufe passen zu diesen Filtern\.<\/p>/);
      const rien = await page("/account/activity?to=2020-01-01", "fr");
      assertSpeaks(rien, "fr", allow);
      assert.match(rien, /<p data-no-activity>Aucun appel ne correspond\.<\/p>/);
      assert.match(rien, /<option\s+value="ok"\s*>Effectué<\/option>/);
    });

    await t.step("paging: the Older link, then Newest", async () => {
      await db.sql`
        insert into audit_log (at, workspace_id, user_id, tool, outcome, duration_ms, request_id)
        select timestamptz '2026-06-01 12:00:00+00' - make_interval(secs => i), ${f.workspaceId}, ${member},
               'list_projects', 'ok', 1, 'p' || i
          from generate_series(1, ${ACTIVITY_PAGE_SIZE}) i`;
      const first = await page("/account/activity", "de");
      const older = first.match(/<a href="([^"]+)" rel="next" data-older>Ältere Aufrufe<\/a>/);
      assert.ok(older, "the Older link in German");
      const second = await page(older[1].replaceAll("&amp;", "&"), "fr");
      assertSpeaks(second, "fr", allow);
      assert.match(second, /<a href="\/account\/activity">Les plus récents<\/a>/);
      assert.match(second, /50 appels par page\./);
    });

    await t.step(
      "the workspace page, Disconnect's confirmation and its notice, in German and French",
      async () => {
        const admin = await w.signedIn(f.users.admin);
        const path = `/account/workspaces/${f.workspaceId}/activity`;
        const de = await (await admin.request(path, inLang("de"))).text();
        assertSpeaks(de, "de", allow);
        assert.match(de, /<h1>Aktivität in Test Workspace<\/h1>/);
        assert.match(de, /<h2 id="ws-apps">Verbundene Apps in Test Workspace<\/h2>/);
        assert.ok(
          de.includes(`aria-label="${appName} trennen (für ${memberEmail})">${appName} trennen</button>`),
        );
        assert.ok(de.includes(`<dd data-person>${memberEmail}</dd>`));
        assert.match(de, /<dt>Benutzer<\/dt>/);

        const confirmUrl = `${path}/disconnect?user_id=${member}&client_id=${
          encodeURIComponent(grant.clientId)
        }`;
        for (const lang of ["de", "fr"] as const) {
          const res = await admin.request(confirmUrl, inLang(lang));
          assert.equal(res.status, 200);
          assertSpeaks(await res.clone().text(), lang, allow);
        }
        const confirm = await (await admin.request(confirmUrl, inLang("fr"))).text();
        assert.ok(confirm.includes(`<h1>Déconnecter ${appName} ?</h1>`));
        assert.ok(confirm.includes(
          `<p>${appName} perd immédiatement l'accès à Test Workspace pour ${memberEmail} : ses jetons cessent de ` +
            `fonctionner à leur prochaine utilisation dans cet espace, et l'application devra de nouveau demander ` +
            `l'approbation de ${memberEmail}. Son accès aux autres espaces de travail ne change pas.</p>`,
        ));
        assert.ok(confirm.includes(`<button type="submit" class="danger">Déconnecter ${appName}</button>`));

        // A form that cannot be verified: 403, in German, the same code word.
        const expired = await admin.request(`${path}/disconnect`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "accept-language": "de" },
          body: new URLSearchParams({ csrf: "wrong", user_id: member, client_id: grant.clientId }).toString(),
        });
        assert.equal(expired.status, 403);
        const expiredHtml = await expired.text();
        assertSpeaks(expiredHtml, "de");
        assert.match(expiredHtml, /Laden Sie die Seite neu und versuchen Sie es erneut\./);
        assert.match(expiredHtml, /data-error-code="invalid_csrf"/);

        const done = await admin.post(`${path}/disconnect`, {
          csrf: field(confirm, "csrf")!,
          user_id: member,
          client_id: grant.clientId,
        });
        assert.equal(done.status, 303);
        const after = await (await admin.request(done.headers.get("location")!, inLang("de"))).text();
        assertSpeaks(after, "de", allow);
        assert.match(after, /role="status">Die App wurde für dieses Mitglied getrennt\.</);
        assert.match(
          after,
          /<p class="muted">Kein Mitglied hat eine App mit diesem Arbeitsbereich verbunden\.<\/p>/,
        );
        const apres = await (await admin.request(done.headers.get("location")!, inLang("fr"))).text();
        assertSpeaks(apres, "fr", allow);
        assert.match(apres, /role="status">L'application a été déconnectée pour ce membre\.</);

        // Not connected (any more): 404 in French, the same code word.
        const gone = await admin.request(confirmUrl, inLang("fr"));
        assert.equal(gone.status, 404);
        const goneHtml = await gone.text();
        assertSpeaks(goneHtml, "fr");
        assert.match(goneHtml, /<h1>Non connectée<\/h1>/);
        assert.match(goneHtml, /data-error-code="not_found"/);

        // Not an owner or admin: 403 in German, the same code word.
        const manager = await w.signedIn(f.users.manager);
        const refused = await manager.request(path, inLang("de"));
        assert.equal(refused.status, 403);
        const refusedHtml = await refused.text();
        assertSpeaks(refusedHtml, "de");
        assert.match(refusedHtml, /<h1>Nicht erlaubt<\/h1>/);
        assert.match(refusedHtml, /Ihre eigenen Aufrufe finden Sie unter „Aktivität“\./);
        assert.match(refusedHtml, /data-error-code="forbidden"/);
      },
    );

    await t.step("the CSV is the same file in every language: English header and words", async () => {
      const csvIn = async (lang: string) => {
        const res = await b.request("/account/activity.csv", inLang(lang));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
        return new Uint8Array(await res.arrayBuffer());
      };
      const en = await csvIn("en");
      assert.deepEqual(await csvIn("de"), en);
      assert.deepEqual(await csvIn("fr"), en);
      assert.deepEqual([...en.slice(0, 3)], [0xef, 0xbb, 0xbf]); // the BOM (the decoder drops it)
      const lines = new TextDecoder().decode(en).split("\r\n");
      assert.equal(
        lines[0],
        "time_utc,tool,tool_title,outcome,reason,confirmation,records,app_client_id,app_name,key_id," +
          "key_name,person,workspace,id",
      );
      const denied = lines.find((l) => l.includes(",list_invoices,"))!;
      assert.ok(
        denied.includes(
          ",List invoices,Refused,the member role may not use invoices tools in this workspace,,",
        ),
        denied,
      );
      assert.ok(
        lines.some((l) => l.includes(",Get project,Refused: invalid input,the input was not valid,,")),
      );
    });
  } finally {
    await w.close();
  }
});
