// OAuth clients: ids `pcl_…`, secrets `pcs_…` stored as SHA-256 hashes, redirect URIs validated on the way in.
import type { Db } from "../db/client.ts";
import { randomToken, sha256Hex } from "../crypto.ts";
import { invalidInput } from "../errors.ts";

export type AuthMethod = "none" | "client_secret_post" | "client_secret_basic";
export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

/** RFC 8252 loopback hosts, whose port may differ at authorization time. */
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Why a redirect URI cannot be registered, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (uri.includes("#")) return "must not contain a fragment";
  if (uri.includes("*")) return "must not contain wildcards";
  if (u.protocol === "https:") return u.hostname ? null : "needs a host";
  if (u.protocol === "http:") return LOOPBACK.has(u.hostname) ? null : "may use http only for loopback hosts";
  // Private-use scheme for native apps (RFC 8252 §7.1): reverse-domain style, e.g. com.example.app:/callback.
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(u.protocol)) return null;
  if (u.protocol === "javascript:" || u.protocol === "data:" || u.protocol === "file:") {
    return "scheme not allowed";
  }
  return "must be https, loopback http, or a private-use scheme like com.example.app:/callback";
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
  for (const g of input.grantTypes) {
    if (!(GRANT_TYPES as readonly string[]).includes(g)) {
      throw invalidInput(`grant type ${g} is not supported (authorization_code, refresh_token)`);
    }
  }
  if (!input.grantTypes.includes("authorization_code")) {
    throw invalidInput("grant_types must include authorization_code");
  }
  const method: AuthMethod = input.confidential ? (input.authMethod ?? "client_secret_basic") : "none";
  const clientId = randomToken("pcl_", 16);
  const clientSecret = input.confidential ? randomToken("pcs_") : undefined;
  const [row] = await db<{ issued_at: number }[]>`
    insert into oauth_clients (client_id, secret_hash, name, redirect_uris, grant_types, scopes,
                               token_endpoint_auth_method, client_uri, logo_uri, contacts, self_registered)
    values (${clientId}, ${clientSecret ? sha256Hex(clientSecret) : null}, ${name}, ${input.redirectUris},
            ${[...new Set(input.grantTypes)]}, ${[...new Set(input.scopes)]}, ${method},
            ${input.clientUri ?? null}, ${input.logoUri ?? null}, ${input.contacts ?? []},
            ${input.selfRegistered})
    returning extract(epoch from created_at)::int as issued_at`;
  return { clientId, clientSecret, issuedAt: row.issued_at };
}
