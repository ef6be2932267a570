// The client's address behind trusted proxies (lib/domain/client-address.ts): X-Forwarded-For is
// walked from the right, one entry per trusted hop, and the first untrusted address is the client;
// with no trusted proxies (the default) the socket's peer is the client whatever the header says.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clientAddress, forwardedHop, isCidr, isTrustedProxy, trustedProxies } from "@/lib/domain/client-address";

describe("client address", () => {
  const proxies = trustedProxies(["10.0.0.0/8", "192.0.2.7", "fd00::/8"]);

  test("with no trusted proxies the peer is the client, whatever X-Forwarded-For claims", () => {
    assert.equal(trustedProxies([]), null);
    assert.equal(clientAddress("10.1.2.3", "203.0.113.5", null), "10.1.2.3");
    assert.equal(clientAddress("::ffff:198.51.100.4", "127.0.0.1", null), "198.51.100.4");
  });

  test("an untrusted peer's header is ignored, however it is spelled", () => {
    for (const header of ["203.0.113.5", "10.0.0.1", "203.0.113.5, 10.0.0.2", "", "garbage"])
      assert.equal(clientAddress("198.51.100.9", header, proxies), "198.51.100.9", header);
    // Just outside the ranges.
    assert.equal(clientAddress("11.0.0.1", "203.0.113.5", proxies), "11.0.0.1");
    assert.equal(clientAddress("192.0.2.8", "203.0.113.5", proxies), "192.0.2.8", "a single address is a /32");
    assert.equal(clientAddress("fe00::1", "203.0.113.5", proxies), "fe00::1");
  });

  test("right to left through trusted hops: the nearest untrusted address wins; what the client wrote on the left is ignored", () => {
    assert.equal(clientAddress("10.0.0.1", "203.0.113.5", proxies), "203.0.113.5");
    assert.equal(clientAddress("::ffff:10.1.2.3", "203.0.113.5", proxies), "203.0.113.5", "IPv4-mapped peer");
    assert.equal(clientAddress("10.0.0.1", "1.1.1.1, 203.0.113.5, 10.0.0.2", proxies), "203.0.113.5");
    assert.equal(clientAddress("10.0.0.1", "203.0.113.5,192.0.2.7,10.9.9.9", proxies), "203.0.113.5");
    // Every hop trusted: the leftmost one is as far as anything can be known.
    assert.equal(clientAddress("10.0.0.1", "10.0.0.3, 10.0.0.2", proxies), "10.0.0.3");
  });

  test("IPv6 peers, hops and ranges", () => {
    assert.equal(clientAddress("fd00::1", "2001:db8::7", proxies), "2001:db8::7");
    assert.equal(clientAddress("FD12:3456::1", "2001:DB8:0::7, fd00::2", proxies), "2001:db8::7", "one spelling per address");
    assert.equal(clientAddress("fd00::1", "[2001:db8::7]:443", proxies), "2001:db8::7");
    assert.equal(isTrustedProxy(proxies, "fd00:0:0:0:0:0:0:1"), true);
    assert.equal(isTrustedProxy(proxies, "fe80::1"), false);
  });

  test("entries with ports are read; one that is not an address stops the walk at the proxy that passed it", () => {
    assert.equal(clientAddress("10.0.0.1", "203.0.113.5:4711", proxies), "203.0.113.5");
    assert.equal(clientAddress("10.0.0.1", "garbage, 10.0.0.2", proxies), "10.0.0.2");
    assert.equal(clientAddress("10.0.0.1", "203.0.113.5, unknown", proxies), "10.0.0.1");
    assert.equal(clientAddress("10.0.0.1", "", proxies), "10.0.0.1");
    for (const entry of ["unknown", "_hidden", "host.example", "203.0.113.5:x", "1.2.3", "[::1", ""])
      assert.equal(forwardedHop(entry), null, entry);
    assert.equal(forwardedHop(" [::ffff:203.0.113.5]:80 "), "203.0.113.5");
  });

  test("garbage addresses are never trusted", () => {
    assert.equal(isTrustedProxy(proxies, "not-an-ip"), false);
    assert.equal(isTrustedProxy(proxies, ""), false);
    assert.equal(isTrustedProxy(null, "10.0.0.1"), false);
  });

  test("CIDR syntax: addresses with an optional prefix within the family's length", () => {
    for (const ok of ["10.0.0.0/8", "192.0.2.7", "192.0.2.7/32", "0.0.0.0/0", "fd00::/8", "::1", "2001:db8::/128"])
      assert.equal(isCidr(ok), true, ok);
    for (const bad of [
      "10.0.0.0/33",
      "fd00::/129",
      "10.0.0.0/",
      "10.0.0.0/8/8",
      "10.0.0.0/x",
      "proxy.internal",
      "",
      "10.0.0.0/-1",
    ])
      assert.equal(isCidr(bad), false, bad);
  });
});
