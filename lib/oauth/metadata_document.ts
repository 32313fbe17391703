// A fetched Client ID Metadata Document judged by the shared client-metadata schema, plus the draft's rules for
// documents: client_id equal to the URL, public clients only (no secret, no keys), an https logo, a name that
// cannot pose as another on the consent page.
import { z } from "zod";
import { reachesLoopback } from "../net/loopback.ts";
import { printable as clean } from "../net/refusal.ts";
import {
  APPLICATION_TYPES,
  CLIENT_NAME_MAX,
  clientMetadataFields,
  firstIssue,
  httpUrl,
  REDIRECT_URIS_MAX,
  type Rule,
  SCOPE_MAX_LENGTH,
  URI_MAX_LENGTH,
} from "./client_metadata_schema.ts";
import { GRANT_TYPES, isGrantType, REQUIRED_GRANT } from "./grants/names.ts";

export interface MetadataDocument {
  /** the URL, equal to the document's client_id */
  clientId: string;
  /** client_name, or the host when the document has none */
  name: string;
  /** each one accepted by redirectUriProblem() */
  redirectUris: string[];
  /** default [REQUIRED_GRANT]; only grant types of the registry (./grants/names.ts) */
  grantTypes: string[];
  /** RP-Initiated Logout: each accepted by postLogoutUriProblem(); absent when the document lists none */
  postLogoutRedirectUris?: string[];
  /** from `scope` (space separated) when present, else null */
  scopes: string[] | null;
  clientUri: string | null;
  logoUri: string | null;
  /** the URL's host (with a non-default port), shown on the consent page */
  host: string;
  /** every redirect URI is loopback http: anyone on the person's machine could receive the code (MCP spec
   * "Localhost Redirect URI Risks"), so the consent page should say so */
  loopbackRedirectsOnly: boolean;
}

/** Why a document cannot be used; the message is for the person and the client's developer. */
export class DocumentRefusal extends Error {}

const URL_WORDS = (field: string, scheme: string) => ({
  [field]: `${field} must be a URL of at most ${URI_MAX_LENGTH} characters`,
  [`${field}.length`]: `${field} must be a URL of at most ${URI_MAX_LENGTH} characters`,
  [`${field}.absolute`]: `${field} is not an absolute URL`,
  [`${field}.scheme`]: `${field} must be ${scheme} URL`,
});

// A document's messages are whole sentences, each naming its field (one sentence for a rule's type and limits).
const SENTENCES: Partial<Record<Rule, string>> = {
  "redirect_uris": "redirect_uris must list at least one URI",
  "redirect_uris.empty": "redirect_uris must list at least one URI",
  "redirect_uris.many": `redirect_uris must list at most ${REDIRECT_URIS_MAX} URIs`,
  "redirect_uris.entry": `redirect_uris entries must be strings of at most ${URI_MAX_LENGTH} characters`,
  "redirect_uris.entry_length":
    `redirect_uris entries must be strings of at most ${URI_MAX_LENGTH} characters`,
  "post_logout_redirect_uris": "post_logout_redirect_uris must be an array of URIs",
  "post_logout_redirect_uris.many": "post_logout_redirect_uris must list at most 20 URIs",
  "post_logout_redirect_uris.entry":
    `post_logout_redirect_uris entries must be strings of at most ${URI_MAX_LENGTH} characters`,
  "post_logout_redirect_uris.entry_length":
    `post_logout_redirect_uris entries must be strings of at most ${URI_MAX_LENGTH} characters`,
  "grant_types": "grant_types must be a non-empty array",
  "grant_types.empty": "grant_types must be a non-empty array",
  "response_types": "response_types may only contain code",
  "response_types.entry": "response_types may only contain code",
  "scope": `scope must be a space-separated string of at most ${SCOPE_MAX_LENGTH} characters`,
  "scope.length": `scope must be a space-separated string of at most ${SCOPE_MAX_LENGTH} characters`,
  "application_type": `application_type must be ${APPLICATION_TYPES.join(" or ")}`,
  ...URL_WORDS("client_uri", "an http(s)"),
  ...URL_WORDS("logo_uri", "an https"),
};

function wording(rule: Rule, value: unknown, why?: string): string | undefined {
  if (rule === "redirect_uris.entry_refused") return `redirect_uris: ${clean(String(value), 200)} ${why}`;
  if (rule === "post_logout_redirect_uris.entry_refused") {
    return `post_logout_redirect_uris: ${clean(String(value), 200)} ${why}`;
  }
  if (rule === "grant_types.unsupported") {
    const name = typeof value === "string" ? clean(value, 80) : "of a wrong type";
    return `grant type ${name} is not supported (${GRANT_TYPES.join(", ")})`;
  }
  return SENTENCES[rule];
}

