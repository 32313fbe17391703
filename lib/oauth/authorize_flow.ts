// The authorization request's way through the browser pages, apart from the views: where the browser resumes, how
// an answer goes back to the client, what a database outage becomes once the client is verified, the ticket's
// client, what a consent form's answer decides, and the code at the end.
import type { Context } from "hono";
import type { Sql } from "../db/client.ts";
import { isDatabaseUnavailable } from "../db/errors.ts";
import { verifyCsrf } from "../http/csrf.ts";
import type { AppEnv } from "../http/types.ts";
import { formExpired, requestExpired } from "../page_errors.ts";
import type { Logger } from "../log.ts";
import { nextStep, openTicket, redirectWith, sealTicket, spendTicket, type Ticket } from "./authorize.ts";
import type { ClientDirectory } from "./client_directory.ts";
import type { Client } from "./clients.ts";
import { saveConsent } from "./consent.ts";
import { OAuthError } from "./errors.ts";
import { issueCode } from "./grants/authorization_code.ts";
import { type PageForm, readPageForm } from "./page_form.ts";
import { type BrowserSession, readBrowserSession, type SessionAccount, useAccount } from "./sessions.ts";
import type { StepUpPolicy } from "../security/step_up.ts";
import { NO_TOOL_LIMITS, parsePlace, type Place, placeAllowed, type ToolLimits } from "./workspace_choice.ts";

/** What the flow needs from the app (routes/oauth_deps.ts OAuthRouteDeps fits). */
export interface FlowDeps {
  sql: Sql;
  secretKey: string;
  config: { issuer: string };
  log: Logger;
  clients: Pick<ClientDirectory, "get">;
}

/** The resume URL of a ticket: a GET that carries the sealed request, and so gets the browser's cookies. */
export async function resumePath(secretKey: string, ticket: Ticket): Promise<string> {
  return `/oauth/authorize/resume?ticket=${encodeURIComponent(await sealTicket(secretKey, ticket))}`;
}

/** Sends the result back to the client: 302 after a GET, 303 after a POST. */
export function backToClient(
  c: Context<AppEnv>,
  issuer: string,
  ticket: Ticket,
  params: Record<string, string | undefined>,
): Response {
  const status = c.req.method === "GET" ? 302 : 303;
  return c.redirect(
    redirectWith(ticket.req.redirectUri, { ...params, state: ticket.req.state, iss: issuer }),
    status,
  );
}

/**
 * Runs `work` for a request whose client and redirect URI are verified (parsed here, or sealed in a ticket): a
 * database outage then goes back to the client as temporarily_unavailable (RFC 6749 §4.1.2.1), which it can
 * act on. Before that point the page sub-app's error handler shows a 503 page instead (no trustworthy redirect
 * yet).
 */
export async function orUnavailable(
  c: Context<AppEnv>,
  deps: Pick<FlowDeps, "config" | "log">,
  ticket: Ticket,
  work: () => Promise<Response>,
): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err;
    deps.log.warn("authorize: database unavailable", { request_id: c.get("requestId") });
    return backToClient(c, deps.config.issuer, ticket, {
      error: "temporarily_unavailable",
      error_description: "the authorization server is temporarily unavailable; try again shortly",
    });
  }
}

/**
 * Opens a ticket and loads its client; null when either is gone, or when the ticket carries an account and
 * was used before (single use, see spendTicket).
 */
