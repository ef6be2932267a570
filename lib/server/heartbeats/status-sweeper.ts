import "server-only";
import { healthStatus, transitionReason, type HealthStatus } from "@/lib/domain/status";
import { db } from "@/lib/server/db/client";
import { statusDrift } from "@/lib/server/clusters/status-sql";
import { inTransaction } from "@/lib/server/db/transaction";
import { getSettings } from "@/lib/server/settings/settings";
import { log } from "@/lib/server/log";
import { broadcastSummary } from "@/lib/server/events/fleet-summary";
import { heartbeatsCaughtUp } from "./heartbeat-writer";
import { workersFailing } from "@/lib/server/agent-port/workers/worker-stats";
import { recordTransitions, type StatusTransition } from "./record-transitions";

const BATCH = 500;

/**
 * Finds clusters whose recorded status no longer matches their facts and records each
 * transition once: the conditional update (WHERE status = <old>) lets several instances sweep
 * at the same time without recording a transition twice. Returns the transitions it recorded.
 */
export async function sweepStatuses(now = new Date()): Promise<number> {
  // Heartbeats that arrived while the database was away are still in this instance's buffer:
  // judged by the stale stored facts, their clusters would turn NotReady for the outage itself.
  // Wait until they are written (docs/operations/failure-modes.md); the agent-port workers' too.
  if (!(await heartbeatsCaughtUp()) || workersFailing()) return 0;
  const { notReadyThresholdSeconds: threshold } = await getSettings();
  // Which clusters drifted is asked in SQL generated from the status rule table, so it cannot
  // disagree with healthStatus() below.
  const ids = await statusDrift(now, threshold, BATCH);
  if (!ids.length) return 0;
  const candidates = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, status: true, phase: true, lastHeartbeatAt: true, apiServerHealth: true },
  });
  const due: StatusTransition[] = [];
  for (const c of candidates) {
    const from = c.status as HealthStatus;
    const to = healthStatus(c, now, threshold);
    if (to !== from)
      due.push({
        cluster: { id: c.id, name: c.name, phase: c.phase },
        from,
        to,
        reason: transitionReason(from, to, c, threshold),
      });
  }
  // A registration wave's first heartbeats are the many transitions: recorded a chunk per
  // transaction (a transaction each cost milliseconds of event loop apiece); the others, rare,
  // one per transaction, so one that fails does not hold back the rest.
  const firstHeartbeat = (t: StatusTransition) => t.from === "Pending" && t.to === "Ready";
  const wave = due.filter(firstHeartbeat);
  const chunks = [
    ...due.filter((t) => !firstHeartbeat(t)).map((t) => [t]),
    ...Array.from({ length: Math.ceil(wave.length / WAVE_CHUNK) }, (_, i) => wave.slice(i * WAVE_CHUNK, (i + 1) * WAVE_CHUNK)),
  ];
  let recorded = 0;
  for (const chunk of chunks) {
    const done = await inTransaction((tx, afterCommit) => recordTransitions(tx, afterCommit, chunk, now));
    for (const t of done)
      log.info("cluster status changed", {
        clusterId: t.cluster.id,
        name: t.cluster.name,
        from: t.from,
        to: t.to,
        reason: t.reason,
      });
    recorded += done.length;
  }
  // Counts on screen follow a transition at once instead of at the next periodic summary.
  if (recorded) void broadcastSummary();
  return recorded;
}

const WAVE_CHUNK = 100;
