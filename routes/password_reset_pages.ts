// "Forgot password?": /signin/forgot (ask for a link; one answer for every address), /signin/reset (choose a new
// password with the link), and /dev/mailbox (the mail a `deno task dev` server without SMTP_URL would send).
import type { Hono } from "hono";
import { z } from "zod";
import type { Config } from "../lib/config.ts";
import type { ScryptParams } from "../lib/crypto.ts";
import type { Sql } from "../lib/db/client.ts";
import { clientIp } from "../lib/http/client_ip.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { readForm } from "../lib/http/form.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { localeOf, type Messages } from "../lib/i18n/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { Mailer } from "../lib/mail.ts";
import { reachesLoopback } from "../lib/net/loopback.ts";
import { formExpired } from "../lib/page_errors.ts";
import { requestReset, resetLinkLive, resetPassword } from "../lib/password_reset.ts";
import { recordSecurityEvent, requestFacts } from "../lib/security/events.ts";
import {
  DevMailboxPage,
  ForgotPasswordPage,
  ResetLinkInvalidPage,
  ResetPasswordPage,
  ResetSentPage,
} from "../views/password_reset.tsx";

export interface PasswordResetDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretKey: string;
  mailer: Mailer;
  /** Test-only: a cheaper scrypt cost for the new hash */
  scrypt?: ScryptParams;
}

const str = (max: number) => z.string().max(max).optional();
const ResetForm = z.object({
  csrf: str(200),
  email: str(320),
  token: str(200),
  password: str(1024),
  confirm: str(1024),
});

export function createPasswordResetRoutes(deps: PasswordResetDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const sql = deps.sql;

  async function form(c: Parameters<typeof verifyCsrf>[0]) {
    const r = ResetForm.safeParse((await readForm(c)).one);
    return r.success && verifyCsrf(c, deps, r.data.csrf) ? r.data : null;
  }

  app.get("/signin/forgot", (c) => renderPage(c, ForgotPasswordPage, { csrf: csrfToken(c, deps) }));

  app.post("/signin/forgot", async (c) => {
    const f = await form(c);
    if (!f) return formExpired(c);
    await requestReset(
      sql,
      {
        email: f.email ?? "",
        ip: clientIp(c, deps.config.trustedProxies),
        issuer: deps.config.issuer,
        requestId: c.get("requestId"),
        userAgent: c.req.header("user-agent")?.slice(0, 300),
        // The mail's language when the person chose none (users.locale): this request's.
        locale: localeOf(c),
      },
      deps.mailer,
      deps.log,
    );
    // The same redirect for every address: whether it has an account, is disabled or was throttled.
    return c.redirect("/signin/forgot/sent", 303);
  });

  app.get("/signin/forgot/sent", (c) => renderPage(c, ResetSentPage, {}));

  app.get("/signin/reset", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!await resetLinkLive(sql, token)) return renderPage(c, ResetLinkInvalidPage, {}, 400);
    return renderPage(c, ResetPasswordPage, { csrf: csrfToken(c, deps), token });
  });

  app.post("/signin/reset", async (c) => {
    const f = await form(c);
    if (!f) return formExpired(c);
    const token = f.token ?? "";
    const password = f.password ?? "";
    if (password !== (f.confirm ?? "")) {
      if (!await resetLinkLive(sql, token)) return renderPage(c, ResetLinkInvalidPage, {}, 400);
      const problem = (t: Messages) => t.security.reset.mismatch;
      return renderPage(c, ResetPasswordPage, { csrf: csrfToken(c, deps), token, problem }, 400);
    }
    const result = await resetPassword(sql, token, password, deps.scrypt);
    if (!result.ok && result.reason === "bad_password") {
      if (!await resetLinkLive(sql, token)) return renderPage(c, ResetLinkInvalidPage, {}, 400);
      return renderPage(
        c,
        ResetPasswordPage,
        { csrf: csrfToken(c, deps), token, problem: result.problem },
        400,
      );
    }
    if (!result.ok) return renderPage(c, ResetLinkInvalidPage, {}, 400);
    await recordSecurityEvent(sql, deps.log, {
      kind: "password_reset",
      userId: result.userId,
      ...requestFacts(c, deps.config.trustedProxies),
      detail: { sessions_ended: result.sessionsEnded },
    });
    // Not signed in here: the person signs in with the new password, so a second factor (issue 29) still applies.
    return c.redirect("/signin?reset=done", 303);
  });

  // Only with the dev mailbox (embedded database, no SMTP_URL) and only to this machine: it shows live links.
  if (deps.mailer.kind === "dev") {
    app.get("/dev/mailbox", (c) => {
      if (!reachesLoopback(clientIp(c, deps.config.trustedProxies))) return c.notFound();
      return renderPage(c, DevMailboxPage, { mails: deps.mailer.inbox() });
    });
  }
  return app;
}
