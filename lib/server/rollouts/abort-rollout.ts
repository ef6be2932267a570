import "server-only";
import type { Actor } from "@/lib/server/audit/record-audit";
import { inTransaction } from "@/lib/server/db/transaction";
import { changePhase } from "@/lib/server/lifecycle/change-phase";
import { withdrawDirectives } from "@/lib/server/agent-port/directives";
import { getRollout } from "./get-rollout";
import { beginAction, commitAction } from "./rollout-action";

/**
 * Stops the rollout for good: upgrade directives not yet picked up are withdrawn, unfinished
 * clusters are skipped, and the clusters that were upgrading go back to Active, each with its event.
 */
export async function abortRollout(actor: Actor, id: string, reason?: string) {
  const { rollout, next } = await beginAction(id, "abort");
  const now = new Date();
  await inTransaction(async (tx, afterCommit) => {
    await commitAction(tx, actor, "abort", rollout, { state: next, finishedAt: now, pausedReason: reason ?? null }, reason);
    const upgrading = await tx.rolloutCluster.findMany({
      where: { rolloutId: id, state: "Upgrading" },
      select: { clusterId: true, directiveId: true },
    });
    const directiveIds = upgrading.flatMap((m) => (m.directiveId ? [m.directiveId] : []));
    if (directiveIds.length) await withdrawDirectives(tx, afterCommit, { ids: directiveIds });
    await tx.rolloutCluster.updateMany({
      where: { rolloutId: id, state: { in: ["Pending", "Upgrading"] } },
      data: { state: "Skipped", error: "rollout aborted", finishedAt: now },
    });
    const clusters = await tx.cluster.findMany({
      where: { id: { in: upgrading.map((m) => m.clusterId) }, phase: "Upgrading" },
      select: { id: true, name: true },
    });
    for (const c of clusters)
      await changePhase(tx, afterCommit, {
        clusterId: c.id,
        clusterName: c.name,
        from: "Upgrading",
        to: "Active",
        reason: `rollout ${rollout.name} aborted${reason ? `: ${reason}` : ""}`,
        at: now,
      });
  });
  return getRollout(id);
}
