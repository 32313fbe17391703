// The one schema of client metadata (RFC 7591 §2), read by dynamic registration (./registration.ts) and by client
// ID metadata documents (./metadata_document.ts): the shared fields, their limits, the grant types of the grant
// registry. Each surface words the failures its own way (a Wording) and adds or tightens its own fields.
import { z } from "zod";
import { POST_LOGOUT_URIS_MAX, postLogoutUriProblem, redirectUriProblem } from "./clients.ts";
import { GRANT_TYPES, REQUIRED_GRANT } from "./grants/names.ts";

/** The longest URL in client metadata: client_id, each redirect URI, client_uri, logo_uri. */
export const URI_MAX_LENGTH = 2000;
export const REDIRECT_URIS_MAX = 20;
export const CLIENT_NAME_MAX = 200;
export const SCOPE_MAX_LENGTH = 2000;
/**
 * OpenID Connect Registration §2 `application_type` (the MCP revision of 2026-07-28 asks clients to send it);
 * absent means `web`. Accepted, validated and answered; it changes no rule (docs/oauth.md "application_type").
 */
export const APPLICATION_TYPES = ["web", "native"] as const;
export const APPLICATION_TYPE_DEFAULT = "web";

type UrlField = "client_uri" | "logo_uri";

/** Every failure a surface words: `<field>` is a value of the wrong type, `<field>.<check>` a failed check. */
export type Rule =
  | "client_name"
  | "client_name.empty"
  | "client_name.length"
  | "redirect_uris"
  | "redirect_uris.empty"
  | "redirect_uris.many"
  | "redirect_uris.entry"
  | "redirect_uris.entry_length"
  | "redirect_uris.entry_refused"
  | "post_logout_redirect_uris"
  | "post_logout_redirect_uris.many"
  | "post_logout_redirect_uris.entry"
  | "post_logout_redirect_uris.entry_length"
  | "post_logout_redirect_uris.entry_refused"
  | "grant_types"
  | "grant_types.empty"
  | "grant_types.unsupported"
  | "grant_types.required"
  | "response_types"
  | "response_types.entry"
  | "scope"
  | "scope.length"
  | "application_type"
  | UrlField
  | `${UrlField}.${"length" | "absolute" | "scheme"}`;

/**
 * A surface's message for a failed rule, given the offending value (and for a refused redirect URI, why). Undefined
 * keeps zod's own message (registration answers zod's words for wrong types, as it always has).
 */
export type Wording = (rule: Rule, value: unknown, why?: string) => string | undefined;

/** The rules of meaning: checked with the shapes, but registration reports them only when every shape is right. */
const LATE = { late: true } as const;

/** Whether an issue is a rule of meaning (a refused redirect URI, the required grant missing). */
export function isLate(issue: z.core.$ZodIssue): boolean {
  return issue.code === "custom" && issue.params?.late === true;
}

/** zod's error option for a rule, worded by the surface. */
function say(w: Wording, rule: Rule): { error: (issue: { input?: unknown }) => string | undefined } {
  return { error: (issue) => w(rule, issue.input) };
}

/** `a`, `a or b`, `a, b or c`: a closed list in a sentence. */
export function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** An absolute http(s) URL (https only when `httpsOnly`) of at most URI_MAX_LENGTH characters. */
export function httpUrl(w: Wording, field: UrlField, httpsOnly = false) {
  return z.string(say(w, field)).max(URI_MAX_LENGTH, say(w, `${field}.length`)).superRefine((value, ctx) => {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", input: value, message: w(`${field}.absolute`, value) });
      return;
    }
    if (u.protocol !== "https:" && (httpsOnly || u.protocol !== "http:")) {
      ctx.addIssue({ code: "custom", input: value, message: w(`${field}.scheme`, value) });
    }
  });
}

