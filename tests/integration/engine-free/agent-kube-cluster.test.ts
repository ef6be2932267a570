// KubeCluster against the loopback Kubernetes API in-process: how often pods are recounted, the
// capabilities it reports, directives acknowledged only once done (failed ones with a reason).
// The agent's own upgrade: agent-self-upgrade.test.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BIG_RECOUNT_MS } from "@/lib/agent/kube/kube-cluster";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { aksCluster, bigCluster, type FakeCluster } from "../../helpers/kube-clusters";

async function setup(cluster: FakeCluster, allowNodeActions = false, maxPage?: number) {
  const h = await startKubeCluster(cluster, { allowNodeActions, maxPage });
  const podLists = () => h.api.requests.filter((r) => r.path === "/api/v1/pods").length;
  return { ...h, podLists };
}

describe("KubeCluster", () => {
  test("a small cluster is recounted every heartbeat; a big one only every few minutes, and every minute while draining", async () => {
    const small = await setup(aksCluster());
    await small.kube.collect();
    await small.kube.collect();
    assert.equal(small.podLists(), 2);

    const big = await setup(bigCluster(20, 6_000));
    await big.kube.collect();
    const first = big.podLists();
    assert.equal(first, 12, "6,000 pods in pages of 500");
    big.advance(30_000);
    await big.kube.collect();
    assert.equal(big.podLists(), first, "not recounted 30 s later");
    big.advance(BIG_RECOUNT_MS);
    await big.kube.collect();
    assert.equal(big.podLists(), 2 * first, "recounted after the interval");
    big.kube.start({ id: "d1", type: "drain" });
    big.advance(61_000);
    await big.kube.collect();
    assert.equal(big.podLists(), 3 * first, "recounted each minute while a drain waits for user pods");
  });

  test("capabilities follow --allow-node-actions; a directive it cannot carry out is a failed ack with a reason", async () => {
    const { kube } = await setup(aksCluster());
    assert.deepEqual(kube.capabilities, ["upgrade", "drain", "resume"]);
    await kube.collect();
    kube.start({ id: "n1", type: "drainNodePool", nodePool: "user" });
    kube.start({ id: "u1", type: "upgrade", version: "1.5.0" });
    kube.start({ id: "x1", type: "reboot" });
    kube.start({ id: "dr", type: "drain" });
    await kube.progress();
    assert.deepEqual(kube.ackEntries(["n1", "u1", "x1", "dr", "other"]), [
      {
        id: "n1",
        ok: false,
        reason:
          "node actions are off on this agent: run it with --allow-node-actions and the fleet-agent-node-actions ClusterRole",
      },
      { id: "u1", ok: false, reason: "the upgrade directive names no image" },
      { id: "x1", ok: false, reason: 'this agent does not know the directive type "reboot"' },
      // drain is held back (8 user pods left); ids it does not track are plain acks
      "other",
    ]);
    const withActions = await setup(aksCluster(), true);
    assert.ok(withActions.kube.capabilities.includes("drainNodePool"));
    await withActions.kube.collect();
    withActions.kube.start({ id: "n2", type: "drainNodePool", nodePool: "nope" });
    await withActions.kube.progress();
    assert.deepEqual(withActions.kube.ackEntries(["n2"]), [
      { id: "n2", ok: false, reason: 'this cluster has no node pool named "nope"' },
    ]);
  });

  test("a continue token that expired (410) restarts the list once", async () => {
    const { api, kube } = await setup(aksCluster(), false, 2);
    const expected = await kube.collect();
    assert.equal(expected.health?.apiServer, "ok");
    const before = api.requests.length;
    api.expireContinue = 1;
    const restarted = await kube.collect();
    assert.deepEqual(restarted, expected, "the same facts: nothing counted twice, nothing lost");
    const lists = api.requests.slice(before).filter((r) => r.path === "/api/v1/namespaces");
    assert.deepEqual(
      lists.map((r) => r.query.continue ?? ""),
      ["", lists[1]!.query.continue, "", lists[3]!.query.continue, lists[4]!.query.continue],
      "the namespaces list: first page, an expired continue, then from the start again",
    );
    assert.ok(lists[1]!.query.continue);
  });

  test("a list that fails while /readyz is fine: that part as last read, the others anew, and the API server ok", async () => {
    const { api, kube, logs } = await setup(aksCluster(), false, 2);
    const expected = await kube.collect();
    // Expired again on the restart: the namespaces list fails.
    api.cluster.gitVersion = "v1.32.0";
    api.cluster.namespaces.push("new-team");
    api.expireContinue = 2;
    const failed = await kube.collect();
    assert.deepEqual(
      failed,
      { ...expected, kubernetesVersion: "1.32.0" },
      "the last namespace count, with the API server ok as /readyz says",
    );
    assert.ok(
      logs.some((l) => /^warn KUBE_API_ERROR .*namespaces: listNamespaces .*410/.test(l)),
      logs.join("\n"),
    );
  });

  test("clusterUid: the kube-system namespace's UID, read once; when RBAC forbids it the facts go without it, logged once", async () => {
    const { api, kube } = await setup(aksCluster());
    api.kubeSystemUid = "5C8E0A3B-1D2F-4E6A-9B7C-0D1E2F3A4B5C";
    assert.equal((await kube.collect()).clusterUid, "5c8e0a3b-1d2f-4e6a-9b7c-0d1e2f3a4b5c", "lowercased");
    await kube.collect();
    const reads = api.requests.filter((r) => r.path === "/api/v1/namespaces/kube-system");
    assert.equal(reads.length, 1, "it never changes: read once");
    assert.equal(reads[0]!.method, "GET");

    const denied = await setup(aksCluster());
    denied.api.kubeSystemForbidden = true;
    const facts = await denied.kube.collect();
    await denied.kube.collect();
    assert.equal(facts.clusterUid, undefined);
    assert.equal(facts.health?.apiServer, "ok", "the rest of the facts are read as usual");
    assert.equal(facts.nodePools!.length > 0, true);
    const lines = denied.logs.filter((l) => l.includes("CLUSTER_UID_UNKNOWN"));
    assert.equal(lines.length, 1, "logged once, not every round");
    assert.match(lines[0]!, /^warn CLUSTER_UID_UNKNOWN .*403.*namespaces\/kube-system/);
    denied.api.kubeSystemForbidden = false;
    assert.equal((await denied.kube.collect()).clusterUid, denied.api.kubeSystemUid, "read once the grant is there");
  });

  test("the API server unreachable: the last facts with apiServer down", async () => {
    const { api, kube } = await setup(aksCluster());
    const ok = await kube.collect();
    assert.equal(ok.health?.apiServer, "ok");
    await api.stop();
    const down = await kube.collect();
    assert.equal(down.health?.apiServer, "down");
    assert.deepEqual(down.nodePools, ok.nodePools);
  });
});
