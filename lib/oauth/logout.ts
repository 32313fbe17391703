// OpenID Connect RP-Initiated Logout 1.0 (end_session_endpoint, /oauth/logout): reading and judging the request.
// `id_token_hint` is an ID token this server signed (signature by a published key, `iss` this issuer; an expired
// one is accepted, §2: the RP may send it long after it expired); `client_id`, when sent beside it, must be one
// of its audiences; `post_logout_redirect_uri` must equal one the client registered, character for character;
// `state` comes back with it. A request that fails any of these is answered with an error page, never a redirect.
// `ui_locales` picks the pages' language (its first tag Portico speaks, lib/i18n/locale.ts) and travels with the
// sealed request; `logout_hint` is accepted and ignored.
//
// Exports: `parseLogoutRequest(params, deps)` → the request or the page error; `sealLogout` / `openLogout`, the
// validated request carried through the confirmation page (sealed, 30 minutes); `logoutRedirect(request)`, the
// address to send the browser to afterwards (with `state`), or null.
import { compactVerify, decodeProtectedHeader } from "jose";
import { fromUiLocales, type Locale } from "../i18n/locale.ts";
import type { Text } from "../i18n/mod.ts";
import { open, seal } from "../secret_box.ts";
import type { ClientDirectory } from "./client_directory.ts";
import { OAuthError } from "./errors.ts";
import type { KeyStore } from "./keys.ts";

/** A validated logout request. */
export interface LogoutRequest {
  /** the account the hint names (its `sub`), or null without a hint: every account of the browser */
  userId: string | null;
  clientId: string | null;
  /** the client's name, for the confirmation page */
  clientName: string | null;
  /** a registered post_logout_redirect_uri, or null: the "You are signed out" page */
  redirectUri: string | null;
  state: string | null;
  /** the pages' language from ui_locales, when it names one Portico speaks */
  uiLocale?: Locale;
  /** when the request was validated (seconds), for the sealed copy's lifetime */
  iat: number;
}

export type ParsedLogout =
  | { kind: "error"; title: Text; message: Text; code: string }
  | { kind: "request"; request: LogoutRequest };

export interface LogoutDeps {
  issuer: string;
  keys: Pick<KeyStore, "verificationKey">;
  clients: Pick<ClientDirectory, "get">;
}

const HINT_MAX = 8000;
const VALUE_MAX = 2000;
/** How long the confirmation page's form stays valid. */
export const LOGOUT_TTL_SECONDS = 30 * 60;
const PURPOSE = "logout-request";

function refuse(title: Text, message: Text, code: string): ParsedLogout {
  return { kind: "error", title, message, code };
}

/** The title of most refusals. */
const NOT_VALID: Text = (t) => t.flow.logout.invalidTitle;

