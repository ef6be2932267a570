import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  apiServerHealth,
  capNodePools,
  countPods,
  factsFromCluster,
  isLogCollector,
  kubernetesVersionOf,
  nodePoolOf,
  slimNode,
  type ClusterObjects,
} from "@/lib/agent/kube/facts-from-cluster";
import { parseQuantity } from "@/lib/agent/kube/quantity";
import { aksCluster, bigCluster, eksCluster, gkeCluster, type FakeCluster } from "../../helpers/kube-clusters";

const AVAILABLE = { status: { conditions: [{ type: "Available", status: "True" }] } };

function objects(c: FakeCluster, overrides: Partial<ClusterObjects> = {}): ClusterObjects {
  return {
    gitVersion: c.gitVersion,
    nodes: c.nodes,
    namespaces: c.namespaces.length,
    pods: countPods(c.pods, "fleet-system"),
    daemonSets: c.daemonSets,
    metricsApiService: c.metrics ? AVAILABLE : null,
    readyz: { status: 200, latencyMs: 12 },
    ...overrides,
  };
}

describe("quantities", () => {
  test("CPU and memory as the providers report them", () => {
    assert.equal(parseQuantity("3920m"), 3.92);
    assert.equal(parseQuantity("4"), 4);
    assert.equal(parseQuantity("15Gi"), 15 * 2 ** 30);
    assert.equal(parseQuantity("16154640Ki"), 16154640 * 1024);
    assert.equal(parseQuantity("128974848"), 128974848);
    assert.equal(parseQuantity("129e6"), 129e6);
    assert.equal(parseQuantity("1.5G"), 1.5e9);
    assert.equal(parseQuantity("123Mi"), 123 * 2 ** 20);
    assert.equal(parseQuantity("500u"), 0.0005);
    assert.equal(parseQuantity("lots"), null);
    assert.equal(parseQuantity("12Xi"), null);
    assert.equal(parseQuantity(undefined), null);
  });
});

