// npm run bench:sweep [-- --clusters 10000 --runs 50] (TEST_ENGINE=sqlite|postgres)
//
// What the once-a-second status sweep costs at fleet size, in this process against a fresh,
// migrated database: N clusters Ready with heartbeats spread over the last interval (the steady
// state: nothing is due), 1 % long dead. Times the sweeper's drift query and a whole
// sweepStatuses() (on SQLite both block the event loop for all of their time: better-sqlite3 is
// synchronous), then the heartbeat writer's facts batch for a tenth of the fleet (what one second
// of heartbeats at a 10 s interval writes, pools unchanged), so an index that speeds the sweep shows what it costs
// the writer, and the enrollment evaluator's pass over the fleet (every cluster carries three
// labels; the second and later passes find nothing changed, the steady state).
// Prints numbers, asserts nothing. A benchmark, not part of npm test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createTestDatabase, testEngine } from "../../tests/helpers/test-database";
import { SYSTEM_POOL } from "../../tests/helpers/agent-client";

const { values: flags } = parseArgs({
  options: { clusters: { type: "string", default: "10000" }, runs: { type: "string", default: "50" } },
});
const CLUSTERS = Number(flags.clusters);
const RUNS = Number(flags.runs);
const INTERVAL_MS = 10_000;

const quantiles = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(s.length * q) - 1)]!;
  return `p50 ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, max ${s[s.length - 1]!.toFixed(2)} ms`;
};

/** Wall time and CPU time (this process's, all threads) of each run: on a busy machine the CPU is what to compare. */
async function timed(runs: number, fn: () => Promise<unknown>): Promise<string> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const [start, startCpu] = [performance.now(), process.cpuUsage()];
    await fn();
    const used = process.cpuUsage(startCpu);
    wall.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  return `wall ${quantiles(wall)}; CPU ${quantiles(cpu)}`;
}

