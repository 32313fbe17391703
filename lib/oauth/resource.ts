// RFC 8707 resource indicators: which `resource` values are acceptable as an access token audience.
import { isLoopbackHostname } from "../net/loopback.ts";
import { OAuthError } from "./errors.ts";

/**
 * Several `resource` values (RFC 8707 §2 allows them) are refused: an access token here has exactly one
 * audience (docs/oauth.md, "Audience decision"). One error for the authorization and the token endpoint.
 */
export function severalResources(): OAuthError {
  return new OAuthError(
    "invalid_target",
    "several resource values are not supported: Portico issues tokens for one resource (audience) each; " +
      "request one resource, and authorize again for another",
  );
}

/**
 * A resource must be an absolute https URI (or http on a loopback host or on the issuer's own origin) without a
 * fragment; anything else, or more than one value, is invalid_target.
 */
export function parseResource(values: string[], issuer: string): string | undefined {
  if (values.length === 0) return undefined;
  if (values.length > 1) throw severalResources();
  const value = values[0];
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new OAuthError("invalid_target", "resource must be an absolute URI");
  }
  if (value.includes("#")) throw new OAuthError("invalid_target", "resource must not contain a fragment");
  if (value.length > 2000) throw new OAuthError("invalid_target", "resource is too long");
  const ok = u.protocol === "https:" ||
    (u.protocol === "http:" && (isLoopbackHostname(u.hostname) || u.origin === new URL(issuer).origin));
  if (!ok) throw new OAuthError("invalid_target", "resource must be an https URI (or loopback http)");
  return value;
}
