// The authorization endpoint's logic: parse and validate a request, carry it through the pages in a sealed
// ticket, and decide the next step (sign in, choose an account, consent, or issue a code).
import type { Context } from "hono";
import { fromUiLocales, isLocale, type Locale } from "../i18n/locale.ts";
import type { Text } from "../i18n/mod.ts";
import type { Db } from "../db/client.ts";
import { randomToken } from "../crypto.ts";
import { open, seal } from "../secret_box.ts";
import { type Client, redirectUriAllowed } from "./clients.ts";
import type { ClientDirectory } from "./client_directory.ts";
import { OAuthError, type OAuthErrorCode } from "./errors.ts";
import { mcpResourceUrl } from "./metadata.ts";
import { isValidChallenge } from "./pkce.ts";
import { parseResource } from "./resource.ts";
import { needsApproval, resolveScopes } from "./scopes.ts";
import type { BrowserSession, SessionAccount } from "./sessions.ts";
import { rememberedConsent } from "./consent.ts";
import { approvalFor, type ApprovalRequest } from "./approvals.ts";
import type { Place, ToolLimits } from "./workspace_choice.ts";
import { type StepUpPolicy, stepUpReason } from "../security/step_up.ts";

export type Prompt = "none" | "login" | "consent" | "select_account";
const PROMPTS = new Set<string>(["none", "login", "consent", "select_account"]);

/** A validated authorization request. */
export interface AuthzRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge: string;
  resource?: string;
  prompt: Prompt[];
  maxAge?: number;
  loginHint?: string;
  /** acr_values, in the client's order of preference (OIDC Core §3.1.2.1); at most 10 */
  acrValues?: string[];
  /** the pages' language from ui_locales (OIDC Core §3.1.2.1): its first tag Portico speaks (lib/i18n/locale.ts) */
  uiLocale?: Locale;
  /** seconds since the epoch when the request arrived */
  iat: number;
}

/** What an authorization error may say: OAuth's codes plus OIDC Core §3.1.2.6's request object codes. */
export type AuthorizeErrorCode = OAuthErrorCode | "request_not_supported" | "request_uri_not_supported";

export type SignInProblem = "invalid_credentials" | "throttled" | "disabled";

/** The request plus what happened so far in this browser; sealed with SECRET_KEY into the pages' forms. */
export interface Ticket {
  req: AuthzRequest;
  /** the account chosen or signed in for this request */
  userId?: string;
  /** the account signed in during this request (satisfies prompt=login and max_age) */
  freshLogin?: boolean;
  /** the person asked for "Use another account" */
  addAccount?: boolean;
  /** why the last sign-in attempt failed, and the email typed, to show the form again */
  problem?: SignInProblem;
  email?: string;
  /** the place (workspace_choice.ts wire form) to check first on the consent page: the one asked for approval */
  place?: string;
  /**
   * A ticket that carries an account (userId) is a capability: it is single use, by this random id, recorded
   * by `spendTicket` when it is opened (docs/oauth.md, "Resume URLs are single use"). Set by `sealTicket`.
   */
  jti?: string;
}

const TICKET_PURPOSE = "authorize-ticket";
/** How long a person may take between the app's redirect and their last click. */
export const TICKET_TTL_SECONDS = 30 * 60;

/** Seals a ticket; one that carries an account gets a new single-use id each time. */
export function sealTicket(secretKey: string, ticket: Ticket): Promise<string> {
  const sealed: Ticket = ticket.userId
    ? { ...ticket, jti: randomToken("", 16) }
    : { ...ticket, jti: undefined };
  return seal(secretKey, TICKET_PURPOSE, JSON.stringify(sealed));
}

/**
 * Records the use of a ticket that carries an account; false when it was used before (or carries an account but
 * no id). Tickets without an account are the request alone, which the client's own authorization URL gives
 * anyway, and stay reusable (a reloaded sign-in form still works). One statement, so of two parallel uses
 * exactly one wins.
 */
export async function spendTicket(db: Db, ticket: Ticket): Promise<boolean> {
  if (!ticket.userId) return true;
  if (!ticket.jti) return false;
  const rows = await db`
    insert into oauth_spent_tickets (jti, expires_at)
    values (${ticket.jti}, to_timestamp(${ticket.req.iat + TICKET_TTL_SECONDS}))
    on conflict (jti) do nothing
    returning jti`;
  // Spent ids outlive their tickets by nothing; sweep now and then rather than on every use.
  if (Math.random() < 0.01) await db`delete from oauth_spent_tickets where expires_at < now()`;
  return rows.length === 1;
}

