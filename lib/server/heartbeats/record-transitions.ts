import "server-only";
import type { ClusterEventRow } from "@/lib/domain/cluster-events";
import type { HealthStatus } from "@/lib/domain/status";
import type { Tx } from "@/lib/server/db/client";
import { columns, insertInto, list, lockRowsInIdOrder, sql, viaPrisma } from "@/lib/server/db/sql";
import type { AfterCommit } from "@/lib/server/db/transaction";
import { publish } from "@/lib/server/events/bus";
import { changePhases } from "@/lib/server/lifecycle/change-phase";
import { enabledSubscriptions, enqueueStatusWebhooks } from "@/lib/server/webhooks/enqueue-webhook";

/** A recorded status that no longer matches the cluster's facts. */
export type StatusTransition = {
  cluster: { id: string; name: string; phase: string };
  from: HealthStatus;
  to: HealthStatus;
  reason: string;
};

export const FIRST_HEARTBEAT_PHASE_REASON = "first heartbeat received";

const cluster = columns("Cluster");

/**
 * The one writer of status transitions, for one cluster or a wave, in the caller's transaction:
 * the moves, each conditional on `from` (so several instances sweeping at once record each
 * transition once), one statement per distinct from/to; the events of those that moved, in one
 * insert; their webhooks; and Registration -> Active (through changePhases) for clusters whose
 * first heartbeat this is. After commit, subscribers hear one event per cluster that tells both.
 * Returns the transitions recorded.
 */
export async function recordTransitions(
  tx: Tx,
  afterCommit: AfterCommit,
  transitions: readonly StatusTransition[],
  now: Date,
): Promise<StatusTransition[]> {
  const run = viaPrisma(tx);
  const groups = new Map<string, StatusTransition[]>();
  for (const t of transitions) {
    const key = `${t.from}>${t.to}`;
    const group = groups.get(key);
    if (group) group.push(t);
    else groups.set(key, [t]);
  }
  const moved = new Set<string>();
  for (const group of groups.values()) {
    const { from, to } = group[0]!;
    const ids = group.map((t) => t.cluster.id);
    await lockRowsInIdOrder(run, "Cluster", ids);
    const rows = await run.rows<{ id: string }>(
      sql`UPDATE ${cluster.table} SET ${cluster("status")} = ${to}, ${cluster("statusChangedAt")} = ${now}, ${cluster("updatedAt")} = ${now}
          WHERE ${cluster("status")} = ${from} AND ${cluster("id")} IN (${list(ids)}) RETURNING ${cluster("id")}`,
    );
    for (const r of rows) moved.add(r.id);
  }
  const recorded = transitions.filter((t) => moved.has(t.cluster.id));
  if (!recorded.length) return [];
  await run.run(
    insertInto(
      "ClusterEvent",
      recorded.map((t): ClusterEventRow => ({
        clusterId: t.cluster.id,
        clusterName: t.cluster.name,
        kind: "status",
        fromValue: t.from,
        toValue: t.to,
        reason: t.reason,
        at: now,
      })),
    ),
  );
  const subscribers = await enabledSubscriptions(tx);
  for (const t of recorded)
    await enqueueStatusWebhooks(
      tx,
      { cluster: { id: t.cluster.id, name: t.cluster.name }, from: t.from, to: t.to, reason: t.reason, at: now },
      subscribers,
    );

  const event = (t: StatusTransition) =>
    ({
      type: "cluster.status",
      clusterId: t.cluster.id,
      name: t.cluster.name,
      from: t.from,
      to: t.to,
      reason: t.reason,
      at: now.toISOString(),
    }) as const;
  // The first heartbeat also makes a registering cluster Active; its status event tells subscribers both.
  const activated = await changePhases(
    tx,
    afterCommit,
    recorded
      .filter((t) => t.to === "Ready" && t.cluster.phase === "Registration")
      .map((t) => ({
        clusterId: t.cluster.id,
        clusterName: t.cluster.name,
        from: "Registration" as const,
        to: "Active" as const,
        reason: FIRST_HEARTBEAT_PHASE_REASON,
        at: now,
        publish: event(t),
      })),
  );
  const announced = new Set(activated.map((c) => c.clusterId));
  for (const t of recorded) if (!announced.has(t.cluster.id)) afterCommit(() => publish(event(t)));
  return recorded;
}
