// Which addresses Portico may connect to on someone else's behalf (moved here with lib/net/public_address.ts).
import assert from "node:assert/strict";
import { addressProblem } from "../../lib/net/public_address.ts";

Deno.test("address policy: special-use IPv4/IPv6 refused, mapped and NAT64 judged by the embedded IPv4", () => {
  for (
    const ip of [
      "8.8.8.8",
      "1.1.1.1",
      "93.184.215.14",
      "2606:4700::6810:84e5",
      "::ffff:8.8.8.8",
      "64:ff9b::808:808",
    ]
  ) {
    assert.equal(addressProblem(ip), null, ip);
  }
  const refusedAddresses: [string, string][] = [
    ["0.0.0.0", "a 'this network' address"],
    ["10.0.0.1", "a private address"],
    ["172.16.5.4", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["100.64.0.1", "a shared (carrier-grade NAT) address"],
    ["127.0.0.1", "a loopback address"],
    ["127.255.0.9", "a loopback address"],
    ["169.254.169.254", "a link-local address"],
    ["192.0.0.170", "an IETF protocol assignment"],
    ["192.0.2.1", "a documentation address"],
    ["198.18.0.1", "a benchmarking address"],
    ["224.0.0.251", "a multicast address"],
    ["255.255.255.255", "a reserved address"],
    ["::", "the unspecified address"],
    ["::1", "a loopback address"],
    ["::ffff:127.0.0.1", "a loopback address (IPv4-mapped)"],
    ["::ffff:7f00:1", "a loopback address (IPv4-mapped)"],
    ["::ffff:10.1.2.3", "a private address (IPv4-mapped)"],
    ["::ffff:169.254.169.254", "a link-local address (IPv4-mapped)"],
    ["64:ff9b::a00:1", "a private address (NAT64)"],
    ["::127.0.0.1", "a reserved IPv6 address"],
    ["fe80::1", "a link-local address"],
    ["fec0::1", "a site-local address"],
    ["fd00:ec2::254", "a unique local (private) address"],
    ["fc00::1", "a unique local (private) address"],
    ["ff02::1", "a multicast address"],
    ["2001:db8::1", "a documentation address"],
    ["2001:0:4136:e378::1", "an IETF protocol assignment (such as Teredo)"],
    ["2002:c000:204::1", "a 6to4 address"],
    ["100::1", "a reserved IPv6 address"],
    ["fe80::1%eth0", "not an IP address"],
    ["example.com", "not an IP address"],
  ];
  for (const [ip, reason] of refusedAddresses) assert.equal(addressProblem(ip), reason, ip);
  // A loopback issuer exempts loopback, nothing else.
  assert.equal(addressProblem("127.0.0.1", true), null);
  assert.equal(addressProblem("::1", true), null);
  assert.equal(addressProblem("::ffff:127.0.0.1", true), null);
  assert.equal(addressProblem("10.0.0.1", true), "a private address");
  assert.equal(addressProblem("169.254.169.254", true), "a link-local address");
});