/** The hint's subject and audiences when it is an ID token of this issuer with a valid signature; else null. */
export async function verifyIdTokenHint(
  deps: Pick<LogoutDeps, "issuer" | "keys">,
  token: string,
): Promise<{ sub: string; aud: string[]; azp?: string } | null> {
  try {
    const header = decodeProtectedHeader(token);
    // Only ID tokens: an access token (typ at+jwt) names no client as its audience.
    if (header.alg !== "RS256" || typeof header.kid !== "string" || header.typ === "at+jwt") return null;
    const key = await deps.keys.verificationKey(header.kid);
    if (!key) return null;
    // compactVerify checks the signature only: exp is not judged (an expired hint is fine, §2).
    const { payload } = await compactVerify(token, key, { algorithms: ["RS256"] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    if (claims.iss !== deps.issuer || typeof claims.sub !== "string") return null;
    const aud = typeof claims.aud === "string" ? [claims.aud] : claims.aud;
    if (!Array.isArray(aud) || aud.length === 0 || !aud.every((a) => typeof a === "string")) return null;
    return { sub: claims.sub, aud, azp: typeof claims.azp === "string" ? claims.azp : undefined };
  } catch {
    return null;
  }
}

/** Reads and judges a logout request's parameters (from the query or a form body). */
export async function parseLogoutRequest(params: URLSearchParams, deps: LogoutDeps): Promise<ParsedLogout> {
  for (const name of ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"]) {
    if (params.getAll(name).length > 1) {
      return refuse(NOT_VALID, (t) => t.flow.logout.repeated(name), "invalid_request");
    }
  }
  const hintText = params.get("id_token_hint") || null;
  const clientParam = params.get("client_id") || null;
  const uri = params.get("post_logout_redirect_uri") || null;
  const state = params.get("state") || null;
  if (
    (hintText?.length ?? 0) > HINT_MAX || (clientParam?.length ?? 0) > VALUE_MAX ||
    (uri?.length ?? 0) > VALUE_MAX || (state?.length ?? 0) > VALUE_MAX
  ) {
    return refuse(NOT_VALID, (t) => t.flow.logout.tooLong, "invalid_request");
  }
  let userId: string | null = null;
  let clientId = clientParam;
  if (hintText) {
    const hint = await verifyIdTokenHint(deps, hintText);
    if (!hint) {
      return refuse(NOT_VALID, (t) => t.flow.logout.badHint, "invalid_id_token_hint");
    }
    if (clientParam && !hint.aud.includes(clientParam)) {
      return refuse(NOT_VALID, (t) => t.flow.logout.hintAudience, "invalid_request");
    }
    userId = hint.sub;
    clientId ??= hint.aud.length === 1 ? hint.aud[0] : (hint.azp ?? null);
  }
  let clientName: string | null = null;
  let redirectUri: string | null = null;
  if (clientId) {
    const client = await deps.clients.get(clientId).catch((err) => {
      if (err instanceof OAuthError) return undefined;
      throw err;
    });
    if (!client) {
      return refuse(
        (t) => t.flow.errors.unknownClientTitle,
        (t) => t.flow.logout.unknownClient,
        "unknown_client",
      );
    }
    clientName = client.name;
    if (uri !== null) {
      if (!client.postLogoutRedirectUris.includes(uri)) {
        return refuse(
          (t) => t.flow.errors.invalidRedirectTitle,
          (t) => t.flow.logout.badRedirect,
          "invalid_post_logout_redirect_uri",
        );
      }
      redirectUri = uri;
    }
  } else if (uri !== null) {
    return refuse(
      (t) => t.flow.errors.invalidRedirectTitle,
      (t) => t.flow.logout.redirectWithoutClient,
      "invalid_request",
    );
  }
  const uiLocale = fromUiLocales(params.get("ui_locales"));
  return {
    kind: "request",
    request: {
      userId,
      clientId,
      clientName,
      redirectUri,
      state,
      ...(uiLocale ? { uiLocale } : {}),
      iat: Math.floor(Date.now() / 1000),
    },
  };
}

/** The request, sealed for the confirmation form (or the redirect a POSTed request gets). */
export function sealLogout(secretKey: string, request: LogoutRequest): Promise<string> {
  return seal(secretKey, PURPOSE, JSON.stringify(request));
}

/** A sealed request when genuine and under LOGOUT_TTL_SECONDS old; else null. */
export async function openLogout(secretKey: string, sealed: unknown): Promise<LogoutRequest | null> {
  if (typeof sealed !== "string" || sealed.length > 20_000) return null;
  try {
    const request = JSON.parse(await open(secretKey, PURPOSE, sealed)) as LogoutRequest;
    if (Date.now() / 1000 - request.iat > LOGOUT_TTL_SECONDS) return null;
    return request;
  } catch {
    return null;
  }
}

/** Where the browser goes after the sign-out: the registered URI with `state`, or null (our own page). */
export function logoutRedirect(request: LogoutRequest): string | null {
  if (!request.redirectUri) return null;
  if (request.state === null) return request.redirectUri;
  // Appended to the registered URI as it is (its own query untouched), as §3 asks.
  const sep = request.redirectUri.includes("?") ? "&" : "?";
  return `${request.redirectUri}${sep}state=${encodeURIComponent(request.state)}`;
}
