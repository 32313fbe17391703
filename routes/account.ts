// /account/apps: the applications the current account approved, and disconnecting one (confirmation page, then
// a POST with CSRF).
import type { Context, Hono } from "hono";
import { z } from "zod";
import { type ConnectedAppDetail, listConnectedAppDetails } from "../lib/account_apps.ts";
import { describeScopes } from "../lib/oauth/scopes.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { isOperator } from "../lib/oauth/approvals.ts";
import { disconnectApp } from "../lib/oauth/consent.ts";
import { requireAccount } from "../lib/oauth/sessions.ts";
import { ConnectedAppsPage, type ConnectedAppView, DisconnectConfirmPage } from "../views/connected_apps.tsx";
import { errorPage, formExpired } from "../lib/page_errors.ts";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const RevokeForm = z.object({ csrf: z.string().max(200), client_id: z.string().max(200) });
const ClientQuery = z.string().min(1).max(2000);

export function createAccountRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;

  const describe = async (a: ConnectedAppDetail): Promise<ConnectedAppView> => ({
    ...a,
    scopes: await describeScopes(deps.sql, a.scopes, "connected_apps"),
  });

  const notConnected = (c: Context<AppEnv>) =>
    errorPage(
      c,
      (t) => t.account.apps.notConnectedTitle,
      (t) => t.account.apps.notConnectedMessage,
      404,
      "not_found",
    );

  app.get("/account/apps", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const apps = await listConnectedAppDetails(deps.sql, who.account.userId);
    return renderPage(c, ConnectedAppsPage, {
      csrf: csrfToken(c, deps),
      account: who.account,
      apps: await Promise.all(apps.map(describe)),
      notice: c.req.query("disconnected") === "1" ? (t) => t.account.apps.disconnected : undefined,
      operator: await isOperator(deps.sql, who.account.userId),
    });
  });

  // Disconnect's first step: a page that says what will end; nothing changes on a GET.
  app.get("/account/apps/disconnect", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const clientId = ClientQuery.safeParse(c.req.query("client_id"));
    if (!clientId.success) return notConnected(c);
    const [found] = await listConnectedAppDetails(deps.sql, who.account.userId, clientId.data);
    if (!found) return notConnected(c);
    return renderPage(c, DisconnectConfirmPage, { csrf: csrfToken(c, deps), app: await describe(found) });
  });

  app.post("/account/apps/revoke", async (c) => {
    const body = await c.req.parseBody();
    const form = RevokeForm.safeParse(body);
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) {
      return formExpired(c, (t) => t.common.reloadAndRetry);
    }
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    await disconnectApp(deps.sql, who.account.userId, form.data.client_id);
    return c.redirect("/account/apps?disconnected=1", 303);
  });

  return app;
}
