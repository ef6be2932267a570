// The status rule (lib/domain/status.ts) and its SQL forms (lib/server/clusters/status-sql.ts and cluster-list-sql.ts:
// the filter, the CASE column, the sweeper's drift query) on the engine TEST_ENGINE picks. A
// property test draws many random facts from a seeded generator (every phase, null heartbeats,
// heartbeats 1 ms and 1 s either side of the threshold, every apiServer health) and compares each
// SQL answer with the TypeScript one; a failure prints the seed and the cluster to replay it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  CLUSTER_STATUSES,
  HEALTH_STATUSES,
  LIFECYCLE_PHASES,
  clusterStatus,
  healthStatus,
  type ClusterStatus,
  type StatusFacts,
} from "@/lib/domain/status";
import { seededRandom } from "@/lib/agent/clock";
import { clusterPage, countByStatus } from "@/lib/server/clusters/cluster-list-sql";
import { statusDrift } from "@/lib/server/clusters/status-sql";
import { listClustersQuerySchema } from "@/lib/contracts/clusters";
import { listClusters } from "@/lib/server/clusters/list-clusters";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { appDatabase } from "../helpers/app-database";
import { testEngine } from "../helpers/test-database";

appDatabase();

type Drawn = StatusFacts & { id: string; name: string; status: string };

function draw(seed: number, count: number, now: Date, thresholdSeconds: number): Drawn[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const edge = now.getTime() - thresholdSeconds * 1000;
  const heartbeats: (() => Date | null)[] = [
    () => null,
    () => new Date(edge),
    () => new Date(edge + 1),
    () => new Date(edge - 1),
    () => new Date(edge + 1000),
    () => new Date(edge - 1000),
    () => new Date(now.getTime()),
    () => new Date(now.getTime() - Math.floor(random() * 3 * thresholdSeconds * 1000)),
  ];
  return Array.from({ length: count }, (_, i) => {
    const lastHeartbeatAt = pick(heartbeats)();
    return {
      id: `cl_prop${String(seed).padStart(4, "0")}${String(i).padStart(5, "0")}`,
      name: `p-${seed}-${String((i * 7919) % count).padStart(5, "0")}`,
      phase: pick(LIFECYCLE_PHASES),
      lastHeartbeatAt,
      apiServerHealth: pick([null, "ok", "degraded", "down"]),
      // what the sweeper last recorded, often stale on purpose
      status: pick(HEALTH_STATUSES),
    };
  });
}

async function seed(clusters: Drawn[]) {
  await db().cluster.deleteMany({});
  // Through the app's own client, so timestamps are stored exactly as the app stores them.
  await db().cluster.createMany({ data: clusters });
}

const show = (c: Drawn) => JSON.stringify(c);
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe(`the status rule in SQL agrees with TypeScript on ${testEngine()}`, () => {
  const rounds = [
    { seed: 1, thresholdSeconds: 60 },
    { seed: 2, thresholdSeconds: 1 },
    { seed: 3, thresholdSeconds: 3600 },
    { seed: 4, thresholdSeconds: 90 },
  ];
  for (const { seed: s, thresholdSeconds } of rounds) {
    test(`seed ${s}, threshold ${thresholdSeconds}s: filter, CASE column, sort and sweeper drift`, async () => {
      // A fixed instant with milliseconds, so ±1 ms draws land on both sides of the cutoff.
      const now = new Date(Date.UTC(2026, 10, 30, 12, 0, 0, 123 + s));
      const clusters = draw(s, 300, now, thresholdSeconds);
      await seed(clusters);
      const expected = new Map(clusters.map((c) => [c.id, clusterStatus(c, now, thresholdSeconds)]));

      // The WHERE condition, status by status.
      for (const status of CLUSTER_STATUSES) {
        const page = await clusterPage({ status }, { sort: "name", order: "asc", offset: 0, limit: 500 }, now, thresholdSeconds);
        const want = clusters.filter((c) => expected.get(c.id) === status).map((c) => c.id);
        const got = new Set(page.ids);
        for (const c of clusters) {
          assert.equal(got.has(c.id), want.includes(c.id), `seed ${s}, filter ${status}: ${show(c)}`);
        }
        assert.equal(page.total, want.length, `seed ${s}, ${status} total`);
      }

      // The CASE column, through the counts.
      const counts = await countByStatus(now, thresholdSeconds);
      for (const status of CLUSTER_STATUSES) {
        assert.equal(counts[status], [...expected.values()].filter((v) => v === status).length, `seed ${s}, count ${status}`);
      }

      // The CASE column as the sort key: by computed status, ties by id.
      for (const order of ["asc", "desc"] as const) {
        const page = await clusterPage({}, { sort: "status", order, offset: 0, limit: 500 }, now, thresholdSeconds);
        const sign = order === "asc" ? 1 : -1;
        const want = [...clusters]
          .sort((a, b) => {
            const x = expected.get(a.id)!;
            const y = expected.get(b.id)!;
            return x === y ? byId(a, b) : x < y ? -sign : sign;
          })
          .map((c) => c.id);
        assert.deepEqual(page.ids, want, `seed ${s}, sort status ${order}`);
      }

      // The sweeper's query: exactly the clusters whose recorded health differs from their facts.
      const drift = new Set(await statusDrift(now, thresholdSeconds, 10_000));
      for (const c of clusters) {
        const moved = healthStatus(c, now, thresholdSeconds) !== c.status;
        assert.equal(drift.has(c.id), moved, `seed ${s}, drift: ${show(c)} -> ${healthStatus(c, now, thresholdSeconds)}`);
      }
    });
  }
});

describe(`sort=status on the cluster list on ${testEngine()}`, () => {
  test("sorts by the computed status, not the sweeper's column: a Draining cluster is not sorted as Ready", async () => {
    const now = Date.now();
    const fresh = new Date(now - 1000);
    const { notReadyThresholdSeconds } = await getSettings();
    assert.ok(notReadyThresholdSeconds >= 10);
    await db().cluster.deleteMany({});
    // Recorded status says Ready for all three heartbeating clusters; their phases say otherwise.
    await db().cluster.createMany({
      data: [
        { id: "cl_sort_a", name: "a-active", phase: "Active", status: "Ready", lastHeartbeatAt: fresh, apiServerHealth: "ok" },
        {
          id: "cl_sort_b",
          name: "b-draining",
          phase: "Draining",
          status: "Ready",
          lastHeartbeatAt: fresh,
          apiServerHealth: "ok",
        },
        { id: "cl_sort_c", name: "c-waiting", phase: "Registration", status: "Pending", lastHeartbeatAt: null },
        { id: "cl_sort_d", name: "d-leaving", phase: "Deregistration", status: "Ready", lastHeartbeatAt: fresh },
      ],
    });
    const list = async (order: string) =>
      (await listClusters(listClustersQuerySchema.parse({ sort: "status", order }))).items.map(
        (c) => [c.name, c.status] as [string, ClusterStatus],
      );
    const asc: [string, ClusterStatus][] = [
      ["d-leaving", "Deregistering"],
      ["b-draining", "Draining"],
      ["c-waiting", "Pending"],
      ["a-active", "Ready"],
    ];
    assert.deepEqual(await list("asc"), asc);
    assert.deepEqual(await list("desc"), [...asc].reverse());
  });
});
