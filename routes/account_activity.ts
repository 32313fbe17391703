// /account/activity (a person's own apps and keys) and /account/workspaces/<id>/activity (every app and key of the
// workspace, for its owners and admins): pages of 50 and bounded CSV exports with the same filters; and an admin's
// Disconnect of a member's app for the workspace (confirmation page, then a POST with CSRF and a 303).
// docs/activity.md says what is shown and what never is. The pages speak the person's language; the CSV is the
// same in every language (English words, snake_case header: docs/activity.md "CSV and languages").
import type { Context, Hono } from "hono";
import { z } from "zod";
import {
  ACTIVITY_CSV_MAX,
  type ActivityFilter,
  activityPage,
  activityQueryString,
  type ActivityRow,
  type ActivityScope,
  activitySources,
  connectedInWorkspace,
  disconnectMemberApp,
  parseActivityQuery,
  workspaceAdminOf,
} from "../lib/activity.ts";
import { CSV_BOM, csvRow } from "../lib/csv.ts";
import { isUuid } from "../lib/errors.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { messagesFor } from "../lib/i18n/mod.ts";
import { errorFields } from "../lib/log.ts";
import { requireAccount } from "../lib/oauth/sessions.ts";
import { errorPage, formExpired } from "../lib/page_errors.ts";
import { TOOLS } from "../tools/mod.ts";
import {
  ActivityPage,
  confirmationText,
  DisconnectMemberAppPage,
  outcomeText,
  reasonText,
} from "../views/activity.tsx";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const OWN = "/account/activity";
const wsPath = (id: string) => `/account/workspaces/${id}/activity`;
const ClientId = z.string().min(1).max(2000);
const DisconnectForm = z.object({
  csrf: z.string().max(200),
  user_id: z.string().max(100),
  client_id: ClientId,
});
/** The CSV's words: English whatever the page's language, so a file reads the same for every script. */
const CSV_WORDS = messagesFor("en");
/** Rows read per query while streaming a CSV. */
const CSV_CHUNK = 500;
const CSV_HEADER = [
  "time_utc",
  "tool",
  "tool_title",
  "outcome",
  "reason",
  "confirmation",
  "records",
  "app_client_id",
  "app_name",
  "key_id",
  "key_name",
  "person",
  "workspace",
  "id",
];

/** Tool name → title (the registry's `title`, else the name), in the registry's order; both variants. */
const TOOL_TITLES: ReadonlyArray<[string, string]> = [
  ...new Map(TOOLS.map((t) => [t.name, t.title ?? t.name])),
];
const TITLE = new Map(TOOL_TITLES);

function csvLine(r: ActivityRow): string {
  return csvRow([
    r.at,
    r.tool,
    TITLE.get(r.tool) ?? r.tool,
    outcomeText(CSV_WORDS, r.outcome),
    reasonText(CSV_WORDS, r.reason),
    confirmationText(CSV_WORDS, r),
    r.records.join(" "),
    r.clientId,
    r.appName,
    r.keyId,
    r.keyName,
    r.userEmail ?? r.userId,
    r.workspaceName,
    r.id,
  ]);
}

