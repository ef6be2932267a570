import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isLoopbackAddress } from "@/lib/domain/network";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { isAgentOnlyPath, requireAgentPort } from "@/lib/server/agent-port/agent-port";
import { ApiError } from "@/lib/server/api/errors";
import { authorizeScrape } from "@/lib/server/metrics/scrape-access";

const TOKEN = "metrics-token-0123456789abcdef";

function refusal(fn: () => void): { status: number; code: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { status: err.status, code: err.code };
  }
}

describe("loopback peers (the metrics endpoint without METRICS_TOKEN)", () => {
  test("127.0.0.0/8, ::1 and IPv4-mapped 127.x are loopback", () => {
    for (const a of [
      "127.0.0.1",
      "127.255.0.9",
      "::1",
      "0:0:0:0:0:0:0:1",
      "[::1]",
      "::ffff:127.0.0.1",
      "::FFFF:127.1.2.3",
      "::ffff:7f00:1",
    ])
      assert.equal(isLoopbackAddress(a), true, a);
  });

  test("other addresses, look-alikes and garbage are not", () => {
    for (const a of [
      "10.0.0.1",
      "192.168.1.127",
      "128.0.0.1",
      "0.0.0.0",
      "::",
      "::2",
      "::ffff:10.0.0.1",
      "::ffff:8000:1",
      "::127.0.0.1",
      "fe80::1%lo",
      "127.0.0.1.evil.example",
      "localhost",
      "127.0.0.1, 10.0.0.1",
      "",
      null,
      undefined,
    ])
      assert.equal(isLoopbackAddress(a), false, String(a));
  });
});

describe("who may scrape /api/metrics", () => {
  const headers = (h: Record<string, string>) => new Headers({ host: "127.0.0.1:3000", ...h });
  const OWN = () => ["127.0.0.1", "::1", "10.1.2.3", "fe80::1%eth0"];
  const loopback = (token: string | null = null) => ({ token, bind: "127.0.0.1", publicUrl: null, ownAddresses: OWN });
  const everywhere = (token: string | null = null) => ({
    token,
    bind: "0.0.0.0",
    publicUrl: "https://fleet.example.com",
    ownAddresses: OWN,
  });

  test("unset token, bound to loopback: the socket peer decides, never a forwarded header", () => {
    assert.equal(
      refusal(() => authorizeScrape(headers({ [IDENTITY_HEADERS.remoteAddress]: "127.0.0.1" }), loopback())),
      null,
    );
    assert.equal(
      refusal(() => authorizeScrape(headers({ [IDENTITY_HEADERS.remoteAddress]: "::1" }), loopback())),
      null,
    );
    assert.deepEqual(
      refusal(() =>
        authorizeScrape(
          headers({ [IDENTITY_HEADERS.remoteAddress]: "203.0.113.7", "x-forwarded-for": "127.0.0.1", "x-real-ip": "127.0.0.1" }),
          loopback(),
        ),
      ),
      { status: 403, code: "forbidden" },
    );
    // No peer noted (not served by the custom server): refused.
    assert.deepEqual(
      refusal(() => authorizeScrape(headers({}), loopback())),
      { status: 403, code: "forbidden" },
    );
  });

  test("unset token, bound to anything but loopback: 401 for everyone, loopback peers included", () => {
    for (const bind of ["0.0.0.0", "::", "10.1.2.3"]) {
      const h = headers({ [IDENTITY_HEADERS.remoteAddress]: "127.0.0.1" });
      assert.deepEqual(
        refusal(() => authorizeScrape(h, { ...everywhere(), bind })),
        { status: 401, code: "unauthenticated" },
        bind,
      );
    }
  });

  test("token set: only the right bearer token, from anywhere, loopback included", () => {
    const peer = { [IDENTITY_HEADERS.remoteAddress]: "127.0.0.1" };
    for (const config of [loopback(TOKEN), everywhere(TOKEN)]) {
      assert.equal(
        refusal(() => authorizeScrape(headers({ authorization: `Bearer ${TOKEN}` }), config)),
        null,
      );
      assert.equal(
        refusal(() => authorizeScrape(headers({ authorization: `bearer ${TOKEN}` }), config)),
        null,
      );
      for (const authorization of [
        undefined,
        "",
        "Bearer",
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        `Basic ${TOKEN}`,
        TOKEN,
      ]) {
        const h = headers({ ...peer, ...(authorization === undefined ? {} : { authorization }) });
        assert.deepEqual(
          refusal(() => authorizeScrape(h, config)),
          { status: 401, code: "unauthenticated" },
          String(authorization),
        );
      }
    }
  });

  test("only a Host the server is known by: a rebound name is 421 before any token is looked at", () => {
    const withToken = (host: string) => new Headers({ host, authorization: `Bearer ${TOKEN}` });
    const local = { [IDENTITY_HEADERS.remoteAddress]: "127.0.0.1" };
    // Bound to loopback, no token: a loopback peer, but the page was served as evil.example.
    for (const host of ["evil.example", "evil.example:3000", "127.0.0.1.evil.example", "fleet.example.com", "", "a@127.0.0.1"])
      assert.deepEqual(
        refusal(() => authorizeScrape(new Headers({ ...local, host }), loopback())),
        { status: 421, code: "host_not_served" },
        host,
      );
    for (const host of ["localhost:3000", "LOCALHOST", "127.0.0.1", "127.9.9.9:1", "[::1]:3000"])
      assert.equal(
        refusal(() => authorizeScrape(new Headers({ ...local, host }), loopback())),
        null,
        host,
      );
    // Bound everywhere: the public URL's host and this machine's own addresses (a pod scraped by its address).
    for (const host of ["fleet.example.com", "FLEET.example.com:443", "10.1.2.3:3000", "[fe80::1]:3000", "127.0.0.1:3000"])
      assert.equal(
        refusal(() => authorizeScrape(withToken(host), everywhere(TOKEN))),
        null,
        host,
      );
    for (const host of ["evil.example", "localhost:3000", "10.1.2.4:3000", "fleet.example.com.evil.example"])
      assert.deepEqual(
        refusal(() => authorizeScrape(withToken(host), everywhere(TOKEN))),
        { status: 421, code: "host_not_served" },
        host,
      );
  });
});

