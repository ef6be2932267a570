import "server-only";
import { healthStatus, transitionReason, type HealthStatus } from "@/lib/domain/status";
import { db } from "@/lib/server/db/client";
import { statusDrift } from "@/lib/server/clusters/cluster-sql";
import { inTransaction } from "@/lib/server/db/transaction";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { getSettings } from "@/lib/server/settings/settings";
import { publish } from "@/lib/server/events/bus";
import { log } from "@/lib/server/log";
import { broadcastSummary } from "@/lib/server/events/fleet-summary";
import { heartbeatsCaughtUp } from "./heartbeat-writer";
import { enqueueStatusWebhooks } from "@/lib/server/webhooks/enqueue-webhook";

const BATCH = 500;

/**
 * Finds clusters whose recorded status no longer matches their facts and records each
 * transition once: the conditional update (WHERE status = <old>) lets several instances sweep
 * at the same time without recording a transition twice. Returns the transitions it recorded.
 */
export async function sweepStatuses(now = new Date()): Promise<number> {
  // Heartbeats that arrived while the database was away are still in this instance's buffer:
  // judged by the stale stored facts, their clusters would turn NotReady for the outage itself.
  // Wait until they are written (README, "When things fail").
  if (!(await heartbeatsCaughtUp())) return 0;
  const { notReadyThresholdSeconds: threshold } = await getSettings();
  // Which clusters drifted is asked in SQL generated from the status rule table, so it cannot
  // disagree with healthStatus() below.
  const ids = await statusDrift(now, threshold, BATCH);
  if (!ids.length) return 0;
  const candidates = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, status: true, phase: true, lastHeartbeatAt: true, apiServerHealth: true },
  });
  let recorded = 0;
  for (const c of candidates) {
    const from = c.status as HealthStatus;
    const to = healthStatus(c, now, threshold);
    if (to === from) continue;
    const reason = transitionReason(from, to, c, threshold);
    const becomesActive = to === "Ready" && c.phase === "Registration";
    const done = await inTransaction(async (tx, afterCommit) => {
      const moved = await tx.cluster.updateMany({
        where: { id: c.id, status: from },
        data: { status: to, statusChangedAt: now },
      });
      if (moved.count === 0) return false;
      await tx.clusterEvent.create({
        data: { clusterId: c.id, clusterName: c.name, kind: "status", fromValue: from, toValue: to, reason, at: now },
      });
      await enqueueStatusWebhooks(tx, { cluster: { id: c.id, name: c.name }, from, to, reason, at: now });
      const event = { type: "cluster.status", clusterId: c.id, name: c.name, from, to, reason, at: now.toISOString() } as const;
      // The first heartbeat also makes a registering cluster Active; one event tells subscribers both.
      const activated =
        becomesActive &&
        (await changePhase(tx, afterCommit, {
          clusterId: c.id,
          clusterName: c.name,
          from: "Registration",
          to: "Active",
          reason: "first heartbeat received",
          at: now,
          publish: event,
        }));
      if (!activated) afterCommit(() => publish(event));
      return true;
    });
    if (!done) continue;
    recorded++;
    log.info("cluster status changed", { clusterId: c.id, name: c.name, from, to, reason });
  }
  // Counts on screen follow a transition at once instead of at the next periodic summary.
  if (recorded) void broadcastSummary();
  return recorded;
}
