// The browser side of the authorization server: /oauth/authorize and its pages (sign-in, account chooser,
// consent). /signin, /signout and the account pages' chooser are in sign_in_pages.ts, mounted here; the flow
// between the pages is lib/oauth/authorize_flow.ts.
import { fromUiLocales } from "../lib/i18n/locale.ts";
import { factorsOf, hasSecondFactor } from "../lib/security/factors.ts";
import { startPending } from "../lib/security/pending.ts";
import type { Context, Hono } from "hono";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { isLoopbackHttpUri } from "../lib/net/loopback.ts";
import { renderPage } from "../lib/http/render.ts";
import type { Text } from "../lib/i18n/mod.ts";
import { errorPage, redirectMismatch, requestExpired } from "../lib/page_errors.ts";
import type { AppEnv } from "../lib/http/types.ts";
import {
  errorsMayRedirect,
  nextStep,
  openTicket,
  parseAuthorizeRequest,
  redirectWith,
  sealTicket,
  type Ticket,
  unredirectedError,
} from "../lib/oauth/authorize.ts";
import {
  answerConsent,
  backToClient,
  flowFormExpired,
  issue,
  onAccountForm,
  orUnavailable,
  PROMPT_NONE_DESCRIPTIONS,
  resumePath,
  ticketAndClient,
} from "../lib/oauth/authorize_flow.ts";
import type { Client } from "../lib/oauth/clients.ts";
import { mcpResourceUrl } from "../lib/oauth/metadata.ts";
import { NO_TOOL_LIMITS, placeOptions, type ToolLimits } from "../lib/oauth/workspace_choice.ts";
import { redirectHost, rememberedToolLimits } from "../lib/oauth/consent.ts";
import { isToolset, limitsFromForm } from "../lib/mcp/toolsets.ts";
import type { SessionAccount } from "../lib/oauth/sessions.ts";
import { describeScopes } from "../lib/oauth/scopes.ts";
import { passwordChangePath, readBrowserSession, removeAccount, useAccount } from "../lib/oauth/sessions.ts";
import { readPageForm } from "../lib/oauth/page_form.ts";
import { ChooseAccountPage } from "../views/choose_account.tsx";
import { ConsentPage } from "../views/consent.tsx";
import { PASSKEY_CSP } from "../views/passkeys.tsx";
import { SignInPage } from "../views/sign_in.tsx";
import type { OAuthRouteDeps } from "./oauth_deps.ts";
import { createSignInPageRoutes } from "./sign_in_pages.ts";
import { createApprovalPages } from "./oauth_approval_pages.ts";