export async function ticketAndClient(
  deps: Pick<FlowDeps, "secretKey" | "sql" | "clients">,
  sealed: unknown,
  c?: Context,
): Promise<{ ticket: Ticket; client: Client } | null> {
  const ticket = await openTicket(deps.secretKey, sealed, c);
  if (!ticket) return null;
  if (!(await spendTicket(deps.sql, ticket))) return null;
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

/** A form of the flow posted for its ticket's account, read and checked (see `onAccountForm`). */
export interface AccountForm {
  form: PageForm;
  ticket: Ticket;
  client: Client;
  session: BrowserSession;
  account: SessionAccount;
}

/**
 * Reads a form the flow's pages post for the account in their ticket (consent, the approval request): CSRF, the
 * single-use ticket and its client, and the account still signed in to this browser (otherwise the request
 * starts over at sign-in); `then` runs with a database outage answered as `orUnavailable` does.
 */
export async function onAccountForm(
  c: Context<AppEnv>,
  deps: FlowDeps,
  then: (f: AccountForm) => Promise<Response>,
): Promise<Response> {
  const form = await readPageForm(c);
  if (!form || !verifyCsrf(c, deps, form.csrf)) return await flowFormExpired(c, deps, form);
  const found = await ticketAndClient(deps, form.ticket, c);
  if (!found) return requestExpired(c);
  const { ticket, client } = found;
  return await orUnavailable(c, deps, ticket, async () => {
    const session = await readBrowserSession(deps.sql, c, deps.config.issuer);
    const account = session?.accounts.find((a) => a.userId === ticket.userId);
    if (!session || !account) return c.redirect(await resumePath(deps.secretKey, { req: ticket.req }), 303);
    return await then({ form, ticket, client, session, account });
  });
}

/**
 * A form of the flow that cannot be verified (CSRF): "Form expired", in the language of the request its ticket
 * carries when the ticket is genuine. Reading the ticket changes nothing (it is not spent here).
 */
export async function flowFormExpired(
  c: Context<AppEnv>,
  deps: Pick<FlowDeps, "secretKey">,
  form: Pick<PageForm, "ticket"> | null,
): Promise<Response> {
  if (form?.ticket !== undefined) await openTicket(deps.secretKey, form.ticket, c);
  return formExpired(c);
}

/** What a prompt=none error tells the client (nobody saw a page). */
export const PROMPT_NONE_DESCRIPTIONS = {
  login_required: "the person must sign in",
  account_selection_required: "the person must choose an account",
  consent_required: "the person must approve the request",
  interaction_required: "an operator must approve this application for workspace; the person can ask for it",
} as const;

/** The end of the flow: the account becomes this browser's current one and the client gets its code. */
export async function issue(
  c: Context<AppEnv>,
  deps: Pick<FlowDeps, "sql" | "config">,
  ticket: Ticket,
  sessionId: string,
  account: Pick<SessionAccount, "userId" | "authTime" | "amr">,
  place: Place | null,
  limits: ToolLimits,
): Promise<Response> {
  await useAccount(deps.sql, sessionId, account.userId);
  const code = await issueCode(
    deps.sql,
    ticket.req,
    account.userId,
    account.authTime,
    account.amr,
    place,
    limits,
  );
  return backToClient(c, deps.config.issuer, ticket, { code });
}

/** The tool limits a consent form chose, as lib/mcp/toolsets.ts `limitsFromForm` reads them. */
export type ChosenLimits<Problem> =
  | { ok: true; toolsets: string[] | null; readOnly: boolean }
  | { ok: false; problem: Problem };

/** What the answer on a consent form leads to; the consent is already saved when it is `allowed`. */
export type ConsentAnswer<Problem> =
  | { kind: "start_over" }
  | { kind: "denied" }
  | { kind: "ask_again"; problem: Problem }
  | { kind: "bad_place" }
  | { kind: "allowed"; place: Place | null; limits: ToolLimits };

/**
 * Decides a consent form's answer for `account` of `session`. The request's own rules (prompt=login, max_age)
 * still hold for this account, otherwise it starts over; the tool limits and the place are checked again here,
 * so a forged, emptied or stale choice is never stored.
 */
export async function answerConsent<Problem>(
  sql: Sql,
  ticket: Ticket,
  client: Client,
  session: BrowserSession,
  account: SessionAccount,
  policy: StepUpPolicy,
  answer: { allow: boolean; place: string | undefined; limits: ChosenLimits<Problem> },
): Promise<ConsentAnswer<Problem>> {
  const step = await nextStep(sql, ticket, session, client, policy);
  if (step.kind !== "consent" && step.kind !== "issue") return { kind: "start_over" };
  if (!answer.allow) return { kind: "denied" };
  let place: Place | null = null;
  let limits: ToolLimits = NO_TOOL_LIMITS;
  if (ticket.req.scopes.includes("workspace")) {
    const chosen = answer.limits;
    if (!chosen.ok) return { kind: "ask_again", problem: chosen.problem };
    limits = { toolsets: chosen.toolsets, readOnly: chosen.readOnly };
    // The place must be one this person may grant now.
    place = parsePlace(answer.place);
    if (!place || !(await placeAllowed(sql, account.userId, place))) return { kind: "bad_place" };
  }
  await saveConsent(sql, account.userId, ticket.req.clientId, ticket.req.scopes, place, limits);
  return { kind: "allowed", place, limits };
}
