// "Same cluster as": clusters reporting one kube-system UID (docs/protocol.md, clusterUid), on the
// engine TEST_ENGINE picks. The SQL (lib/server/clusters/cluster-list-sql.ts) is compared with the
// pure rule (lib/domain/cluster-reason.ts, sameClusterPeers) on random fleets; then the list
// service, its duplicateUid filter, the cluster page and the Overview end to end.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sameClusterPeers as peersInTs, type UidFacts } from "@/lib/domain/cluster-reason";
import { LIFECYCLE_PHASES } from "@/lib/domain/status";
import { seededRandom } from "@/lib/agent/clock";
import { listClustersQuerySchema } from "@/lib/contracts/clusters";
import { clusterPage, sameClusterPeers } from "@/lib/server/clusters/cluster-list-sql";
import { getCluster } from "@/lib/server/clusters/get-cluster";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { overview } from "@/lib/server/fleet/overview";
import { db } from "@/lib/server/db/client";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

const page = { sort: "name" as const, order: "asc" as const, offset: 0, limit: 500 };

function draw(seed: number, count: number): UidFacts[] {
  const random = seededRandom(seed);
  const uids = ["u-1", "u-2", "u-3", "u-4", "u-5", "u-6"];
  return Array.from({ length: count }, (_, i) => ({
    id: `cl_uid${String(seed).padStart(2, "0")}${String(i).padStart(4, "0")}`,
    name: `uid-${seed}-${String(i).padStart(4, "0")}`,
    phase: LIFECYCLE_PHASES[Math.floor(random() * LIFECYCLE_PHASES.length)]!,
    // A few shared UIDs, many unique ones, some none.
    clusterUid: random() < 0.2 ? null : random() < 0.3 ? uids[Math.floor(random() * uids.length)]! : `own-${seed}-${i}`,
  }));
}

async function seed(clusters: UidFacts[]) {
  await db().clusterEvent.deleteMany({});
  await db().cluster.deleteMany({});
  await db().cluster.createMany({ data: clusters });
}

describe(`same-cluster flags in SQL agree with TypeScript on ${testEngine()}`, () => {
  for (const s of [1, 2, 3]) {
    test(`seed ${s}`, async () => {
      const clusters = draw(s, 200);
      await seed(clusters);
      const want = peersInTs(clusters);
      assert.ok(want.size > 4, "the draw has shared UIDs");
      const flagged = new Set((await clusterPage({ duplicateUid: true }, page, new Date(), 60)).ids);
      assert.deepEqual([...flagged].sort(), [...want.keys()].sort(), "duplicateUid=true");
      const rest = new Set((await clusterPage({ duplicateUid: false }, page, new Date(), 60)).ids);
      assert.equal(rest.size + flagged.size, clusters.length, "duplicateUid=false: every other cluster");
      const got = await sameClusterPeers(clusters.map((c) => c.id));
      assert.deepEqual(
        Object.fromEntries([...got].sort()),
        Object.fromEntries([...want].sort()),
        "the names each one is flagged with",
      );
    });
  }
});

describe(`"Same cluster as" in the list, the cluster page and the Overview on ${testEngine()}`, () => {
  test("two active clusters with one UID flag each other; the filter returns exactly them; a deregistering one no longer flags", async () => {
    const at = new Date();
    await db().clusterEvent.deleteMany({});
    await db().cluster.deleteMany({});
    await db().cluster.createMany({
      data: [
        {
          id: "cl_same_a",
          name: "prod-a",
          phase: "Active",
          clusterUid: "0f6b1b1e-6c52-4a57-8d1c-2b7e3f9a1c00",
          lastHeartbeatAt: at,
        },
        { id: "cl_same_b", name: "prod-a-again", phase: "Registration", clusterUid: "0f6b1b1e-6c52-4a57-8d1c-2b7e3f9a1c00" },
        {
          id: "cl_same_c",
          name: "other",
          phase: "Active",
          clusterUid: "9a1c0000-1111-4222-8333-444455556666",
          lastHeartbeatAt: at,
        },
        { id: "cl_same_d", name: "no-uid", phase: "Active", lastHeartbeatAt: at },
      ],
    });
    const list = (q: Record<string, string>) => listClusters(listClustersQuerySchema.parse(q));
    const all = await list({});
    const same = (name: string) => all.items.find((c) => c.name === name)!.reasons.find((r) => r.code === "sameCluster");
    assert.deepEqual(same("prod-a"), { code: "sameCluster", clusters: [{ id: "cl_same_b", name: "prod-a-again" }] });
    assert.deepEqual(same("prod-a-again"), { code: "sameCluster", clusters: [{ id: "cl_same_a", name: "prod-a" }] });
    assert.equal(same("other"), undefined);
    assert.equal(same("no-uid"), undefined);

    const flagged = await list({ duplicateUid: "true" });
    assert.deepEqual(
      flagged.items.map((c) => c.name),
      ["prod-a", "prod-a-again"],
    );
    assert.equal(flagged.total, 2);
    assert.deepEqual(
      (await list({ duplicateUid: "false" })).items.map((c) => c.name),
      ["no-uid", "other"],
    );

    const detail = await getCluster("cl_same_a");
    assert.equal(detail.clusterUid, "0f6b1b1e-6c52-4a57-8d1c-2b7e3f9a1c00");
    assert.deepEqual(
      detail.reasons.find((r) => r.code === "sameCluster"),
      {
        code: "sameCluster",
        clusters: [{ id: "cl_same_b", name: "prod-a-again" }],
      },
    );
    const o = await overview();
    assert.equal(o.attention.sameCluster.total, 2);
    assert.deepEqual(
      o.attention.sameCluster.items.map((c) => [c.name, c.sameAs.map((x) => x.name)]),
      [
        ["prod-a", ["prod-a-again"]],
        ["prod-a-again", ["prod-a"]],
      ],
    );

    // Being deregistered: neither flags the other any more.
    await db().cluster.update({ where: { id: "cl_same_b" }, data: { phase: "Deregistration" } });
    assert.deepEqual((await list({ duplicateUid: "true" })).items, []);
    assert.equal(
      (await getCluster("cl_same_a")).reasons.some((r) => r.code === "sameCluster"),
      false,
    );
    assert.equal((await overview()).attention.sameCluster.total, 0);
    // Removed: the same.
    await db().cluster.delete({ where: { id: "cl_same_b" } });
    assert.deepEqual((await list({ duplicateUid: "true" })).items, []);
  });
});
