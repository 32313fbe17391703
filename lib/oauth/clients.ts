// OAuth clients: ids `pcl_…`, secrets `pcs_…` stored as SHA-256 hashes, redirect URIs validated on the way in.
import type { Db } from "../db/client.ts";
import { randomToken, safeEqual, sha256Hex } from "../crypto.ts";
import { invalidInput } from "../errors.ts";
import { OAuthError } from "./errors.ts";
import { GRANT_TYPES, isGrantType, REQUIRED_GRANT } from "./grants/names.ts";
import { isLoopbackHostname } from "../net/loopback.ts";

export type AuthMethod = "none" | "client_secret_post" | "client_secret_basic";

/**
 * Schemes that are never an app's callback: ones the browser runs or reads itself (javascript:, data:, blob: …),
 * local files, network protocols that would carry the code elsewhere in the clear, and schemes that hand it to
 * another program (mail, phone, Android intents). Every other scheme is a private-use scheme (RFC 8252 §7.1).
 */
export const REFUSED_REDIRECT_SCHEMES: ReadonlySet<string> = new Set([
  "javascript",
  "vbscript",
  "data",
  "blob",
  "about",
  "file",
  "filesystem",
  "view-source",
  "jar",
  "ftp",
  "ws",
  "wss",
  "mailto",
  "tel",
  "sms",
  "callto",
  "intent",
  "urn",
]);

/**
 * Why a redirect URI cannot be registered, or null when it can: https with a host, http on a loopback host, or
 * a private-use scheme of any shape (reverse-domain `com.example.app:` and Cursor's `cursor:` alike — RFC 8252
 * §7.1 asks for reverse-domain names but no name proves who owns it, §8.6; PKCE S256, mandatory here, is what
 * protects the code, §8.1). Never a fragment or a wildcard; never a scheme of REFUSED_REDIRECT_SCHEMES.
 */
export function redirectUriProblem(uri: string): string | null {
  const web = webUriProblem(uri);
  if (web.kind === "checked") return web.problem;
  const scheme = web.url.protocol.slice(0, -1);
  // One letter is a Windows drive (c:\…), not a scheme.
  if (REFUSED_REDIRECT_SCHEMES.has(scheme) || scheme.length < 2) {
    return `uses the scheme ${scheme}:, which is never an app's callback (use https, loopback http, or the ` +
      "app's own scheme such as com.example.app:/callback)";
  }
  return null;
}

export interface NewClient {
  name: string;
  redirectUris: string[];
  confidential: boolean;
  authMethod?: AuthMethod;
  scopes: string[];
  grantTypes: string[];
  selfRegistered: boolean;
  clientUri?: string;
  logoUri?: string;
  contacts?: string[];
  /** RP-Initiated Logout: where the browser may be sent after sign-out (each accepted by postLogoutUriProblem) */
  postLogoutRedirectUris?: string[];
}

/** At most this many post_logout_redirect_uris per client. */
export const POST_LOGOUT_URIS_MAX = 20;

/**
 * Why a post-logout redirect URI cannot be registered, or null when it can: https with a host, or http on a
 * loopback host; no fragment, no wildcard. (Stricter than redirect_uris: a sign-out sends a browser to a page,
 * never to an app's private scheme.)
 */
export function postLogoutUriProblem(uri: string): string | null {
  const web = webUriProblem(uri);
  return web.kind === "other_scheme" ? "must be an https URL (or http on a loopback host)" : web.problem;
}

/**
 * The rules every registered address shares: absolute, no fragment, no wildcard, https with a host or http on a
 * loopback host. Another scheme is for the caller to judge (an app's own callback scheme, or a refusal).
 */
