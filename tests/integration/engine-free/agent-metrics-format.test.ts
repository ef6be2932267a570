// The agent's /metrics as Prometheus's own linter reads it: `promtool check metrics` (installed by
// .ci/run; on a machine without it, the unit test's grammar check in tests/unit/agent/metrics.test.ts
// is what holds).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { AgentMetrics } from "@/lib/agent/metrics";

test("promtool check metrics accepts the agent's exposition with every family populated", () => {
  let now = 1_000_000;
  const metrics = new AgentMetrics({
    now: () => now,
    version: "1.4.0",
    ready: () => true,
    lease: () => ({ held: true, holder: "fleet-agent-abc", transitions: 2 }),
  });
  const hooks = metrics.hooks();
  hooks.onRegistered!({ clusterId: "c", reregistered: false });
  hooks.onHeartbeat!({ seq: 1, latencyMs: 3, status: "ready", acks: 0 });
  hooks.onFailure!({ code: "OVERLOADED", level: "warn", message: "m", action: "retry" }, "heartbeat");
  hooks.onDirective!({ id: "d", type: "upgrade" });
  metrics.factsRead({ part: "all", durationMs: 1200, readAt: now - 5000 });
  now += 1000;
  const text = metrics.render();
  const promtool = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  if (process.env.CI) assert.ok(!promtool.error, "CI installs promtool (.ci/run)");
  if (!promtool.error) assert.equal(promtool.status, 0, promtool.stdout + promtool.stderr);
  assert.match(text, /^fleet_agent_heartbeats_total\{result="OVERLOADED"\} 1$/m);
});
