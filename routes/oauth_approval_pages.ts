// The authorization request's approval step (issue 23): when an app that registered itself (or a metadata-document
// app under no trusted prefix) asks for `workspace`, the signed-in person asks the operators in one click (an
// operator approves it right there), then waits on a page that continues once approved — by itself with
// JavaScript, with "Check again" without. Denied or not answered in time: a clear page, and access_denied for
// the client. The operators' side is routes/operator.ts; the data is lib/oauth/approvals.ts.
import type { Context, Hono } from "hono";
import { csrfToken } from "../lib/http/csrf.ts";
import { createPageApp } from "../lib/http/pages.ts";
import { renderPage } from "../lib/http/render.ts";
import { isLocale, type Text } from "../lib/i18n/mod.ts";
import type { AppEnv } from "../lib/http/types.ts";
import { errorPage, requestExpired } from "../lib/page_errors.ts";
import { announceApprovalRequest } from "../lib/oauth/approval_notice.ts";
import {
  APPROVAL_WAIT_SECONDS,
  openWaiting,
  sealWaiting,
  UNAPPROVED_DESCRIPTIONS,
  unapprovedRedirect,
  WAIT_REFRESH_SECONDS,
  type Waiting,
  waitPath,
} from "../lib/oauth/approval_flow.ts";
import {
  APPROVAL_NOTE_MAX,
  type ApprovalRequest,
  askApproval,
  decideRequest,
  getApprovalRequest,
  isOperator,
  MAX_PENDING_PER_PERSON,
  setTrust,
} from "../lib/oauth/approvals.ts";
import { nextStep, sealTicket, type Step, type Ticket } from "../lib/oauth/authorize.ts";
import { backToClient, onAccountForm, orUnavailable, resumePath } from "../lib/oauth/authorize_flow.ts";
import type { Client } from "../lib/oauth/clients.ts";
import { redirectHost } from "../lib/oauth/consent.ts";
import { OAuthError } from "../lib/oauth/errors.ts";
import { describeScopes, needsApproval } from "../lib/oauth/scopes.ts";
import { readBrowserSession, type SessionAccount } from "../lib/oauth/sessions.ts";
import { parsePlace, placeAllowed, placeOptions, placeValue } from "../lib/oauth/workspace_choice.ts";
import { workspaceName } from "../lib/workspace/workspaces.ts";
import { ApprovalAskPage, ApprovalEndedPage, ApprovalWaitPage } from "../views/approval.tsx";
import { POLLING_CSP } from "../views/script.ts";
import type { OAuthRouteDeps } from "./oauth_deps.ts";