function webUriProblem(uri: string):
  | { kind: "checked"; problem: string | null }
  | { kind: "other_scheme"; url: URL } {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return { kind: "checked", problem: "is not an absolute URI" };
  }
  if (uri.includes("#")) return { kind: "checked", problem: "must not contain a fragment" };
  if (uri.includes("*")) return { kind: "checked", problem: "must not contain wildcards" };
  if (u.protocol === "https:") return { kind: "checked", problem: u.hostname ? null : "needs a host" };
  if (u.protocol === "http:") {
    return {
      kind: "checked",
      problem: isLoopbackHostname(u.hostname) ? null : "may use http only for loopback hosts",
    };
  }
  return { kind: "other_scheme", url: u };
}

export async function createClient(
  db: Db,
  input: NewClient,
): Promise<{ clientId: string; clientSecret?: string; issuedAt: number }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) throw invalidInput("client_name must be 1-200 characters");
  if (input.redirectUris.length < 1 || input.redirectUris.length > 20) {
    throw invalidInput("redirect_uris must hold 1-20 URIs");
  }
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidInput(`redirect_uri ${uri} ${problem}`);
  }
  const postLogout = [...new Set(input.postLogoutRedirectUris ?? [])];
  if (postLogout.length > POST_LOGOUT_URIS_MAX) {
    throw invalidInput(`post_logout_redirect_uris must hold at most ${POST_LOGOUT_URIS_MAX} URIs`);
  }
  for (const uri of postLogout) {
    const problem = uri.length > 2000 ? "is longer than 2000 characters" : postLogoutUriProblem(uri);
    if (problem) throw invalidInput(`post_logout_redirect_uri ${uri.slice(0, 200)} ${problem}`);
  }
  for (const g of input.grantTypes) {
    if (!isGrantType(g)) throw invalidInput(`grant type ${g} is not supported (${GRANT_TYPES.join(", ")})`);
  }
  if (!input.grantTypes.includes(REQUIRED_GRANT)) {
    throw invalidInput(`grant_types must include ${REQUIRED_GRANT}`);
  }
  const method: AuthMethod = input.confidential ? (input.authMethod ?? "client_secret_basic") : "none";
  const clientId = randomToken("pcl_", 16);
  const clientSecret = input.confidential ? randomToken("pcs_") : undefined;
  const [row] = await db<{ issuedAt: number }[]>`
    insert into oauth_clients (client_id, secret_hash, name, redirect_uris, grant_types, scopes,
                               token_endpoint_auth_method, client_uri, logo_uri, contacts, self_registered,
                               post_logout_redirect_uris)
    values (${clientId}, ${clientSecret ? sha256Hex(clientSecret) : null}, ${name}, ${input.redirectUris},
            ${[...new Set(input.grantTypes)]}, ${[...new Set(input.scopes)]}, ${method},
            ${input.clientUri ?? null}, ${input.logoUri ?? null}, ${input.contacts ?? []},
            ${input.selfRegistered}, ${postLogout})
    returning extract(epoch from created_at)::int as "issuedAt"`;
  return { clientId, clientSecret, issuedAt: row.issuedAt };
}

export interface Client {
  clientId: string;
  name: string;
  redirectUris: string[];
  grantTypes: string[];
  scopes: string[];
  authMethod: AuthMethod;
  confidential: boolean;
  selfRegistered: boolean;
  clientUri: string | null;
  logoUri: string | null;
  contacts: string[];
  createdAt: Date;
  /** the operator approved this self-registered client for `workspace` (or its metadata URL is trusted) */
  trusted: boolean;
  /** the client_id is the URL of a Client ID Metadata Document */
  metadataDocument: boolean;
  /** RP-Initiated Logout 1.0: where /oauth/logout may send the browser afterwards (exact match) */
  postLogoutRedirectUris: string[];
}

/**
 * A client as oauth_clients stores it, with the table's column names: `clientColumns` selects it and the refresh
 * statement (grants/refresh_token.ts) reads these names in SQL and gets the row back inside JSON (so `created_at` is
 * then ISO text, not a Date). `toClient` is where it becomes camelCase.
 */
