// KubeCluster against the loopback Kubernetes API in-process: how often pods are recounted, the
// capabilities it reports, and directives acknowledged only once done (failed ones with a reason).
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { KubeCluster, BIG_RECOUNT_MS } from "@/lib/agent/kube/kube-cluster";
import { KubeClient } from "@/lib/agent/kube/kube-client";
import { FakeKubeApi } from "../../helpers/fake-kube-api";
import { aksCluster, bigCluster, type FakeCluster } from "../../helpers/kube-clusters";

const apis: FakeKubeApi[] = [];
after(async () => Promise.all(apis.map((a) => a.stop())));

async function setup(cluster: FakeCluster, allowNodeActions = false, maxPage?: number) {
  const api = await new FakeKubeApi(cluster, { tokens: ["t"], maxPage }).start();
  apis.push(api);
  const file = path.join(mkdtempSync(path.join(tmpdir(), "kube-cluster-")), "kubeconfig");
  writeFileSync(file, api.kubeconfig("t"));
  let now = 1_000_000;
  const logs: string[] = [];
  const kube = new KubeCluster({
    client: KubeClient.load({ kubeconfig: file, timeoutMs: 10_000 }),
    agentVersion: "1.4.0",
    namespace: "fleet-system",
    deployment: "fleet-agent",
    allowNodeActions,
    now: () => now,
    log: (level, code, message) => logs.push(`${level} ${code} ${message}`),
  });
  after(() => kube.close());
  const podLists = () => api.requests.filter((r) => r.path === "/api/v1/pods").length;
  return { api, kube, logs, podLists, advance: (ms: number) => (now += ms) };
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

  test("a continue token that expired (410) restarts the list once", async () => {
    const { api, kube } = await setup(aksCluster(), false, 2);
    const expected = await kube.collect();
    assert.equal(expected.health.apiServer, "ok");
    const before = api.requests.length;
    api.expireContinue = 1;
    const restarted = await kube.collect();
    assert.deepEqual(restarted, expected, "the same facts: nothing counted twice, nothing lost");
    const lists = api.requests.slice(before).filter((r) => r.path === "/api/v1/nodes");
    assert.deepEqual(
      lists.map((r) => r.query.continue ?? ""),
      ["", lists[1]!.query.continue, "", lists[3]!.query.continue],
      "the nodes list: first page, an expired continue, then from the start again",
    );
    assert.ok(lists[1]!.query.continue);
  });

  test("a list that fails while /readyz is fine: the last facts, and the API server ok", async () => {
    const { api, kube, logs } = await setup(aksCluster(), false, 2);
    const expected = await kube.collect();
    // Expired again on the restart: the read fails.
    api.cluster.gitVersion = "v1.32.0";
    api.expireContinue = 2;
    const failed = await kube.collect();
    assert.deepEqual(failed, expected, "the last facts, with the API server ok as /readyz says");
    assert.match(logs.at(-1)!, /KUBE_API_ERROR .*listNodes .*410/);
  });

  test("the API server unreachable: the last facts with apiServer down", async () => {
    const { api, kube } = await setup(aksCluster());
    const ok = await kube.collect();
    assert.equal(ok.health.apiServer, "ok");
    await api.stop();
    apis.splice(apis.indexOf(api), 1);
    const down = await kube.collect();
    assert.equal(down.health.apiServer, "down");
    assert.deepEqual(down.nodePools, ok.nodePools);
  });
});
