// The heartbeat writer's per-minute counts, written as multi-row raw upserts (one statement per
// 1,000 clusters instead of a Prisma upsert each): counts add up across flushes, rows written
// by Prisma and by the raw statement are the same rows (dates bound alike on both engines), and
// a removed cluster's counts are skipped. A few seconds per engine.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { db } from "@/lib/server/db/client";
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

describe(`heartbeat counts per minute on ${engine}`, () => {
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
});
