// The operator pages in German and French (issue 30 point 4): the approval requests (the list, its notice, the
// empty state, the bounded list), the trusted apps and prefixes (a refused prefix, the configuration's prefixes,
// the recent decisions) and every refusal (not an operator, no such request, already decided, no such app or
// prefix, set in the configuration, an expired form) — no English left, the same status and code word as in
// English, and some exact German and French text.
import assert from "node:assert/strict";
import { askApproval, PENDING_LIST_MAX } from "../../lib/oauth/approvals.ts";
import { MODULES } from "../../lib/workspace/modules.ts";
import { addMember, createCompany, createWorkspace } from "../../lib/workspace/workspaces.ts";
import { testApp } from "../helpers/app.ts";
import { assertSpeaks } from "../helpers/i18n.ts";
import { Browser, type Ctx, field, registerPublic, setup, signInOnPage } from "../oauth/helpers.ts";

const DOC_CLIENT = "https://tools.example/oauth/client.json";
/** Data on the pages, not page text. */
const ALLOW = [
  "Cursor",
  "Doc Tool",
  "Olly",
  "olly@example.com",
  "dana@example.com",
  "Harbour Studio",
  "North Company",
];

async function signedIn(ctx: Ctx, email: string): Promise<{ b: Browser; csrf: string }> {
  const b = new Browser(ctx.app);
  const page = await b.get("/signin?return_to=%2Foperator%2Frequests");
  const html = await page.clone().text();
  assert.equal((await signInOnPage(b, page, email)).status, 303);
  return { b, csrf: field(html, "csrf")! };
}

/** GET in a language: the status, and the page, which speaks it. */
async function get(b: Browser, path: string, lang: "de" | "fr", status = 200): Promise<string> {
  const res = await b.request(path, { headers: { "accept-language": lang } });
  assert.equal(res.status, status, path);
  assert.equal(res.headers.get("content-language"), lang);
  const html = await res.text();
  assertSpeaks(html, lang, ALLOW);
  return html;
}

/** POST a form in a language: the status, and the page (if any), which speaks it. */
async function post(
  b: Browser,
  path: string,
  fields: Record<string, string>,
  lang: "de" | "fr",
  status: number,
): Promise<Response> {
  const res = await b.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "accept-language": lang },
    body: new URLSearchParams(fields).toString(),
  });
  assert.equal(res.status, status, path);
  if (status !== 303) assertSpeaks(await res.clone().text(), lang, ALLOW);
  return res;
}

