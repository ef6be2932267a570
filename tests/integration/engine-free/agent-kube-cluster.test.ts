// KubeCluster against the loopback Kubernetes API in-process: how often pods are recounted, the
// capabilities it reports, and directives acknowledged only once done (failed ones with a reason).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BIG_RECOUNT_MS } from "@/lib/agent/kube/kube-cluster";
import { startKubeCluster } from "../../helpers/kube-cluster-harness";
import { aksCluster, bigCluster, type FakeCluster } from "../../helpers/kube-clusters";

async function setup(cluster: FakeCluster, allowNodeActions = false) {
  const h = await startKubeCluster(cluster, { allowNodeActions });
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
    assert.deepEqual(kube.capabilities, ["disconnect", "upgrade", "drain", "resume"]);
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

  test("upgrade is idempotent: patched once, then done without another patch", async () => {
    const { api, kube } = await setup(aksCluster());
    kube.start({ id: "u", type: "upgrade", version: "1.5.0", image: "reg.example/agent:1.5.0" });
    await kube.progress();
    assert.deepEqual(kube.ackEntries(["u"]), ["u"]);
    const again = await setup(aksCluster());
    again.api.deployment = api.deployment;
    again.kube.start({ id: "u", type: "upgrade", version: "1.5.0", image: "reg.example/agent:1.5.0" });
    await again.kube.progress();
    assert.deepEqual(again.kube.ackEntries(["u"]), ["u"]);
    assert.equal(
      again.api.writes().length,
      0,
      "the image was already there: no second patch (a restarted pod seeing the directive again)",
    );
  });

  test("the API server unreachable: the last facts with apiServer down", async () => {
    const { api, kube } = await setup(aksCluster());
    const ok = await kube.collect();
    assert.equal(ok.health.apiServer, "ok");
    await api.stop();
    const down = await kube.collect();
    assert.equal(down.health.apiServer, "down");
    assert.deepEqual(down.nodePools, ok.nodePools);
  });
});
