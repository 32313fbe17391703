// Dynamic client registration (RFC 7591): validate metadata with the shared schema (./client_metadata_schema.ts),
// drop operator-only scopes, create — or, for a public client registered again with identical metadata from the
// same source, answer the existing one.
import { z } from "zod";
import { sha256Hex } from "../crypto.ts";
import type { Sql } from "../db/client.ts";
import { withTx } from "../db/tx.ts";
import { AppError } from "../errors.ts";
import { type AuthMethod, createClient } from "./clients.ts";
import {
  APPLICATION_TYPE_DEFAULT,
  APPLICATION_TYPES,
  CLIENT_NAME_MAX,
  clientMetadataFields,
  firstIssue,
  isLate,
  orList,
  REDIRECT_URIS_MAX,
  type Rule,
  URI_MAX_LENGTH,
} from "./client_metadata_schema.ts";
import { GRANT_TYPES } from "./grants/names.ts";
import { OAuthError } from "./errors.ts";
import { isKnownScope, OPERATOR_ONLY_SCOPES } from "./scope_names.ts";
import { DEFAULT_REGISTERED_SCOPES, DEFAULT_SCOPES, splitScope } from "./scopes.ts";

// How registration words the shared rules: after the field's path (`redirect_uris.0 must be …`), zod's own words
// for a value of the wrong type. Rules of meaning carry their whole sentence (the schema's).
const WORDS: Partial<Record<Rule, string>> = {
  "client_name.empty": "must not be empty",
  "client_name.length": `must be at most ${CLIENT_NAME_MAX} characters`,
  "redirect_uris.empty": "must hold at least one URI",
  "redirect_uris.many": `must hold at most ${REDIRECT_URIS_MAX} URIs`,
  "redirect_uris.entry_length": `must be at most ${URI_MAX_LENGTH} characters`,
  "post_logout_redirect_uris.many": "must hold at most 20 URIs",
  "post_logout_redirect_uris.entry_length": `must be at most ${URI_MAX_LENGTH} characters`,
  "grant_types.empty": "must not be empty",
  "grant_types.unsupported": `must be ${orList(GRANT_TYPES)}`,
  "response_types.entry": "only code is supported",
  "scope.length": "is too long",
  "client_uri.absolute": "must be an http(s) URL",
  "client_uri.scheme": "must be an http(s) URL",
  "logo_uri.absolute": "must be an http(s) URL",
  "logo_uri.scheme": "must be an http(s) URL",
  "application_type": `must be ${orList(APPLICATION_TYPES)}`,
};

const AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"] as const satisfies AuthMethod[];

/** The shared schema, plus what only registration has: a choice of client authentication, and contacts. */
const Metadata = z.object({
  ...clientMetadataFields((rule) => WORDS[rule]),
  token_endpoint_auth_method: z.enum(AUTH_METHODS, { error: `must be ${orList(AUTH_METHODS)}` }).default(
    "none",
  ),
  contacts: z.array(z.string().max(320)).max(20).optional(),
});

/** The order fields are judged in: the first broken one is the one reported. */
const FIELD_ORDER = [
  "client_name",
  "redirect_uris",
  "post_logout_redirect_uris",
  "token_endpoint_auth_method",
  "grant_types",
  "response_types",
  "scope",
  "client_uri",
  "logo_uri",
  "contacts",
  "application_type",
];

export type RegistrationMetadata = z.infer<typeof Metadata>;

/**
 * The request body as metadata (defaults applied), or OAuthError naming the first problem: invalid_redirect_uri
 * for redirect_uris, invalid_client_metadata for anything else. Scopes are judged by registerClient.
 */
export function parseRegistrationMetadata(body: unknown): RegistrationMetadata {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new OAuthError("invalid_client_metadata", "the body must be a JSON object");
  }
  const parsed = Metadata.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error.issues, FIELD_ORDER, true);
  const field = issue.path.length ? String(issue.path[0]) : "body";
  const code = field === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata";
  throw new OAuthError(
    code,
    isLate(issue) ? issue.message : `${issue.path.join(".") || field} ${issue.message}`,
  );
}

/**
 * The scopes a self-registered client may ask for later, from its registration's `scope` (RFC 7591 §3.2.1 lets
 * the server change it): none sent → DEFAULT_REGISTERED_SCOPES; operator-only ones dropped without an error.
 */
function registeredScopes(scope: string | undefined): string[] {
  if (scope === undefined) return DEFAULT_REGISTERED_SCOPES;
  const asked = splitScope(scope).map((s) => s.toLowerCase().startsWith("agent.chat:") ? s.toLowerCase() : s);
  const scopes = asked.filter((s) => isKnownScope(s) && !OPERATOR_ONLY_SCOPES.has(s));
  const unknown = asked.find((s) => !isKnownScope(s));
  // Words none of which a self-registered client may have here are another server's vocabulary (Claude registers
  // `claudeai` everywhere): treated like `workspace` alone below. An unknown word beside scopes it may have is a
  // mistake worth reporting.
  if (unknown && scopes.length > 0) {
    throw new OAuthError("invalid_client_metadata", `scope: unknown scope ${unknown}`);
  }
  // MCP clients register with the scope of /mcp's challenge (`workspace` alone, SEP-835): they get the default
  // `openid profile` instead of an error, so the authorization request that follows either reaches consent
  // (the operator trusts the client) or shows the person the operator-approval page — not a failed connect.
  if (scopes.length === 0 && asked.length > 0) return [...DEFAULT_SCOPES];
  if (scopes.length === 0) {
    throw new OAuthError(
      "invalid_client_metadata",
      "scope: none of the scopes is available to self-registered clients",
    );
  }
  return scopes;
}

