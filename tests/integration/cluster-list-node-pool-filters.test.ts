// The cluster list filtered by its node pools, as the capacity page's kubelet and instance-type
// bars link to it: a kubelet minor matches every patch however the agent spells it ("v1.31.4").
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { listClustersQuerySchema } from "@/lib/contracts/clusters";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { db } from "@/lib/server/db/client";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

async function cluster(name: string, pools: { kubeletVersion: string | null; instanceType: string | null }[]) {
  await db().cluster.create({ data: { id: `cl_${name}`, name, phase: "Active", registeredAt: new Date() } });
  for (const [i, p] of pools.entries())
    await db().nodePool.create({ data: { clusterId: `cl_${name}`, name: `pool-${i}`, nodeCount: 2, readyNodes: 2, ...p } });
}

describe(`the cluster list's node-pool filters on ${testEngine()}`, () => {
  test("kubelet (a version or a minor) and instance type select the clusters with such a pool", async () => {
    await cluster("a-mixed", [
      { kubeletVersion: "v1.31.4", instanceType: "m5.large" },
      { kubeletVersion: "v1.30.9", instanceType: "c6i.xlarge" },
    ]);
    await cluster("b-plain", [{ kubeletVersion: "1.31.2", instanceType: "m5.large" }]);
    await cluster("c-older", [{ kubeletVersion: "v1.3.1", instanceType: "m5_large" }]);
    await cluster("d-none", []);
    const names = async (q: Record<string, string>) =>
      (await listClusters(listClustersQuerySchema.parse(q))).items.map((c) => c.name);

    assert.deepEqual(await names({ kubelet: "1.31" }), ["a-mixed", "b-plain"]);
    assert.deepEqual(await names({ kubelet: "1.30" }), ["a-mixed"]);
    assert.deepEqual(await names({ kubelet: "v1.31.4" }), ["a-mixed"]);
    assert.deepEqual(await names({ kubelet: "1.3" }), ["c-older"]);
    assert.deepEqual(await names({ instanceType: "m5.large" }), ["a-mixed", "b-plain"]);
    // Matched exactly: an underscore is not a wildcard.
    assert.deepEqual(await names({ instanceType: "m5_large" }), ["c-older"]);
    assert.deepEqual(await names({ kubelet: "1.31", instanceType: "c6i.xlarge" }), ["a-mixed"]);
    assert.equal((await listClusters(listClustersQuerySchema.parse({ kubelet: "1.31" }))).total, 2);
  });
});
