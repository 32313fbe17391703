// The client network the sign-in brake counts per account: IPv4 by its /24, IPv6 by its /64.
import assert from "node:assert/strict";
import { networkKey } from "../../lib/http/client_ip.ts";

Deno.test("networkKey: IPv4 by its /24, IPv6 by its /64, IPv4-mapped IPv6 as IPv4, anything else as it is", () => {
  assert.equal(networkKey("198.51.100.66"), "198.51.100.0/24");
  assert.equal(networkKey("198.51.100.255"), "198.51.100.0/24");
  assert.equal(networkKey("198.51.101.1"), "198.51.101.0/24");
  assert.equal(networkKey("010.001.002.003"), "10.1.2.0/24");
  assert.equal(networkKey("::ffff:192.0.2.9"), "192.0.2.0/24");
  assert.equal(networkKey("2001:db8:aa:1::1"), "2001:db8:aa:1::/64");
  assert.equal(networkKey("2001:db8:aa:1:ffff::beef"), "2001:db8:aa:1::/64");
  assert.equal(networkKey("[2001:db8:aa:2::1]"), "2001:db8:aa:2::/64");
  assert.equal(networkKey("unknown"), "unknown");
  assert.equal(networkKey("300.1.2.3"), "300.1.2.3");
});
