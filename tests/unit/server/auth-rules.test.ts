import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  accountDelayMs,
  lockSeconds,
  pairAddress,
  retryAfterSeconds,
  throttleKeys,
  tooManyAttemptsMessage,
} from "@/lib/domain/login-throttle";
import { lowerRole } from "@/lib/domain/roles";
import { clientAddress, isTrustedProxy, trustedProxies } from "@/lib/server/net/trusted-proxies";
import { safeRedirect } from "@/lib/server/auth/options";
import { ssoPlaceholderEmail } from "@/lib/server/auth/oidc-sign-in";
import { emailSchema } from "@/lib/domain/email";
import { sessionClaims, SESSION_MAX_AGE_SECONDS } from "@/lib/server/auth/sessions";

describe("sign-in throttling rules", () => {
  test("an account at one address locks from the 5th failure: 2 s doubling to at most 15 min", () => {
    assert.deepEqual(
      [1, 4, 5, 6, 7, 13, 14, 50].map((f) => lockSeconds("pair", f)),
      [0, 0, 2, 4, 8, 512, 900, 900],
    );
  });
  test("an address locks from the 20th failure", () => {
    assert.equal(lockSeconds("address", 19), 0);
    assert.equal(lockSeconds("address", 20), 2);
    assert.equal(lockSeconds("address", 1_000_000), 900);
  });
  test("an account's failures from everywhere only slow it: 3 free, then 250 ms doubling, never above 4 s", () => {
    assert.deepEqual(
      [0, 1, 3, 4, 5, 6, 7, 8, 9, 1_000, 1e9].map(accountDelayMs),
      [0, 0, 0, 250, 500, 1000, 2000, 4000, 4000, 4000, 4000],
    );
  });
  test("keys, Retry-After and the form's message", () => {
    assert.equal(throttleKeys.account(" Admin@Example.com "), "account:admin@example.com");
    assert.equal(throttleKeys.address("2001:DB8::1"), "address:2001:db8::1");
    const pair = throttleKeys.pair("Admin@Example.com", "203.0.113.7");
    assert.equal(pair, "pair:admin@example.com 203.0.113.7");
    assert.ok(pair.startsWith(throttleKeys.pairsOf("admin@example.com")));
    assert.ok(!throttleKeys.pair("admin@example.com.evil", "1.2.3.4").startsWith(throttleKeys.pairsOf("admin@example.com")));
    assert.equal(pairAddress(pair), "203.0.113.7");
    assert.equal(retryAfterSeconds(new Date(10_500), 10_000), 1);
    assert.equal(retryAfterSeconds(new Date(12_001), 10_000), 3);
    assert.equal(tooManyAttemptsMessage(1), "Too many attempts; try again in 1 second.");
    assert.equal(tooManyAttemptsMessage(4), "Too many attempts; try again in 4 seconds.");
  });
});

describe("client address behind trusted proxies", () => {
  const proxies = trustedProxies(["10.0.0.0/8", "fd00::/8"]);
  test("X-Forwarded-For counts only when the peer is a trusted proxy", () => {
    assert.equal(clientAddress("192.0.2.9", "203.0.113.5", proxies), "192.0.2.9");
    assert.equal(clientAddress("::ffff:10.1.2.3", "203.0.113.5", proxies), "203.0.113.5");
    assert.equal(clientAddress("10.1.2.3", "203.0.113.5", null), "10.1.2.3");
  });
  test("the nearest untrusted hop wins; what the client wrote on the left is ignored", () => {
    assert.equal(clientAddress("10.0.0.1", "1.1.1.1, 203.0.113.5, 10.0.0.2", proxies), "203.0.113.5");
    assert.equal(clientAddress("10.0.0.1", "garbage, 10.0.0.2", proxies), "10.0.0.2");
    assert.equal(clientAddress("fd00::1", "2001:db8::7", proxies), "2001:db8::7");
  });
  test("garbage addresses are never trusted", () => {
    assert.equal(isTrustedProxy(proxies, "not-an-ip"), false);
    assert.equal(isTrustedProxy(null, "10.0.0.1"), false);
  });
});

describe("next-auth redirects", () => {
  const base = "http://127.0.0.1:3910";
  test("same-origin paths and URLs are kept", () => {
    assert.equal(safeRedirect("/clusters?x=1", base), `${base}/clusters?x=1`);
    assert.equal(safeRedirect(`${base}/audit`, base), `${base}/audit`);
  });
  test("foreign, look-alike and malformed targets fall back to the console, never throw", () => {
    for (const url of [
      "http://127.0.0.1:3910.evil.example/",
      "https://evil.example/",
      "//evil.example",
      "/\\evil.example",
      "::",
      "",
    ]) {
      assert.equal(safeRedirect(url, base), base, url);
    }
  });
});

describe("session claims", () => {
  const now = Math.floor(Date.now() / 1000);
  test("need uid, sid, sv and authAt, within the session's absolute lifetime", () => {
    assert.ok(sessionClaims({ uid: "u", sid: "s", sv: 0, authAt: now }));
    assert.equal(sessionClaims({ uid: "u", sv: 0, authAt: now }), null, "tokens from before revocable sessions");
    assert.equal(sessionClaims({ uid: "u", sid: "s", sv: "0", authAt: now }), null);
    assert.equal(sessionClaims({ uid: "u", sid: "s", sv: 0, authAt: now - SESSION_MAX_AGE_SECONDS - 1 }), null);
  });
});

test("an API key's role is capped by its creator's", () => {
  assert.equal(lowerRole("admin", "viewer"), "viewer");
  assert.equal(lowerRole("viewer", "admin"), "viewer");
  assert.equal(lowerRole("operator", "operator"), "operator");
});

test("an SSO placeholder address is one per (issuer, subject) exactly as sent, and a valid stored email", () => {
  const issuer = "https://idp.example/realms/x";
  const a = ssoPlaceholderEmail(issuer, "CaseSub");
  const b = ssoPlaceholderEmail(issuer, "casesub");
  assert.notEqual(a, b, "subjects differing only in case are two people");
  assert.equal(emailSchema.parse(a), a, "stored as it is: already lower-case");
  assert.equal(emailSchema.parse(b), b);
  assert.match(a, /^sso-[0-9a-f]{32}@oidc\.invalid$/);
  assert.equal(ssoPlaceholderEmail(`${issuer}/`, "CaseSub"), a, "the issuer as stored (no trailing slash)");
  assert.notEqual(ssoPlaceholderEmail("https://other.example", "CaseSub"), a);
  assert.match(ssoPlaceholderEmail(issuer, "a b@c\u0000"), /^sso-[0-9a-f]{32}@oidc\.invalid$/, "any subject text");
});
