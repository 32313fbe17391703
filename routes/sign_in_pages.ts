// /signin and /signout for the authorization pages and the account pages, and the account pages' chooser
// (/account/switch): which accounts are signed in to this browser.
import type { Hono } from "hono";
import { clientIp } from "../lib/http/client_ip.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { openTicket, type SignInProblem, type Ticket } from "../lib/oauth/authorize.ts";
import { flowFormExpired, resumePath } from "../lib/oauth/authorize_flow.ts";
import { readPageForm } from "../lib/oauth/page_form.ts";
import {
  endSession,
  readBrowserSession,
  removeAccount,
  safeReturnPath,
  useAccount,
} from "../lib/oauth/sessions.ts";
import { recordSecurityEvent, requestFacts } from "../lib/security/events.ts";
import { readDevice, signIn } from "../lib/oauth/sign_in.ts";
import { afterFirstFactor } from "../lib/security/completion.ts";
import { formExpired, requestExpired } from "../lib/page_errors.ts";
import { ChooseAccountPage } from "../views/choose_account.tsx";
import { PASSKEY_CSP } from "../views/passkeys.tsx";
import { SignInPage } from "../views/sign_in.tsx";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const DEFAULT_RETURN = "/account/apps";

export function createSignInPageRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const sql = deps.sql;
  const resume = (ticket: Ticket) => resumePath(deps.secretKey, ticket);

  app.get("/signin", async (c) => {
    const returnTo = safeReturnPath(c.req.query("return_to")) ?? DEFAULT_RETURN;
    const problem = c.req.query("error");
    const session = await readBrowserSession(sql, c, issuer);
    if (session && session.accounts.length > 0 && c.req.query("add") !== "1" && !problem) {
      return renderPage(c, ChooseAccountPage, {
        csrf: csrfToken(c, deps),
        action: "/account/switch",
        hidden: { return_to: returnTo },
        accounts: session.accounts,
      });
    }
    // The passkey button's script (/assets/passkeys.js) and its requests to this origin.
    c.header("Content-Security-Policy", PASSKEY_CSP);
    const shown: SignInProblem | undefined =
      problem === "invalid_credentials" || problem === "throttled" || problem === "disabled"
        ? problem
        : undefined;
    return renderPage(c, SignInPage, {
      csrf: csrfToken(c, deps),
      hidden: { return_to: returnTo },
      problem: shown,
      // After a password reset (routes/password_reset_pages.ts sends the person here).
      notice: c.req.query("reset") === "done" ? (t) => t.flow.signIn.passwordChanged : undefined,
    });
  });

  app.post("/signin", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return await flowFormExpired(c, deps, form);
    let ticket: Ticket | null = null;
    if (form.ticket !== undefined) {
      ticket = await openTicket(deps.secretKey, form.ticket, c);
      if (!ticket) return requestExpired(c);
    }
    const email = (form.email ?? "").trim();
    const device = readDevice(c, deps);
    const result = await signIn(sql, {
      email,
      password: form.password ?? "",
      ip: clientIp(c, deps.config.trustedProxies),
      device,
      requestId: c.get("requestId"),
      userAgent: c.req.header("user-agent")?.slice(0, 300),
    }, { scrypt: deps.scrypt, log: deps.log });
    const returnTo = safeReturnPath(form.return_to) ?? DEFAULT_RETURN;
    if (!result.ok) {
      if (ticket) return c.redirect(await resume({ ...ticket, problem: result.reason, email }), 303);
      return c.redirect(`/signin?return_to=${encodeURIComponent(returnTo)}&error=${result.reason}`, 303);
    }
    // A second factor, a policy or a password that must change may come before the account joins the session.
    return await afterFirstFactor(c, deps, {
      userId: result.userId,
      email,
      amr: ["pwd"],
      ticket: ticket ? { req: ticket.req } : undefined,
      returnTo,
      locale: result.locale,
    });
  });

  // Account pages' chooser: make an account current, or ask for another one.
  app.post("/account/switch", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return formExpired(c);
    const returnTo = safeReturnPath(form.return_to) ?? DEFAULT_RETURN;
    const session = await readBrowserSession(sql, c, issuer);
    if (form.user_id && session && await useAccount(sql, session.sessionId, form.user_id)) {
      return c.redirect(returnTo, 303);
    }
    return c.redirect(`/signin?add=1&return_to=${encodeURIComponent(returnTo)}`, 303);
  });

  // Signs one account (user_id) or every account out of this browser.
  app.post("/signout", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return await flowFormExpired(c, deps, form);
    const session = await readBrowserSession(sql, c, issuer);
    if (session) {
      const leaving = session.accounts.filter((a) => !form.user_id || a.userId === form.user_id);
      if (form.user_id) await removeAccount(sql, session.sessionId, form.user_id);
      else await endSession(sql, c, issuer, session.sessionId);
      // The security log (issue 29): each account that left this browser.
      const facts = requestFacts(c, deps.config.trustedProxies);
      for (const a of leaving) {
        await recordSecurityEvent(sql, deps.log, { kind: "signed_out", userId: a.userId, ...facts });
      }
    }
    if (form.ticket !== undefined) {
      const ticket = await openTicket(deps.secretKey, form.ticket, c);
      if (!ticket) return requestExpired(c);
      return c.redirect(await resume({ req: ticket.req }), 303);
    }
    const returnTo = safeReturnPath(form.return_to) ?? DEFAULT_RETURN;
    return c.redirect(`/signin?return_to=${encodeURIComponent(returnTo)}`, 303);
  });

  return app;
}
