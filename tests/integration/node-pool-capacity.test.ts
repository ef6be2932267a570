// Node pool capacity (lib/server/node-pools/node-pools.ts): a NotReady cluster's pools are the
// last its agent reported, so they are counted apart from the live figures, per label value and
// fleet-wide, as of the oldest last heartbeat among those clusters.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { db } from "@/lib/server/db/client";
import { capacity } from "@/lib/server/node-pools/node-pools";
import { appDatabase } from "../helpers/app-database";

appDatabase();

describe("node pool capacity", () => {
  test("counts NotReady clusters' pools apart, as of their oldest last heartbeat", async () => {
    const now = Date.now();
    const clusters = [
      { id: "cl_cap_live_a", status: "Ready", region: "eu", heard: now },
      { id: "cl_cap_live_b", status: "Ready", region: "us", heard: now },
      { id: "cl_cap_stale_a", status: "NotReady", region: "eu", heard: now - 3_600_000 },
      { id: "cl_cap_stale_b", status: "NotReady", region: "eu", heard: now - 7_200_000 },
    ];
    for (const c of clusters) {
      await db().cluster.create({
        data: {
          id: c.id,
          name: c.id.replace(/_/g, "-"),
          phase: "Active",
          status: c.status,
          lastHeartbeatAt: new Date(c.heard),
          labels: { create: [{ key: "region", value: c.region }] },
          nodePools: {
            create: [
              { name: "system", nodeCount: 3, readyNodes: 3, cpuCores: 12, memoryGiB: 48, kubeletVersion: "v1.30.2" },
              { name: "workers", nodeCount: 5, readyNodes: 4, cpuCores: 20, memoryGiB: 80, kubeletVersion: "v1.30.2" },
            ],
          },
        },
      });
    }

    const byRegion = await capacity("region");
    const eu = byRegion.rows.find((r) => r.key === "eu")!;
    assert.deepEqual(
      { clusters: eu.clusters, pools: eu.pools, nodes: eu.nodes, readyNodes: eu.readyNodes, cpuCores: eu.cpuCores },
      { clusters: 1, pools: 2, nodes: 8, readyNodes: 7, cpuCores: 32 },
    );
    assert.deepEqual(eu.notReady, { clusters: 2, pools: 4, nodes: 16, asOf: new Date(now - 7_200_000).toISOString() });
    const us = byRegion.rows.find((r) => r.key === "us")!;
    assert.deepEqual(us.notReady, { clusters: 0, pools: 0, nodes: 0, asOf: null });
    assert.deepEqual(byRegion.notReady, { clusters: 2, pools: 4, nodes: 16, asOf: new Date(now - 7_200_000).toISOString() });
    // Kubelet versions count live nodes only.
    assert.deepEqual(byRegion.kubeletVersions, [{ version: "v1.30.2", nodes: 16 }]);
  });
});
