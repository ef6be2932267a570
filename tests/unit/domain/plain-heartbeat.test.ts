import { test } from "node:test";
import assert from "node:assert/strict";
import { heartbeatRequestSchema, plainHeartbeat } from "@/lib/domain/agent-protocol";

// plainHeartbeat must give exactly what the schema gives (same values, same key order, since the
// writer hashes the node pools as JSON), or null; never accept what the schema refuses.
// Pure computation on a few hundred bodies: well under a second.

const base = {
  agentVersion: "1.4.0",
  kubernetesVersion: "v1.30.2",
  nodePools: [
    { name: "system", nodeCount: 3, readyNodes: 3, kubeletVersion: "v1.30.2" },
    {
      name: "workers",
      nodeCount: 12,
      readyNodes: 12,
      kubeletVersion: "1.30.2",
      instanceType: "c6i.2xlarge",
      cpuCores: 96,
      memoryGiB: 192,
    },
  ],
  workloads: { pods: 420, namespaces: 31, userPods: 12 },
  capabilities: ["rotate", "drain"],
  health: { apiServer: "ok", logs: true, metrics: false },
  policy: { appliedRevision: "rev-7" },
  acks: ["d1", "d2"],
};

type Body = Record<string, unknown>;
const variants: [string, (b: Body) => unknown][] = [
  ["as is", (b) => b],
  ["minimal", (b) => ({ agentVersion: b.agentVersion, kubernetesVersion: "1.29.0", health: b.health })],
  ["keys in another order", (b) => Object.fromEntries(Object.entries(b).reverse())],
  [
    "pool keys in another order",
    (b) => ({ ...b, nodePools: [{ readyNodes: 1, kubeletVersion: "v1.2.3", nodeCount: 1, name: "p" }] }),
  ],
  ["unknown key", (b) => ({ ...b, extra: 1 })],
  ["no facts read yet", (b) => ({ agentVersion: b.agentVersion, acks: [] })],
  ["health without logs and metrics", (b) => ({ ...b, health: { apiServer: "degraded" } })],
  ["facts with their ages", (b) => ({ ...b, factAges: { nodePools: 3, pods: 120, apiServer: 0 } })],
  ["an age of an unknown part", (b) => ({ ...b, factAges: { nodes: 3 } })],
  ["unknown pool key", (b) => ({ ...b, nodePools: [{ name: "p", nodeCount: 1, readyNodes: 1, zone: "a" }] })],
  [
    "duplicate pool names",
    (b) => ({
      ...b,
      nodePools: [
        { name: "p", nodeCount: 1, readyNodes: 1 },
        { name: "p", nodeCount: 2, readyNodes: 2 },
      ],
    }),
  ],
  ["empty pool name", (b) => ({ ...b, nodePools: [{ name: "", nodeCount: 1, readyNodes: 1 }] })],
  ["long pool name", (b) => ({ ...b, nodePools: [{ name: "x".repeat(64), nodeCount: 1, readyNodes: 1 }] })],
  ["fractional count", (b) => ({ ...b, workloads: { pods: 1.5, namespaces: 1 } })],
  ["negative count", (b) => ({ ...b, workloads: { pods: -1, namespaces: 1 } })],
  ["count too large", (b) => ({ ...b, workloads: { pods: 1_000_001, namespaces: 1 } })],
  ["count as string", (b) => ({ ...b, workloads: { pods: "1", namespaces: 1 } })],
  ["no namespaces", (b) => ({ ...b, workloads: { pods: 1 } })],
  ["bad semver", (b) => ({ ...b, agentVersion: "1.4" })],
  ["agent version with v", (b) => ({ ...b, agentVersion: "v1.4.0" })],
  ["bad kubernetes version", (b) => ({ ...b, kubernetesVersion: "vv1.2.3" })],
  ["long version", (b) => ({ ...b, agentVersion: `1.2.3-${"a".repeat(60)}` })],
  ["prerelease version", (b) => ({ ...b, agentVersion: "1.2.3-rc.1+build.5" })],
  ["bad health", (b) => ({ ...b, health: { apiServer: "fine", logs: true, metrics: true } })],
  ["health as string", (b) => ({ ...b, health: "ok" })],
  ["no health", (b) => ({ ...b, health: undefined })],
  ["logs not boolean", (b) => ({ ...b, health: { apiServer: "down", logs: 1, metrics: true } })],
  ["null policy revision", (b) => ({ ...b, policy: { appliedRevision: null } })],
  ["policy without revision", (b) => ({ ...b, policy: {} })],
  ["null acks", (b) => ({ ...b, acks: null })],
  ["null pools", (b) => ({ ...b, nodePools: null })],
  ["empty ack", (b) => ({ ...b, acks: [""] })],
  ["ack with reason", (b) => ({ ...b, acks: [{ id: "d1", ok: false, reason: "  no room  " }] })],
  ["too many acks", (b) => ({ ...b, acks: Array.from({ length: 101 }, (_, i) => `d${i}`) })],
  ["too many capabilities", (b) => ({ ...b, capabilities: Array.from({ length: 51 }, (_, i) => `c${i}`) })],
  ["empty capability", (b) => ({ ...b, capabilities: [""] })],
  [
    "too many pools",
    (b) => ({ ...b, nodePools: Array.from({ length: 201 }, (_, i) => ({ name: `p${i}`, nodeCount: 1, readyNodes: 1 })) }),
  ],
  ["negative cores", (b) => ({ ...b, nodePools: [{ name: "p", nodeCount: 1, readyNodes: 1, cpuCores: -1 }] })],
  ["fractional cores", (b) => ({ ...b, nodePools: [{ name: "p", nodeCount: 1, readyNodes: 1, cpuCores: 0.5, memoryGiB: 1.5 }] })],
  [
    "long instance type",
    (b) => ({ ...b, nodePools: [{ name: "p", nodeCount: 1, readyNodes: 1, instanceType: "x".repeat(101) }] }),
  ],
  ["cluster UID", (b) => ({ ...b, clusterUid: "4F3A9C1E-2B7D-4E8A-9C0B-1D2E3F4A5B6C" })],
  ["empty cluster UID", (b) => ({ ...b, clusterUid: "" })],
  ["cluster UID with a slash", (b) => ({ ...b, clusterUid: "kube/system" })],
  ["cluster UID too long", (b) => ({ ...b, clusterUid: "a".repeat(65) })],
  ["lease", (b) => ({ ...b, lease: { holder: "fleet-agent-7d9f-abcde", transitions: 3, createdAt: "2026-12-06T08:00:00Z" } })],
  [
    "lease keys in another order",
    (b) => ({ ...b, lease: { createdAt: "2026-12-06T08:00:00.5+01:00", transitions: 0, holder: "p" } }),
  ],
  ["lease without createdAt", (b) => ({ ...b, lease: { holder: "p", transitions: 1 } })],
  ["lease with a bad time", (b) => ({ ...b, lease: { holder: "p", transitions: 1, createdAt: "yesterday" } })],
  ["lease with negative transitions", (b) => ({ ...b, lease: { holder: "p", transitions: -1 } })],
  ["lease with an empty holder", (b) => ({ ...b, lease: { holder: "", transitions: 1 } })],
  ["lease with an unknown key", (b) => ({ ...b, lease: { holder: "p", transitions: 1, renewTime: "x" } })],
  ["array body", () => [base]],
  ["null body", () => null],
  [
    "__proto__ key",
    () =>
      JSON.parse(
        `{"__proto__": {"x": 1}, "agentVersion": "1.0.0", "kubernetesVersion": "1.0.0", "health": {"apiServer": "ok", "logs": true, "metrics": true}}`,
      ),
  ],
];