/**
 * How long an identical public registration from the same source is answered with the client registered first
 * (counted from that first registration), instead of piling up one client per retry (mcp-remote, for one).
 */
export const REGISTRATION_DEDUPE_SECONDS = 24 * 3600;

export interface RegistrationResult {
  [key: string]: unknown;
  client_id: string;
}

/**
 * Registers a client from an RFC 7591 request body; throws OAuthError with the field named. `source` is the
 * client IP: a public client registered again from it with the same metadata gets the existing registration.
 */
export async function registerClient(
  sql: Sql,
  body: unknown,
  options: { source: string },
): Promise<RegistrationResult> {
  const m = parseRegistrationMetadata(body);
  const scopes = registeredScopes(m.scope);
  const method = m.token_endpoint_auth_method as AuthMethod;
  const name = m.client_name ?? "Unnamed application";
  const grantTypes = [...new Set(m.grant_types)];
  const uniqueScopes = [...new Set(scopes)];
  const input = {
    name,
    redirectUris: m.redirect_uris,
    confidential: method !== "none",
    authMethod: method,
    scopes,
    grantTypes: m.grant_types,
    selfRegistered: true,
    clientUri: m.client_uri,
    logoUri: m.logo_uri,
    contacts: m.contacts,
    postLogoutRedirectUris: m.post_logout_redirect_uris,
  };
  let created: { clientId: string; clientSecret?: string; issuedAt: number };
  try {
    if (method === "none") {
      // Identical = the same metadata after validation and defaults, lists compared as sets.
      const sorted = (xs: readonly string[] | undefined) => [...new Set(xs ?? [])].sort();
      const fingerprint = sha256Hex(JSON.stringify([
        options.source,
        name,
        method,
        sorted(m.redirect_uris),
        sorted(grantTypes),
        sorted(uniqueScopes),
        m.client_uri ?? null,
        m.logo_uri ?? null,
        sorted(m.contacts),
        sorted(m.post_logout_redirect_uris),
      ]));
      created = await withTx(sql, async (tx) => {
        // Serialises identical registrations, so two at once still yield one client.
        await tx`select pg_advisory_xact_lock(hashtextextended(${"register:" + fingerprint}, 0))`;
        const [existing] = await tx<{ clientId: string; issuedAt: number }[]>`
          select c.client_id as "clientId", extract(epoch from c.created_at)::int as "issuedAt"
          from oauth_client_registrations r join oauth_clients c on c.client_id = r.client_id
          where r.fingerprint = ${fingerprint}
            and r.created_at > now() - make_interval(secs => ${REGISTRATION_DEDUPE_SECONDS})
          order by r.created_at desc
          limit 1`;
        if (existing) return { clientId: existing.clientId, issuedAt: existing.issuedAt };
        // Fingerprints past the window serve nothing; sweep them now and then.
        if (Math.random() < 0.02) {
          await tx`delete from oauth_client_registrations
                   where created_at < now() - make_interval(secs => ${REGISTRATION_DEDUPE_SECONDS})`;
        }
        const fresh = await createClient(tx, input);
        await tx`insert into oauth_client_registrations (fingerprint, client_id)
                 values (${fingerprint}, ${fresh.clientId})`;
        return fresh;
      });
    } else {
      // A confidential client's secret is shown once and stored hashed: it cannot be shown again, and issuing
      // a new one would break a first registrant that did get its answer. Each registration is a new client.
      created = await createClient(sql, input);
    }
  } catch (err) {
    if (err instanceof AppError) throw new OAuthError("invalid_client_metadata", err.message);
    throw err;
  }
  const out: RegistrationResult = {
    client_id: created.clientId,
    client_id_issued_at: created.issuedAt,
  };
  if (created.clientSecret) {
    out.client_secret = created.clientSecret;
    out.client_secret_expires_at = 0;
  }
  Object.assign(out, {
    client_name: name,
    redirect_uris: m.redirect_uris,
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    response_types: ["code"],
    scope: uniqueScopes.join(" "),
    application_type: m.application_type ?? APPLICATION_TYPE_DEFAULT,
  });
  if (m.client_uri) out.client_uri = m.client_uri;
  if (m.logo_uri) out.logo_uri = m.logo_uri;
  if (m.contacts) out.contacts = m.contacts;
  if (m.post_logout_redirect_uris) out.post_logout_redirect_uris = [...new Set(m.post_logout_redirect_uris)];
  return out;
}
