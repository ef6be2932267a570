// The facts of a big, busy cluster against the loopback Kubernetes API: each part kept as soon as
// it is read (a round stopped at its deadline keeps what it read), the pod count going on next
// round from its continue token (from the start again once the token expired), nodes listed once
// and then watched, more node pools than a heartbeat may carry folded into "other", and a
// drainNodePool seen before the nodes were read waiting for them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { heartbeatRequestSchema } from "@/lib/domain/agent-protocol";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { aksCluster, bigCluster, gkeCluster } from "../../helpers/kube-clusters";
import { until } from "../../helpers/until";

describe("facts part by part", () => {
  test("a round stopped mid pod count keeps the parts it read; the next round counts on from the continue token", async () => {
    const { api, kube } = await startKubeCluster(bigCluster(20, 6_000));
    const podPages = () => api.requests.filter((r) => r.path === "/api/v1/pods");
    const deadline = new AbortController();
    api.onRequest = (r) => {
      if (r.path === "/api/v1/pods" && podPages().length === 5) deadline.abort(new Error("the round's deadline"));
    };
    const first = await kube.collect(deadline.signal);
    assert.equal(first.kubernetesVersion, "1.31.2");
    assert.equal(
      first.nodePools?.reduce((n, p) => n + p.nodeCount, 0),
      20,
      "nodes within the round",
    );
    assert.equal(first.workloads, undefined, "pods not counted yet: not yet read, never 0");
    assert.equal(first.health?.apiServer, "ok");
    assert.equal(typeof first.factAges?.nodePools, "number");
    assert.equal(first.factAges?.pods, undefined);

    api.onRequest = null;
    const second = await kube.collect();
    assert.equal(second.workloads?.pods, 6_000, "every pod counted once, across the two rounds");
    const pages = podPages();
    assert.ok(pages[5]!.query.continue);
    assert.equal(pages[5]!.query.continue, pages[4]!.query.continue, "round two starts where round one stopped");
    assert.equal(pages.filter((r) => !r.query.continue).length, 1, "the count never started over");
    assert.ok(heartbeatRequestSchema.safeParse({ ...first, acks: [] }).success, "a partial report is a valid heartbeat");
  });

  test("a continue token expired between rounds (410): the count starts over and still finishes", async () => {
    const { api, kube } = await startKubeCluster(bigCluster(10, 3_000));
    const deadline = new AbortController();
    api.onRequest = (r) => {
      if (r.path === "/api/v1/pods" && r.query.continue) deadline.abort(new Error("the round's deadline"));
    };
    assert.equal((await kube.collect(deadline.signal)).workloads, undefined);
    api.onRequest = null;
    api.expireContinue = 1;
    const facts = await kube.collect();
    assert.equal(facts.workloads?.pods, 3_000, "nothing counted twice after the restart");
  });

  test("nodes are listed once, then watched: a change arrives without another list; a watch gone (410) lists again", async () => {
    const { api, kube } = await startKubeCluster(aksCluster());
    const nodeLists = () => api.requests.filter((r) => r.path === "/api/v1/nodes" && !r.query.watch).length;
    const first = await kube.collect();
    const ready = (f: typeof first) => f.nodePools!.reduce((n, p) => n + p.readyNodes, 0);
    const lists = nodeLists();
    await until("the watch is open", async () => api.nodeWatches === 1);
    const name = api.cluster.nodes[0]!.metadata.name;
    api.updateNode(name, (n) => (n.spec.unschedulable = true));
    await until("the cordon seen through the watch", async () => ready(await kube.collect()) === ready(first) - 1);
    assert.equal(nodeLists(), lists, "no list while the watch runs");
    const watch = api.requests.find((r) => r.query.watch)!;
    assert.equal(watch.query.allowWatchBookmarks, "true");

    api.expireNodeWatches();
    await until("the watch ended", async () => api.nodeWatches === 0);
    await new Promise((r) => setTimeout(r, 50));
    await kube.collect();
    assert.equal(nodeLists(), lists + 1, "listed again once the watch was gone");
  });

  test("more node pools than a heartbeat may carry: the largest, and one 'other' with the rest's totals, said once", async () => {
    const cluster = aksCluster();
    const template = cluster.nodes.find((n) => n.metadata.labels["kubernetes.azure.com/agentpool"])!;
    const inPool = (name: string, pool: string) => {
      const n = structuredClone(template);
      n.metadata.name = name;
      n.metadata.labels = { ...n.metadata.labels, "kubernetes.azure.com/agentpool": pool, agentpool: pool };
      delete n.metadata.labels["node-role.kubernetes.io/control-plane"];
      return n;
    };
    cluster.nodes = [...Array.from({ length: 205 }, (_, i) => inPool(`node-${i}`, `pool${i}`)), inPool("node-x", "pool7")];
    const { kube, logs } = await startKubeCluster(cluster);
    const facts = await kube.collect();
    await kube.collect();
    assert.equal(facts.nodePools!.length, 200);
    assert.equal(facts.nodePools![0]!.name, "pool7", "the largest first");
    const other = facts.nodePools!.find((p) => p.name === "other")!;
    assert.equal(other.nodeCount, 6, "the six smallest pools' nodes");
    assert.equal(
      facts.nodePools!.reduce((n, p) => n + p.nodeCount, 0),
      206,
      "every node counted",
    );
    assert.ok(heartbeatRequestSchema.safeParse({ ...facts, acks: [] }).success, "within the protocol's limit");
    assert.equal(logs.filter((l) => l.includes("NODE_POOLS_FOLDED")).length, 1, "said once");
  });

  test("a drainNodePool seen before the nodes were read waits for them, then drains", async () => {
    const h = await startKubeCluster(gkeCluster(), { allowNodeActions: true, drainTimeoutMs: 600_000 });
    const pool = "highmem";
    h.kube.start({ id: "np", type: "drainNodePool", nodePool: pool });
    await h.kube.progress();
    assert.deepEqual(h.kube.ackEntries(["np"]), [], "held back, not failed");
    await h.kube.collect();
    await h.kube.progress();
    const cordons = h.api.requests.filter((r) => r.method === "PATCH" && r.path.startsWith("/api/v1/nodes/"));
    assert.ok(cordons.length > 0, "the pool's nodes cordoned once the nodes were read");

    const late = await startKubeCluster(gkeCluster(), { allowNodeActions: true, drainTimeoutMs: 60_000 });
    late.kube.start({ id: "np2", type: "drainNodePool", nodePool: pool });
    late.advance(61_000);
    await late.kube.progress();
    assert.match(String((late.kube.ackEntries(["np2"])[0] as { reason: string }).reason), /nodes could not be read within 60 s/);
  });
});
