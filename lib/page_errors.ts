// Details for the authorize error page: when the redirect URI sent is not one the client registered, the
// address sent and the registered ones, so the developer of the app sees the difference at a glance.
import type { ClientDirectory } from "./oauth/client_directory.ts";
import { redirectUriAllowed } from "./oauth/clients.ts";

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
    registered.push(`… and ${client.redirectUris.length - MAX_SHOWN_REGISTERED} more`);
  }
  return { sent: clip(sent[0]), registered };
}
