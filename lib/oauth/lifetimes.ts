// How long signed tokens live: stated once, read by the token signer and by key rotation (how long a retired
// key stays published).

/** Access tokens (RFC 9068 JWTs): 1 h. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** ID tokens: 1 h. */
export const ID_TOKEN_TTL_SECONDS = 3600;
/** Longest lifetime of anything signed: a retired signing key must verify tokens this old. */
export const SIGNED_TOKEN_TTL_SECONDS = Math.max(ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS);