/** The approval step's answer for `proceed` (routes/oauth_pages.ts) and the routes of its forms and waiting page. */
export function createApprovalPages(deps: OAuthRouteDeps): {
  app: Hono<AppEnv>;
  approvalStep: (
    c: Context<AppEnv>,
    ticket: Ticket,
    client: Client,
    step: Extract<Step, { kind: "approval" }>,
  ) => Promise<Response>;
} {
  const app = createPageApp(deps.log);
  const issuer = deps.config.issuer;
  const sql = deps.sql;
  const resume = (ticket: Ticket) => resumePath(deps.secretKey, ticket);
  const now = () => Math.floor(Date.now() / 1000);

  /** The waiting page of this authorization, waiting APPROVAL_WAIT_SECONDS from now. */
  async function waitUrl(ticket: Ticket, userId: string, request: ApprovalRequest): Promise<string> {
    const waiting: Waiting = {
      req: { ...ticket.req, iat: now() },
      userId,
      requestId: request.id,
      freshLogin: ticket.freshLogin,
      until: now() + APPROVAL_WAIT_SECONDS,
    };
    return waitPath(await sealWaiting(deps.secretKey, waiting));
  }

  const redirectStatus = (c: Context<AppEnv>) => c.req.method === "GET" ? 302 : 303;

  const denied = (c: Context<AppEnv>, client: Client, ticket: Ticket) =>
    renderPage(c, ApprovalEndedPage, {
      why: "denied" as const,
      clientName: client.name,
      returnHref: unapprovedRedirect(issuer, ticket.req, "denied"),
    }, 403);

  async function askPage(
    c: Context<AppEnv>,
    ticket: Ticket,
    client: Client,
    account: SessionAccount,
    again?: { problem: Text; place?: string; note?: string; status?: number },
  ): Promise<Response> {
    const sealed = await resumeTicket(ticket, account);
    return renderPage(
      c,
      ApprovalAskPage,
      {
        csrf: csrfToken(c, deps),
        ticket: sealed,
        clientName: client.name,
        redirectHost: redirectHost(ticket.req.redirectUri),
        metadataHost: client.metadataDocument ? new URL(client.clientId).host : null,
        account,
        // The session was read (proceed, onAccountForm): the page's language is settled (ui_locales, setting).
        scopes: await describeScopes(sql, ticket.req.scopes, "consent"),
        places: await placeOptions(sql, account.userId),
        chosenPlace: again?.place,
        note: again?.note,
        noteMax: APPROVAL_NOTE_MAX,
        operator: await isOperator(sql, account.userId),
        problem: again?.problem,
      },
      again?.status ?? (again ? 400 : 200),
    );
  }

  /** A fresh single-use ticket for this account (the forms' hidden field). */
  async function resumeTicket(ticket: Ticket, account: SessionAccount): Promise<string> {
    return await sealTicket(deps.secretKey, {
      req: ticket.req,
      userId: account.userId,
      freshLogin: ticket.freshLogin,
    });
  }

  /** The approval step: ask (no request yet), wait (pending), or hear it was denied. */
  async function approvalStep(
    c: Context<AppEnv>,
    ticket: Ticket,
    client: Client,
    step: Extract<Step, { kind: "approval" }>,
  ): Promise<Response> {
    const request = step.request;
    if (request?.status === "pending") {
      return c.redirect(await waitUrl(ticket, step.account.userId, request), redirectStatus(c));
    }
    if (request?.status === "denied") return denied(c, client, ticket);
    return await askPage(c, ticket, client, step.account);
  }

  // The ask form: Ask for approval (a person), Approve and continue (an operator), or Cancel.
  app.post(
    "/oauth/authorize/approval",
    (c) =>
      onAccountForm(c, deps, async ({ form, ticket, client, session, account }) => {
        if (form.decision === "cancel") {
          return backToClient(c, issuer, ticket, {
            error: "access_denied",
            error_description: UNAPPROVED_DESCRIPTIONS.cancelled,
          });
        }
        const step = await nextStep(sql, ticket, session, client, deps.config);
        // Trusted since the page was shown (or the request's rules now ask for more): the flow goes on from there.
        if (step.kind !== "approval") {
          return c.redirect(
            await resume({ req: ticket.req, userId: account.userId, freshLogin: ticket.freshLogin }),
            303,
          );
        }
        const operator = await isOperator(sql, account.userId);
        if (form.decision !== "ask" && form.decision !== "approve") {
          return await askPage(c, ticket, client, account, {
            problem: (t) => t.flow.approval.problems.choose,
          });
        }
        if (form.decision === "approve" && !operator) {
          return errorPage(
            c,
            (t) => t.flow.approval.onlyOperatorsTitle,
            (t) => t.flow.approval.onlyOperatorsMessage,
            403,
            "error",
          );
        }
        const keep = { place: form.place, note: form.note };
        const place = parsePlace(form.place);
        if (!place || !(await placeAllowed(sql, account.userId, place))) {
          return await askPage(c, ticket, client, account, {
            ...keep,
            problem: (t) => t.flow.approval.problems.place,
          });
        }
        const note = form.note ?? "";
        if (note.length > APPROVAL_NOTE_MAX) {
          return await askPage(c, ticket, client, account, {
            ...keep,
            problem: (t) => t.flow.approval.problems.noteTooLong(APPROVAL_NOTE_MAX),
          });
        }
        const asked = await askApproval(sql, {
          clientId: client.clientId,
          userId: account.userId,
          place,
          scopes: ticket.req.scopes,
          note,
        });
        if (asked.kind === "too_many") {
          return await askPage(c, ticket, client, account, {
            ...keep,
            status: 429,
            problem: (t) => t.flow.approval.problems.tooMany(MAX_PENDING_PER_PERSON),
          });
        }
        const request = asked.request;
        if (form.decision === "approve") {
          const actor = { via: "page" as const, operatorId: account.userId };
          if (request.status === "pending") await decideRequest(sql, request.id, true, actor);
          else await setTrust(sql, client.clientId, true, actor);
          deps.log.info("approval: an operator approved an app on its own authorization", {
            client_id: client.clientId,
            user_id: account.userId,
          });
          return c.redirect(
            await resume({
              req: ticket.req,
              userId: account.userId,
              freshLogin: ticket.freshLogin,
              place: form.place,
            }),
            303,
          );
        }
        if (request.status === "denied") return denied(c, client, ticket);
        if (asked.isNew) announceApprovalRequest(deps, request);
        return c.redirect(await waitUrl(ticket, account.userId, request), 303);
      }),
  );

  // The waiting page (and, asked for JSON, the script's check): continues once the app is approved.
  app.get("/oauth/authorize/wait", async (c) => {
    const waiting = await openWaiting(deps.secretKey, c.req.query("w"));
    // The request's ui_locales, sealed with it, is the page's language here too (openTicket does it elsewhere).
    if (waiting && isLocale(waiting.req.uiLocale)) c.set("uiLocale", waiting.req.uiLocale);
    const polled = (c.req.header("accept") ?? "").includes("application/json");
    const changed = () => c.json({ state: "changed" });
    if (!waiting) return polled ? changed() : requestExpired(c);
    let client: Client | undefined;
    try {
      client = await deps.clients.get(waiting.req.clientId);
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
    }
    if (!client) return polled ? changed() : requestExpired(c);
    const known = client;
    const ticket: Ticket = { req: waiting.req, freshLogin: waiting.freshLogin };
    return await orUnavailable(c, deps, ticket, async () => {
      const session = await readBrowserSession(sql, c, issuer);
      const account = session?.accounts.find((a) => a.userId === waiting.userId);
      // Signed out (or another browser): this page shows nothing; the request starts over at sign-in.
      if (!account) return polled ? changed() : c.redirect(await resume({ req: waiting.req }), 302);
      const request = await getApprovalRequest(sql, waiting.requestId);
      if (!request || request.userId !== account.userId || request.clientId !== known.clientId) {
        return polled ? changed() : requestExpired(c);
      }
      if (!needsApproval(known, waiting.req.scopes)) {
        if (polled) return changed();
        return c.redirect(
          await resume({
            req: { ...waiting.req, iat: now() },
            userId: account.userId,
            freshLogin: waiting.freshLogin,
            place: placeValue(request),
          }),
          302,
        );
      }
      if (request.status === "denied") return polled ? changed() : denied(c, known, ticket);
      if (now() > waiting.until) {
        if (polled) return changed();
        return renderPage(c, ApprovalEndedPage, {
          why: "expired" as const,
          clientName: known.name,
          returnHref: unapprovedRedirect(issuer, waiting.req, "expired"),
        }, 410);
      }
      // Approved once, but the app has lost the operators' trust since: the person may ask again.
      if (request.status === "approved") {
        return polled ? changed() : c.redirect(
          await resume({ req: waiting.req, userId: account.userId, freshLogin: waiting.freshLogin }),
          302,
        );
      }
      if (polled) return c.json({ state: "pending" });
      c.header("Content-Security-Policy", POLLING_CSP);
      return renderPage(c, ApprovalWaitPage, {
        clientName: known.name,
        workspaceName: await workspaceName(sql, request.workspaceId),
        askedAt: request.askedAt,
        checkHref: c.req.path + "?w=" + encodeURIComponent(c.req.query("w")!),
        every: WAIT_REFRESH_SECONDS,
        giveUpHref: unapprovedRedirect(issuer, waiting.req, "gave_up"),
        until: new Date(waiting.until * 1000),
      });
    });
  });

  return { app, approvalStep };
}
