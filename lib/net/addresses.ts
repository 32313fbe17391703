// IP address text: the one IPv4 and IPv6 parser, and the keys a limit counts an address (or its network) under.

/** A dotted quad as a 32-bit number, or null. */
export function parseIPv4(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

/** Eight 16-bit groups, or null; accepts brackets and a trailing dotted quad, refuses zone ids. */
export function parseIPv6(input: string): number[] | null {
  let s = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(":")) return null;
  if (s.includes(".")) {
    const last = s.lastIndexOf(":");
    const v4 = parseIPv4(s.slice(last + 1));
    if (v4 === null) return null;
    s = `${s.slice(0, last + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => h === "" ? [] : h.split(":");
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if ([...head, ...tail].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail].map((g) =>
    parseInt(g, 16)
  );
}

/**
 * The address a limit counts: IPv4 as it is, IPv6 by its /64 (one subscriber's prefix; counting single IPv6
 * addresses would let one host take 2^64 buckets). IPv4-mapped IPv6 written `::ffff:a.b.c.d` counts as IPv4.
 * Brackets, a zone id and a bracketed address's port are ignored; other text that is not an address stays as it
 * is (lowercased when it has a colon).
 */
export function addressKey(ip: string): string {
  if (!ip.includes(":")) return ip;
  // Brackets, a zone id and a port after the bracket (`[::1]:8080`) are not part of the address.
  const bare = ip.replace(/^\[|\]$/g, "").split("%")[0].split("]")[0].toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1];
  const groups = parseIPv6(bare);
  if (groups === null) return bare;
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/**
 * The client network of an address: IPv4 by its /24, IPv6 by its /64 (as `addressKey`). Wider than one address,
 * so that a limit per network is not escaped by hopping between neighbouring addresses, and narrow enough that
 * another network's traffic never counts against it. Anything that is not an address stays as it is.
 */
export function networkKey(ip: string): string {
  const key = addressKey(ip);
  const v4 = parseIPv4(key);
  if (v4 === null) return key;
  return `${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.0/24`;
}
