import "server-only";
import { healthStatus, transitionReason, type HealthStatus } from "@/lib/domain/status";
import { db, dialect } from "@/lib/server/db/client";
import { statusDrift } from "@/lib/server/clusters/status-sql";
import { inTransaction } from "@/lib/server/db/transaction";
import { afterPhaseChange, changePhase, phaseEventRow } from "@/lib/server/lifecycle/change-phase";
import { getSettings } from "@/lib/server/settings/settings";
import { publish } from "@/lib/server/events/bus";
import { log } from "@/lib/server/log";
import { broadcastSummary } from "@/lib/server/events/fleet-summary";
import { heartbeatsCaughtUp } from "./heartbeat-writer";
import { enqueueStatusWebhooks, enabledSubscriptions } from "@/lib/server/webhooks/enqueue-webhook";

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
  const firstHeartbeats: typeof candidates = [];
  for (const c of candidates) {
    const from = c.status as HealthStatus;
    const to = healthStatus(c, now, threshold);
    if (to === from) continue;
    // A registration wave's first heartbeats are the many transitions: recorded in batches below.
    if (from === "Pending" && to === "Ready") {
      firstHeartbeats.push(c);
      continue;
    }
    if (await recordTransition(c, from, to, now, threshold)) recorded++;
  }
  for (let i = 0; i < firstHeartbeats.length; i += FIRST_HEARTBEAT_CHUNK)
    recorded += await recordFirstHeartbeats(firstHeartbeats.slice(i, i + FIRST_HEARTBEAT_CHUNK), now, threshold);
  // Counts on screen follow a transition at once instead of at the next periodic summary.
  if (recorded) void broadcastSummary();
  return recorded;
}

type Candidate = {
  id: string;
  name: string;
  status: string;
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
};

/** One transition in its own transaction: the status move (conditional on `from`), its event, webhooks, and the phase it implies. */
async function recordTransition(c: Candidate, from: HealthStatus, to: HealthStatus, now: Date, threshold: number) {
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
        reason: FIRST_HEARTBEAT_PHASE_REASON,
        at: now,
        publish: event,
      }));
    if (!activated) afterCommit(() => publish(event));
    return true;
  });
  if (done) log.info("cluster status changed", { clusterId: c.id, name: c.name, from, to, reason });
  return done;
}

const FIRST_HEARTBEAT_CHUNK = 100;
const FIRST_HEARTBEAT_PHASE_REASON = "first heartbeat received";

/**
 * Pending -> Ready for many clusters in one transaction of a few statements: the status moves
 * (conditional on Pending, so another instance's sweep records each once), Registration ->
 * Active for those still registering (conditional on the phase), and every event row in one
 * insert. Exactly what recordTransition writes for each, where a wave of 500 first heartbeats
 * cost 3 ms of event loop apiece through a Prisma transaction each (bench:sweep).
 */
async function recordFirstHeartbeats(clusters: Candidate[], now: Date, threshold: number): Promise<number> {
  const reasonOf = (c: Candidate) => transitionReason("Pending", "Ready", c, threshold);
  const moved = await inTransaction(async (tx, afterCommit) => {
    const ids = clusters.map((c) => c.id);
    const place = (n: number, from = 0) => Array.from({ length: n }, (_, k) => placeholder(from + k + 1)).join(", ");
    // PostgreSQL: the rows are locked in id order first, as the heartbeat writer locks its own
    // (lib/server/db/bulk-update.ts); an UPDATE alone may visit them in another order and deadlock with it.
    if (dialect() === "postgres")
      await tx.$queryRawUnsafe(
        `SELECT "id" FROM "Cluster" WHERE "id" IN (${place(ids.length)}) ORDER BY "id" FOR UPDATE`,
        ...ids,
      );
    const movedIds = new Set(
      (
        await tx.$queryRawUnsafe<{ id: string }[]>(
          `UPDATE "Cluster" SET "status" = 'Ready', "statusChangedAt" = ${placeholder(1)} ` +
            `WHERE "status" = 'Pending' AND "id" IN (${place(ids.length, 1)}) RETURNING "id"`,
          now,
          ...ids,
        )
      ).map((r) => r.id),
    );
    const movedClusters = clusters.filter((c) => movedIds.has(c.id));
    if (!movedClusters.length) return [];
    const registering = movedClusters.filter((c) => c.phase === "Registration").map((c) => c.id);
    const activated = new Set(
      registering.length
        ? (
            await tx.$queryRawUnsafe<{ id: string }[]>(
              `UPDATE "Cluster" SET "phase" = 'Active', "phaseChangedAt" = ${placeholder(1)} ` +
                `WHERE "phase" = 'Registration' AND "id" IN (${place(registering.length, 1)}) RETURNING "id"`,
              now,
              ...registering,
            )
          ).map((r) => r.id)
        : [],
    );
    const phaseChange = (c: Candidate) => ({
      clusterId: c.id,
      clusterName: c.name,
      from: "Registration" as const,
      to: "Active" as const,
      reason: FIRST_HEARTBEAT_PHASE_REASON,
      at: now,
    });
    await tx.clusterEvent.createMany({
      data: movedClusters.flatMap((c) => [
        {
          clusterId: c.id,
          clusterName: c.name,
          kind: "status",
          fromValue: "Pending",
          toValue: "Ready",
          reason: reasonOf(c),
          at: now,
        },
        ...(activated.has(c.id) ? [phaseEventRow(phaseChange(c))] : []),
      ]),
    });
    const subs = await enabledSubscriptions(tx);
    for (const c of movedClusters) {
      const reason = reasonOf(c);
      await enqueueStatusWebhooks(
        tx,
        { cluster: { id: c.id, name: c.name }, from: "Pending", to: "Ready", reason, at: now },
        subs,
      );
      const event = {
        type: "cluster.status",
        clusterId: c.id,
        name: c.name,
        from: "Pending",
        to: "Ready",
        reason,
        at: now.toISOString(),
      } as const;
      if (activated.has(c.id)) afterPhaseChange(afterCommit, { ...phaseChange(c), publish: event });
      else afterCommit(() => publish(event));
    }
    return movedClusters;
  });
  for (const c of moved)
    log.info("cluster status changed", { clusterId: c.id, name: c.name, from: "Pending", to: "Ready", reason: reasonOf(c) });
  return moved.length;
}

/** The n-th bound parameter's placeholder in raw SQL. */
const placeholder = (n: number) => (dialect() === "postgres" ? `$${n}` : "?");