/**
 * The ticket, or null when it is forged, altered or older than TICKET_TTL_SECONDS. Given the request's context,
 * the request's ui_locales become the page's language (lib/i18n/locale.ts).
 */
export async function openTicket(secretKey: string, sealed: unknown, c?: Context): Promise<Ticket | null> {
  if (typeof sealed !== "string" || sealed.length > 8000) return null;
  try {
    const ticket = JSON.parse(await open(secretKey, TICKET_PURPOSE, sealed)) as Ticket;
    if (Date.now() / 1000 - ticket.req.iat > TICKET_TTL_SECONDS) return null;
    if (c && isLocale(ticket.req.uiLocale)) c.set("uiLocale", ticket.req.uiLocale);
    return ticket;
  } catch {
    return null;
  }
}

/** The code word of an authorize error page: the client or redirect URI that cannot be trusted, or an OAuth error. */
export type AuthorizePageCode = "unknown_client" | "invalid_redirect_uri" | AuthorizeErrorCode;

/** Either an error page (no trustworthy redirect URI), an error sent back to the client, or a request. */
export type ParsedAuthorize =
  /**
   * The page's title and message in the page's language (catalogue texts); `code` is the page's code word: for
   * an error shown instead of redirected (errorsMayRedirect), the OAuth error.
   */
  | { kind: "page_error"; title: Text; message: Text; code: AuthorizePageCode }
  | {
    kind: "redirect_error";
    redirectUri: string;
    state?: string;
    error: AuthorizeErrorCode;
    description: string;
  }
  | { kind: "ok"; req: AuthzRequest; client: Client };

function single(params: URLSearchParams, name: string): string | undefined | null {
  const all = params.getAll(name);
  if (all.length > 1) return null; // RFC 6749 §3.1: parameters must not be repeated
  return all[0] === "" ? undefined : all[0];
}

/**
 * Parses and validates an authorization request (GET query or POST form). An error that would be redirected to
 * a client that may not receive redirects unasked (`errorsMayRedirect`) becomes an error page instead.
 */
export async function parseAuthorizeRequest(
  db: Db,
  clients: ClientDirectory,
  params: URLSearchParams,
  issuer: string,
): Promise<ParsedAuthorize> {
  const parsed = await parseRequest(db, clients, params, issuer);
  if (parsed.kind !== "redirect_error" || await errorsMayRedirect(db, parsed.client)) return parsed;
  return unredirectedError(parsed.client, parsed.redirectUri, parsed.error, parsed.description);
}

/**
 * Whether an error found before the person did anything may be sent to the client's redirect URI. Not for a
 * self-registered client nobody vouched for: not trusted by the operator and without a single completed grant
 * (a code exchanged), since anyone can register any redirect URI and use Portico as an open redirector
 * (RFC 9700 §4.11.2). Errors after the person acted on a page (a denied consent) always go back.
 */
export async function errorsMayRedirect(db: Db, client: Client): Promise<boolean> {
  if (!client.selfRegistered || client.trusted) return true;
  const [row] = await db<{ granted: boolean }[]>`
    select exists (select 1 from oauth_grants where client_id = ${client.clientId}) as granted`;
  return row.granted;
}

/** The error page shown instead of redirecting an error to a client that may not receive it unasked. */
export function unredirectedError(
  client: Client,
  redirectUri: string,
  error: AuthorizeErrorCode,
  description: string,
): Extract<ParsedAuthorize, { kind: "page_error" }> {
  // The description is the OAuth error_description the client would have got: English, for its developer.
  const host = redirectHostOf(redirectUri);
  return {
    kind: "page_error",
    title: (t) => t.flow.errors.cannotCompleteTitle,
    message: (t) => t.flow.errors.cannotComplete(client.name, description, host ?? t.flow.errors.theApp),
    code: error,
  };
}

function redirectHostOf(uri: string): string | undefined {
  try {
    const u = new URL(uri);
    return u.host || u.protocol;
  } catch {
    return undefined;
  }
}

type ParsedInner =
  | Exclude<ParsedAuthorize, { kind: "redirect_error" }>
  | Extract<ParsedAuthorize, { kind: "redirect_error" }> & { client: Client };

