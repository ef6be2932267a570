// drainNodePool against the loopback Kubernetes API, as `kubectl drain` behaves: pods the API
// server refuses for now are asked again next round while the others carry on, pods being
// deleted are waited for, the agent's own pod goes last, a deadline fails the directive with the
// pods left, and control-plane nodes and fallback pools are never touched.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { gkeCluster, type FakeCluster, type FakeNode, type FakePod } from "../../helpers/kube-clusters";

const HIGHMEM = "gke-prod-us-highmem-5e6f7a8b-p2l1";

async function setup(cluster: FakeCluster, podName: string | null = null) {
  const h = await startKubeCluster(cluster, { allowNodeActions: true, podName, drainTimeoutMs: 600_000 });
  const evictions = () => h.api.requests.filter((r) => r.path.endsWith("/eviction")).map((r) => r.path.split("/")[6]!);
  const cordons = () => h.api.requests.filter((r) => r.method === "PATCH" && r.path.startsWith("/api/v1/nodes/"));
  return { ...h, evictions, cordons };
}

/** A copy of a GKE node under another name and labels (kubeadm control plane, unlabelled pool). */
function nodeLike(cluster: FakeCluster, name: string, labels: Record<string, string>): FakeNode {
  const template = structuredClone(cluster.nodes[0]!);
  return { ...template, metadata: { ...template.metadata, name, uid: `uid-${name}`, labels } };
}

