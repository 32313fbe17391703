// The one IPv4/IPv6 parser and the keys limits count addresses under (lib/net/addresses.ts).
import assert from "node:assert/strict";
import { addressKey, networkKey, parseIPv4, parseIPv6 } from "../../lib/net/addresses.ts";

Deno.test("parseIPv4: dotted quads of 0-255 only", () => {
  assert.equal(parseIPv4("127.0.0.1"), 0x7f000001);
  assert.equal(parseIPv4("255.255.255.255"), 0xffffffff);
  assert.equal(parseIPv4("010.001.002.003"), 0x0a010203);
  for (const s of ["256.0.0.1", "1.2.3", "1.2.3.4.5", "1.2.3.4 ", "a.b.c.d", "", "1234.1.1.1"]) {
    assert.equal(parseIPv4(s), null, s);
  }
});

Deno.test("parseIPv6: eight groups, :: once, brackets and a dotted tail; no zone ids", () => {
  assert.deepEqual(parseIPv6("::1"), [0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual(parseIPv6("[::1]"), [0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual(parseIPv6("2001:DB8::8:800:200C:417A"), [0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
  assert.deepEqual(parseIPv6("::ffff:192.0.2.9"), [0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0209]);
  assert.deepEqual(parseIPv6("1:2:3:4:5:6:7:8"), [1, 2, 3, 4, 5, 6, 7, 8]);
  for (
    const s of [
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "fe80::1%eth0",
      "12345::",
      "::1.2.3",
      "[::1",
      "1.2.3.4",
    ]
  ) {
    assert.equal(parseIPv6(s), null, s);
  }
  assert.deepEqual(parseIPv6("1:2:3:4:5:6:7::"), [1, 2, 3, 4, 5, 6, 7, 0]);
});

Deno.test("addressKey: IPv4 as it is, IPv6 by its /64, ::ffff:a.b.c.d as IPv4, anything else as it is", () => {
  assert.equal(addressKey("198.51.100.7"), "198.51.100.7");
  assert.equal(addressKey("unknown"), "unknown");
  assert.equal(addressKey("2001:db8:aa:1::1"), "2001:db8:aa:1::/64");
  assert.equal(addressKey("2001:0DB8:00aa:0001:ffff::beef"), "2001:db8:aa:1::/64");
  assert.equal(addressKey("[2001:DB8::1]"), "2001:db8:0:0::/64");
  assert.equal(addressKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(addressKey("[fe80::1%eth0]"), "fe80:0:0:0::/64");
  assert.equal(addressKey("[2001:db8:aa:1::1]:443"), "2001:db8:aa:1::/64");
  // A dotted tail is two groups: here it shifts 8:0 into the network half.
  assert.equal(addressKey("::8:0:0:0:1.2.3.4"), "0:0:8:0::/64");
  assert.equal(addressKey("::ffff:192.0.2.9"), "192.0.2.9");
  assert.equal(addressKey("::1"), "0:0:0:0::/64");
  assert.equal(addressKey("::1.2.3.4"), "0:0:0:0::/64");
  assert.equal(addressKey("Not:An:Address"), "not:an:address");
});

Deno.test("networkKey: IPv4 by its /24, IPv6 by its /64", () => {
  assert.equal(networkKey("198.51.100.66"), "198.51.100.0/24");
  assert.equal(networkKey("010.001.002.003"), "10.1.2.0/24");
  assert.equal(networkKey("::ffff:192.0.2.9"), "192.0.2.0/24");
  assert.equal(networkKey("2001:db8:aa:1::1"), "2001:db8:aa:1::/64");
  assert.equal(networkKey("300.1.2.3"), "300.1.2.3");
});
