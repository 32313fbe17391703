// /account/workspaces: each workspace's "require two-step sign-in", switched by its owners and admins.
import type { Hono } from "hono";
import { z } from "zod";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { requireAccount } from "../lib/oauth/sessions.ts";
import { errorPage, formExpired } from "../lib/page_errors.ts";
import { recordSecurityEvent, requestFacts } from "../lib/security/events.ts";
import { policyWorkspaces, setTwoFactorPolicy } from "../lib/security/workspace_policy.ts";
import { AccountWorkspacesPage } from "../views/account_workspaces.tsx";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const PATH = "/account/workspaces";
const PolicyForm = z.object({
  csrf: z.string().max(200),
  workspace_id: z.string().max(100),
  require: z.enum(["on", "off"]),
});

export function createAccountWorkspaceRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;

  app.get(PATH, async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const changed = c.req.query("changed");
    return renderPage(c, AccountWorkspacesPage, {
      csrf: csrfToken(c, deps),
      account: who.account,
      workspaces: await policyWorkspaces(deps.sql, who.account.userId),
      notice: changed === "on"
        ? (t) => t.account.workspaces.nowRequired
        : changed === "off"
        ? (t) => t.account.workspaces.noLongerRequired
        : undefined,
    });
  });

  app.post(`${PATH}/two-step`, async (c) => {
    const body = await c.req.parseBody();
    if (typeof body.csrf !== "string" || !verifyCsrf(c, deps, body.csrf)) {
      return formExpired(c, (t) => t.common.reloadAndRetry);
    }
    const form = PolicyForm.safeParse(body);
    if (!form.success) {
      const badRequire = form.error.issues[0]?.path[0] === "require";
      return errorPage(
        c,
        (t) => t.account.workspaces.invalidTitle,
        (t) =>
          t.account.workspaces.invalidMessage(
            badRequire ? t.account.workspaces.requireField : "workspace_id",
          ),
        400,
        "invalid_input",
      );
    }
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const require = form.data.require === "on";
    const name = await setTwoFactorPolicy(deps.sql, who.account.userId, form.data.workspace_id, require);
    if (name === null) {
      return errorPage(
        c,
        (t) => t.account.workspaces.forbiddenTitle,
        (t) => t.account.workspaces.forbiddenMessage,
        403,
        "forbidden",
      );
    }
    await recordSecurityEvent(deps.sql, deps.log, {
      kind: "workspace_policy_changed",
      userId: who.account.userId,
      ...requestFacts(c, deps.config.trustedProxies),
      detail: { workspace_id: form.data.workspace_id, require_two_factor: require },
    });
    return c.redirect(`${PATH}?changed=${form.data.require}`, 303);
  });

  return app;
}