describe("drainNodePool", () => {
  test("refused evictions are retried next round while the others go; pods being deleted are waited for; the agent's pod goes last", async () => {
    const cluster = gkeCluster();
    const search = cluster.pods.filter((p) => p.metadata.namespace === "search");
    const [pdb, twoBudgets, terminating, leaving] = search.map((p) => p.metadata.name);
    const agentPod = cluster.pods.find((p) => p.metadata.namespace === "fleet-system")!;
    agentPod.spec.nodeName = HIGHMEM;
    search[3]!.metadata.deletionTimestamp = "2026-12-02T10:00:00Z";
    const { api, kube, evictions } = await setup(cluster, agentPod.metadata.name);
    api.pdbBlocks.set(pdb!, 1);
    api.evictionFaults.set(twoBudgets!, [500, 500]);
    api.evictionFaults.set(terminating!, ["NamespaceTerminating"]);
    const left = () => api.cluster.pods.filter((p) => p.metadata.namespace === "search").map((p) => p.metadata.name);

    await kube.collect();
    kube.start({ id: "n", type: "drainNodePool", nodePool: "highmem" });
    await kube.progress();
    assert.deepEqual(
      left().sort(),
      [pdb, twoBudgets, terminating, leaving].sort(),
      "every other pod was evicted in the first round",
    );
    assert.ok(!evictions().includes(leaving!), "a pod being deleted is not evicted again");
    assert.ok(!evictions().includes(agentPod.metadata.name), "not the agent's own pod while others are left");
    assert.deepEqual(kube.ackEntries(["n"]), [], "still running");

    await kube.progress();
    assert.deepEqual(
      left().sort(),
      [twoBudgets, leaving].sort(),
      "the 429 and the 403 NamespaceTerminating went through on retry",
    );
    // The pod being deleted finishes; the one under two budgets gets through on its third try.
    api.cluster.pods.splice(api.cluster.pods.indexOf(search[3]!), 1);
    await kube.progress();
    assert.deepEqual(left(), []);
    assert.equal(evictions().filter((n) => n === twoBudgets).length, 3);
    assert.ok(!evictions().includes(agentPod.metadata.name), "an evicted pod counts as left until it is gone");
    await kube.progress();
    assert.equal(evictions().at(-1), agentPod.metadata.name, "the agent's pod is evicted last, once no other pod is left");
    assert.deepEqual(kube.ackEntries(["n"]), []);
    await kube.progress();
    assert.deepEqual(kube.ackEntries(["n"]), ["n"]);
  });

  test("past its deadline the directive fails, naming the pods left and why", async () => {
    const cluster = gkeCluster();
    const stuck = cluster.pods.find((p) => p.metadata.namespace === "search")!.metadata.name;
    const { api, kube, advance } = await setup(cluster);
    api.pdbBlocks.set(stuck, 1_000);
    await kube.collect();
    kube.start({ id: "n", type: "drainNodePool", nodePool: "highmem" });
    await kube.progress();
    assert.deepEqual(kube.ackEntries(["n"]), []);
    advance(600_000);
    await kube.progress();
    const [ack] = kube.ackEntries(["n"]) as { id: string; ok: false; reason: string }[];
    assert.equal(ack?.ok, false);
    assert.match(ack!.reason, /node pool highmem was not drained within 600 s: 1 pod\(s\) left/);
    assert.ok(ack!.reason.includes(`search/${stuck}`), ack!.reason);
    assert.match(ack!.reason, /a PodDisruptionBudget does not allow it now/);
  });

  test("as kubectl drain: a bare pod and one with emptyDir data refuse the drain, named, before anything is cordoned; force and deleteEmptyDirData allow them; DaemonSet and mirror pods stay", async () => {
    const cluster = gkeCluster();
    const statefulSet = cluster.pods.find((p) => p.metadata.namespace === "search")!;
    const pod = (name: string, extra: Partial<FakePod["metadata"]>, volumes?: FakePod["spec"]["volumes"]): FakePod => ({
      metadata: { name, namespace: "search", uid: `uid-${name}`, ...extra },
      spec: { nodeName: HIGHMEM, ...(volumes ? { volumes } : {}) },
      status: { phase: "Running" },
    });
    cluster.pods.push(
      pod("debug-shell", {}),
      pod("indexer-0", { ownerReferences: statefulSet.metadata.ownerReferences }, [{ name: "scratch", emptyDir: {} }]),
      pod(`kube-proxy-${HIGHMEM}`, { namespace: "kube-system", annotations: { "kubernetes.io/config.mirror": "3f1a" } }),
    );
    const { api, kube, cordons, evictions } = await setup(cluster);
    await kube.collect();
    kube.start({ id: "n1", type: "drainNodePool", nodePool: "highmem" });
    await kube.progress();
    const [refused] = kube.ackEntries(["n1"]) as { id: string; ok: false; reason: string }[];
    assert.equal(refused?.ok, false);
    assert.match(
      refused!.reason,
      /node pool highmem was not drained, as kubectl drain would not: 2 pod\(s\) would be lost for good/,
    );
    assert.ok(refused!.reason.includes("search/debug-shell (no controller would recreate it (force))"), refused!.reason);
    assert.ok(refused!.reason.includes("search/indexer-0 (its emptyDir data would be deleted (deleteEmptyDirData))"));
    assert.deepEqual([cordons().length, evictions().length], [0, 0], "refused before anything changed");

    // Allowing one of the two is not enough.
    kube.start({ id: "n2", type: "drainNodePool", nodePool: "highmem", force: true });
    await kube.progress();
    const [still] = kube.ackEntries(["n2"]) as { reason: string }[];
    assert.match(still!.reason, /1 pod\(s\) would be lost for good: search\/indexer-0/);

    kube.start({ id: "n3", type: "drainNodePool", payload: { nodePool: "highmem", force: true, deleteEmptyDirData: true } });
    for (let i = 0; i < 4 && kube.ackEntries(["n3"]).length === 0; i++) await kube.progress();
    assert.deepEqual(kube.ackEntries(["n3"]), ["n3"]);
    assert.ok(evictions().includes("debug-shell") && evictions().includes("indexer-0"));
    assert.ok(
      !evictions().some((n) => n.startsWith("kube-proxy-") || n.startsWith("fluentbit-gke")),
      "mirror and DaemonSet pods stay",
    );
    const left = api.cluster.pods.filter((p) => p.spec.nodeName === HIGHMEM).map((p) => p.metadata.name);
    assert.ok(left.includes(`kube-proxy-${HIGHMEM}`));
    assert.equal(
      left.filter((n) => !n.startsWith("kube-proxy-") && !n.startsWith("fluentbit-gke") && !n.startsWith("gke-metrics-agent"))
        .length,
      0,
      left.join(" "),
    );
  });

  test("control-plane nodes are a pool of their own that is never cordoned; fallback pools are refused", async () => {
    const cluster = gkeCluster();
    cluster.nodes.push(
      nodeLike(cluster, "cp-1", { "node-role.kubernetes.io/control-plane": "", "node.kubernetes.io/instance-type": "m5.large" }),
      nodeLike(cluster, "cp-2", { "node-role.kubernetes.io/master": "", "cloud.google.com/gke-nodepool": "highmem" }),
      nodeLike(cluster, "bare-1", { "node.kubernetes.io/instance-type": "c5.large" }),
      nodeLike(cluster, "bare-2", {}),
    );
    const { kube, cordons, evictions } = await setup(cluster);
    const facts = await kube.collect();
    assert.deepEqual(
      facts.nodePools!.map((p) => [p.name, p.nodeCount]),
      [
        ["c5.large", 1],
        ["control-plane", 2],
        ["default", 1],
        ["default-pool", 3],
        ["highmem", 2],
      ],
      "the master-labelled node is not in the highmem pool",
    );
    for (const pool of ["control-plane", "c5.large", "default"]) kube.start({ id: pool, type: "drainNodePool", nodePool: pool });
    await kube.progress();
    const acks = kube.ackEntries(["control-plane", "c5.large", "default"]) as { id: string; reason: string }[];
    assert.deepEqual(
      acks.map((a) => a.reason),
      [
        "control-plane nodes are never cordoned or drained by the agent",
        `"c5.large" is not a node pool of the cloud but the agent's grouping of nodes without a node-pool label (by instance type, else "default"): the agent drains only labelled pools`,
        `"default" is not a node pool of the cloud but the agent's grouping of nodes without a node-pool label (by instance type, else "default"): the agent drains only labelled pools`,
      ],
    );
    kube.start({ id: "h", type: "drainNodePool", nodePool: "highmem" });
    await kube.progress();
    assert.deepEqual(
      cordons().map((r) => r.path),
      ["/api/v1/nodes/gke-prod-us-highmem-5e6f7a8b-p2l1", "/api/v1/nodes/gke-prod-us-highmem-5e6f7a8b-r8t6"],
      "only the labelled pool's nodes, never cp-2",
    );
    assert.ok(evictions().length > 0);
  });
});