async function parseRequest(
  db: Db,
  clients: ClientDirectory,
  params: URLSearchParams,
  issuer: string,
): Promise<ParsedInner> {
  const clientId = single(params, "client_id");
  const unknownClient = (message: Text): ParsedInner => ({
    kind: "page_error",
    title: (t) => t.flow.errors.unknownClientTitle,
    message,
    code: "unknown_client",
  });
  if (!clientId) return unknownClient((t) => t.flow.errors.noClientId);
  let client: Client | undefined;
  try {
    client = await clients.get(clientId);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    // The reason is the metadata document's validation error: English, for the app's developer.
    const reason = err.description;
    return unknownClient((t) => t.flow.errors.badMetadata(clientId, reason));
  }
  if (!client) return unknownClient((t) => t.flow.errors.notRegistered);
  const redirectUri = single(params, "redirect_uri");
  if (!redirectUri || redirectUri.length > 2000 || !redirectUriAllowed(client.redirectUris, redirectUri)) {
    const name = client.name;
    return {
      kind: "page_error",
      title: (t) => t.flow.errors.invalidRedirectTitle,
      message: (t) => t.flow.errors.invalidRedirect(name),
      code: "invalid_redirect_uri",
    };
  }
  const stateRaw = single(params, "state");
  const state = stateRaw === null ? undefined : stateRaw;
  const known = client;
  const fail = (error: AuthorizeErrorCode, description: string): ParsedInner => ({
    kind: "redirect_error",
    redirectUri,
    state,
    error,
    description,
    client: known,
  });
  for (
    const name of ["response_type", "scope", "state", "nonce", "code_challenge", "code_challenge_method"]
  ) {
    if (single(params, name) === null) return fail("invalid_request", `${name} is repeated`);
  }
  for (const name of ["prompt", "max_age", "login_hint", "acr_values", "ui_locales"]) {
    if (single(params, name) === null) return fail("invalid_request", `${name} is repeated`);
  }
  if (state && state.length > 2000) return fail("invalid_request", "state is too long");
  // OIDC Core §3.1.2.6: request objects, by value or by reference, are refused with their own codes.
  if (params.has("request")) {
    return fail("request_not_supported", "request objects (the request parameter) are not supported");
  }
  if (params.has("request_uri")) {
    return fail("request_uri_not_supported", "request_uri is not supported");
  }
  const responseType = single(params, "response_type");
  if (!responseType) return fail("invalid_request", "response_type is required");
  if (responseType !== "code") {
    return fail("unsupported_response_type", "only response_type=code is supported");
  }
  const responseMode = single(params, "response_mode");
  if (responseMode !== undefined && responseMode !== "query") {
    return fail("invalid_request", "only response_mode=query is supported");
  }
  const challenge = single(params, "code_challenge");
  const method = single(params, "code_challenge_method");
  if (!challenge) return fail("invalid_request", "code_challenge is required (PKCE with S256)");
  if (method !== "S256") {
    return fail("invalid_request", "code_challenge_method must be S256 (plain is not allowed)");
  }
  if (!isValidChallenge(challenge)) {
    return fail("invalid_request", "code_challenge must be 43 base64url characters");
  }
  const nonce = single(params, "nonce") ?? undefined;
  if (nonce && nonce.length > 500) return fail("invalid_request", "nonce is too long");
  const promptRaw = single(params, "prompt") ?? "";
  const prompt = [...new Set(promptRaw.split(" ").filter(Boolean))];
  const unknownPrompt = prompt.find((p) => !PROMPTS.has(p));
  if (unknownPrompt) return fail("invalid_request", `unsupported prompt value ${unknownPrompt}`);
  if (prompt.includes("none") && prompt.length > 1) {
    return fail("invalid_request", "prompt=none cannot be combined with other values");
  }
  const maxAgeRaw = single(params, "max_age");
  let maxAge: number | undefined;
  if (maxAgeRaw !== undefined && maxAgeRaw !== null) {
    if (!/^\d{1,9}$/.test(maxAgeRaw)) {
      return fail("invalid_request", "max_age must be a non-negative integer");
    }
    maxAge = Number(maxAgeRaw);
  }
  const loginHint = single(params, "login_hint") ?? undefined;
  const acrRaw = single(params, "acr_values") ?? undefined;
  const acrValues = acrRaw === undefined ? undefined : acrRaw.split(" ").filter(Boolean);
  if (acrRaw !== undefined && (acrRaw.length > 1000 || acrValues!.length > 10)) {
    return fail("invalid_request", "acr_values is too long");
  }
  let resource: string | undefined;
  let scopes: string[];
  try {
    resource = parseResource(params.getAll("resource"), issuer);
    scopes = await resolveScopes(db, client, single(params, "scope") ?? undefined);
  } catch (err) {
    if (err instanceof OAuthError) return fail(err.error, err.description);
    throw err;
  }
  // `workspace` is for the tool server alone: a request that names no resource gets a token for /mcp, which is
  // what it can be used for (clients following MCP 2025-06-18 send resource anyway).
  if (resource === undefined && scopes.includes("workspace")) resource = mcpResourceUrl(issuer);
  return {
    kind: "ok",
    client,
    req: {
      clientId: client.clientId,
      redirectUri,
      scopes,
      state,
      nonce,
      codeChallenge: challenge,
      resource,
      prompt: prompt as Prompt[],
      maxAge,
      loginHint: loginHint && loginHint.length <= 320 ? loginHint : undefined,
      acrValues: acrValues && acrValues.length > 0 ? acrValues : undefined,
      uiLocale: fromUiLocales(single(params, "ui_locales")),
      iat: Math.floor(Date.now() / 1000),
    },
  };
}

