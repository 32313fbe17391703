// Which client_id values are Client ID Metadata Document URLs (draft-ietf-oauth-client-id-metadata-document §3,
// plus Portico's rules), checked before anything is fetched.
import { reachesLoopback } from "../net/loopback.ts";
import { URI_MAX_LENGTH } from "./client_metadata_schema.ts";

/** Whether the issuer runs on loopback: then plain http client_id URLs on loopback are allowed (development). */
export function issuerIsLoopback(issuer: string): boolean {
  try {
    return reachesLoopback(new URL(issuer).hostname);
  } catch {
    return false;
  }
}

/**
 * True when client_id should be treated as a metadata document URL: an https URL, or an http URL on a loopback
 * host while the issuer itself is on loopback. Further rules (path, fragment, dot segments …) are checked by
 * the fetcher, whose invalid_client description then names the broken rule instead of "unknown client".
 */
export function isMetadataDocumentUrl(clientId: string, issuer: string): boolean {
  if (clientId.length > URI_MAX_LENGTH) return false;
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return false;
  }
  if (u.protocol === "https:") return true;
  return u.protocol === "http:" && issuerIsLoopback(issuer) && reachesLoopback(u.hostname);
}

/** Why client_id cannot be a metadata document URL (draft §3 plus Portico's rules), or null when it can. */
export function metadataDocumentUrlProblem(clientId: string, issuer: string): string | null {
  if (clientId.length > URI_MAX_LENGTH) return `client_id must be at most ${URI_MAX_LENGTH} characters`;
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return "client_id is not an absolute URL";
  }
  const devHttp = u.protocol === "http:" && issuerIsLoopback(issuer) && reachesLoopback(u.hostname);
  if (u.protocol !== "https:" && !devHttp) {
    return "client_id must be an https URL (plain http only for loopback hosts while Portico runs on loopback)";
  }
  if (u.username !== "" || u.password !== "") return "client_id must not contain a username or password";
  if (clientId.includes("#")) return "client_id must not contain a fragment";
  // The URL parser removes dot segments (also %2e forms), so look at the text as written.
  const afterScheme = clientId.slice(clientId.indexOf("//") + 2);
  const slash = afterScheme.indexOf("/");
  const rawPath = slash < 0 ? "" : afterScheme.slice(slash).split("?")[0];
  if (rawPath.split("/").some((s) => /^(\.|%2e){1,2}$/i.test(s))) {
    return "client_id must not contain . or .. path segments";
  }
  if (u.pathname === "/" || u.pathname === "") {
    return "client_id must have a path, such as https://app.example.com/oauth/client.json";
  }
  if (u.href !== clientId) {
    return "client_id must be written as a URL parser writes it: lowercase scheme and host, no default port, " +
      "no empty user info, percent-encoding where required";
  }
  if (!u.hostname.includes(".") && !u.hostname.startsWith("[") && !reachesLoopback(u.hostname)) {
    return "client_id host must be a fully qualified domain name";
  }
  return null;
}
