// The simulated cluster behind an agent without a real one: the directive effects that used to
// live in the agent, now a ClusterBackend like the Kubernetes one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { seededRandom } from "@/lib/agent/clock";
import type { LogCode } from "@/lib/agent/log";
import { SimulatedBackend } from "@/lib/agent/simulator/simulated-backend";
import { SimulatedCluster, UPGRADE_STEPS } from "@/lib/agent/simulator/simulated-cluster";

function backend() {
  const codes: LogCode[] = [];
  const facts = SimulatedCluster.typical({ agentVersion: "1.4.0", kubernetesVersion: "1.30.2", random: seededRandom(7) });
  return { codes, facts, backend: new SimulatedBackend(facts, (_level, code) => codes.push(code)) };
}

test("it reports every cluster directive (the agent adds its own); every ack goes out at once", () => {
  const { backend: b } = backend();
  assert.equal(b.pace, "heartbeat");
  assert.deepEqual(b.capabilities, ["upgrade", "drain", "resume", "drainNodePool"]);
  assert.deepEqual(b.ackEntries(["a", "b"]), ["a", "b"]);
});

test("an upgrade (Kubernetes' leading v allowed) is reported after its steps; an invalid one is ignored", async () => {
  const { backend: b, codes, facts } = backend();
  b.start({ id: "u0", type: "upgrade", version: "latest" });
  assert.deepEqual(codes, ["DIRECTIVE_INVALID"]);
  b.start({ id: "u1", type: "upgrade", payload: { component: "kubernetes", version: "v1.31.0" } });
  assert.equal(codes.at(-1), "UPGRADE_STARTED");
  for (let i = 0; i < UPGRADE_STEPS; i++) await b.progress();
  assert.equal(codes.at(-1), "UPGRADE_COMPLETE");
  assert.equal(b.report().kubernetesVersion, "1.31.0");
  assert.equal(facts.agentVersion, "1.4.0", "a Kubernetes upgrade leaves the agent's version");
});

test("drainNodePool names a pool of the cluster; unknown directive types are acknowledged and ignored", () => {
  const { backend: b, codes } = backend();
  b.start({ id: "p0", type: "drainNodePool", nodePool: "nope" });
  b.start({ id: "p1", type: "drainNodePool", nodePool: "workers" });
  b.start({ id: "x", type: "reticulate" });
  assert.deepEqual(codes, ["DIRECTIVE_INVALID", "NODE_POOL_DRAIN", "DIRECTIVE_UNKNOWN"]);
});

test("resume ends a drain: the workloads come back", async () => {
  const { backend: b, codes, facts } = backend();
  const pods = facts.workloads.pods;
  b.start({ id: "d", type: "drain" });
  for (let i = 0; i < 20; i++) await b.progress();
  assert.equal(facts.workloads.pods, 0);
  b.start({ id: "r", type: "resume" });
  for (let i = 0; i < 20; i++) await b.progress();
  assert.ok(facts.workloads.pods > pods / 2, `${facts.workloads.pods} of ${pods} pods back`);
  assert.deepEqual(
    codes.filter((c) => c.startsWith("DRAIN")),
    ["DRAIN", "DRAIN_COMPLETE", "DRAIN_CANCELLED"],
  );
});

test("the versions recorded with the registration survive a restart; an empty one is not a version", () => {
  const { backend: b } = backend();
  b.restore({ agentVersion: "1.5.0", kubernetesVersion: "" });
  assert.equal(b.report().agentVersion, "1.5.0");
  assert.equal(b.report().kubernetesVersion, "1.30.2");
});
