// /account: the person's home (views/account_home.tsx) and POST /account/profile (name, picture and language; CSRF, 303
// after a change, the form again with the reason and 400 otherwise).
import type { Hono } from "hono";
import { z } from "zod";
import { accountSummary, profileProblem, updateProfile } from "../lib/account_home.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { requireAccount } from "../lib/oauth/sessions.ts";
import { formExpired } from "../lib/page_errors.ts";
import { AccountHomePage } from "../views/account_home.tsx";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const ProfileForm = z.object({
  csrf: z.string().max(200),
  // Generous bounds (the body limit holds anyway): a long value gets profileProblem's reason, not "Form expired".
  name: z.string().max(20_000).default(""),
  picture: z.string().max(20_000).default(""),
  locale: z.string().max(100).default(""),
});

export function createAccountHomeRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const idle = deps.config.sessionIdleMinutes * 60;

  app.get("/account", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    return renderPage(c, AccountHomePage, {
      csrf: csrfToken(c, deps),
      summary: await accountSummary(deps.sql, who.account.userId, idle),
      notice: c.req.query("saved") === "1" ? (t) => t.home.saved : undefined,
    });
  });

  app.post("/account/profile", async (c) => {
    const form = ProfileForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) {
      return formExpired(c, "Reload the page and try again.");
    }
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const profile = { name: form.data.name, picture: form.data.picture, locale: form.data.locale };
    const problem = profileProblem(profile);
    if (problem) {
      return renderPage(c, AccountHomePage, {
        csrf: csrfToken(c, deps),
        summary: await accountSummary(deps.sql, who.account.userId, idle),
        form: profile,
        problem,
      }, 400);
    }
    await updateProfile(deps.sql, who.account.userId, profile);
    return c.redirect("/account?saved=1", 303);
  });

  return app;
}
