// Both cluster backends carry out exactly the cluster directives of the protocol's table
// (DIRECTIVES in lib/domain/agent-protocol.ts): a backend that handles a type the table lacks, or
// advertises one it does not handle, fails here (and, for a handler table, already in tsc).
import assert from "node:assert/strict";
import { test } from "node:test";
import { seededRandom } from "@/lib/agent/clock";
import type { KubeClient } from "@/lib/agent/kube/kube-client";
import { KUBE_DIRECTIVE_STEPS, KubeCluster } from "@/lib/agent/kube/kube-cluster";
import type { LogCode } from "@/lib/agent/log";
import { SIMULATED_DIRECTIVES, SimulatedBackend } from "@/lib/agent/simulator/simulated-backend";
import { SimulatedCluster } from "@/lib/agent/simulator/simulated-cluster";
import { DIRECTIVE_TYPES, DIRECTIVES, type DirectiveType } from "@/lib/domain/agent-protocol";

const clusterTypes = DIRECTIVE_TYPES.filter((t) => DIRECTIVES[t].by === "cluster").sort();

function simulated() {
  const codes: LogCode[] = [];
  const facts = SimulatedCluster.typical({ agentVersion: "1.4.0", kubernetesVersion: "1.30.2", random: seededRandom(3) });
  return { codes, backend: new SimulatedBackend(facts, (_level, code) => codes.push(code)) };
}

function kube(allowNodeActions: boolean) {
  return new KubeCluster({
    client: {} as KubeClient,
    agentVersion: "1.4.0",
    namespace: "fleet-system",
    deployment: "fleet-agent",
    allowNodeActions,
    now: () => 0,
    log: () => {},
  });
}

/** A valid directive of each type, as the control plane would send it. */
const SAMPLE: { [T in DirectiveType]: Record<string, unknown> } = {
  disconnect: { reason: "deregistration" },
  rotate: { caFingerprint: "sha256:" + "a".repeat(64) },
  upgrade: { version: "1.5.0", image: "registry.example/fleet-agent:1.5.0" },
  drain: {},
  resume: {},
  drainNodePool: { nodePool: "workers" },
};

test("each backend's handlers are the table's cluster directives, no more and no fewer", () => {
  assert.deepEqual(Object.keys(SIMULATED_DIRECTIVES).sort(), clusterTypes);
  assert.deepEqual(Object.keys(KUBE_DIRECTIVE_STEPS).sort(), clusterTypes);
  for (const [t, payload] of Object.entries(SAMPLE))
    assert.equal(DIRECTIVES[t as DirectiveType].payload.safeParse(payload).success, true, `the sample ${t} is valid`);
});

test("each backend advertises only what it handles, and handles what it advertises", () => {
  const backends = { simulated: simulated().backend, kube: kube(true), "kube without node actions": kube(false) };
  for (const [name, b] of Object.entries(backends)) {
    for (const t of b.capabilities) {
      assert.equal(DIRECTIVES[t]?.by, "cluster", `${name} advertises ${t}, which is no cluster directive of the table`);
      const handlers = b instanceof SimulatedBackend ? SIMULATED_DIRECTIVES : KUBE_DIRECTIVE_STEPS;
      assert.ok(Object.hasOwn(handlers, t), `${name} advertises ${t} without handling it`);
    }
  }
  assert.deepEqual([...backends.simulated.capabilities].sort(), clusterTypes);
  assert.deepEqual([...backends.kube.capabilities].sort(), clusterTypes);
});

test("the simulated cluster carries out every advertised directive and only ignores types the table lacks", () => {
  const { backend, codes } = simulated();
  for (const t of backend.capabilities) backend.start({ id: `d-${t}`, type: t, ...SAMPLE[t] });
  assert.ok(!codes.includes("DIRECTIVE_UNKNOWN") && !codes.includes("DIRECTIVE_INVALID"), codes.join(","));
  backend.start({ id: "x", type: "reboot" });
  assert.equal(codes.at(-1), "DIRECTIVE_UNKNOWN");
});

test("the Kubernetes cluster fails a type the table lacks with a reason, and knows every advertised one", async () => {
  const k = kube(true);
  k.start({ id: "x", type: "reboot" });
  k.start({ id: "r", type: "resume" });
  await k.progress();
  assert.deepEqual(k.ackEntries(["x", "r"]), [
    { id: "x", ok: false, reason: 'this agent does not know the directive type "reboot"' },
    "r",
  ]);
});