/**
 * The fields both surfaces read, with the rules they share: a name of 1–200 characters (trimmed), 1–20 redirect
 * URIs each accepted by redirectUriProblem(), at most 20 post-logout redirect URIs each accepted by
 * postLogoutUriProblem(), grant types of the registry including the required one (default:
 * that one alone), response type `code` only, a scope string, http(s) client_uri and logo_uri, and an
 * application_type of APPLICATION_TYPES.
 */
export function clientMetadataFields(w: Wording) {
  const redirectUri = z.string(say(w, "redirect_uris.entry"))
    .max(URI_MAX_LENGTH, say(w, "redirect_uris.entry_length"))
    .superRefine((uri, ctx) => {
      const why = redirectUriProblem(uri);
      if (why) {
        ctx.addIssue({
          code: "custom",
          input: uri,
          params: LATE,
          message: w("redirect_uris.entry_refused", uri, why) ?? `redirect_uris: ${uri} ${why}`,
        });
      }
    });
  const postLogoutUri = z.string(say(w, "post_logout_redirect_uris.entry"))
    .max(URI_MAX_LENGTH, say(w, "post_logout_redirect_uris.entry_length"))
    .superRefine((uri, ctx) => {
      const why = postLogoutUriProblem(uri);
      if (why) {
        ctx.addIssue({
          code: "custom",
          input: uri,
          params: LATE,
          message: w("post_logout_redirect_uris.entry_refused", uri, why) ??
            `post_logout_redirect_uris: ${uri} ${why}`,
        });
      }
    });
  return {
    client_name: z.string(say(w, "client_name")).trim()
      .min(1, say(w, "client_name.empty"))
      .max(CLIENT_NAME_MAX, say(w, "client_name.length"))
      .optional(),
    redirect_uris: z.array(redirectUri, say(w, "redirect_uris"))
      .min(1, say(w, "redirect_uris.empty"))
      .max(REDIRECT_URIS_MAX, say(w, "redirect_uris.many")),
    // RP-Initiated Logout 1.0 §3.1: where the browser may be sent after signing out (optional).
    post_logout_redirect_uris: z.array(postLogoutUri, say(w, "post_logout_redirect_uris"))
      .max(POST_LOGOUT_URIS_MAX, say(w, "post_logout_redirect_uris.many"))
      .optional(),
    grant_types: z.array(z.enum(GRANT_TYPES, say(w, "grant_types.unsupported")), say(w, "grant_types"))
      .min(1, say(w, "grant_types.empty"))
      .superRefine((grants, ctx) => {
        if (!grants.includes(REQUIRED_GRANT)) {
          ctx.addIssue({
            code: "custom",
            input: grants,
            params: LATE,
            message: w("grant_types.required", grants) ?? `grant_types must include ${REQUIRED_GRANT}`,
          });
        }
      })
      .default([REQUIRED_GRANT]),
    response_types: z.array(z.literal("code", say(w, "response_types.entry")), say(w, "response_types"))
      .optional(),
    scope: z.string(say(w, "scope")).max(SCOPE_MAX_LENGTH, say(w, "scope.length")).optional(),
    client_uri: httpUrl(w, "client_uri").optional(),
    logo_uri: httpUrl(w, "logo_uri").optional(),
    // Not a constraint on redirect URIs: VS Code says native and registers https, Cursor says nothing (web) and
    // registers cursor:, so OIDC's per-type redirect rules would refuse both (docs/oauth.md "application_type").
    application_type: z.enum(APPLICATION_TYPES, say(w, "application_type")).optional(),
  };
}

/**
 * The one issue a surface reports: the first in the surface's field order (zod's order within a field); with
 * `lateLast`, a rule of meaning only when no field has a wrong shape.
 */
export function firstIssue(
  issues: readonly z.core.$ZodIssue[],
  order: readonly string[],
  lateLast: boolean,
): z.core.$ZodIssue {
  const rank = (i: z.core.$ZodIssue) => {
    const at = order.indexOf(String(i.path[0]));
    return (lateLast && isLate(i) ? order.length + 1 : 0) * (order.length + 1) + (at < 0 ? order.length : at);
  };
  return [...issues].sort((a, b) => rank(a) - rank(b))[0];
}
