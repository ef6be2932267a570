// The heartbeat writer's two per-heartbeat writes as multi-row raw statements (instead of a Prisma
// operation per cluster): facts with UPDATE ... FROM (VALUES ...), per-minute counts with
// INSERT ... ON CONFLICT. Counts add up across flushes, rows written by Prisma and by the raw
// statements are the same rows (dates bound alike on both engines), every fact lands, the policy
// revision is kept when not reported, a removed cluster is skipped, an older batch does not
// overwrite newer facts; rows read back on the driver are Prisma's. A few seconds per engine.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { updateFromValuesStatements } from "@/lib/server/db/bulk-update";
import { db, sqliteHandle } from "@/lib/server/db/client";
import { runOnDriver, sql } from "@/lib/server/db/sql";
import { enrollmentPage } from "@/lib/server/clusters/enrollment-page";
import { enqueueHeartbeat, flushHeartbeats, type HeartbeatFacts } from "@/lib/server/heartbeats/heartbeat-writer";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

const engine = testEngine();
appDatabase();

const MINUTE = 60_000;

function facts(at: Date): HeartbeatFacts {
  return {
    at,
    agentVersion: "1.4.0",
    kubernetesVersion: "1.30.2",
    apiServerHealth: "ok",
    logsReporting: true,
    metricsReporting: true,
    podCount: 10,
    userPodCount: 5,
    namespaceCount: 3,
    appliedPolicyRevision: undefined,
    nodePools: [],
  };
}