// Control characters and bidirectional overrides could make a name look like something else on consent.
// deno-lint-ignore no-control-regex -- matching control characters is the point
const SPOOFING_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const NAME_RULE = `client_name must be 1-${CLIENT_NAME_MAX} characters`;

function mustNotContain(field: string, why: string) {
  return z.undefined({ error: `the document must not contain ${field}${why}` }).optional();
}

const SHARED = clientMetadataFields(wording);

/**
 * A document is written once for every server, so a grant type Portico lacks beside authorization_code is
 * dropped, not refused (VS Code's lists the device-code grant, RFC 8628). Without authorization_code the shared
 * rule still names the first unsupported one.
 */
function withoutForeignGrants(value: unknown): unknown {
  if (!Array.isArray(value) || !value.includes(REQUIRED_GRANT)) return value;
  return value.filter((g) => typeof g !== "string" || isGrantType(g));
}

/**
 * The shared schema, with what only documents have: public clients only, a stricter name and logo, and grant
 * types of other servers ignored.
 */
const Document = z.object({
  ...SHARED,
  grant_types: z.preprocess(withoutForeignGrants, SHARED.grant_types),
  token_endpoint_auth_method: z.literal("none", {
    error: (issue) => {
      const m = typeof issue.input === "string" ? clean(issue.input, 60) : "of a wrong type";
      return `token_endpoint_auth_method ${m} is not allowed: Portico accepts only public clients (none) from ` +
        "client metadata documents";
    },
  }).optional(),
  client_secret: mustNotContain("client_secret", " (a shared secret cannot be published)"),
  client_secret_expires_at: mustNotContain(
    "client_secret_expires_at",
    " (a shared secret cannot be published)",
  ),
  jwks: mustNotContain("jwks", ": Portico does not support private_key_jwt, only public clients"),
  jwks_uri: mustNotContain("jwks_uri", ": Portico does not support private_key_jwt, only public clients"),
  // The 200 counts the name as written, and the characters are judged before trimming: consent shows it.
  client_name: z.string({ error: NAME_RULE }).max(CLIENT_NAME_MAX, NAME_RULE)
    .refine((s) => s.trim().length > 0, NAME_RULE)
    .refine(
      (s) => !SPOOFING_CHARACTERS.test(s),
      "client_name must not contain control or text-direction characters",
    )
    .optional(),
  logo_uri: httpUrl(wording, "logo_uri", true).optional(),
});

/** The order a document's fields are judged in: the first broken one is the one reported. */
const FIELD_ORDER = [
  "token_endpoint_auth_method",
  "client_secret",
  "client_secret_expires_at",
  "jwks",
  "jwks_uri",
  "redirect_uris",
  "post_logout_redirect_uris",
  "grant_types",
  "response_types",
  "scope",
  "client_name",
  "client_uri",
  "logo_uri",
  "application_type",
];

/** Validates a fetched document the way registration validates a request, plus the draft's public-client rules. */
export function validateMetadataDocument(clientId: string, json: unknown): MetadataDocument {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new DocumentRefusal("the document must be a JSON object");
  }
  const claimed = (json as Record<string, unknown>).client_id;
  if (claimed !== clientId) {
    if (typeof claimed !== "string") throw new DocumentRefusal("the document has no client_id");
    throw new DocumentRefusal(`the document's client_id (${clean(claimed, 120)}) is not exactly its URL`);
  }
  const parsed = Document.safeParse(json);
  if (!parsed.success) throw new DocumentRefusal(firstIssue(parsed.error.issues, FIELD_ORDER, false).message);
  const d = parsed.data;
  const redirectUris = [...new Set(d.redirect_uris)];
  const host = new URL(clientId).host;
  const loopbackRedirectsOnly = redirectUris.every((uri) => {
    const u = new URL(uri);
    return u.protocol === "http:" && reachesLoopback(u.hostname);
  });
  const scopes = d.scope === undefined ? null : [...new Set(d.scope.split(" ").filter((s) => s.length > 0))];
  return Object.freeze({
    clientId,
    name: d.client_name?.trim() ?? host,
    redirectUris: Object.freeze(redirectUris) as string[],
    ...(d.post_logout_redirect_uris?.length
      ? { postLogoutRedirectUris: Object.freeze([...new Set(d.post_logout_redirect_uris)]) as string[] }
      : {}),
    grantTypes: Object.freeze([...new Set(d.grant_types)]) as string[],
    scopes: scopes && Object.freeze(scopes) as string[],
    clientUri: d.client_uri ?? null,
    logoUri: d.logo_uri ?? null,
    host,
    loopbackRedirectsOnly,
  });
}

/** The body as a document: UTF-8 JSON, then validateMetadataDocument(). */
export function parseMetadataDocument(clientId: string, body: Uint8Array): MetadataDocument {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new DocumentRefusal("the document is not valid JSON");
  }
  return validateMetadataDocument(clientId, json);
}
