// The browser side of the authorization server: /oauth/authorize and its pages (sign-in, account chooser,
// consent), /signin and /signout for account pages, and the stylesheet.
import { type Context, Hono } from "hono";
import { z } from "zod";
import { isDatabaseUnavailable } from "../lib/db/errors.ts";
import { csrfToken, verifyCsrf } from "../lib/http/csrf.ts";
import { readForm } from "../lib/http/form.ts";
import { clientIp } from "../lib/http/client_ip.ts";
import { isLoopbackHttpUri } from "../lib/net/loopback.ts";
import { render } from "../lib/http/render.ts";
import { redirectMismatch } from "../lib/page_errors.ts";
import type { AppEnv } from "../lib/http/types.ts";
import {
  errorsMayRedirect,
  nextStep,
  openTicket,
  parseAuthorizeRequest,
  redirectWith,
  sealTicket,
  spendTicket,
  type Ticket,
  unredirectedError,
} from "../lib/oauth/authorize.ts";
import type { Client } from "../lib/oauth/clients.ts";
import { OAuthError } from "../lib/oauth/errors.ts";
import { mcpResourceUrl } from "../lib/oauth/metadata.ts";
import {
  NO_TOOL_LIMITS,
  parsePlace,
  type Place,
  placeAllowed,
  placeOptions,
  type ToolLimits,
} from "../lib/oauth/workspace_choice.ts";
import { redirectHost, rememberedToolLimits, saveConsent } from "../lib/oauth/consent.ts";
import { isToolset, limitsFromForm } from "../lib/mcp/toolsets.ts";
import type { SessionAccount } from "../lib/oauth/sessions.ts";
import { issueCode } from "../lib/oauth/grants.ts";
import { describeScopes } from "../lib/oauth/scopes.ts";
import {
  addAccount,
  endSession,
  readBrowserSession,
  removeAccount,
  safeReturnPath,
  useAccount,
} from "../lib/oauth/sessions.ts";
import { readDevice, signIn, writeDevice } from "../lib/oauth/sign_in.ts";
import { ChooseAccountPage } from "../views/choose_account.tsx";
import { ConsentPage } from "../views/consent.tsx";
import { ErrorPage, type ErrorPageProps } from "../views/error_page.tsx";
import { SignInPage } from "../views/sign_in.tsx";
import { STYLESHEET, STYLESHEET_PATH } from "../views/style.ts";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

const DEFAULT_RETURN = "/account/apps";

const str = (max: number) => z.string().max(max).optional();
const PageForm = z.object({
  csrf: str(200),
  ticket: str(8000),
  return_to: str(2000),
  user_id: str(100),
  email: str(320),
  password: str(1024),
  decision: str(10),
  place: str(100),
  // consent's tool limits: the marker of a form that offered them, the read-only box (toolset boxes: `toolsets`)
  toolset_choice: str(10),
  read_only: str(10),
});
type PageForm = z.infer<typeof PageForm> & {
  /** every checked `toolset` box of the consent form */
  toolsets: string[];
};

async function readPageForm(c: Context<AppEnv>): Promise<PageForm | null> {
  const body = await readForm(c);
  const r = PageForm.safeParse(body.one);
  return r.success ? { ...r.data, toolsets: body.all("toolset").slice(0, 50) } : null;
}

/** Why the consent page is shown again instead of going on. */
const CONSENT_PROBLEMS = {
  no_toolset: "Choose at least one toolset it may use, or deny the request.",
  unknown_toolset: "Choose toolsets from the list.",
  invalid_read_only: "Read-only is either checked or not.",
} as const;