describe("facts from a cluster's API objects", () => {
  test("versions: the provider suffix is dropped", () => {
    assert.equal(kubernetesVersionOf("v1.31.4-eks-2d5f260"), "1.31.4");
    assert.equal(kubernetesVersionOf("v1.30.5-gke.1014001"), "1.30.5");
    assert.equal(kubernetesVersionOf("v1.29.9"), "1.29.9");
    assert.equal(kubernetesVersionOf("v1.28.3+k3s1"), "1.28.3");
    assert.equal(kubernetesVersionOf("devel"), null);
  });

  test("EKS: node groups, cordoned and NotReady nodes are not ready, the lowest kubelet, allocatable summed", () => {
    const facts = factsFromCluster(objects(eksCluster()), "1.5.0");
    assert.equal(facts.kubernetesVersion, "1.31.4");
    assert.equal(facts.agentVersion, "1.5.0");
    assert.deepEqual(facts.nodePools, [
      {
        name: "apps",
        nodeCount: 4,
        readyNodes: 2,
        kubeletVersion: "1.30.8",
        instanceType: "m5.xlarge",
        cpuCores: 15.68,
        memoryGiB: 57.7,
      },
      {
        name: "system",
        nodeCount: 2,
        readyNodes: 2,
        kubeletVersion: "1.31.4",
        instanceType: "m5.large",
        cpuCores: 3.86,
        memoryGiB: 13.8,
      },
    ]);
    // 3 Succeeded and 1 Failed job pods are not counted; DaemonSets, kube-system and the agent are not user pods.
    assert.deepEqual(facts.workloads, { pods: 39, namespaces: 8, userPods: 17 });
    assert.deepEqual(facts.health, { apiServer: "ok", logs: true, metrics: true });
  });

  test("GKE: node pools by gke-nodepool; a logging agent named fluentbit; no metrics APIService", () => {
    const facts = factsFromCluster(objects(gkeCluster()), "1.5.0");
    assert.equal(facts.kubernetesVersion, "1.30.5");
    assert.deepEqual(
      facts.nodePools.map((p) => [p.name, p.nodeCount, p.readyNodes, p.instanceType, p.cpuCores, p.memoryGiB]),
      [
        ["default-pool", 3, 3, "e2-standard-4", 11.76, 39.2],
        ["highmem", 2, 2, "n2-highmem-8", 15.82, 114.6],
      ],
    );
    assert.deepEqual(facts.workloads, { pods: 35, namespaces: 8, userPods: 24 });
    assert.deepEqual(facts.health, { apiServer: "ok", logs: true, metrics: false });
  });

  test("AKS: kubernetes.azure.com/agentpool before the old agentpool label; no log collector", () => {
    const facts = factsFromCluster(objects(aksCluster()), "1.5.0");
    assert.deepEqual(
      facts.nodePools.map((p) => [p.name, p.nodeCount, p.instanceType, p.cpuCores, p.memoryGiB]),
      [
        ["system", 2, "Standard_D4s_v5", 7.72, 24.6],
        ["user", 1, "Standard_E8s_v5", 7.82, 57],
      ],
    );
    assert.deepEqual(facts.workloads, { pods: 12, namespaces: 6, userPods: 8 });
    assert.equal(facts.health.logs, false);
  });

  test("pool label order: managed groups, then Karpenter, then instance type, else default", () => {
    const n = (labels: Record<string, string>) => ({ metadata: { name: "n", labels } });
    assert.equal(nodePoolOf(n({ "karpenter.sh/nodepool": "spot", "eks.amazonaws.com/nodegroup": "ng-1" })), "ng-1");
    assert.equal(nodePoolOf(n({ "karpenter.sh/nodepool": "spot", "node.kubernetes.io/instance-type": "m5.large" })), "spot");
    assert.equal(nodePoolOf(n({ "node.kubernetes.io/instance-type": "m5.large" })), "m5.large");
    assert.equal(nodePoolOf(n({})), "default");
  });

  test("health: /readyz 5xx or slow is degraded, no answer is down; metrics only when Available", () => {
    assert.equal(apiServerHealth({ status: 200, latencyMs: 40 }), "ok");
    assert.equal(apiServerHealth({ status: 500, latencyMs: 40 }), "degraded");
    assert.equal(apiServerHealth({ status: 200, latencyMs: 5_000 }), "degraded");
    assert.equal(apiServerHealth({ error: "ECONNREFUSED" }), "down");
    assert.equal(apiServerHealth({ error: "no answer within 15000 ms", timedOut: true }), "degraded", "slow, not gone");
    const unavailable = { status: { conditions: [{ type: "Available", status: "False" }] } };
    const facts = factsFromCluster(objects(eksCluster(), { metricsApiService: unavailable }), "1.5.0");
    assert.equal(facts.health.metrics, false);
  });

  test("logs: a collector DaemonSet with no pod ready does not count", () => {
    const ds = { metadata: { name: "vector-agent" }, status: { numberReady: 0 } };
    assert.equal(isLogCollector(ds), false);
    assert.equal(isLogCollector({ ...ds, status: { numberReady: 2 } }), true);
    assert.equal(
      isLogCollector({
        metadata: { name: "collector", labels: { "app.kubernetes.io/name": "opentelemetry-collector" } },
        status: { numberReady: 1 },
      }),
      true,
    );
    assert.equal(isLogCollector({ metadata: { name: "node-exporter" }, status: { numberReady: 3 } }), false);
  });

  test("pods as metadata only (no status) all count: the list asks the API for non-terminal pods", () => {
    const metadataOnly = eksCluster()
      .pods.filter((p) => p.status.phase === "Running")
      .map((p) => ({ metadata: p.metadata }));
    assert.deepEqual(countPods(metadataOnly, "fleet-system"), { pods: 39, userPods: 17 });
  });

  test("a node is kept as the fields read (a few hundred bytes of its ~20 KB), with the same facts", () => {
    for (const cluster of [eksCluster(), gkeCluster(), aksCluster(), bigCluster(30, 10)]) {
      const slim = cluster.nodes.map(slimNode);
      assert.deepEqual(factsFromCluster(objects(cluster, { nodes: slim }), "1.5.0"), factsFromCluster(objects(cluster), "1.5.0"));
    }
    const full = bigCluster(1, 0).nodes[0]!;
    const slim = slimNode(full);
    assert.deepEqual(Object.keys(slim.status!), ["conditions", "nodeInfo", "allocatable", "capacity"]);
    assert.ok(JSON.stringify(full).length > 19_000);
    assert.ok(JSON.stringify(slim).length < 800, JSON.stringify(slim));
    const cordoned = eksCluster().nodes.find((n) => n.spec.unschedulable)!;
    assert.deepEqual(slimNode(cordoned).spec, { unschedulable: true });
  });

  test("platform namespaces (OpenShift, GKE, Calico, Rancher, Gatekeeper) hold no user pods; --system-namespaces adds more", () => {
    const pod = (namespace: string) => ({ metadata: { name: `p-${namespace}`, namespace } });
    const platform = [
      "openshift-monitoring",
      "openshift-ingress",
      "gke-managed-system",
      "gmp-system",
      "calico-system",
      "tigera-operator",
      "cattle-system",
      "cattle-fleet-system",
      "gatekeeper-system",
      "kube-system",
    ].map(pod);
    assert.deepEqual(countPods(platform, "fleet-system"), { pods: 10, userPods: 0 });
    const teams = ["openshift", "shop", "calico-system-extra", "acme-platform-logs", "ops"].map(pod);
    assert.deepEqual(countPods(teams, "fleet-system"), { pods: 5, userPods: 5 }, "only whole names or the listed prefixes");
    assert.deepEqual(countPods(teams, "fleet-system", undefined, ["acme-platform-", "ops"]), { pods: 5, userPods: 3 });
  });
});

describe("node pools beyond the protocol's limit", () => {
  const pool = (name: string, nodes: number, kubelet = "1.31.2") => ({
    name,
    nodeCount: nodes,
    readyNodes: nodes - 1,
    kubeletVersion: kubelet,
    instanceType: "m6i.large",
    cpuCores: 2 * nodes,
    memoryGiB: 8 * nodes,
  });

  test("within the limit: as read", () => {
    const pools = [pool("a", 1), pool("b", 2)];
    assert.deepEqual(capNodePools(pools, 3), { pools, folded: 0 });
  });

  test("beyond it: the largest, then 'other' with the totals and the oldest kubelet of the rest; a pool named other is folded", () => {
    const pools = [pool("small", 1, "1.29.0"), pool("big", 9), pool("other", 3), pool("mid", 5), pool("tiny", 1)];
    const { pools: capped, folded } = capNodePools(pools, 3);
    assert.equal(folded, 3);
    assert.deepEqual(
      capped.map((p) => p.name),
      ["big", "mid", "other"],
    );
    assert.deepEqual(capped[2], {
      name: "other",
      nodeCount: 5,
      readyNodes: 2,
      kubeletVersion: "1.29.0",
      cpuCores: 10,
      memoryGiB: 40,
    });
  });
});
