// Discovery metadata (RFC 8414 and OpenID Connect Discovery; RFC 9728 for /mcp), built once from the issuer.
import { LOCALES } from "../i18n/locale.ts";
import { ACR_VALUES_SUPPORTED } from "../security/amr.ts";
import { GRANT_TYPES } from "./grants/names.ts";
import { SCOPES_SUPPORTED } from "./scopes.ts";

/** The tool server's resource identifier: the `aud` of tokens it accepts (RFC 8707 / RFC 9728). */
export function mcpResourceUrl(issuer: string): string {
  return `${issuer}/mcp`;
}

/** Where the tool server's protected resource metadata lives (RFC 9728 §3.1: well-known + resource path). */
export function protectedResourceMetadataUrl(issuer: string): string {
  const u = new URL(issuer);
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname.replace(/\/+$/, "")}/mcp`;
}

/**
 * RFC 9728 metadata of /mcp: which authorization server issues its tokens and which scope it needs. Served only
 * at protectedResourceMetadataUrl: §3.3 binds a document to the resource of its URL, so the root well-known URL
 * (the origin's) has no document here (README "Decisions where the spec was silent").
 */
export function protectedResourceMetadata(issuer: string): Record<string, unknown> {
  return {
    resource: mcpResourceUrl(issuer),
    authorization_servers: [issuer],
    scopes_supported: ["workspace"],
    bearer_methods_supported: ["header"],
    resource_name: "Portico workspace tools",
  };
}

export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/oauth/jwks`,
    // OpenID Connect RP-Initiated Logout 1.0 (routes/logout.ts).
    end_session_endpoint: `${issuer}/oauth/logout`,
    scopes_supported: SCOPES_SUPPORTED,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    // RFC 7662 wants the caller authorized: only confidential clients (and resource servers) introspect.
    introspection_endpoint: `${issuer}/oauth/introspect`,
    introspection_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
    id_token_signing_alg_values_supported: ["RS256"],
    subject_types_supported: ["public"],
    // lib/security/amr.ts: one factor, or two (a password and a code or passkey, or a user-verified passkey).
    acr_values_supported: [...ACR_VALUES_SUPPORTED],
    ui_locales_supported: [...LOCALES],
    claims_supported: [
      "sub",
      "iss",
      "aud",
      "exp",
      "iat",
      "auth_time",
      "acr",
      "amr",
      "nonce",
      "at_hash",
      "azp",
      "email",
      "email_verified",
      "name",
      "picture",
      "plan",
      "credits",
      "unlocked_agents",
      "agent_subscriptions",
    ],
    prompt_values_supported: ["none", "login", "consent", "select_account"],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    resource_indicators_supported: true,
    // MCP 2025-11-25: an https URL may be used as client_id (Client ID Metadata Documents).
    client_id_metadata_document_supported: true,
  };
}
