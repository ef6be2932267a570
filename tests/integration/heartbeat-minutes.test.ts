// The fleet's heartbeats per minute (the Overview's chart; heartbeatsPerMinute in
// lib/server/fleet/overview.ts) on the engine TEST_ENGINE picks: complete minutes are summed once
// and kept, so each answer must still be what the buckets sum to, minute by minute, as minutes
// pass and as the current minute's counts grow.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { db } from "@/lib/server/db/client";
import { heartbeatsPerMinute } from "@/lib/server/fleet/overview";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();
const MINUTE = 60_000;
const CLUSTERS = ["c-a", "c-b", "c-c"];

/** The buckets summed per minute, straight from the table: what every answer must say. */
async function summed(minutes: number, now: Date) {
  const end = Math.floor(now.getTime() / MINUTE) * MINUTE;
  const rows = await db().heartbeatBucket.findMany({ select: { bucketStart: true, count: true } });
  return Array.from({ length: minutes }, (_, i) => {
    const at = end - (minutes - 1 - i) * MINUTE;
    return {
      at: new Date(at).toISOString(),
      count: rows.filter((r) => r.bucketStart.getTime() === at).reduce((sum, r) => sum + r.count, 0),
    };
  });
}

/** The count an answer gives for the minute starting at `at` (looked up by time: a test may cross a minute). */
function countAt(answer: { at: string; count: number }[], at: number): number | undefined {
  return answer.find((m) => m.at === new Date(at).toISOString())?.count;
}

describe(`the fleet's heartbeats per minute on ${testEngine()}`, () => {
  const current = Math.floor(Date.now() / MINUTE) * MINUTE;
  before(async () => {
    for (const id of CLUSTERS)
      await db().cluster.create({ data: { id, name: id, phase: "Active", registeredAt: new Date(current - 3600_000) } });
    // Twenty minutes of counts, a different one per cluster and minute; none four minutes ago.
    for (let m = 0; m < 20; m++)
      for (const [i, id] of CLUSTERS.entries())
        if (m !== 4)
          await db().heartbeatBucket.create({
            data: { clusterId: id, bucketStart: new Date(current - m * MINUTE), count: m * 3 + i + 1 },
          });
  });

  test("every minute is the buckets' sum, on the first answer and on the next", async () => {
    const now = new Date();
    assert.deepEqual(await heartbeatsPerMinute(15, now), await summed(15, now));
    assert.deepEqual(await heartbeatsPerMinute(15, now), await summed(15, now));
    assert.equal(countAt(await heartbeatsPerMinute(15, now), current - 4 * MINUTE), 0, "a minute without heartbeats is a zero");
  });

  test("the current minute and the one before follow their counts as they grow", async () => {
    await heartbeatsPerMinute(15, new Date());
    await db().heartbeatBucket.update({
      where: { clusterId_bucketStart: { clusterId: "c-a", bucketStart: new Date(current) } },
      data: { count: { increment: 100 } },
    });
    await db().heartbeatBucket.update({
      where: { clusterId_bucketStart: { clusterId: "c-b", bucketStart: new Date(current - MINUTE) } },
      data: { count: { increment: 10 } },
    });
    const now = new Date();
    const answer = await heartbeatsPerMinute(15, now);
    assert.deepEqual(answer, await summed(15, now));
    assert.equal(countAt(answer, current), 1 + 2 + 3 + 100);
  });

  test("a shorter or an earlier window: the same minutes, the same sums", async () => {
    const now = new Date();
    assert.deepEqual(await heartbeatsPerMinute(5, now), await summed(5, now));
    const earlier = new Date(now.getTime() - 3 * MINUTE);
    assert.deepEqual(await heartbeatsPerMinute(15, earlier), await summed(15, earlier));
    assert.deepEqual(await heartbeatsPerMinute(15, now), await summed(15, now));
  });

  test("one cluster's minutes are its own", async () => {
    const now = new Date();
    const mine = await heartbeatsPerMinute(15, now, "c-c");
    assert.equal(countAt(mine, current - 2 * MINUTE), 2 * 3 + 3);
  });
});