export function createOAuthPageRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const sql = deps.sql;
  const resume = (ticket: Ticket) => resumePath(deps.secretKey, ticket);
  const approvals = createApprovalPages(deps);
  const { proceed, consentPage } = createFlowPages(deps, approvals.approvalStep);

  /**
   * The authorization request, from the query (GET) or a form body (POST, OIDC Core §3.1.2.1). A POST comes
   * from the client's page, cross-site: the browser sends no SameSite=Lax cookies with it, so instead of
   * proceeding without the person's session it is answered with a 303 to the resume URL, a GET that carries
   * the validated request and gets the cookies. No CSRF token: this is the client's request, not a form of
   * ours, and it changes nothing (the consent form is where things change, and it has one).
   */
  async function authorize(c: Context<AppEnv>, params: URLSearchParams): Promise<Response> {
    // ui_locales picks the pages' language, including this request's own error page.
    const uiLocale = fromUiLocales(params.get("ui_locales"));
    if (uiLocale) c.set("uiLocale", uiLocale);
    const parsed = await parseAuthorizeRequest(sql, deps.clients, params, issuer);
    if (parsed.kind === "page_error") {
      return errorPage(
        c,
        parsed.title,
        parsed.message,
        400,
        parsed.code,
        await redirectMismatch(deps.clients, params),
      );
    }
    if (parsed.kind === "redirect_error") {
      return c.redirect(
        redirectWith(parsed.redirectUri, {
          error: parsed.error,
          error_description: parsed.description,
          state: parsed.state,
          iss: issuer,
        }),
        c.req.method === "GET" ? 302 : 303,
      );
    }
    if (c.req.method === "POST") return c.redirect(await resume({ req: parsed.req }), 303);
    const ticket = { req: parsed.req };
    return await orUnavailable(c, deps, ticket, () => proceed(c, ticket, parsed.client));
  }

  app.get("/oauth/authorize", (c) => authorize(c, new URL(c.req.url).searchParams));
  app.post("/oauth/authorize", async (c) => {
    const type = c.req.header("content-type") ?? "";
    // Only a form body carries parameters; anything else is a request naming no client (an error page).
    const params = type.toLowerCase().startsWith("application/x-www-form-urlencoded")
      ? new URLSearchParams(await c.req.text())
      : new URLSearchParams();
    return await authorize(c, params);
  });

  app.get("/oauth/authorize/resume", async (c) => {
    const found = await ticketAndClient(deps, c.req.query("ticket"), c);
    if (!found) return requestExpired(c);
    return await orUnavailable(c, deps, found.ticket, () => proceed(c, found.ticket, found.client));
  });

  // The chooser: pick an account (user_id) or "Use another account" (empty user_id).
  app.post("/oauth/authorize/select", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return await flowFormExpired(c, deps, form);
    const found = await ticketAndClient(deps, form.ticket, c);
    if (!found) return requestExpired(c);
    const { req } = found.ticket;
    if (!form.user_id) return c.redirect(await resume({ req, addAccount: true }), 303);
    const userId = form.user_id;
    return await orUnavailable(c, deps, found.ticket, async () => {
      const session = await readBrowserSession(sql, c, issuer);
      if (session && await useAccount(sql, session.sessionId, userId)) {
        return c.redirect(await resume({ req, userId }), 303);
      }
      return c.redirect(await resume({ req }), 303);
    });
  });

  // Consent's "Not you? Use another account": signs the account the consent page was for out of this browser
  // and returns to the same request's sign-in (the account comes from the sealed ticket, not from the form).
  app.post("/oauth/authorize/switch", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return await flowFormExpired(c, deps, form);
    const ticket = await openTicket(deps.secretKey, form.ticket, c);
    if (!ticket) return requestExpired(c);
    const session = await readBrowserSession(sql, c, issuer);
    if (session && ticket.userId) await removeAccount(sql, session.sessionId, ticket.userId);
    return c.redirect(await resume({ req: ticket.req, addAccount: true }), 303);
  });

  app.post(
    "/oauth/authorize/consent",
    (c) =>
      onAccountForm(c, deps, async ({ form, ticket, client, session, account }) => {
        const answer = await answerConsent(sql, ticket, client, session, account, deps.config, {
          allow: form.decision === "allow",
          place: form.place,
          limits: limitsFromForm(form.toolsets, form.toolset_choice === "1", form.read_only),
        });
        switch (answer.kind) {
          case "start_over":
            return c.redirect(await resume(ticket), 303);
          case "denied":
            return backToClient(c, issuer, ticket, {
              error: "access_denied",
              error_description: "the person denied the request",
            });
          case "ask_again":
            return await consentPage(c, ticket, client, account, {
              problem: (t) => t.flow.consent.problems[answer.problem],
              place: form.place,
              limits: { toolsets: form.toolsets.filter(isToolset), readOnly: form.read_only === "1" },
            });
          case "bad_place":
            return errorPage(
              c,
              (t) => t.flow.consent.badPlaceTitle,
              (t) => t.flow.consent.badPlaceMessage,
              400,
              "invalid_workspace",
            );
          case "allowed":
            return await issue(c, deps, ticket, session.sessionId, account, answer.place, answer.limits);
        }
      }),
  );

  app.route("/", createSignInPageRoutes(deps));
  app.route("/", approvals.app);
  return app;
}