Deno.test("operator pages in German and French: lists, notices, empty states, refusals", async (t) => {
  const ctx = await setup();
  try {
    const ws = (await createWorkspace(ctx.db.sql, "Harbour Studio", [...MODULES])).id;
    const company = (await createCompany(ctx.db.sql, ws, "North Company")).id;
    await addMember(ctx.db.sql, ws, ctx.user.id, "owner", null);
    await addMember(ctx.db.sql, ws, ctx.other.id, "member", null);
    await ctx.db.sql`update users set operator = true where id = ${ctx.user.id}`;
    const ask = async (clientId: string, note = "") => {
      const asked = await askApproval(ctx.db.sql, {
        clientId,
        userId: ctx.other.id,
        place: { workspaceId: ws, companyId: company },
        scopes: ["openid", "workspace"],
        note,
      });
      assert.equal(asked.kind, "asked");
      return asked.kind === "asked" ? asked.request.id : "";
    };
    const operator = await signedIn(ctx, ctx.user.email);
    const person = await signedIn(ctx, ctx.other.email);

    await t.step("not an operator: 403 in the person's language, the same code word", async () => {
      const de = await get(person.b, "/operator/requests", "de", 403);
      assert.match(de, /<h1>Nur für Betreiber<\/h1>/);
      assert.match(de, /Diese Seite ist für Betreiber dieses Dienstes, und olly@example.com ist keiner\./);
      assert.match(de, /data-error-code="not_operator"/);
      const fr = await get(person.b, "/operator/clients", "fr", 403);
      assert.match(fr, /<h1>Réservé aux opérateurs<\/h1>/);
      assert.match(fr, /data-error-code="not_operator"/);
    });

    const cursor = await registerPublic(ctx.app, {
      client_name: "Cursor",
      redirect_uris: ["cursor://anysphere.cursor-mcp/oauth/callback", "http://127.0.0.1:8976/callback"],
    });
    await ctx.db.sql`
      update oauth_clients set created_at = '2026-02-03 04:05Z', last_used_at = null
       where client_id = ${cursor.client_id}`;
    const cursorRequest = await ask(cursor.client_id, "Für den Wochenbericht");
    // A metadata document whose redirect URIs lead to 12 places: 10 named, "and 2 more".
    await ctx.db.sql`
      insert into oauth_clients (client_id, name, redirect_uris, scopes, self_registered, created_at)
      values (${DOC_CLIENT}, 'Doc Tool', ${Array.from({ length: 12 }, (_, i) => `https://h${i}.example/cb`)},
              '{openid,workspace}', true, '2026-02-03 04:05Z')`;
    await ask(DOC_CLIENT);

    await t.step(
      "the approval requests: who asked, where, the app, its use, the buttons, the frame",
      async () => {
        const de = await get(operator.b, "/operator/requests", "de");
        assert.match(de, /<h1>Freigabeanfragen<\/h1>/);
        assert.match(de, /<nav class="operator-nav" aria-label="Betreiberseiten">/);
        assert.match(de, /<a href="\/operator\/clients"\s*>Vertrauenswürdige Apps<\/a>/);
        assert.match(de, /Angemeldet als dana@example.com \(Betreiber\)/);
        assert.match(de, /data-origin="registered">hat sich selbst registriert</);
        assert.match(de, /data-origin="metadata_document">Metadatendokument von tools.example</);
        assert.match(de, /<dt>Angefragt von<\/dt><dd data-asked-by>Olly &lt;olly@example.com&gt;<\/dd>/);
        assert.match(de, /data-workspace>Harbour Studio, nur North Company</);
        assert.match(de, /<dt>Zuerst gesehen<\/dt><dd>03\.02\.2026, 04:05 UTC<\/dd>/);
        assert.match(de, /<dt>Zuletzt verwendet<\/dt><dd>nie<\/dd>/);
        assert.match(de, /data-redirect-host>h9.example<\/code> und 2 weitere<\/dd>/);
        assert.match(de, /data-note>Für den Wochenbericht</);
        assert.match(de, /<button type="submit">Cursor freigeben<\/button>/);
        assert.match(de, /<button type="submit" class="danger">Cursor ablehnen<\/button>/);
        assert.match(de, /<strong>Freigeben<\/strong> vertraut der App für alle auf diesem Server/);
        assert.match(de, /<button type="submit" class="link">Abmelden<\/button>/);

        const fr = await get(operator.b, "/operator/requests", "fr");
        assert.match(fr, /<h1>Demandes d'approbation<\/h1>/);
        assert.match(fr, /data-origin="registered">auto-enregistrée</);
        assert.match(fr, /<dt>Vue pour la première fois<\/dt><dd>3 févr\. 2026, 04:05 UTC<\/dd>/);
        assert.match(fr, /data-redirect-host>h9.example<\/code> et 2 de plus<\/dd>/);
        assert.match(fr, /<button type="submit">Approuver Cursor<\/button>/);
        assert.match(fr, /<dd data-note><span class="muted">aucune<\/span><\/dd>/);
      },
    );

    await t.step("approving: the notice; then the refusals of a decided or unknown request", async () => {
      const done = await post(
        operator.b,
        "/operator/requests/approve",
        { csrf: operator.csrf, request_id: cursorRequest },
        "de",
        303,
      );
      const de = await get(operator.b, done.headers.get("location")!, "de");
      assert.match(
        de,
        /role="status">Freigegeben\. Der App wird jetzt für alle auf diesem Server vertraut; jede offene Anfrage für sie wurde damit freigegeben\.</,
      );
      const again = await post(
        operator.b,
        "/operator/requests/deny",
        { csrf: operator.csrf, request_id: cursorRequest },
        "fr",
        409,
      );
      const againHtml = await again.text();
      assert.match(againHtml, /<h1>Déjà traitée<\/h1>/);
      assert.match(
        againHtml,
        /Cette demande a déjà été approuvée\. Rien n'a changé\. Revenez aux demandes d'approbation\./,
      );
      assert.match(againHtml, /data-error-code="already_decided"/);
      const unknown = await post(
        operator.b,
        "/operator/requests/approve",
        { csrf: operator.csrf, request_id: crypto.randomUUID() },
        "de",
        404,
      );
      const unknownHtml = await unknown.text();
      assert.match(unknownHtml, /<h1>Anfrage nicht gefunden<\/h1>/);
      assert.match(unknownHtml, /data-error-code="not_found"/);
      const expired = await post(
        operator.b,
        "/operator/requests/approve",
        { csrf: "wrong", request_id: cursorRequest },
        "fr",
        403,
      );
      const expiredHtml = await expired.text();
      assert.match(expiredHtml, /Rechargez la page et réessayez\./);
      assert.match(expiredHtml, /data-error-code="invalid_csrf"/);
    });

    await t.step("the empty list, in both languages", async () => {
      await ctx.db.sql`delete from oauth_approval_requests`;
      assert.match(
        await get(operator.b, "/operator/requests", "de"),
        /<p data-empty>Keine Anfragen warten\.<\/p>/,
      );
      assert.match(
        await get(operator.b, "/operator/requests", "fr"),
        /<p data-empty>Aucune demande en attente\.<\/p>/,
      );
    });

    await t.step(
      "trusted apps, prefixes and decisions: the page, a refused prefix, the notices",
      async () => {
        const de = await get(operator.b, "/operator/clients", "de");
        assert.match(de, /<h1>Vertrauenswürdige Apps<\/h1>/);
        assert.match(de, /<h2 id="clients-title">Einzeln vertraute Apps<\/h2>/);
        assert.match(de, /data-people="0">0 Personen verwenden sie</);
        assert.match(de, /<button type="submit" class="danger">Cursor das Vertrauen entziehen<\/button>/);
        assert.match(de, /<p class="muted" data-no-prefixes>Keinem Präfix wird vertraut\.<\/p>/);
        assert.match(de, /dana@example.com hat eine Anfrage freigegeben: <code>/);
        const fr = await get(operator.b, "/operator/clients", "fr");
        assert.match(fr, /data-people="0">0 personne l'utilise</);
        assert.match(fr, /dana@example.com a approuvé une demande : <code>/);

        const bad = await post(
          operator.b,
          "/operator/prefixes/trust",
          { csrf: operator.csrf, prefix: "http://evil.example/" },
          "de",
          400,
        );
        const badHtml = await bad.text();
        assert.match(
          badHtml,
          /role="alert">Ein Präfix ist eine https-URL mit mindestens dem Host und einem Schrägstrich/,
        );
        assert.match(badHtml, /aria-invalid="true"/);
        assert.ok(badHtml.includes('value="http://evil.example/"'));

        const good = await post(
          operator.b,
          "/operator/prefixes/trust",
          { csrf: operator.csrf, prefix: "https://tools.example/oauth/" },
          "fr",
          303,
        );
        const trusted = await get(operator.b, good.headers.get("location")!, "fr");
        assert.match(trusted, /role="status">Préfixe ajouté\./);
        assert.match(trusted, /<span class="muted">ajouté le \d{1,2} [^<]+ UTC<\/span>/);
        assert.match(
          trusted,
          /<button type="submit" class="danger">Retirer https:\/\/tools.example\/oauth\/<\/button>/,
        );
        assert.match(
          trusted,
          /a ajouté un préfixe de confiance : <code>https:\/\/tools.example\/oauth\/<\/code>/,
        );

        const untrust = await post(
          operator.b,
          "/operator/clients/untrust",
          { csrf: operator.csrf, client_id: cursor.client_id },
          "de",
          303,
        );
        const after = await get(operator.b, untrust.headers.get("location")!, "de");
        assert.match(after, /role="status">Vertrauen entzogen\./);
        assert.match(after, /hat einer App das Vertrauen entzogen: <code>/);

        const noApp = await post(
          operator.b,
          "/operator/clients/untrust",
          { csrf: operator.csrf, client_id: "pcl_nothing" },
          "fr",
          404,
        );
        const noAppHtml = await noApp.text();
        assert.match(noAppHtml, /<h1>Application introuvable<\/h1>/);
        assert.match(noAppHtml, /data-error-code="not_found"/);
        const noPrefix = await post(
          operator.b,
          "/operator/prefixes/untrust",
          { csrf: operator.csrf, prefix: "https://nothing.example/" },
          "de",
          404,
        );
        assert.match(await noPrefix.text(), /<h1>Präfix nicht gefunden<\/h1>/);
      },
    );

    await t.step("the configuration's prefixes: read-only, and refused when removed", async () => {
      const configured = testApp(ctx.db.sql, { TRUSTED_CLIENT_ID_PREFIXES: "https://claude.ai/oauth/" });
      const b = new Browser(configured);
      b.cookies = new Map(operator.b.cookies);
      const fr = await get(b, "/operator/clients", "fr");
      assert.match(
        fr,
        /<span class="muted">défini dans TRUSTED_CLIENT_ID_PREFIXES \(lecture seule ici\)<\/span>/,
      );
      const de = await get(b, "/operator/clients", "de");
      assert.match(de, /in TRUSTED_CLIENT_ID_PREFIXES festgelegt \(hier nur lesbar\)/);
      const remove = await post(
        b,
        "/operator/prefixes/untrust",
        { csrf: operator.csrf, prefix: "https://claude.ai/oauth/" },
        "de",
        409,
      );
      const html = await remove.text();
      assert.match(html, /<h1>In der Konfiguration festgelegt<\/h1>/);
      assert.match(html, /data-error-code="conflict"/);
    });

    await t.step(
      `the bounded list: ${PENDING_LIST_MAX} shown, the rest counted, in both languages`,
      async () => {
        await ctx.db.sql`delete from oauth_approval_requests`;
        await ctx.db.sql`
        insert into oauth_clients (client_id, name, redirect_uris, scopes, self_registered)
        select 'pcl_bulk_' || i, 'Doc Tool', ${["https://bulk.example/cb"]}, '{openid}', true
          from generate_series(1, ${PENDING_LIST_MAX + 7}) i`;
        await ctx.db.sql`
        insert into oauth_approval_requests (client_id, user_id, workspace_id, scopes)
        select 'pcl_bulk_' || i, ${ctx.other.id}, ${ws}, '{openid,workspace}'
          from generate_series(1, ${PENDING_LIST_MAX + 7}) i`;
        const de = await get(operator.b, "/operator/requests", "de");
        assert.ok(de.includes(
          `data-more="7">7 weitere nicht angezeigt (die neuesten ${PENDING_LIST_MAX} von ${
            PENDING_LIST_MAX + 7
          }). ` +
            "Entscheiden Sie über diese und laden Sie die Seite neu, oder listen Sie alle mit " +
            "<code>deno task admin client pending</code> auf.</p>",
        ));
        const fr = await get(operator.b, "/operator/requests", "fr");
        assert.ok(fr.includes(
          `data-more="7">7 de plus non affichées (les ${PENDING_LIST_MAX} plus récentes sur ${
            PENDING_LIST_MAX + 7
          }).`,
        ));
      },
    );
  } finally {
    await ctx.close();
  }
});