export function createAccountActivityRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const encoder = new TextEncoder();

  const notAllowed = (c: Context<AppEnv>) =>
    errorPage(c, (t) => t.activity.notAllowedTitle, (t) => t.activity.notAllowed, 403, "forbidden");

  /**
   * The CSV: BOM and header, then rows read CSV_CHUNK at a time along the cursor, at most ACTIVITY_CSV_MAX; when
   * more remain, a last line starting with `#` gives the cursor to continue from (the same URL with `before=`).
   */
  function csv(scope: ActivityScope, filter: ActivityFilter, path: string): Response {
    let sent = 0;
    let cursor = filter.before;
    let done = false;
    const body = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(encoder.encode(CSV_BOM + csvRow(CSV_HEADER)));
      },
      async pull(ctl) {
        if (done) return;
        try {
          const want = Math.min(CSV_CHUNK, ACTIVITY_CSV_MAX - sent);
          const page = await activityPage(deps.sql, scope, { ...filter, before: cursor }, want);
          sent += page.rows.length;
          ctl.enqueue(encoder.encode(page.rows.map(csvLine).join("")));
          if (page.next && sent < ACTIVITY_CSV_MAX) {
            const [at, id] = page.next.split("~");
            cursor = { at, id };
            return;
          }
          if (page.next) {
            ctl.enqueue(encoder.encode(
              `# cut at ${ACTIVITY_CSV_MAX} rows; the rest: ${path}.csv${
                activityQueryString(filter, page.next)
              }\r\n`,
            ));
          }
          done = true;
          ctl.close();
        } catch (err) {
          deps.log.error("activity export failed", errorFields(err));
          ctl.error(err);
        }
      },
    });
    return new Response(body, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="activity.csv"`,
        "Cache-Control": "no-store",
        "Activity-Row-Limit": String(ACTIVITY_CSV_MAX),
      },
    });
  }

  app.get(OWN, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const scope = { userId: who.account.userId };
    const filter = parseActivityQuery((n) => c.req.query(n));
    const [page, sources] = await Promise.all([
      activityPage(deps.sql, scope, filter),
      activitySources(deps.sql, scope),
    ]);
    return renderPage(c, ActivityPage, {
      path: OWN,
      account: who.account,
      filter,
      sources,
      tools: TOOL_TITLES,
      ...page,
    });
  });

  app.get(`${OWN}.csv`, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    return csv({ userId: who.account.userId }, parseActivityQuery((n) => c.req.query(n)), OWN);
  });

  app.get("/account/workspaces/:id/activity", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const id = c.req.param("id");
    const name = await workspaceAdminOf(deps.sql, who.account.userId, id);
    if (name === null) return notAllowed(c);
    const scope = { workspaceId: id };
    const filter = parseActivityQuery((n) => c.req.query(n));
    const [page, sources, apps] = await Promise.all([
      activityPage(deps.sql, scope, filter),
      activitySources(deps.sql, scope),
      connectedInWorkspace(deps.sql, id),
    ]);
    return renderPage(c, ActivityPage, {
      path: wsPath(id),
      account: who.account,
      workspace: { id, name, apps },
      filter,
      sources,
      tools: TOOL_TITLES,
      notice: c.req.query("disconnected") === "1" ? (t) => t.activity.disconnected : undefined,
      ...page,
    });
  });

  app.get("/account/workspaces/:id/activity.csv", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const id = c.req.param("id");
    if (await workspaceAdminOf(deps.sql, who.account.userId, id) === null) return notAllowed(c);
    return csv({ workspaceId: id }, parseActivityQuery((n) => c.req.query(n)), wsPath(id));
  });

  // Disconnect's first step: what ends, for whom; nothing changes on a GET.
  app.get("/account/workspaces/:id/activity/disconnect", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const id = c.req.param("id");
    const name = await workspaceAdminOf(deps.sql, who.account.userId, id);
    if (name === null) return notAllowed(c);
    const userId = c.req.query("user_id") ?? "";
    const clientId = ClientId.safeParse(c.req.query("client_id"));
    const [found] = isUuid(userId) && clientId.success
      ? await connectedInWorkspace(deps.sql, id, { userId, clientId: clientId.data })
      : [];
    if (!found) {
      return errorPage(
        c,
        (t) => t.activity.notConnectedTitle,
        (t) => t.activity.notConnected,
        404,
        "not_found",
      );
    }
    return renderPage(c, DisconnectMemberAppPage, {
      csrf: csrfToken(c, deps),
      path: wsPath(id),
      workspaceName: name,
      app: found,
    });
  });

  app.post("/account/workspaces/:id/activity/disconnect", async (c) => {
    const form = DisconnectForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) {
      return formExpired(c, (t) => t.common.reloadAndRetry);
    }
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const id = c.req.param("id");
    if (await workspaceAdminOf(deps.sql, who.account.userId, id) === null) return notAllowed(c);
    const revoked = await disconnectMemberApp(
      deps.sql,
      who.account.userId,
      id,
      form.data.user_id,
      form.data.client_id,
    );
    if (revoked === null) return notAllowed(c);
    deps.log.info("member app disconnected", {
      workspace_id: id,
      admin_id: who.account.userId,
      user_id: form.data.user_id,
      grants: revoked,
    });
    return c.redirect(`${wsPath(id)}?disconnected=1`, 303);
  });

  return app;
}