export function createOAuthPageRoutes(deps: OAuthRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const issuer = deps.config.issuer;
  const sql = deps.sql;

  app.get(STYLESHEET_PATH, (c) => {
    c.header("Cache-Control", "public, max-age=3600");
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(STYLESHEET);
  });

  function errorPage(
    c: Context<AppEnv>,
    title: string,
    message: string,
    status = 400,
    code?: string,
    redirect?: ErrorPageProps["redirect"],
  ): Response {
    return render(c, ErrorPage({ title, message, code, redirect }), status);
  }

  const expired = (c: Context<AppEnv>) =>
    errorPage(
      c,
      "This page has expired",
      "The sign-in request is no longer valid. Go back to the application and start again.",
    );

  const csrfRefused = (c: Context<AppEnv>) =>
    errorPage(
      c,
      "Form expired",
      "The form could not be verified. Go back, reload the page and try again.",
      403,
    );

  const resumePath = async (ticket: Ticket) =>
    `/oauth/authorize/resume?ticket=${encodeURIComponent(await sealTicket(deps.secretKey, ticket))}`;

  /** Sends the result back to the client: 302 after a GET, 303 after a POST. */
  function backToClient(c: Context<AppEnv>, ticket: Ticket, params: Record<string, string | undefined>) {
    const status = c.req.method === "GET" ? 302 : 303;
    return c.redirect(
      redirectWith(ticket.req.redirectUri, { ...params, state: ticket.req.state, iss: issuer }),
      status,
    );
  }

  /**
   * Runs `work` for a request whose client and redirect URI are verified (parsed here, or sealed in a ticket): a
   * database outage then goes back to the client as temporarily_unavailable (RFC 6749 §4.1.2.1), which it can
   * act on. Before that point the app's error handler shows a 503 page instead (no trustworthy redirect yet).
   */
  async function orUnavailable(
    c: Context<AppEnv>,
    ticket: Ticket,
    work: () => Promise<Response>,
  ): Promise<Response> {
    try {
      return await work();
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      deps.log.warn("authorize: database unavailable", { request_id: c.get("requestId") });
      return backToClient(c, ticket, {
        error: "temporarily_unavailable",
        error_description: "the authorization server is temporarily unavailable; try again shortly",
      });
    }
  }

  async function issue(
    c: Context<AppEnv>,
    ticket: Ticket,
    sessionId: string,
    userId: string,
    authTime: Date,
    place: Place | null,
    limits: ToolLimits,
  ) {
    await useAccount(sql, sessionId, userId);
    const code = await issueCode(sql, ticket.req, userId, authTime, place, limits);
    return backToClient(c, ticket, { code });
  }

  /** Runs the next step of an authorization request in this browser. */
  async function proceed(c: Context<AppEnv>, ticket: Ticket, client: Client): Promise<Response> {
    const session = await readBrowserSession(sql, c, issuer);
    const step = await nextStep(sql, ticket, session);
    switch (step.kind) {
      case "error": {
        // prompt=none: nobody saw a page, so the open-redirector rule of the parse errors applies too.
        const description = {
          login_required: "the person must sign in",
          account_selection_required: "the person must choose an account",
          consent_required: "the person must approve the request",
        }[step.error];
        if (!(await errorsMayRedirect(sql, client))) {
          const page = unredirectedError(client, ticket.req.redirectUri, step.error, description);
          return errorPage(c, page.title, page.message, 400, page.code);
        }
        return backToClient(c, ticket, { error: step.error, error_description: description });
      }
      case "issue":
        return await issue(
          c,
          ticket,
          session!.sessionId,
          step.account.userId,
          step.account.authTime,
          step.place,
          step.limits,
        );
      case "signin": {
        const sealed = await sealTicket(deps.secretKey, ticket);
        const others = (session?.accounts.length ?? 0) > 0 && ticket.addAccount;
        return render(
          c,
          SignInPage({
            csrf: csrfToken(c, deps),
            hidden: { ticket: sealed },
            email: step.email,
            problem: ticket.problem,
            clientName: client.name,
            backHref: others ? await resumePath({ req: ticket.req, addAccount: false }) : undefined,
          }),
        );
      }
      case "choose":
        return render(
          c,
          ChooseAccountPage({
            csrf: csrfToken(c, deps),
            action: "/oauth/authorize/select",
            hidden: { ticket: await sealTicket(deps.secretKey, { req: ticket.req }) },
            accounts: step.accounts,
            clientName: client.name,
          }),
        );
      case "consent":
        return await consentPage(c, ticket, client, step.account);
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
    again?: { problem: string; place?: string; limits: ToolLimits },
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
    return render(
      c,
      ConsentPage({
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
        scopes: await describeScopes(sql, ticket.req.scopes, "consent"),
        places: asksWorkspace ? await placeOptions(sql, account.userId) : undefined,
        chosenPlace: again?.place,
        limits,
        problem: again?.problem,
        // Tokens for anything but Portico's own tool server go elsewhere: the person should know where.
        audience: resource !== undefined && resource !== mcpResourceUrl(issuer) ? resource : undefined,
      }),
      again ? 400 : 200,
    );
  }

  /**
   * The authorization request, from the query (GET) or a form body (POST, OIDC Core §3.1.2.1). A POST comes
   * from the client's page, cross-site: the browser sends no SameSite=Lax cookies with it, so instead of
   * proceeding without the person's session it is answered with a 303 to the resume URL, a GET that carries
   * the validated request and gets the cookies. No CSRF token: this is the client's request, not a form of
   * ours, and it changes nothing (the consent form is where things change, and it has one).
   */
  async function authorize(c: Context<AppEnv>, params: URLSearchParams): Promise<Response> {
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
    if (c.req.method === "POST") return c.redirect(await resumePath({ req: parsed.req }), 303);
    return await orUnavailable(c, { req: parsed.req }, () => proceed(c, { req: parsed.req }, parsed.client));
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

  /**
   * Opens a ticket and loads its client; null when either is gone, or when the ticket carries an account and
   * was used before (single use, see spendTicket).
   */
  async function ticketAndClient(sealed: unknown): Promise<{ ticket: Ticket; client: Client } | null> {
    const ticket = await openTicket(deps.secretKey, sealed);
    if (!ticket) return null;
    if (!(await spendTicket(sql, ticket))) return null;
    let client: Client | undefined;
    try {
      client = await deps.clients.get(ticket.req.clientId);
    } catch (err) {
      // A metadata document that stopped validating mid-flow: the request cannot go on.
      if (err instanceof OAuthError) return null;
      throw err;
    }
    return client ? { ticket, client } : null;
  }

  app.get("/oauth/authorize/resume", async (c) => {
    const found = await ticketAndClient(c.req.query("ticket"));
    if (!found) return expired(c);
    return await orUnavailable(c, found.ticket, () => proceed(c, found.ticket, found.client));
  });

  // The chooser: pick an account (user_id) or "Use another account" (empty user_id).
  app.post("/oauth/authorize/select", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return csrfRefused(c);
    const found = await ticketAndClient(form.ticket);
    if (!found) return expired(c);
    const { req } = found.ticket;
    if (!form.user_id) return c.redirect(await resumePath({ req, addAccount: true }), 303);
    const userId = form.user_id;
    return await orUnavailable(c, found.ticket, async () => {
      const session = await readBrowserSession(sql, c, issuer);
      if (session && await useAccount(sql, session.sessionId, userId)) {
        return c.redirect(await resumePath({ req, userId }), 303);
      }
      return c.redirect(await resumePath({ req }), 303);
    });
  });

  // Consent's "Not you? Use another account": signs the account the consent page was for out of this browser
  // and returns to the same request's sign-in (the account comes from the sealed ticket, not from the form).
  app.post("/oauth/authorize/switch", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return csrfRefused(c);
    const ticket = await openTicket(deps.secretKey, form.ticket);
    if (!ticket) return expired(c);
    const session = await readBrowserSession(sql, c, issuer);
    if (session && ticket.userId) await removeAccount(sql, session.sessionId, ticket.userId);
    return c.redirect(await resumePath({ req: ticket.req, addAccount: true }), 303);
  });

  app.post("/oauth/authorize/consent", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return csrfRefused(c);
    const found = await ticketAndClient(form.ticket);
    if (!found) return expired(c);
    const { ticket } = found;
    return await orUnavailable(c, ticket, () => consent(c, ticket, found.client, form));
  });

  async function consent(
    c: Context<AppEnv>,
    ticket: Ticket,
    client: Client,
    form: PageForm,
  ): Promise<Response> {
    const decision = form.decision;
    const placeField = form.place;
    const session = await readBrowserSession(sql, c, issuer);
    const account = session?.accounts.find((a) => a.userId === ticket.userId);
    if (!session || !account) return c.redirect(await resumePath({ req: ticket.req }), 303);
    // The request's own rules (prompt=login, max_age) still hold for this account; otherwise start over there.
    const step = await nextStep(sql, ticket, session);
    if (step.kind !== "consent" && step.kind !== "issue") return c.redirect(await resumePath(ticket), 303);
    if (decision !== "allow") {
      return backToClient(c, ticket, {
        error: "access_denied",
        error_description: "the person denied the request",
      });
    }
    let place: Place | null = null;
    let limits: ToolLimits = NO_TOOL_LIMITS;
    if (ticket.req.scopes.includes("workspace")) {
      // The tool limits are checked again here: a forged or emptied choice is never stored.
      const chosen = limitsFromForm(form.toolsets, form.toolset_choice === "1", form.read_only);
      if (!chosen.ok) {
        return await consentPage(c, ticket, client, account, {
          problem: CONSENT_PROBLEMS[chosen.problem],
          place: placeField,
          limits: {
            toolsets: form.toolsets.filter(isToolset),
            readOnly: form.read_only === "1",
          },
        });
      }
      limits = { toolsets: chosen.toolsets, readOnly: chosen.readOnly };
      // The place must be one this person may grant now (a forged or stale form value is refused here).
      place = parsePlace(placeField);
      if (!place || !(await placeAllowed(sql, account.userId, place))) {
        return errorPage(
          c,
          "Choose a workspace",
          "The workspace you chose is not one you belong to. Go back, reload the page and choose again.",
        );
      }
    }
    await saveConsent(sql, account.userId, ticket.req.clientId, ticket.req.scopes, place, limits);
    return await issue(c, ticket, session.sessionId, account.userId, account.authTime, place, limits);
  }

  app.get("/signin", async (c) => {
    const returnTo = safeReturnPath(c.req.query("return_to")) ?? DEFAULT_RETURN;
    const problem = c.req.query("error");
    const session = await readBrowserSession(sql, c, issuer);
    if (session && session.accounts.length > 0 && c.req.query("add") !== "1" && !problem) {
      return render(
        c,
        ChooseAccountPage({
          csrf: csrfToken(c, deps),
          action: "/account/switch",
          hidden: { return_to: returnTo },
          accounts: session.accounts,
        }),
      );
    }
    return render(
      c,
      SignInPage({
        csrf: csrfToken(c, deps),
        hidden: { return_to: returnTo },
        problem: problem === "invalid_credentials" || problem === "throttled" || problem === "disabled"
          ? problem
          : undefined,
      }),
    );
  });

  app.post("/signin", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return csrfRefused(c);
    let ticket: Ticket | null = null;
    if (form.ticket !== undefined) {
      ticket = await openTicket(deps.secretKey, form.ticket);
      if (!ticket) return expired(c);
    }
    const email = (form.email ?? "").trim();
    const device = readDevice(c, deps);
    const result = await signIn(sql, {
      email,
      password: form.password ?? "",
      ip: clientIp(c, deps.config.trustedProxies),
      device,
      requestId: c.get("requestId"),
    }, { scrypt: deps.scrypt, log: deps.log });
    const returnTo = safeReturnPath(form.return_to) ?? DEFAULT_RETURN;
    if (!result.ok) {
      if (ticket) return c.redirect(await resumePath({ ...ticket, problem: result.reason, email }), 303);
      return c.redirect(`/signin?return_to=${encodeURIComponent(returnTo)}&error=${result.reason}`, 303);
    }
    await addAccount(sql, c, issuer, result.userId);
    writeDevice(c, deps, device, email);
    if (ticket) {
      return c.redirect(await resumePath({ req: ticket.req, userId: result.userId, freshLogin: true }), 303);
    }
    return c.redirect(returnTo, 303);
  });

  // Account pages' chooser: make an account current, or ask for another one.
  app.post("/account/switch", async (c) => {
    const form = await readPageForm(c);
    if (!form || !verifyCsrf(c, deps, form.csrf)) return csrfRefused(c);
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
    if (!form || !verifyCsrf(c, deps, form.csrf)) return csrfRefused(c);
    const session = await readBrowserSession(sql, c, issuer);
    if (session) {
      if (form.user_id) await removeAccount(sql, session.sessionId, form.user_id);
      else await endSession(sql, c, issuer, session.sessionId);
    }
    if (form.ticket !== undefined) {
      const ticket = await openTicket(deps.secretKey, form.ticket);
      if (!ticket) return expired(c);
      return c.redirect(await resumePath({ req: ticket.req }), 303);
    }
    const returnTo = safeReturnPath(form.return_to) ?? DEFAULT_RETURN;
    return c.redirect(`/signin?return_to=${encodeURIComponent(returnTo)}`, 303);
  });

  return app;
}
