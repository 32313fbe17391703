// The grant types Portico serves: the one list every other list of grant types reads (metadata, registration,
// metadata documents, the admin CLI, the token endpoint's registry in ./mod.ts).

export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;
export type GrantType = typeof GRANT_TYPES[number];

/** The grant every client must hold: the one that starts with a person's consent. */
export const REQUIRED_GRANT: GrantType = "authorization_code";

/** Whether `value` names a grant type Portico serves. */
export function isGrantType(value: unknown): value is GrantType {
  return typeof value === "string" && (GRANT_TYPES as readonly string[]).includes(value);
}
