// NO_PROXY and HTTPS_PROXY as curl reads them (lib/net/proxy-tunnel.ts), for the agent's connection
// to the fleet and the control plane's webhook deliveries.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bypassesProxy, proxyFor, proxyPort } from "@/lib/net/proxy-tunnel";

test("NO_PROXY: CIDRs and IP literals of both families, with or without brackets", () => {
  const list = "10.0.0.0/8, 192.168.1.7, fd00::/8, ::1, [2001:db8::5]";
  assert.equal(bypassesProxy("10.42.3.4", 443, list), true);
  assert.equal(bypassesProxy("11.0.0.1", 443, list), false);
  assert.equal(bypassesProxy("192.168.1.7", 443, list), true);
  assert.equal(bypassesProxy("192.168.1.8", 443, list), false);
  assert.equal(bypassesProxy("fd12:3456::1", 443, list), true);
  assert.equal(bypassesProxy("[fd12:3456::1]", 443, list), true, "a URL's bracketed host");
  assert.equal(bypassesProxy("::1", 443, list), true);
  assert.equal(bypassesProxy("2001:db8::5", 443, list), true);
  assert.equal(bypassesProxy("2001:db8::6", 443, list), false);
  // A name is not an address: a CIDR never matches a host name that merely looks close.
  assert.equal(bypassesProxy("10.example.com", 443, list), false);
});

test("NO_PROXY: domains match themselves and their subdomains, written bare, with a dot or a star", () => {
  for (const entry of ["example.com", ".example.com", "*.example.com", "EXAMPLE.com."]) {
    assert.equal(bypassesProxy("example.com", 443, entry), true, entry);
    assert.equal(bypassesProxy("api.eu.example.com", 443, entry), true, entry);
    assert.equal(bypassesProxy("notexample.com", 443, entry), false, entry);
    assert.equal(bypassesProxy("example.com.evil.io", 443, entry), false, entry);
  }
  assert.equal(bypassesProxy("anything", 1, "*"), true);
  assert.equal(bypassesProxy("anything", 1, ""), false);
});

test("NO_PROXY: an entry with a port applies to that port only", () => {
  assert.equal(bypassesProxy("fleet.example.com", 8443, "fleet.example.com:8443"), true);
  assert.equal(bypassesProxy("fleet.example.com", 443, "fleet.example.com:8443"), false);
  assert.equal(bypassesProxy("10.0.0.1", 443, "10.0.0.1:443"), true);
  assert.equal(bypassesProxy("::1", 8443, "[::1]:8443"), true);
  assert.equal(bypassesProxy("::1", 443, "[::1]:8443"), false);
  assert.equal(proxyFor("fleet.example.com", { HTTPS_PROXY: "http://p:3128", NO_PROXY: "fleet.example.com:8443" }, 8443), null);
  assert.equal(
    proxyFor("fleet.example.com", { HTTPS_PROXY: "http://p:3128", NO_PROXY: "fleet.example.com:8443" })?.host,
    "p:3128",
  );
});

test("an https:// proxy keeps its scheme and defaults to port 443, an http:// one to 80", () => {
  const https = proxyFor("fleet.example.com", { HTTPS_PROXY: "https://proxy.corp" })!;
  assert.equal(https.protocol, "https:");
  assert.equal(proxyPort(https), 443);
  assert.equal(proxyPort(proxyFor("fleet.example.com", { HTTPS_PROXY: "http://proxy.corp" })!), 80);
  assert.equal(proxyPort(proxyFor("fleet.example.com", { HTTPS_PROXY: "proxy.corp:3128" })!), 3128);
});
