import "server-only";
import type { Phase } from "@/lib/domain/status";
import type { Tx } from "@/lib/server/db/client";
import type { AfterCommit } from "@/lib/server/db/transaction";
import { publish, type FleetEvent } from "@/lib/server/events/bus";
import { STATUS_OVERRIDE_PHASES } from "@/lib/domain/status";
import { invalidateAgentContext } from "@/lib/server/heartbeats/agent-context";
import { enqueueWebhookEvent } from "@/lib/server/webhooks/enqueue-webhook";

export type PhaseChange = {
  clusterId: string;
  clusterName: string;
  /**
   * The phase the cluster must be in: the move is conditional on it, so two writers racing move it
   * once. null: the caller has just created the cluster in `to` (nothing to move, the event is
   * still written). Equal to `to`: the phase stays, the event records why (a re-registration).
   */
  from: Phase | null;
  /** "Removed": the caller deletes the cluster in the same transaction. */
  to: Phase | "Removed";
  reason: string;
  at: Date;
  /**
   * What subscribers hear after commit: by default cluster.updated (cluster.removed for
   * "Removed"); an event of the caller's, or false when the caller publishes something more
   * specific itself (a status change).
   */
  publish?: FleetEvent | false;
};

/**
 * The one way a cluster's lifecycle phase changes: the conditional write and its event in the
 * caller's transaction, then after commit the heartbeat answers' cache (when the phase is one that
 * overrides status) and the live stream. Returns false, having written nothing, when the cluster was not in `from`.
 */
const overridesStatus = (phase: string | null) => phase !== null && (STATUS_OVERRIDE_PHASES as readonly string[]).includes(phase);

export async function changePhase(tx: Tx, afterCommit: AfterCommit, change: PhaseChange): Promise<boolean> {
  const { clusterId, from, to, at } = change;
  if (from !== null && from !== to && to !== "Removed") {
    const moved = await tx.cluster.updateMany({ where: { id: clusterId, phase: from }, data: { phase: to, phaseChangedAt: at } });
    if (moved.count === 0) return false;
  }
  await tx.clusterEvent.create({ data: phaseEventRow(change) });
  // Subscribers hear of a removal from the transaction that removes (README, Webhooks).
  if (to === "Removed")
    await enqueueWebhookEvent(tx, {
      type: "cluster.removed",
      cluster: { id: clusterId, name: change.clusterName },
      data: { from, reason: change.reason },
      occurredAt: at,
    });
  afterPhaseChange(afterCommit, change);
  return true;
}

/** The event row a phase change writes (for writers that batch it with other rows in raw SQL). */
export function phaseEventRow({ clusterId, clusterName, from, to, reason, at }: PhaseChange) {
  return { clusterId, clusterName, kind: "phase", fromValue: from, toValue: to, reason, at };
}

/** What follows a phase change once committed; changePhase queues it, and so must any writer of phaseEventRow. */
export function afterPhaseChange(afterCommit: AfterCommit, change: PhaseChange) {
  const { clusterId, clusterName, from, to, at } = change;
  // Heartbeat answers carry only the phases that override status: registrations and upgrades
  // (thousands a minute in a busy fleet) leave the shared snapshot alone.
  if (overridesStatus(from) || overridesStatus(to)) afterCommit(invalidateAgentContext);
  const event =
    change.publish ??
    ({
      type: to === "Removed" ? "cluster.removed" : "cluster.updated",
      clusterId,
      name: clusterName,
      at: at.toISOString(),
    } as const);
  if (event) afterCommit(() => publish(event));
}