describe(`heartbeat writes on ${engine}`, () => {
  test("facts of many clusters in one flush; a revision not reported keeps the stored one", async () => {
    const ids = ["c-facts-a", "c-facts-b", "c-facts-c"];
    await db().cluster.createMany({ data: ids.map((id) => ({ id, name: id, appliedPolicyRevision: "r1" })) });
    const at = new Date(Date.UTC(2026, 10, 30, 12, 0, 0, 123));
    enqueueHeartbeat("c-facts-a", { ...facts(at), appliedPolicyRevision: "r2", podCount: 42, logsReporting: false });
    enqueueHeartbeat("c-facts-b", { ...facts(at), appliedPolicyRevision: null, userPodCount: null, apiServerHealth: "down" });
    enqueueHeartbeat("c-facts-c", facts(at));
    await flushHeartbeats(true);
    const rows = await db().cluster.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
    const [a, b, c] = rows;
    assert.equal(a!.lastHeartbeatAt?.toISOString(), at.toISOString(), "the time to the millisecond");
    assert.deepEqual(
      [a!.appliedPolicyRevision, a!.podCount, a!.logsReporting, a!.metricsReporting, a!.agentVersion, a!.namespaceCount],
      ["r2", 42, false, true, "1.4.0", 3],
    );
    assert.deepEqual([b!.appliedPolicyRevision, b!.userPodCount, b!.apiServerHealth], [null, null, "down"]);
    assert.deepEqual([c!.appliedPolicyRevision, c!.kubernetesVersion, c!.podCount], ["r1", "1.30.2", 10]);
  });

  test("a batch older than the stored facts does not overwrite them (another worker's, committed late)", async () => {
    await db().cluster.create({ data: { id: "c-order-a", name: "c-order-a" } });
    const newer = new Date(Date.UTC(2026, 10, 30, 14, 0, 10));
    const older = new Date(newer.getTime() - 5_000);
    enqueueHeartbeat("c-order-a", { ...facts(newer), kubernetesVersion: "1.31.7", podCount: 7 });
    await flushHeartbeats(true);
    enqueueHeartbeat("c-order-a", { ...facts(older), kubernetesVersion: "1.31.5", podCount: 5 });
    await flushHeartbeats(true);
    const row = await db().cluster.findUniqueOrThrow({ where: { id: "c-order-a" } });
    assert.deepEqual(
      [row.lastHeartbeatAt?.toISOString(), row.kubernetesVersion, row.podCount],
      [newer.toISOString(), "1.31.7", 7],
    );
  });

  test("rows read on the driver carry Prisma's values, in any time zone of the process", async () => {
    const at = new Date(Date.UTC(2026, 10, 30, 23, 59, 58, 7));
    await db().cluster.create({
      data: {
        id: "c-read-a",
        name: "c-read-a",
        registeredAt: at,
        lastHeartbeatAt: at,
        logsReporting: true,
        metricsReporting: false,
      },
    });
    await db().clusterLabel.create({ data: { clusterId: "c-read-a", key: "env", value: "prod" } });
    const zone = process.env.TZ;
    // node-postgres reads a timestamp without a zone as local time: 5 h 30 off here, unless told.
    process.env.TZ = "Asia/Kolkata";
    try {
      const [row] = await enrollmentPage("c-read-", 1);
      assert.equal(row?.id, "c-read-a");
      assert.deepEqual(
        [
          row.registeredAt?.toISOString(),
          row.lastHeartbeatAt?.toISOString(),
          row.logsReporting,
          row.metricsReporting,
          row.enrolledAt,
        ],
        [at.toISOString(), at.toISOString(), true, false, null],
      );
      assert.deepEqual(row.labels, [{ key: "env", value: "prod" }]);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  test("clusterUid is written when it changed, and only then; a heartbeat without one keeps it", async () => {
    await db().cluster.create({ data: { id: "c-uid-a", name: "c-uid-a" } });
    const uid = "0f6b1b1e-6c52-4a57-8d1c-2b7e3f9a1c00";
    const read = async () => (await db().cluster.findUniqueOrThrow({ where: { id: "c-uid-a" } })).clusterUid;
    let t = Date.UTC(2026, 10, 30, 13, 0, 0);
    const beat = async (clusterUid?: string) => {
      t += 5_000;
      enqueueHeartbeat("c-uid-a", { ...facts(new Date(t)), ...(clusterUid ? { clusterUid } : {}) });
      await flushHeartbeats(true);
    };
    await beat(uid);
    assert.equal(await read(), uid);
    // Changed behind this process's back (a re-registration): an unchanged report writes nothing.
    await db().cluster.update({ where: { id: "c-uid-a" }, data: { clusterUid: "written-elsewhere" } });
    await beat(uid);
    assert.equal(await read(), "written-elsewhere", "the same UID again is not written");
    await beat();
    assert.equal(await read(), "written-elsewhere", "none reported: the stored one stays");
    const moved = "9a1c0000-1111-4222-8333-444455556666";
    await beat(moved);
    assert.equal(await read(), moved, "a new UID is written");
  });

  test("two heartbeats coalesced into one write: the parts only the older one carried are kept", async () => {
    await db().cluster.create({ data: { id: "c-parts-a", name: "c-parts-a" } });
    const at = Date.UTC(2026, 10, 30, 14, 0, 0);
    const pools = [{ name: "workers", nodeCount: 4, readyNodes: 4 }];
    enqueueHeartbeat("c-parts-a", { ...facts(new Date(at)), nodePools: pools, podCount: 7, namespaceCount: 2 });
    const none = { podCount: null, userPodCount: null, namespaceCount: null, nodePools: null };
    enqueueHeartbeat("c-parts-a", { ...facts(new Date(at + 1_000)), ...none, apiServerHealth: null, logsReporting: null });
    await flushHeartbeats(true);
    const row = await db().cluster.findUniqueOrThrow({ where: { id: "c-parts-a" }, include: { nodePools: true } });
    assert.deepEqual([row.podCount, row.namespaceCount, row.apiServerHealth, row.logsReporting], [7, 2, "ok", true]);
    assert.deepEqual(
      row.nodePools.map((p) => [p.name, p.nodeCount]),
      [["workers", 4]],
    );
  });

  test("node pools: upserted by name (the console's lifecycle state kept), the unreported removed, a removed cluster's skipped", async () => {
    await db().cluster.createMany({ data: ["c-pools-a", "c-pools-b", "c-pools-c"].map((id) => ({ id, name: id })) });
    const at = Date.UTC(2026, 10, 30, 15, 0, 0);
    const system = { name: "system", nodeCount: 3, readyNodes: 3, instanceType: "m5.large", cpuCores: 2, memoryGiB: 7.5 };
    const workers = { name: "workers", nodeCount: 4, readyNodes: 4, kubeletVersion: "v1.30.2" };
    enqueueHeartbeat("c-pools-a", { ...facts(new Date(at)), nodePools: [system, workers] });
    enqueueHeartbeat("c-pools-c", { ...facts(new Date(at)), nodePools: [system, workers] });
    await flushHeartbeats(true);
    const before = await db().nodePool.findUniqueOrThrow({
      where: { clusterId_name: { clusterId: "c-pools-a", name: "workers" } },
    });
    await db().nodePool.update({ where: { id: before.id }, data: { state: "Retiring" } });

    enqueueHeartbeat("c-pools-a", { ...facts(new Date(at + 10_000)), nodePools: [{ ...workers, nodeCount: 6, readyNodes: 5 }] });
    enqueueHeartbeat("c-pools-b", { ...facts(new Date(at + 10_000)), nodePools: [system] });
    enqueueHeartbeat("c-pools-gone", { ...facts(new Date(at + 10_000)), nodePools: [system] });
    // Written in the same flush as the others: reporting none removes every pool it had.
    enqueueHeartbeat("c-pools-c", { ...facts(new Date(at + 10_000)), nodePools: [] });
    await flushHeartbeats(true);
    const pools = await db().nodePool.findMany({
      where: { clusterId: { startsWith: "c-pools-" } },
      orderBy: [{ clusterId: "asc" }, { name: "asc" }],
    });
    assert.deepEqual(
      pools.map((p) => [
        p.clusterId,
        p.name,
        p.nodeCount,
        p.readyNodes,
        p.state,
        p.kubeletVersion,
        p.instanceType,
        p.cpuCores,
        p.memoryGiB,
      ]),
      [
        ["c-pools-a", "workers", 6, 5, "Retiring", "v1.30.2", null, null, null],
        ["c-pools-b", "system", 3, 3, "Active", null, "m5.large", 2, 7.5],
      ],
    );
    assert.equal(pools[0]!.id, before.id, "the same row, updated");
    assert.ok(pools[0]!.updatedAt > before.updatedAt, "updatedAt moves");
  });

  test("1,200 clusters: counts add up across flushes, onto rows Prisma wrote, and skip removed clusters", async () => {
    const ids = Array.from({ length: 1200 }, (_, i) => `c-bucket-${String(i).padStart(4, "0")}`);
    await db().cluster.createMany({ data: ids.map((id) => ({ id, name: id })) });
    const minute = new Date(Math.floor(Date.now() / MINUTE) * MINUTE);
    // A row written the old way (Prisma upsert) before the raw statement adds to it.
    await db().heartbeatBucket.create({ data: { clusterId: ids[0]!, bucketStart: minute, count: 5 } });

    const at = new Date(minute.getTime() + 1000);
    for (const id of ids) enqueueHeartbeat(id, facts(at));
    enqueueHeartbeat(ids[1]!, facts(at));
    enqueueHeartbeat("c-bucket-gone", facts(at));
    await flushHeartbeats(true);
    for (const id of ids.slice(0, 3)) enqueueHeartbeat(id, facts(at));
    await flushHeartbeats(true);

    const rows = await db().heartbeatBucket.findMany({ where: { bucketStart: minute } });
    const count = new Map(rows.map((r) => [r.clusterId, r.count]));
    assert.equal(rows.length, 1200, "one row per cluster and minute, none for the unknown cluster");
    assert.equal(count.get(ids[0]!), 5 + 1 + 1, "added to the row Prisma wrote");
    assert.equal(count.get(ids[1]!), 2 + 1, "two heartbeats in one flush, one in the next");
    assert.equal(count.get(ids[2]!), 2);
    assert.equal(count.get(ids[1199]!), 1, "past the first 1,000-row statement");
    assert.equal(
      rows.reduce((sum, r) => sum + r.count, 0),
      5 + 1201 + 3,
    );
    const written = await db().cluster.findUniqueOrThrow({ where: { id: ids[1199]! }, select: { lastHeartbeatAt: true } });
    assert.equal(written.lastHeartbeatAt?.getTime(), at.getTime(), "facts written in the same flush");
  });

  test("the writer's statements run on the driver, outside any Prisma transaction open at the time", async () => {
    await db().cluster.createMany({
      data: [
        { id: "c-tx-a", name: "c-tx-a" },
        { id: "c-tx-b", name: "c-tx-b" },
      ],
    });
    if (engine === "sqlite") assert.ok(sqliteHandle(), "Prisma's own SQLite connection is at hand once it has connected");
    const setVersion = (id: string, version: string) =>
      updateFromValuesStatements(
        "Cluster",
        [
          ["id", "text"],
          ["agentVersion", "text"],
        ],
        [[id, version]],
        (v) => sql`"agentVersion" = ${v("agentVersion")}`,
        10,
      );
    // A batch started while a Prisma transaction is open (between its awaits) must not become
    // part of it: that transaction rolls back here, the batch's write stays.
    let batch: Promise<void> | undefined;
    await assert.rejects(
      db().$transaction(async (tx) => {
        await tx.cluster.update({ where: { id: "c-tx-a" }, data: { agentVersion: "rolled-back" } });
        batch = runOnDriver([...setVersion("c-tx-b", "2.0.0"), ...setVersion("c-tx-a", "2.0.1")].map((s) => s.q));
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error("roll back");
      }),
      /roll back/,
    );
    await batch;
    const rows = await db().cluster.findMany({ where: { id: { in: ["c-tx-a", "c-tx-b"] } }, orderBy: { id: "asc" } });
    assert.deepEqual(
      rows.map((r) => r.agentVersion),
      ["2.0.1", "2.0.0"],
    );
  });

  // The flush inserts per-minute counts for clusters whose facts did not change: each insert's
  // foreign-key check takes FOR KEY SHARE on the cluster, in no particular order. Batches lock
  // their rows FOR NO KEY UPDATE (the lock their UPDATE takes anyway), which such a check does not
  // block; with FOR UPDATE the enrollment evaluator, the writer and another instance's writer
  // deadlocked on PostgreSQL under bench:soak. SQLite has one writer and no row locks.
  if (engine === "postgres")
    test("a batch's row locks do not wait for a heartbeat count's foreign-key check on the same cluster", async () => {
      await db().cluster.createMany({
        data: [
          { id: "c-lock-a", name: "c-lock-a" },
          { id: "c-lock-b", name: "c-lock-b" },
        ],
      });
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let counted!: () => void;
      const countInserted = new Promise<void>((resolve) => (counted = resolve));
      // A count for c-lock-b inserted in a transaction that stays open: it holds FOR KEY SHARE on c-lock-b.
      const holder = db().$transaction(
        async (tx) => {
          await tx.heartbeatBucket.create({ data: { clusterId: "c-lock-b", bucketStart: new Date(0), count: 1 } });
          counted();
          await released;
        },
        { timeout: 30_000 },
      );
      await countInserted;
      const batch = runOnDriver(
        updateFromValuesStatements(
          "Cluster",
          [
            ["id", "text"],
            ["agentVersion", "text"],
          ],
          [
            ["c-lock-a", "3.0.0"],
            ["c-lock-b", "3.0.0"],
          ],
          (v) => sql`"agentVersion" = ${v("agentVersion")}`,
          10,
        ).map((s) => s.q),
      ).then(() => "written" as const);
      const waited = new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 3_000));
      try {
        assert.equal(await Promise.race([batch, waited]), "written", "the batch waited for the open count's transaction");
      } finally {
        release();
        await holder;
        await batch;
      }
      const rows = await db().cluster.findMany({ where: { id: { in: ["c-lock-a", "c-lock-b"] } }, orderBy: { id: "asc" } });
      assert.deepEqual(
        rows.map((r) => r.agentVersion),
        ["3.0.0", "3.0.0"],
      );
    });
});
