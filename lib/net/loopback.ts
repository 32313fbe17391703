// What "loopback" means, defined once. Two meanings, each named for its use: the RFC 8252 host names that URLs,
// Origins and Host headers may carry (exact), and everything that reaches this machine without DNS (the fetch
// guard: any 127/8 address, ::1 in any spelling, localhost and its subdomains).
import { parseIPv4, parseIPv6 } from "./addresses.ts";

/**
 * The loopback host names of RFC 8252 §7.3 as a URL parser writes `URL.hostname`: a redirect URI on one of them
 * may change its port, plain http is allowed on them, and a loopback issuer serves only them.
 */
export const LOOPBACK_HOSTNAMES: readonly string[] = Object.freeze(["localhost", "127.0.0.1", "[::1]"]);

/** The addresses a loopback name stands for, connected to without asking DNS (RFC 6761 §6.3). */
export const LOOPBACK_ADDRESSES: readonly string[] = Object.freeze(["127.0.0.1", "::1"]);

const EXACT = new Set(LOOPBACK_HOSTNAMES);
const NAMES = LOOPBACK_HOSTNAMES.map((h) => h.replace(/[.[\]]/g, "\\$&")).join("|");
const HTTP_URI = new RegExp(`^http://(${NAMES})[:/]`);
const HTTP_PREFIX = new RegExp(`^http://(${NAMES})(:\\d+)?/`);

/** Whether `hostname` (as `URL.hostname` writes it) is exactly one of LOOPBACK_HOSTNAMES. */
export function isLoopbackHostname(hostname: string): boolean {
  return EXACT.has(hostname);
}

/**
 * Whether the text, as written (not parsed, so not normalised), starts `http://` + a loopback name + `:` or `/`:
 * a redirect URI that can only reach the person's own machine.
 */
export function isLoopbackHttpUri(text: string): boolean {
  return HTTP_URI.test(text);
}

/** Whether the text starts with a loopback http origin and a slash (`http://localhost:8000/`): a URL prefix. */
export function isLoopbackHttpPrefix(text: string): boolean {
  return HTTP_PREFIX.test(text);
}

/**
 * Whether a listen address (HOST) keeps the server on this machine: any `127.` address, `localhost`, or `::1`
 * with or without brackets — as written, so `LOCALHOST` or `0:0:0:0:0:0:0:1` count as beyond loopback.
 */
export function isLoopbackListenHost(host: string): boolean {
  return host.startsWith("127.") || host === "::1" || isLoopbackHostname(host);
}

/**
 * Whether a host name or address reaches this machine without asking DNS (RFC 6761 §6.3): `localhost` and its
 * subdomains, any 127/8 address, and ::1 in any spelling, case-insensitive. The outbound fetch guard's meaning.
 */
export function reachesLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const v4 = parseIPv4(h);
  if (v4 !== null) return v4 >>> 24 === 127;
  const v6 = parseIPv6(h);
  return v6 !== null && v6.every((g, i) => g === (i === 7 ? 1 : 0));
}
