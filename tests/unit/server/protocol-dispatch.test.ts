// The agent protocol's one door (lib/server/agent-port/protocol-dispatch.ts), engine-free: matching on
// the pathname whatever the query string, 404/405 in the protocol's JSON, the agent-port rule for
// every entry that is not public, the bearer token's parsing, and metrics recorded per entry on
// every path (no service runs: every request here is refused before one would).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IDENTITY_HEADERS } from "@/lib/server/agent-port/agent-identity";
import { dispatch, isProtocolPath } from "@/lib/server/agent-port/protocol-dispatch";
import { bearerToken } from "@/lib/server/auth/bearer";
import { PROTOCOL_HANDLERS } from "@/lib/server/agent-port/protocol-handlers";
import { renderOwnMetrics } from "@/lib/server/metrics/registry";

function request(method: string, url: string, headers: Record<string, string> = {}) {
  let bodyRead = false;
  return {
    req: {
      method,
      url,
      headers: new Headers(headers),
      readBody: async () => {
        bodyRead = true;
        return {};
      },
    },
    bodyRead: () => bodyRead,
  };
}

const sample = async (line: string) => {
  const found = (await renderOwnMetrics()).find((l) => l.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
};

describe("protocol dispatch", () => {
  test("every table path is a protocol path with or without a query string; others are not", () => {
    for (const { path } of PROTOCOL_HANDLERS) {
      assert.equal(isProtocolPath(path), true, path);
      assert.equal(isProtocolPath(`${path}?x=1`), true, path);
      assert.equal(isProtocolPath(`${path}#frag`), true, path);
    }
    for (const url of ["/", "/api/agent/v1", "/api/agent/v1/heartbeat/extra", "/api/v1/clusters", "/api/agent/v1/heartbeatx"])
      assert.equal(isProtocolPath(url), false, url);
  });

  test("an unknown path is 404 and a wrong method 405 naming the allowed one, both in the protocol's JSON", async () => {
    const missing = await dispatch(request("POST", "/api/agent/v1/nothing").req);
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { error: string }).error, "not_found");
    const wrong = await dispatch(request("GET", "/api/agent/v1/heartbeat?x=1").req);
    assert.equal(wrong.status, 405);
    assert.equal((wrong.body as { error: string }).error, "method_not_allowed");
    assert.equal(wrong.headers?.allow, "POST");
  });

  test("every entry but the public ones answers 421 without the agent port's mark, before reading the body", async () => {
    const guarded = PROTOCOL_HANDLERS.filter((h) => h.auth !== "public");
    assert.ok(guarded.length >= 3);
    for (const entry of guarded) {
      for (const url of [entry.path, `${entry.path}?via=query`]) {
        // A forged mark of another value, and a forged certificate identity, change nothing.
        const r = request(entry.method, url, {
          [IDENTITY_HEADERS.agentPort]: "true",
          [IDENTITY_HEADERS.fingerprint]: `sha256:${"d".repeat(64)}`,
          [IDENTITY_HEADERS.serial]: "01",
          authorization: "Bearer frt_x_y",
        });
        const reply = await dispatch(r.req);
        assert.equal(reply.status, 421, url);
        assert.equal((reply.body as { error: string }).error, "agent_port_required", url);
        assert.equal(r.bodyRead(), false, url);
      }
    }
  });

  test("heartbeat metrics are recorded for the path with a query string too", async () => {
    const before = await sample('fleet_heartbeats_total{code="421"}');
    const count = await sample("fleet_heartbeat_duration_seconds_count");
    await dispatch(request("POST", "/api/agent/v1/heartbeat").req);
    await dispatch(request("POST", "/api/agent/v1/heartbeat?via=query").req);
    assert.equal(await sample('fleet_heartbeats_total{code="421"}'), before + 2);
    assert.equal(await sample("fleet_heartbeat_duration_seconds_count"), count + 2);
  });

  test("the bearer token is parsed once, for the services: missing, other schemes and junk are null", () => {
    assert.equal(bearerToken("Bearer frt_abc_def"), "frt_abc_def");
    assert.equal(bearerToken("bearer   frt_abc_def  "), "frt_abc_def");
    for (const value of [null, "", "Bearer", "Bearer ", "Basic frt_abc_def", "frt_abc_def", "Bearer a b"])
      assert.equal(bearerToken(value), null, String(value));
  });
});
