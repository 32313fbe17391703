// /account/apps: the applications the current account approved, and disconnecting one.
import { Hono } from "hono";
import { z } from "zod";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { render } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { disconnectApp, listConnectedApps } from "../lib/oauth/consent.ts";
import { describeScopes } from "../lib/oauth/scopes.ts";
import { requireAccount } from "../lib/oauth/sessions.ts";
import { ConnectedAppsPage } from "../views/connected_apps.tsx";
import { ErrorPage } from "../views/error_page.tsx";
import type { OAuthRouteDeps } from "./oauth.ts";

const RevokeForm = z.object({ csrf: z.string().max(200), client_id: z.string().max(200) });

export function createAccountRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const issuer = deps.config.issuer;

  app.get("/account/apps", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const apps = await listConnectedApps(deps.sql, who.account.userId);
    const described = await Promise.all(apps.map(async (a) => ({
      clientId: a.clientId,
      name: a.name,
      redirectHost: a.redirectHost,
      selfRegistered: a.selfRegistered,
      scopes: await describeScopes(deps.sql, a.scopes),
      grantedAt: a.grantedAt.toISOString().slice(0, 10),
    })));
    return render(
      c,
      ConnectedAppsPage({
        csrf: csrfToken(c, deps),
        account: who.account,
        apps: described,
        notice: c.req.query("disconnected") === "1" ? "The application was disconnected." : undefined,
      }),
    );
  });

  app.post("/account/apps/revoke", async (c) => {
    const body = await c.req.parseBody();
    const form = RevokeForm.safeParse(body);
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) {
      return render(
        c,
        ErrorPage({
          title: "Form expired",
          message: "The form could not be verified. Reload the page and try again.",
        }),
        403,
      );
    }
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    await disconnectApp(deps.sql, who.account.userId, form.data.client_id);
    return c.redirect("/account/apps?disconnected=1", 303);
  });

  return app;
}
