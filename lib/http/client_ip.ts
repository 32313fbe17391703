// The client's address as the limits count it: the peer, or the nearest untrusted hop of X-Forwarded-For behind
// TRUSTED_PROXIES (`clientIp`); the key one address is counted under (`addressKey`) and its network (`networkKey`)
// come from lib/net/addresses.ts and are offered here too, next to the address they key.
import type { Context } from "hono";
import type { AppEnv } from "./types.ts";

export { addressKey, networkKey } from "../net/addresses.ts";

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