test("plainHeartbeat gives exactly the schema's result or leaves the body to the schema", () => {
  let plain = 0;
  for (const [name, make] of variants) {
    const body: unknown = JSON.parse(JSON.stringify(make(structuredClone(base) as Body)) ?? "null");
    const parsed = heartbeatRequestSchema.safeParse(body);
    const fast = plainHeartbeat(body);
    if (fast === null) continue;
    plain++;
    assert.ok(parsed.success, `${name}: accepted by the plain check, refused by the schema`);
    assert.equal(JSON.stringify(fast), JSON.stringify(parsed.data), `${name}: differs from the schema's result`);
    assert.deepEqual(fast, parsed.data, name);
  }
  // The common shapes take the plain path (else it would be pointless).
  assert.ok(plain >= 6, `only ${plain} bodies took the plain path`);
  assert.notEqual(plainHeartbeat(JSON.parse(JSON.stringify(base))), null);
});

test("a failed ack keeps a known code (gitops_managed) and drops one this server does not know", () => {
  const body = (code: string) => ({
    agentVersion: "1.4.0",
    health: { apiServer: "ok", logs: false, metrics: false },
    acks: [{ id: "u", ok: false, reason: "upgrade through your repository: image a:1.5.0", code }],
  });
  assert.equal(plainHeartbeat(body("gitops_managed")), null, "acks with a reason are the schema's");
  assert.deepEqual(heartbeatRequestSchema.parse(body("gitops_managed")).acks, [
    { id: "u", ok: false, reason: "upgrade through your repository: image a:1.5.0", code: "gitops_managed" },
  ]);
  assert.deepEqual(heartbeatRequestSchema.parse(body("from_the_future")).acks, [
    { id: "u", ok: false, reason: "upgrade through your repository: image a:1.5.0" },
  ]);
});
