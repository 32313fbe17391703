// /account/sessions: the person's browser sessions, "Sign out" of one (POST /account/sessions/end) and "Sign out
// everywhere else" (POST /account/sessions/end-others); CSRF on both, 303 back to the list with a notice. Each
// records a security event (session_ended, sessions_ended).
import type { Hono } from "hono";
import { z } from "zod";
import type { Config } from "../lib/config.ts";
import type { Db } from "../lib/db/client.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import type { Text } from "../lib/i18n/mod.ts";
import type { Logger } from "../lib/log.ts";
import { formExpired } from "../lib/page_errors.ts";
import {
  endOtherSessions,
  endSessionOf,
  listSessionsOf,
  SESSION_LIST_MAX,
} from "../lib/oauth/session_list.ts";
import { endSession, requireAccount } from "../lib/oauth/sessions.ts";
import { recordSecurityEvent, requestFacts } from "../lib/security/events.ts";
import { SessionsPage } from "../views/sessions.tsx";

export interface SessionPageDeps {
  sql: Db;
  log: Logger;
  secretKey: string;
  config: Pick<Config, "issuer" | "sessionIdleMinutes" | "trustedProxies">;
}

const EndForm = z.object({ csrf: z.string().max(200), session_id: z.string().max(100) });
const OthersForm = z.object({ csrf: z.string().max(200) });

const NOTICES: Record<string, Text> = {
  one: (t) => t.account.sessions.endedOne,
  others: (t) => t.account.sessions.endedOthers,
  none: (t) => t.account.sessions.endedNone,
};

export function createSessionPageRoutes(deps: SessionPageDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const idleSeconds = deps.config.sessionIdleMinutes * 60;

  app.get("/account/sessions", async (c) => {
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const sessions = await listSessionsOf(deps.sql, who.account.userId, idleSeconds);
    const ended = c.req.query("ended");
    return renderPage(c, SessionsPage, {
      csrf: csrfToken(c, deps),
      account: who.account,
      sessions,
      currentSessionId: who.session.sessionId,
      notice: ended && Object.hasOwn(NOTICES, ended) ? NOTICES[ended] : undefined,
      truncated: sessions.length >= SESSION_LIST_MAX,
    });
  });

  app.post("/account/sessions/end", async (c) => {
    const form = EndForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) {
      return formExpired(c, (t) => t.common.reloadAndRetry);
    }
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const userId = who.account.userId;
    const target = form.data.session_id;
    const ended = await endSessionOf(deps.sql, userId, target);
    if (ended) {
      await recordSecurityEvent(deps.sql, deps.log, {
        kind: "session_ended",
        userId,
        ...requestFacts(c, deps.config.trustedProxies),
        detail: { this_browser: target === who.session.sessionId },
      });
    }
    if (target === who.session.sessionId) {
      // Signed out here: the cookie goes when no other account is left in this browser.
      if (who.session.accounts.length <= 1) await endSession(deps.sql, c, issuer, target);
      return c.redirect(
        who.session.accounts.length > 1 ? "/account/sessions" : "/signin?return_to=%2Faccount%2Fsessions",
        303,
      );
    }
    return c.redirect(`/account/sessions?ended=${ended ? "one" : "none"}`, 303);
  });

  app.post("/account/sessions/end-others", async (c) => {
    const form = OthersForm.safeParse(await c.req.parseBody());
    if (!form.success || !verifyCsrf(c, deps, form.data.csrf)) {
      return formExpired(c, (t) => t.common.reloadAndRetry);
    }
    const who = await requireAccount(deps.sql, c, issuer);
    if (who instanceof Response) return who;
    const count = await endOtherSessions(deps.sql, who.account.userId, who.session.sessionId);
    await recordSecurityEvent(deps.sql, deps.log, {
      kind: "sessions_ended",
      userId: who.account.userId,
      ...requestFacts(c, deps.config.trustedProxies),
      detail: { sessions: count },
    });
    return c.redirect("/account/sessions?ended=others", 303);
  });

  return app;
}
