// The client's address as the limits count it: the peer, or the nearest untrusted hop of X-Forwarded-For behind
// TRUSTED_PROXIES (`clientIp`); the key one address is counted under (`addressKey`); its network (`networkKey`).
import type { Context } from "hono";
import type { AppEnv } from "./types.ts";

export function clientIp(c: Context<AppEnv>, trustedProxies: readonly string[]): string {
  const peer = c.env?.remoteAddr?.hostname ?? "unknown";
  if (!trustedProxies.includes(peer)) return peer;
  const forwarded = c.req.header("x-forwarded-for");
  if (!forwarded) return peer;
  const hops = forwarded.split(",").map((h) => h.trim()).filter(Boolean);
  // Walk from the nearest hop outwards; the first address that is not one of our proxies is the client.
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trustedProxies.includes(hops[i])) return hops[i];
  }
  return hops[0] ?? peer;
}

/**
 * The address a limit counts: IPv4 as it is, IPv6 by its /64 (one subscriber's prefix; counting single IPv6
 * addresses would let one host take 2^64 buckets). IPv4-mapped IPv6 counts as IPv4.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(":")) return ip;
  const bare = ip.replace(/^\[|\]$/g, "").split("%")[0].toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1];
  const [head, tail] = bare.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  // An embedded IPv4 tail ("…:1.2.3.4") is two groups; it lies in the host half, which is dropped anyway.
  const groups = tail === undefined
    ? left
    : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  if (groups.length < 4 || groups.slice(0, 4).some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return bare;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

/**
 * The client network of an address: IPv4 by its /24, IPv6 by its /64 (as `addressKey`). Wider than one address,
 * so that a limit per network is not escaped by hopping between neighbouring addresses, and narrow enough that
 * another network's traffic never counts against it. Anything that is not an address stays as it is.
 */
export function networkKey(ip: string): string {
  const key = addressKey(ip);
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(key);
  if (!v4 || v4.slice(1).some((o) => Number(o) > 255)) return key;
  return `${Number(v4[1])}.${Number(v4[2])}.${Number(v4[3])}.0/24`;
}