describe("agent endpoints only on the agent port", () => {
  test("every spelling of an agent path but the CA download is agent-only", () => {
    for (const url of [
      "/api/agent/v1/register",
      "/api/agent/v1/register/",
      "/api/agent/v1/register?x=1",
      "/api/agent/v1/register/?x=1#f",
      "/API/Agent/V1/Register",
      "//api//agent/v1/heartbeat",
      "/api/agent/v1/%72otate",
      "/api/./agent/v1/rotate",
      "/x/../api/agent/v1/rotate",
      "/api\\agent\\v1\\register",
      "/api/agent/v1/anything-new",
      "/api/agent",
      "/api/agent/v1/ca/extra",
    ])
      assert.equal(isAgentOnlyPath(url), true, url);
  });

  test("the CA download and everything else stay on the console port", () => {
    for (const url of [
      "/api/agent/v1/ca",
      "/api/agent/v1/ca/",
      "/api/agent/v1/ca?x=1",
      "/API/agent/v1/CA",
      "/",
      "/clusters",
      "/api/v1/clusters",
      "/api/agents",
      "/api/metrics",
    ])
      assert.equal(isAgentOnlyPath(url), false, url);
  });

  test("routes need the agent port's mark, set by the custom server only", () => {
    assert.deepEqual(
      refusal(() => requireAgentPort(new Headers())),
      { status: 421, code: "agent_port_required" },
    );
    assert.deepEqual(
      refusal(() => requireAgentPort(new Headers({ [IDENTITY_HEADERS.agentPort]: "true" }))),
      {
        status: 421,
        code: "agent_port_required",
      },
    );
    assert.equal(
      refusal(() => requireAgentPort(new Headers({ [IDENTITY_HEADERS.agentPort]: "1" }))),
      null,
    );
  });
});
