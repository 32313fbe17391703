// /account/security (the overview: password, two-step sign-in, passkeys, recovery codes, the browsers signed in,
// the person's recent security events) and /account/security/password (change the password; `?required=1&next=`
// after a sign-in whose password falls short of the policy, lib/security/completion.ts sends the person there).
//
// Export: `createAccountSecurityRoutes(deps)`; `safeNext(value)` (where the change page may go afterwards).
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
import type { Logger } from "../lib/log.ts";
import { requireAccount, safeReturnPath } from "../lib/oauth/sessions.ts";
import { formExpired } from "../lib/page_errors.ts";
import { listSecurityEvents } from "../lib/security/events.ts";
import { factorsOf } from "../lib/security/factors.ts";
import { changePassword } from "../lib/security/password_change.ts";
import { ChangePasswordPage, SecurityOverviewPage } from "../views/account_security.tsx";

export interface AccountSecurityDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretKey: string;
  /** Test-only: a cheaper scrypt cost for the new hash */
  scrypt?: ScryptParams;
}

/** Events the overview shows: the newest this many. */
export const OVERVIEW_EVENTS = 50;
const RESUME_PREFIX = "/oauth/authorize/resume?ticket=";
/** A sealed authorization ticket is at most 8000 characters (lib/oauth/authorize.ts openTicket). */
const MAX_TICKET = 8000;

/**
 * Where the change page may go afterwards: a same-origin path (safeReturnPath, ≤ 2000 characters), or the resume
 * URL of an authorization request, whose sealed ticket (base64url and dots) may be longer.
 */
export function safeNext(value: string | undefined | null): string | null {
  if (value?.startsWith(RESUME_PREFIX)) {
    const ticket = value.slice(RESUME_PREFIX.length);
    return ticket.length > 0 && ticket.length <= MAX_TICKET && /^[A-Za-z0-9._~-]+$/.test(ticket)
      ? value
      : null;
  }
  return safeReturnPath(value);
}

const str = (max: number) => z.string().max(max).optional();
const ChangeForm = z.object({
  csrf: str(200),
  current: str(1024),
  password: str(1024),
  confirm: str(1024),
  next: str(RESUME_PREFIX.length + MAX_TICKET),
  required: str(10),
});

export function createAccountSecurityRoutes(deps: AccountSecurityDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const { sql } = deps;
  const issuer = deps.config.issuer;

  app.get("/account/security", async (c) => {
    const who = await requireAccount(sql, c, issuer);
    if (who instanceof Response) return who;
    const userId = who.account.userId;
    const [user] = await sql<{ changedAt: Date | null }[]>`
      select password_changed_at as "changedAt" from users where id = ${userId}`;
    return renderPage(c, SecurityOverviewPage, {
      csrf: csrfToken(c, deps),
      account: who.account,
      passwordChangedAt: user?.changedAt ?? null,
      factors: await factorsOf(sql, userId),
      events: await listSecurityEvents(sql, userId, OVERVIEW_EVENTS),
      notice: c.req.query("changed") === "1" ? (t) => t.security.overview.changed : undefined,
    });
  });

  app.get("/account/security/password", async (c) => {
    const who = await requireAccount(sql, c, issuer);
    if (who instanceof Response) return who;
    return renderPage(c, ChangePasswordPage, {
      csrf: csrfToken(c, deps),
      account: who.account,
      required: c.req.query("required") === "1",
      next: safeNext(c.req.query("next")) ?? undefined,
    });
  });

  app.post("/account/security/password", async (c) => {
    const parsed = ChangeForm.safeParse((await readForm(c)).one);
    if (!parsed.success || !verifyCsrf(c, deps, parsed.data.csrf)) return formExpired(c);
    const form = parsed.data;
    const who = await requireAccount(sql, c, issuer);
    if (who instanceof Response) return who;
    const next = safeNext(form.next) ?? undefined;
    const result = await changePassword(sql, {
      userId: who.account.userId,
      sessionId: who.session.sessionId,
      current: form.current ?? "",
      password: form.password ?? "",
      confirm: form.confirm ?? "",
      ip: clientIp(c, deps.config.trustedProxies),
      userAgent: c.req.header("user-agent")?.slice(0, 300),
      requestId: c.get("requestId"),
    }, { log: deps.log, scrypt: deps.scrypt });
    if (!result.ok) {
      const status = result.reason === "throttled" ? 429 : 400;
      if (result.reason === "throttled") c.header("retry-after", String(result.retryAfter));
      return renderPage(c, ChangePasswordPage, {
        csrf: csrfToken(c, deps),
        account: who.account,
        required: form.required === "1",
        next,
        problem: result.problem,
      }, status);
    }
    return c.redirect(next ?? "/account/security?changed=1", 303);
  });

  return app;
}
