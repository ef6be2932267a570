import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { hostnameOf, isLoopbackBind, servesHost } from "@/lib/domain/served-host";

describe("the Host names a server answers under", () => {
  test("a Host header's name: lowercase, no port, no brackets; malformed ones are null", () => {
    assert.equal(hostnameOf("Fleet.Example.com:3000"), "fleet.example.com");
    assert.equal(hostnameOf("[::1]:3000"), "::1");
    assert.equal(hostnameOf("0x7f.1"), "127.0.0.1", "the URL parser's canonical form");
    for (const bad of ["", null, undefined, "a@127.0.0.1", "127.0.0.1/x", "127.0.0.1?x", "[::1", "a b"])
      assert.equal(hostnameOf(bad), null, String(bad));
  });

  test("a loopback bind: 127.0.0.0/8, ::1 and localhost; wildcards and other addresses are not", () => {
    for (const bind of ["127.0.0.1", "127.0.0.2", "::1", "localhost", "LOCALHOST"])
      assert.equal(isLoopbackBind(bind), true, bind);
    for (const bind of ["0.0.0.0", "::", "10.0.0.5", "fleet.internal"]) assert.equal(isLoopbackBind(bind), false, bind);
  });

  test("bound beyond loopback: the public URL's host, the bind name, and own addresses (IPv6 in any spelling)", () => {
    const served = { publicHost: "fleet.example.com", bind: "0.0.0.0", ownAddresses: ["10.0.0.5", "fd00::5", "fe80::1%eth0"] };
    for (const host of ["fleet.example.com", "10.0.0.5:3000", "[fd00:0:0::5]:3000", "[fe80::1]"])
      assert.equal(servesHost(host, served), true, host);
    for (const host of ["localhost", "10.0.0.6", "evil.example", "fleet.example.com.evil.example", "0.0.0.0"])
      assert.equal(servesHost(host, served), false, host);
    assert.equal(servesHost("fleet.internal:3000", { ...served, bind: "fleet.internal" }), true);
  });
});
