// Trusting a forwarded client certificate is its own setting, off by default, and needs both the
// proxy's addresses and its pinned certificate: a bad or half configuration stops the start.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EnvError, parseEnv } from "@/lib/env";

const HEX = "ab".repeat(32);

test("by default no proxy may forward a client certificate, whatever TRUSTED_PROXY_CIDRS says", () => {
  assert.equal(parseEnv({ NODE_ENV: "test" }).clientCertProxies, null);
  assert.equal(parseEnv({ NODE_ENV: "test", TRUSTED_PROXY_CIDRS: "10.0.0.0/8" }).clientCertProxies, null);
});

test("addresses and pins together; openssl's colon form and bare hex are read as sha256:<hex>", () => {
  const colons = HEX.toUpperCase().match(/../g)!.join(":");
  const { clientCertProxies } = parseEnv({
    NODE_ENV: "test",
    TRUSTED_CLIENT_CERT_PROXY_CIDRS: "10.1.2.0/24, fd00::/8, 192.0.2.7",
    CLIENT_CERT_PROXY_FINGERPRINTS: `sha256:${HEX},${colons},${"cd".repeat(32)}`,
  });
  assert.deepEqual(clientCertProxies, {
    cidrs: ["10.1.2.0/24", "fd00::/8", "192.0.2.7"],
    fingerprints: [`sha256:${HEX}`, `sha256:${HEX}`, `sha256:${"cd".repeat(32)}`],
  });
});

test("half a configuration, a bad CIDR or a bad fingerprint stops the start naming the setting", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ TRUSTED_CLIENT_CERT_PROXY_CIDRS: "10.0.0.0/8" }, /CLIENT_CERT_PROXY_FINGERPRINTS is not/],
    [{ CLIENT_CERT_PROXY_FINGERPRINTS: HEX }, /TRUSTED_CLIENT_CERT_PROXY_CIDRS is not/],
    [{ TRUSTED_CLIENT_CERT_PROXY_CIDRS: "10.0.0.0/33", CLIENT_CERT_PROXY_FINGERPRINTS: HEX }, /"10\.0\.0\.0\/33" is not/],
    [{ TRUSTED_CLIENT_CERT_PROXY_CIDRS: "proxy.internal", CLIENT_CERT_PROXY_FINGERPRINTS: HEX }, /"proxy\.internal" is not/],
    [
      { TRUSTED_CLIENT_CERT_PROXY_CIDRS: "10.0.0.0/8", CLIENT_CERT_PROXY_FINGERPRINTS: "sha1:abcd" },
      /"sha1:abcd" is not a SHA-256/,
    ],
  ];
  for (const [vars, message] of cases) {
    assert.throws(
      () => parseEnv({ NODE_ENV: "test", ...vars }),
      (err: unknown) => err instanceof EnvError && message.test(err.message),
    );
  }
});

test("TRUSTED_PROXY_CIDRS: empty by default; an entry that is not an address or CIDR stops the start naming it", () => {
  assert.deepEqual(parseEnv({ NODE_ENV: "test" }).TRUSTED_PROXY_CIDRS, []);
  assert.deepEqual(parseEnv({ NODE_ENV: "test", TRUSTED_PROXY_CIDRS: "10.1.2.0/24, fd00::/8" }).TRUSTED_PROXY_CIDRS, [
    "10.1.2.0/24",
    "fd00::/8",
  ]);
  for (const bad of ["ingress.internal", "10.0.0.0/33", "10.1.2.0/24,fd00::/200"])
    assert.throws(
      () => parseEnv({ NODE_ENV: "test", TRUSTED_PROXY_CIDRS: bad }),
      (err: unknown) => err instanceof EnvError && /TRUSTED_PROXY_CIDRS: .* is not an address or CIDR/.test(err.message),
      bad,
    );
});
