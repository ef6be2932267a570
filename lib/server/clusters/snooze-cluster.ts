import "server-only";
import type { SnoozeClusterInput } from "@/lib/contracts/clusters";
import { snoozeUntilProblem } from "@/lib/domain/cluster-snooze";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { publish } from "@/lib/server/events/bus";

const CLEARED = { snoozedUntil: null, snoozedAt: null, snoozeReason: null, snoozeOwner: null, snoozedBy: null } as const;

/**
 * POST /api/v1/clusters/{id}/snooze: silence a known-broken cluster until a time (lib/domain/cluster-snooze.ts).
 * Alerts about it already waiting to go out and not yet attempted (a NotReady in its hold) are
 * suppressed with it, so the snooze silences what the operator has already seen. Audited.
 */
export async function snoozeCluster(actor: Actor, id: string, input: SnoozeClusterInput, now = new Date()): Promise<void> {
  const until = new Date(input.until);
  const problem = snoozeUntilProblem(until, now);
  if (problem) throw new ApiError("invalid_request", problem, [{ field: "until", message: problem }]);
  const reason = input.reason.trim();
  const owner = input.owner.trim();
  const name = await inTransaction(async (tx) => {
    const cluster = await tx.cluster.findUnique({ where: { id }, select: { name: true, snoozedUntil: true } });
    if (!cluster) throw new ApiError("not_found", "No cluster with this id.");
    await tx.cluster.update({
      where: { id },
      data: { snoozedUntil: until, snoozedAt: now, snoozeReason: reason, snoozeOwner: owner, snoozedBy: actor.label },
    });
    // Conditional like the Ready-again cancel: a delivery the job has claimed goes out.
    const held = await tx.webhookDelivery.updateMany({
      where: { clusterId: id, state: "pending", attempts: 0, leaseUntil: null },
      data: { state: "suppressed", lastError: `Cluster snoozed until ${until.toISOString()} by ${actor.label}: ${reason}` },
    });
    await recordAudit(
      tx,
      actor,
      "cluster.snooze",
      { type: "cluster", id },
      { name: cluster.name, until: until.toISOString(), reason, owner, suppressedDeliveries: held.count },
    );
    return cluster.name;
  });
  publish({ type: "cluster.updated", clusterId: id, name, at: now.toISOString() });
}

/** DELETE /api/v1/clusters/{id}/snooze: end a snooze now. Audited; a cluster without one is a 409. */
export async function unsnoozeCluster(actor: Actor, id: string, now = new Date()): Promise<void> {
  const name = await inTransaction(async (tx) => {
    const cluster = await tx.cluster.findUnique({
      where: { id },
      select: { name: true, snoozedUntil: true, snoozeReason: true, snoozeOwner: true },
    });
    if (!cluster) throw new ApiError("not_found", "No cluster with this id.");
    if (!cluster.snoozedUntil) throw new ApiError("conflict", "This cluster is not snoozed.");
    await tx.cluster.update({ where: { id }, data: CLEARED });
    await recordAudit(
      tx,
      actor,
      "cluster.unsnooze",
      { type: "cluster", id },
      { name: cluster.name, until: cluster.snoozedUntil.toISOString(), reason: cluster.snoozeReason, owner: cluster.snoozeOwner },
    );
    return cluster.name;
  });
  publish({ type: "cluster.updated", clusterId: id, name, at: now.toISOString() });
}