async function main() {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), "fleet-bench-sweep-"));
  process.env.DATABASE_URL = database.url;
  process.env.DATA_DIR = dataDir;
  process.env.LOG_LEVEL = "warn";
  // After DATABASE_URL is set: lib/env.ts reads it on first use.
  const { migrate } = await import("@/lib/server/db/migrate");
  const { db } = await import("@/lib/server/db/client");
  const { statusDrift } = await import("@/lib/server/clusters/status-sql");
  const { sweepStatuses } = await import("@/lib/server/heartbeats/status-sweeper");
  const { enqueueHeartbeat, flushHeartbeats } = await import("@/lib/server/heartbeats/heartbeat-writer");
  const { evaluateEnrollment } = await import("@/lib/server/lifecycle/enrollment");
  try {
    await migrate(database.database);
    const { getSettings } = await import("@/lib/server/settings/settings");
    const THRESHOLD_SECONDS = (await getSettings()).notReadyThresholdSeconds;
    const now = Date.now();
    const ids = Array.from({ length: CLUSTERS }, (_, i) => `cl_sweep${String(i).padStart(6, "0")}`);
    for (let from = 0; from < CLUSTERS; from += 1000) {
      await db().cluster.createMany({
        data: ids.slice(from, from + 1000).map((id, k) => {
          const i = from + k;
          const dead = i % 100 === 99;
          return {
            id,
            name: `sweep-${String(i).padStart(6, "0")}`,
            phase: "Active",
            status: dead ? "NotReady" : "Ready",
            lastHeartbeatAt: new Date(dead ? now - 86_400_000 : now - ((i * 7919) % INTERVAL_MS)),
            apiServerHealth: "ok",
          };
        }),
      });
      await db().clusterLabel.createMany({
        data: ids.slice(from, from + 1000).flatMap((clusterId, k) => [
          { clusterId, key: "env", value: (from + k) % 3 ? "prod" : "staging" },
          { clusterId, key: "region", value: `region-${(from + k) % 7}` },
          { clusterId, key: "team", value: `team-${(from + k) % 13}` },
        ]),
      });
    }
    console.log(
      `bench:sweep  ${CLUSTERS} clusters on ${testEngine()} (99 % Ready and fresh, 1 % NotReady for a day), threshold ${THRESHOLD_SECONDS} s, ${RUNS} runs each`,
    );
    const drifted = await statusDrift(new Date(), THRESHOLD_SECONDS, 500);
    console.log(`  drift found ${drifted.length} (expected 0)`);
    await timed(5, () => statusDrift(new Date(), THRESHOLD_SECONDS, 500));
    console.log(`  drift query:     ${await timed(RUNS, () => statusDrift(new Date(), THRESHOLD_SECONDS, 500))}`);
    console.log(`  sweepStatuses(): ${await timed(RUNS, () => sweepStatuses())}`);

    const batch = Math.round(CLUSTERS / 10);
    const heartbeat = (at: Date, round: number) => ({
      at,
      agentVersion: "1.4.0",
      kubernetesVersion: "1.30.2",
      apiServerHealth: "ok",
      logsReporting: true,
      metricsReporting: true,
      podCount: 120 + round,
      userPodCount: 100,
      namespaceCount: 14,
      appliedPolicyRevision: null,
      nodePools: [SYSTEM_POOL],
    });
    let round = 0;
    const writeRound = async () => {
      const at = new Date();
      for (let k = 0; k < batch; k++) {
        const id = ids[(round * batch + k) % CLUSTERS]!;
        enqueueHeartbeat(id, heartbeat(at, round));
      }
      round++;
      await flushHeartbeats(true);
    };
    // A cluster's first heartbeat after a start also writes its node pools, a few clusters a
    // flush (the writer's bound): one pass over the fleet in flushes that small first, untimed,
    // so the timed rounds are the steady state.
    const poolsPerFlush = 25;
    for (let from = 0; from < CLUSTERS; from += poolsPerFlush) {
      for (const id of ids.slice(from, from + poolsPerFlush))
        enqueueHeartbeat(id, { ...heartbeat(new Date(), 0), nodePools: [SYSTEM_POOL] });
      await flushHeartbeats(true);
    }
    const writes = await timed(Math.max(10, Math.round(RUNS / 5)), writeRound);
    console.log(`  writer batch of ${batch} heartbeats (facts and per-minute counts): ${writes}`);

    // A registration wave's first heartbeats: clusters Pending in Registration whose heartbeat
    // has just been written, turned Ready and Active by the sweep (BATCH at most per sweep).
    const wave = ids.filter((_, i) => i % 100 !== 99).slice(0, 500);
    const firstHeartbeats: number[] = [];
    const firstHeartbeatsCpu: number[] = [];
    for (let round = 0; round < 5; round++) {
      await db().cluster.updateMany({ where: { id: { in: wave } }, data: { status: "Pending", phase: "Registration" } });
      await db().cluster.updateMany({ where: { id: { in: wave } }, data: { lastHeartbeatAt: new Date() } });
      const [start, startCpu] = [performance.now(), process.cpuUsage()];
      const moved = await sweepStatuses();
      const used = process.cpuUsage(startCpu);
      firstHeartbeats.push(performance.now() - start);
      firstHeartbeatsCpu.push((used.user + used.system) / 1000);
      if (moved !== wave.length) throw new Error(`the sweep moved ${moved} of ${wave.length}`);
    }
    console.log(
      `  sweep of ${wave.length} first heartbeats (Pending -> Ready, Registration -> Active): wall ${quantiles(firstHeartbeats)}; CPU ${quantiles(firstHeartbeatsCpu)}`,
    );

    // The first pass writes every cluster's checklist; later ones find nothing changed.
    const first = await timed(1, () => evaluateEnrollment());
    console.log(`  enrollment, first pass (every cluster written): ${first}`);
    console.log(
      `  enrollment, steady pass (nothing changed): ${await timed(Math.max(5, Math.round(RUNS / 10)), () => evaluateEnrollment())}`,
    );
  } finally {
    await db().$disconnect();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
