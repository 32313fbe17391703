// OpenID Connect RP-Initiated Logout 1.0: GET and POST /oauth/logout (the end_session_endpoint discovery lists),
// the confirmation's POST /oauth/logout/confirm (CSRF) and the "You are signed out" page /oauth/logout/done.
//
// The person is always asked before being signed out (§2 requires it when the hint does not name the browser's
// account; asking every time means a link on another site cannot sign anyone out). With a valid id_token_hint
// only that account leaves this browser; without one, every account of the browser does. When there is nothing
// to sign out (no session, or the hint's account is not signed in here) the browser goes straight on. A POSTed
// request comes from the application's page, cross-site, without our SameSite=Lax cookies: it is validated, then
// answered with a 303 to /oauth/logout/continue, a GET that carries the sealed request and gets the cookies.
import type { Context, Hono } from "hono";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { fromUiLocales, isLocale } from "../lib/i18n/locale.ts";
import {
  logoutRedirect,
  type LogoutRequest,
  openLogout,
  parseLogoutRequest,
  sealLogout,
} from "../lib/oauth/logout.ts";
import { endSession, readBrowserSession, removeAccount } from "../lib/oauth/sessions.ts";
import { errorPage, formExpired } from "../lib/page_errors.ts";
import { recordSecurityEvent, requestFacts } from "../lib/security/events.ts";
import { LogoutConfirmPage, SignedOutPage } from "../views/logout.tsx";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const DONE_PATH = "/oauth/logout/done";

export function createLogoutRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const logoutDeps = { issuer, keys: deps.keys, clients: deps.clients };

  const expired = (c: Context<AppEnv>) =>
    errorPage(
      c,
      (t) => t.common.requestExpiredTitle,
      (t) => t.flow.logout.expired,
      400,
      "request_expired",
    );

  /** The sealed request, genuine and recent, or null; its ui_locales becomes the page's language. */
  async function opened(c: Context<AppEnv>, sealed: unknown): Promise<LogoutRequest | null> {
    const request = await openLogout(deps.secretKey, sealed);
    if (request && isLocale(request.uiLocale)) c.set("uiLocale", request.uiLocale);
    return request;
  }

  /** The accounts of this browser the request signs out, with the session. */
  async function targets(c: Context<AppEnv>, request: LogoutRequest) {
    const session = await readBrowserSession(deps.sql, c, issuer);
    const accounts = (session?.accounts ?? []).filter((a) =>
      request.userId === null || a.userId === request.userId
    );
    return { session, accounts };
  }

  /**
   * Where the browser goes when the request is done (or there was nothing to do): the application's address, or
   * the signed-out page, in the request's language.
   */
  const onward = (request: LogoutRequest) =>
    logoutRedirect(request) ??
      (isLocale(request.uiLocale) ? `${DONE_PATH}?ui_locales=${request.uiLocale}` : DONE_PATH);

  async function ask(c: Context<AppEnv>, request: LogoutRequest): Promise<Response> {
    const { accounts } = await targets(c, request);
    if (accounts.length === 0) return c.redirect(onward(request), 303);
    const back = logoutRedirect(request);
    return renderPage(c, LogoutConfirmPage, {
      csrf: csrfToken(c, deps),
      request: await sealLogout(deps.secretKey, request),
      emails: accounts.map((a) => a.email),
      clientName: request.clientName,
      returnsToApp: back !== null,
      // Staying signed in still returns the person to the application they came from, when it said where.
      stayHref: back ?? "/account/apps",
    });
  }

  async function start(c: Context<AppEnv>, params: URLSearchParams, posted: boolean): Promise<Response> {
    // ui_locales picks the pages' language, including this request's own error page.
    const uiLocale = fromUiLocales(params.get("ui_locales"));
    if (uiLocale) c.set("uiLocale", uiLocale);
    const parsed = await parseLogoutRequest(params, logoutDeps);
    if (parsed.kind === "error") return errorPage(c, parsed.title, parsed.message, 400, parsed.code);
    if (posted) {
      const sealed = await sealLogout(deps.secretKey, parsed.request);
      return c.redirect(`/oauth/logout/continue?request=${encodeURIComponent(sealed)}`, 303);
    }
    return await ask(c, parsed.request);
  }

  app.get("/oauth/logout", (c) => start(c, new URL(c.req.url).searchParams, false));

  app.post("/oauth/logout", async (c) => {
    const body = await c.req.parseBody({ all: true }).catch(() => null);
    if (!body) {
      return errorPage(
        c,
        (t) => t.flow.logout.invalidTitle,
        (t) => t.flow.logout.unreadable,
        400,
        "invalid_request",
      );
    }
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) {
      for (const v of Array.isArray(value) ? value : [value]) {
        if (typeof v === "string") params.append(name, v);
      }
    }
    return await start(c, params, true);
  });

  app.get("/oauth/logout/continue", async (c) => {
    const request = await opened(c, c.req.query("request"));
    if (!request) return expired(c);
    return await ask(c, request);
  });

  app.post("/oauth/logout/confirm", async (c) => {
    const body = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    // Opened before the CSRF check only for its language: a refused form is answered in it too.
    const request = await opened(c, body.request);
    if (!verifyCsrf(c, deps, body.csrf)) return formExpired(c, (t) => t.flow.logout.formThen);
    if (!request) return expired(c);
    const { session, accounts } = await targets(c, request);
    if (session && accounts.length > 0) {
      if (accounts.length === session.accounts.length) {
        await endSession(deps.sql, c, issuer, session.sessionId);
      } else for (const a of accounts) await removeAccount(deps.sql, session.sessionId, a.userId);
      const facts = requestFacts(c, deps.config.trustedProxies);
      for (const a of accounts) {
        await recordSecurityEvent(deps.sql, deps.log, {
          kind: "signed_out",
          userId: a.userId,
          ...facts,
          detail: request.clientId ? { client_id: request.clientId.slice(0, 200) } : {},
        });
      }
    }
    return c.redirect(onward(request), 303);
  });

  app.get(DONE_PATH, (c) => {
    const uiLocale = fromUiLocales(c.req.query("ui_locales"));
    if (uiLocale) c.set("uiLocale", uiLocale);
    return renderPage(c, SignedOutPage, {});
  });

  return app;
}