export interface ClientRow {
  client_id: string;
  secret_hash: string | null;
  name: string;
  redirect_uris: string[];
  grant_types: string[];
  scopes: string[];
  token_endpoint_auth_method: AuthMethod;
  client_uri: string | null;
  logo_uri: string | null;
  contacts: string[];
  self_registered: boolean;
  trusted: boolean;
  created_at: Date | string;
  /** absent in rows read by statements that do not select it (the refresh statement) */
  post_logout_redirect_uris?: string[];
}

export function toClient(r: ClientRow): Client {
  return {
    clientId: r.client_id,
    name: r.name,
    redirectUris: r.redirect_uris,
    grantTypes: r.grant_types,
    scopes: r.scopes,
    authMethod: r.token_endpoint_auth_method,
    confidential: r.secret_hash !== null,
    selfRegistered: r.self_registered,
    clientUri: r.client_uri,
    logoUri: r.logo_uri,
    contacts: r.contacts,
    createdAt: new Date(r.created_at),
    trusted: r.trusted,
    metadataDocument: !r.client_id.startsWith("pcl_"),
    postLogoutRedirectUris: r.post_logout_redirect_uris ?? [],
  };
}

/** The columns of a client row, in one place for every reader. */
export function clientColumns(db: Db) {
  return db`client_id, secret_hash, name, redirect_uris, grant_types, scopes, token_endpoint_auth_method,
            client_uri, logo_uri, contacts, self_registered, trusted, created_at, post_logout_redirect_uris`;
}

/** Whether `clientId` is spelled as a registered client's id (`pcl_…`); anything else is no registered client. */
export function isRegisteredClientId(clientId: string): boolean {
  return /^pcl_[A-Za-z0-9_-]{1,100}$/.test(clientId);
}

/** A registered client's row (ids `pcl_…`); undefined for anything else. */
export async function registeredClientRow(db: Db, clientId: string): Promise<ClientRow | undefined> {
  if (!isRegisteredClientId(clientId)) return undefined;
  const [row] = await db<ClientRow[]>`
    select ${clientColumns(db)} from oauth_clients where client_id = ${clientId}`;
  return row;
}

/** A registered client (`pcl_…`); metadata-document clients are found through client_directory.ts. */
export async function getClient(db: Db, clientId: string): Promise<Client | undefined> {
  const row = await registeredClientRow(db, clientId);
  return row ? toClient(row) : undefined;
}

/** Looks up a client by id, with its secret hash: how the endpoints find clients (see client_directory.ts). */
export type ClientFinder = (clientId: string) => Promise<ClientRow | undefined>;

/**
 * Sets or clears the operator's trust in a self-registered client (`admin client trust|untrust`). Withdrawing
 * trust also ends the client's grants that carry `workspace` (their tokens stop at the next /mcp request).
 */
export async function setClientTrusted(db: Db, clientId: string, trusted: boolean): Promise<boolean> {
  const rows = await db`
    update oauth_clients set trusted = ${trusted} where client_id = ${clientId} returning client_id`;
  if (rows.length === 0) return false;
  if (!trusted) {
    // Their refresh tokens end with them: a family's state is its grant row's.
    await db`
      update oauth_grants g set revoked_at = now()
        from oauth_clients c
       where g.client_id = ${clientId} and c.client_id = g.client_id and c.self_registered
         and 'workspace' = any(g.scopes) and g.revoked_at is null`;
  }
  return true;
}

/**
 * Whether `requested` may be used as this client's redirect URI: an exact match of a registered URI, except
 * that loopback http URIs may use any port (RFC 8252 §7.3, native apps bind an ephemeral port).
 */
export function redirectUriAllowed(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let req: URL;
  try {
    req = new URL(requested);
  } catch {
    return false;
  }
  if (req.protocol !== "http:" || !isLoopbackHostname(req.hostname) || requested.includes("#")) return false;
  return registered.some((r) => {
    const reg = new URL(r);
    return reg.protocol === "http:" && reg.hostname === req.hostname && reg.pathname === req.pathname &&
      reg.search === req.search && reg.username === req.username && reg.password === req.password;
  });
}