/** What the authorization endpoint does next for this browser. */
export type Step =
  | { kind: "signin"; email?: string }
  | { kind: "choose"; accounts: SessionAccount[] }
  | { kind: "consent"; account: SessionAccount }
  | { kind: "issue"; account: SessionAccount; place: Place | null; limits: ToolLimits }
  /** `workspace` waits on the operators: ask them, wait, or hear that they denied (`request` is this person's) */
  | { kind: "approval"; account: SessionAccount; request: ApprovalRequest | undefined }
  /** the person's password must change first (users.password_change_required) */
  | { kind: "change_password"; account: SessionAccount }
  /** the request needs two factors and this sign-in used one (`workspace`: the workspace whose policy asks) */
  | { kind: "step_up"; account: SessionAccount; workspace: string | null }
  | {
    kind: "error";
    error: "login_required" | "account_selection_required" | "consent_required" | "interaction_required";
  };

/**
 * The next step for this request in this browser. `client` is the request's client as it is now: its trust
 * decides whether `workspace` waits on the operators, before any remembered consent is used.
 */
export async function nextStep(
  db: Db,
  ticket: Ticket,
  session: BrowserSession | null,
  client: Client,
  policy: StepUpPolicy,
): Promise<Step> {
  const { req } = ticket;
  const accounts = session?.accounts ?? [];
  const none = req.prompt.includes("none");
  if (ticket.addAccount) return { kind: "signin", email: ticket.email };
  let account = ticket.userId ? accounts.find((a) => a.userId === ticket.userId) : undefined;
  const fresh = account !== undefined && ticket.freshLogin === true;
  if (!account) {
    if (none) {
      if (accounts.length === 0) return { kind: "error", error: "login_required" };
      if (accounts.length > 1) return { kind: "error", error: "account_selection_required" };
      account = accounts[0];
    } else if (req.prompt.includes("login") || accounts.length === 0) {
      const only = accounts.length === 1 ? accounts[0].email : undefined;
      return { kind: "signin", email: ticket.email ?? req.loginHint ?? only };
    } else if (req.prompt.includes("select_account") || accounts.length > 1) {
      return { kind: "choose", accounts };
    } else {
      account = accounts[0];
    }
  }
  if (req.prompt.includes("login") && !fresh) return { kind: "signin", email: account.email };
  if (
    req.maxAge !== undefined && !fresh && Date.now() / 1000 - account.authTime.getTime() / 1000 > req.maxAge
  ) {
    return none ? { kind: "error", error: "login_required" } : { kind: "signin", email: account.email };
  }
  // A password that falls short of the policy is changed before the account is used for anything.
  if (account.mustChangePassword) {
    return none ? { kind: "error", error: "login_required" } : { kind: "change_password", account };
  }
  // A second factor before anything is granted or asked of the operators (lib/security/step_up.ts).
  const stepUp = await stepUpReason(db, req, account, policy);
  if (stepUp) {
    return none
      ? { kind: "error", error: "login_required" }
      : { kind: "step_up", account, workspace: stepUp.workspace };
  }
  if (needsApproval(client, req.scopes)) {
    if (none) return { kind: "error", error: "interaction_required" };
    return { kind: "approval", account, request: await approvalFor(db, client.clientId, account.userId) };
  }
  const remembered = req.prompt.includes("consent")
    ? { covers: false as const }
    : await rememberedConsent(db, account.userId, req.clientId, req.scopes);
  if (!remembered.covers) {
    return none ? { kind: "error", error: "consent_required" } : { kind: "consent", account };
  }
  return { kind: "issue", account, place: remembered.place, limits: remembered.limits };
}

/** The client's redirect URI with response parameters added (RFC 9207 `iss` always). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.append(k, v);
  return u.toString();
}
