// Which IP addresses Portico may connect to on someone else's behalf: globally reachable unicast only (SSRF).
import { parseIPv4, parseIPv6 } from "./addresses.ts";

function inV4(ip: number, base: string, bits: number): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((parseIPv4(base)! & mask) >>> 0);
}

// Special-purpose IPv4 blocks that are not globally reachable (RFC 6890 and the IANA registry).
const V4_SPECIAL: [string, number, string][] = [
  ["0.0.0.0", 8, "a 'this network' address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a shared (carrier-grade NAT) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "an IETF protocol assignment"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a 6to4 relay address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

function v4Problem(ip: number, allowLoopback: boolean): string | null {
  if (allowLoopback && inV4(ip, "127.0.0.0", 8)) return null;
  return V4_SPECIAL.find(([base, bits]) => inV4(ip, base, bits))?.[2] ?? null;
}

/**
 * Why Portico must not connect to this IP address, or null when it may: special-use IPv4 blocks; for IPv6 only
 * global unicast (2000::/3) outside its special blocks, and IPv4-mapped or NAT64 addresses by the IPv4 they
 * embed. `allowLoopback` (a loopback issuer) exempts loopback addresses only.
 */
export function addressProblem(ip: string, allowLoopback = false): string | null {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return v4Problem(v4, allowLoopback);
  const g = parseIPv6(ip);
  if (g === null) return "not an IP address";
  const embedded = () => ((g[6] << 16) | g[7]) >>> 0;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "the unspecified address";
  if (zeros(7) && g[7] === 1) return allowLoopback ? null : "a loopback address";
  if (zeros(5) && g[5] === 0xffff) {
    const p = v4Problem(embedded(), allowLoopback);
    return p && `${p} (IPv4-mapped)`;
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const p = v4Problem(embedded(), allowLoopback);
    return p && `${p} (NAT64)`;
  }
  if (g[0] >>> 8 === 0xff) return "a multicast address";
  if ((g[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0] & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g[0] & 0xfe00) === 0xfc00) return "a unique local (private) address";
  if ((g[0] & 0xe000) !== 0x2000) return "a reserved IPv6 address";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "a documentation address";
  if (g[0] === 0x2001 && g[1] < 0x0200) return "an IETF protocol assignment (such as Teredo)";
  if (g[0] === 0x2002) return "a 6to4 address";
  if ((g[0] & 0xfff0) === 0x3ff0) return "a documentation address";
  return null;
}
