// RFC 8707 resource indicators: which `resource` values are acceptable as an access token audience.
import { OAuthError } from "./errors.ts";

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * A resource must be an absolute https URI (or http on a loopback host or on the issuer's own origin) without a
 * fragment; anything else, or more than one value, is invalid_target.
 */
export function parseResource(values: string[], issuer: string): string | undefined {
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new OAuthError("invalid_target", "only one resource may be requested");
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
    (u.protocol === "http:" && (LOOPBACK.has(u.hostname) || u.origin === new URL(issuer).origin));
  if (!ok) throw new OAuthError("invalid_target", "resource must be an https URI (or loopback http)");
  return value;
}
