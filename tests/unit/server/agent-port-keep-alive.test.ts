// The agent port's keep-alive follows the heartbeat interval (lib/server/agent-port/agent-server.ts):
// an agent's next heartbeat, jitter included, always finds its connection open, within bounds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { agentKeepAliveMs } from "@/lib/server/agent-port/agent-server";
import { jitteredInterval } from "@/lib/agent/backoff";

test("keep-alive outlasts the longest jittered gap between heartbeats, at least 65 s, at most 10 min", () => {
  assert.equal(agentKeepAliveMs(10), 65_000, "default-ish intervals: longer than load balancers' 60 s");
  assert.equal(agentKeepAliveMs(15), 65_000);
  for (const seconds of [1, 10, 15, 30, 60, 120, 300, 450]) {
    const longestGap = jitteredInterval(seconds, () => 1);
    assert.ok(
      agentKeepAliveMs(seconds) > longestGap + 5_000,
      `${seconds} s: ${agentKeepAliveMs(seconds)} ms vs ${longestGap} ms`,
    );
  }
  assert.equal(agentKeepAliveMs(120), 165_000);
  assert.equal(
    agentKeepAliveMs(3_600),
    600_000,
    "capped: a resumed handshake per heartbeat is cheaper than idle sockets for an hour",
  );
});