/** What the token and revocation endpoints received as client credentials. */
export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  /** which way the credentials came: the Authorization header (basic) or the body */
  via: "basic" | "body" | "none";
}

function invalidClient(description: string, basic: boolean): OAuthError {
  const err = new OAuthError("invalid_client", description, 401);
  (err as OAuthError & { basic: boolean }).basic = basic;
  return err;
}

/** True when an invalid_client error should carry `WWW-Authenticate: Basic`. */
export function usedBasic(err: OAuthError): boolean {
  return (err as OAuthError & { basic?: boolean }).basic === true;
}

/** Reads client credentials from `Authorization: Basic` and/or the form body; refuses both at once. */
export function readClientCredentials(
  authorization: string | undefined,
  form: { client_id?: string; client_secret?: string },
): ClientCredentials {
  if (authorization && /^basic /i.test(authorization)) {
    if (form.client_secret !== undefined) {
      throw new OAuthError("invalid_request", "use one client authentication method, not two");
    }
    let decoded: string;
    try {
      decoded = atob(authorization.slice(6).trim());
    } catch {
      throw invalidClient("malformed Basic credentials", true);
    }
    const i = decoded.indexOf(":");
    if (i < 0) throw invalidClient("malformed Basic credentials", true);
    let id: string, secret: string;
    try {
      // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
      id = decodeURIComponent(decoded.slice(0, i).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, " "));
    } catch {
      throw invalidClient("malformed Basic credentials", true);
    }
    if (form.client_id !== undefined && form.client_id !== id) {
      throw new OAuthError("invalid_request", "client_id in the body differs from the Basic credentials");
    }
    // `client_id:` with an empty password is how some public clients use Basic; it carries no secret.
    return { clientId: id, clientSecret: secret === "" ? undefined : secret, via: "basic" };
  }
  if (form.client_secret !== undefined) {
    return { clientId: form.client_id, clientSecret: form.client_secret, via: "body" };
  }
  return { clientId: form.client_id, via: "none" };
}

/**
 * Authenticates a client at the token and revocation endpoints (and any other client-authenticated endpoint),
 * with exactly the `token_endpoint_auth_method` it registered (RFC 7591 §2): `client_secret_basic` only in the
 * Authorization header, `client_secret_post` only in the body, `none` never with a secret (its client_id may
 * come in the body or as Basic with an empty password, which carries no secret).
 */
export async function authenticateClient(find: ClientFinder, creds: ClientCredentials): Promise<Client> {
  const basic = creds.via === "basic";
  if (!creds.clientId) throw invalidClient("client authentication is required (client_id missing)", basic);
  let row: ClientRow | undefined;
  try {
    row = await find(creds.clientId);
  } catch (err) {
    // A metadata document that cannot be fetched or is invalid: the client cannot be identified.
    if (err instanceof OAuthError && err.error === "invalid_client") {
      throw invalidClient(err.description, basic);
    }
    throw err;
  }
  if (!row) {
    // Spend a comparison anyway so unknown ids and wrong secrets take the same time.
    safeEqual(sha256Hex(creds.clientSecret ?? ""), "0".repeat(64));
    throw invalidClient("unknown client or wrong credentials", basic);
  }
  if (row.secret_hash === null) {
    if (creds.clientSecret !== undefined) {
      throw invalidClient("this client is public and has no secret", basic);
    }
    return toClient(row);
  }
  if (creds.clientSecret === undefined || !safeEqual(sha256Hex(creds.clientSecret), row.secret_hash)) {
    throw invalidClient("unknown client or wrong credentials", basic);
  }
  // Checked after the secret, so the method a client registered is told only to the client itself.
  const expected = row.token_endpoint_auth_method === "client_secret_post" ? "body" : "basic";
  if (creds.via !== expected) {
    throw invalidClient(
      row.token_endpoint_auth_method === "client_secret_post"
        ? "this client registered client_secret_post: send client_id and client_secret in the body"
        : "this client registered client_secret_basic: send its credentials in the Authorization header (Basic)",
      basic,
    );
  }
  return toClient(row);
}
