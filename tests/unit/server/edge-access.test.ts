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
  const headers = (h: Record<string, string>) => new Headers(h);

  test("unset token: the socket peer decides, never a forwarded header", () => {
    assert.equal(
      refusal(() => authorizeScrape(headers({ [IDENTITY_HEADERS.remoteAddress]: "127.0.0.1" }), null)),
      null,
    );
    assert.equal(
      refusal(() => authorizeScrape(headers({ [IDENTITY_HEADERS.remoteAddress]: "::1" }), null)),
      null,
    );
    assert.deepEqual(
      refusal(() =>
        authorizeScrape(
          headers({ [IDENTITY_HEADERS.remoteAddress]: "203.0.113.7", "x-forwarded-for": "127.0.0.1", "x-real-ip": "127.0.0.1" }),
          null,
        ),
      ),
      { status: 403, code: "forbidden" },
    );
    // No peer noted (not served by the custom server): refused.
    assert.deepEqual(
      refusal(() => authorizeScrape(headers({}), null)),
      { status: 403, code: "forbidden" },
    );
  });

  test("token set: only the right bearer token, from anywhere, loopback included", () => {
    const loopback = { [IDENTITY_HEADERS.remoteAddress]: "127.0.0.1" };
    assert.equal(
      refusal(() => authorizeScrape(headers({ authorization: `Bearer ${TOKEN}` }), TOKEN)),
      null,
    );
    assert.equal(
      refusal(() => authorizeScrape(headers({ authorization: `bearer ${TOKEN}` }), TOKEN)),
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
      const h = headers({ ...loopback, ...(authorization === undefined ? {} : { authorization }) });
      assert.deepEqual(
        refusal(() => authorizeScrape(h, TOKEN)),
        { status: 401, code: "unauthenticated" },
        String(authorization),
      );
    }
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