/** The pages of the flow: the next step of a request in this browser, and the consent page. */
function createFlowPages(
  deps: OAuthRouteDeps,
  approvalStep: ReturnType<typeof createApprovalPages>["approvalStep"],
) {
  const issuer = deps.config.issuer;
  const sql = deps.sql;

  /** Runs the next step of an authorization request in this browser. */
  async function proceed(c: Context<AppEnv>, ticket: Ticket, client: Client): Promise<Response> {
    const session = await readBrowserSession(sql, c, issuer);
    const step = await nextStep(sql, ticket, session, client, deps.config);
    switch (step.kind) {
      case "error": {
        // prompt=none: nobody saw a page, so the open-redirector rule of the parse errors applies too.
        const description = PROMPT_NONE_DESCRIPTIONS[step.error];
        if (!(await errorsMayRedirect(sql, client))) {
          const page = unredirectedError(client, ticket.req.redirectUri, step.error, description);
          return errorPage(c, page.title, page.message, 400, page.code);
        }
        return backToClient(c, issuer, ticket, { error: step.error, error_description: description });
      }
      case "issue":
        return await issue(c, deps, ticket, session!.sessionId, step.account, step.place, step.limits);
      case "signin": {
        const sealed = await sealTicket(deps.secretKey, ticket);
        const others = (session?.accounts.length ?? 0) > 0 && ticket.addAccount;
        c.header("Content-Security-Policy", PASSKEY_CSP); // the passkey button (views/passkeys.tsx)
        return renderPage(c, SignInPage, {
          csrf: csrfToken(c, deps),
          hidden: { ticket: sealed },
          email: step.email,
          problem: ticket.problem,
          clientName: client.name,
          backHref: others
            ? await resumePath(deps.secretKey, { req: ticket.req, addAccount: false })
            : undefined,
        });
      }
      case "choose":
        return renderPage(c, ChooseAccountPage, {
          csrf: csrfToken(c, deps),
          action: "/oauth/authorize/select",
          hidden: { ticket: await sealTicket(deps.secretKey, { req: ticket.req }) },
          accounts: step.accounts,
          clientName: client.name,
        });
      case "consent":
        return await consentPage(c, ticket, client, step.account);
      case "approval":
        return await approvalStep(c, ticket, client, step);
      case "change_password": {
        // The change-password page continues with this request once the new password is set.
        const next = await resumePath(deps.secretKey, {
          req: ticket.req,
          userId: step.account.userId,
          freshLogin: ticket.freshLogin,
        });
        return c.redirect(passwordChangePath(next), 303);
      }
      case "step_up": {
        // The second-factor pages (routes/second_factor_pages.ts) upgrade this browser's sign-in and resume here;
        // a person with no factor yet is walked through setting one up there.
        const factors = await factorsOf(sql, step.account.userId);
        const path = await startPending(c, deps, {
          userId: step.account.userId,
          email: step.account.email,
          amr: step.account.amr,
          reason: hasSecondFactor(factors) ? "enrolled" : "policy",
          workspace: step.workspace ?? undefined,
          stepUp: true,
          ticket: { req: ticket.req, freshLogin: ticket.freshLogin },
          locale: step.account.locale ?? undefined,
        });
        return c.redirect(path, 303);
      }
    }
  }

  /**
   * The consent page for `account`, with a fresh single-use ticket. `again` shows it once more after a choice
   * that cannot be accepted (the person's own choices kept, the reason on top, 400).
   */
  async function consentPage(
    c: Context<AppEnv>,
    ticket: Ticket,
    client: Client,
    account: SessionAccount,
    again?: { problem: Text; place?: string; limits: ToolLimits },
  ): Promise<Response> {
    const sealed = await sealTicket(deps.secretKey, {
      req: ticket.req,
      userId: account.userId,
      freshLogin: ticket.freshLogin,
    });
    const resource = ticket.req.resource;
    const asksWorkspace = ticket.req.scopes.includes("workspace");
    // Starts from what this app was allowed before, so approving again without looking never widens it.
    const limits = again?.limits ??
      (asksWorkspace ? await rememberedToolLimits(sql, account.userId, client.clientId) : NO_TOOL_LIMITS);
    return renderPage(
      c,
      ConsentPage,
      {
        csrf: csrfToken(c, deps),
        ticket: sealed,
        clientName: client.name,
        clientUri: client.clientUri,
        redirectHost: redirectHost(ticket.req.redirectUri),
        selfRegistered: client.selfRegistered,
        metadataHost: client.metadataDocument ? new URL(client.clientId).host : null,
        // MCP 2025-11-25 security considerations: anyone can publish a document whose redirects go to
        // the person's own machine, so such an app gets a warning to check it was started there.
        loopbackOnly: client.metadataDocument &&
          client.redirectUris.every(isLoopbackHttpUri),
        account,
        // The session was read (proceed, onAccountForm): the page's language is settled (ui_locales, setting).
        scopes: await describeScopes(sql, ticket.req.scopes, "consent"),
        places: asksWorkspace ? await placeOptions(sql, account.userId) : undefined,
        chosenPlace: again?.place ?? ticket.place,
        limits,
        problem: again?.problem,
        // Tokens for anything but Portico's own tool server go elsewhere: the person should know where.
        audience: resource !== undefined && resource !== mcpResourceUrl(issuer) ? resource : undefined,
      },
      again ? 400 : 200,
    );
  }

  return { proceed, consentPage };
}
