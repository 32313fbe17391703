// The pages' error answers: the plain error page, the refusals every page shares (an expired request, a form that
// cannot be verified), and for the authorize error page, when the redirect URI sent is not one the client
// registered, the address sent and the registered ones, so the developer of the app sees the difference at a glance.
import type { Context } from "hono";
import { ErrorPage, type ErrorPageProps } from "../views/error_page.tsx";
import { renderPage } from "./http/render.ts";
import type { Text } from "./i18n/mod.ts";
import type { AppEnv } from "./http/types.ts";
import type { ClientDirectory } from "./oauth/client_directory.ts";
import { redirectUriAllowed } from "./oauth/clients.ts";

/** An error page (views/error_page.tsx), 400 unless said otherwise. */
export function errorPage(
  c: Context<AppEnv>,
  title: Text,
  message: Text,
  status = 400,
  code?: string,
  redirect?: ErrorPageProps["redirect"],
): Response {
  return renderPage(c, ErrorPage, { title, message, code, redirect }, status);
}

/** An authorization request's ticket that is gone, spent or forged: the person starts again at the app. */
export function requestExpired(c: Context<AppEnv>): Response {
  return errorPage(
    c,
    (t) => t.common.requestExpiredTitle,
    (t) => t.common.requestExpiredMessage,
    400,
    "request_expired",
  );
}

/** A form whose CSRF token (or fields) could not be verified: 403, and `then`, what the person does next. */
export function formExpired(c: Context<AppEnv>, then: Text = (t) => t.common.formExpiredThen): Response {
  return errorPage(
    c,
    (t) => t.common.formExpiredTitle,
    (t) => t.common.formExpiredMessage(typeof then === "function" ? then(t) : then),
    403,
    "invalid_csrf",
  );
}

/** Bounds what the page repeats back: a query string may be long, a client may register many addresses. */
export const MAX_SHOWN_URI_CHARS = 500;
export const MAX_SHOWN_REGISTERED = 10;

const clip = (s: string) => s.length > MAX_SHOWN_URI_CHARS ? `${s.slice(0, MAX_SHOWN_URI_CHARS)}…` : s;

/**
 * The sent and registered redirect URIs when `params` names a known client and a redirect URI it did not
 * register; undefined otherwise (nothing sent, unknown client, or the URI is fine and the error is another).
 * Runs only on the error path: the one extra directory read is not on any successful request.
 */
export async function redirectMismatch(
  clients: Pick<ClientDirectory, "get">,
  params: URLSearchParams,
): Promise<{ sent: string; registered: string[] } | undefined> {
  const clientId = params.get("client_id");
  const sent = params.getAll("redirect_uri");
  if (!clientId || sent.length !== 1 || sent[0] === "") return undefined;
  const client = await clients.get(clientId).catch(() => undefined);
  if (!client) return undefined;
  if (sent[0].length <= 2000 && redirectUriAllowed(client.redirectUris, sent[0])) return undefined;
  const registered = client.redirectUris.slice(0, MAX_SHOWN_REGISTERED).map(clip);
  if (client.redirectUris.length > MAX_SHOWN_REGISTERED) {
    registered.push(`… (+${client.redirectUris.length - MAX_SHOWN_REGISTERED})`);
  }
  return { sent: clip(sent[0]), registered };
}
