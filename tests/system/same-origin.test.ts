// The same-origin check on session mutations (full Origin: scheme, host and port; forwarded headers
// only from trusted proxies; Sec-Fetch-Site same-origin or absent), and the session cookie of an
// https public URL, against the real server.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { call } from "../helpers/agent-client";
import { signIn } from "../helpers/console-session";
import { ADMIN, startFleetServer, type FleetServer } from "../helpers/fleet-server";

const mint = (server: FleetServer, headers: Record<string, string>, cookie?: string) =>
  server.api("POST", "/api/v1/registration-tokens", { name: "csrf-probe" }, { headers, ...(cookie ? { cookie } : {}) });

describe("NEXTAUTH_URL unset, on loopback: the request's own origin, and sign-in's from HOST and PORT", () => {
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer();
  });
  after(async () => {
    await server?.stop();
  });

  const refused: [string, (s: FleetServer) => Record<string, string>][] = [
    ["a foreign Origin", () => ({ origin: "https://evil.example" })],
    ["the right host with the wrong scheme", (s) => ({ origin: s.consoleUrl.replace("http://", "https://") })],
    ["the right host with another port", (s) => ({ origin: `http://127.0.0.1:${s.consolePort + 1}` })],
    [
      "X-Forwarded-Host naming the attacker's origin, from an untrusted peer",
      () => ({ origin: "http://evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" }),
    ],
    ["the right Origin with Sec-Fetch-Site: same-site", (s) => ({ origin: s.consoleUrl, "sec-fetch-site": "same-site" })],
    ["the right Origin with Sec-Fetch-Site: cross-site", (s) => ({ origin: s.consoleUrl, "sec-fetch-site": "cross-site" })],
  ];
  for (const [label, headers] of refused) {
    test(`${label} -> 403 csrf_rejected`, async () => {
      const res = await mint(server, headers(server));
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.error, "csrf_rejected");
    });
  }

  test("the console's own requests still work (Origin, with or without Sec-Fetch-Site: same-origin)", async () => {
    assert.equal((await mint(server, { origin: server.consoleUrl })).status, 201);
    assert.equal((await mint(server, { origin: server.consoleUrl, "sec-fetch-site": "same-origin" })).status, 201);
  });

  test("sign-in never takes its origin from the Host header: a foreign Host gets redirects to the console", async () => {
    const foreign = { host: "evil.example" };
    const signedIn = await signIn(server.consoleUrl, ADMIN, { headers: foreign });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    assert.equal(new URL(signedIn.body.url).origin, server.consoleUrl, signedIn.body.url);
    for (const path of ["/api/auth/signin", "/api/auth/signin/credentials", "/api/auth/error?error=Callback"]) {
      const res = await call(`${server.consoleUrl}${path}`, "GET", { headers: foreign });
      const location = String(res.headers.location ?? "");
      assert.ok(location, `${path}: ${res.status}`);
      assert.doesNotMatch(decodeURIComponent(location), /evil\.example/, `${path} -> ${location}`);
    }
  });

  test("over plain http the session cookie is not Secure", async () => {
    const res = await signIn(server.consoleUrl, ADMIN);
    const cookie = res.setCookies.find((c) => c.startsWith("next-auth.session-token="));
    assert.ok(cookie, res.setCookies.join("\n"));
    assert.doesNotMatch(cookie, /;\s*Secure/i);
  });
});

describe("NEXTAUTH_URL=https://...: the public origin, and Secure cookies", () => {
  const PUBLIC_URL = "https://fleet.example.test";
  let server: FleetServer;
  before(async () => {
    server = await startFleetServer({ NEXTAUTH_URL: PUBLIC_URL });
  });
  after(async () => {
    await server?.stop();
  });

  test("the session cookie is Secure and __Secure- prefixed, and it signs requests in", async () => {
    const res = await signIn(server.consoleUrl, ADMIN);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const cookie = res.setCookies.find((c) => c.startsWith("__Secure-next-auth.session-token="));
    assert.ok(cookie, res.setCookies.join("\n"));
    assert.match(cookie, /;\s*Secure/i);
    assert.match(cookie, /;\s*HttpOnly/i);
    assert.ok(!res.setCookies.some((c) => c.startsWith("next-auth.session-token=")), "no unprefixed copy");
    assert.equal(new URL(res.body.url).origin, PUBLIC_URL);

    const ok = await mint(server, { origin: PUBLIC_URL }, res.cookie!);
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const local = await mint(server, { origin: server.consoleUrl }, res.cookie!);
    assert.equal(local.status, 403, "the address it listens on is not the public origin");
    assert.equal(local.body.error, "csrf_rejected");
  });
});
