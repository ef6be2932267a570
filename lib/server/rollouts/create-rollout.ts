import "server-only";
import { planStages, UNFINISHED_ROLLOUT_STATES, type CreateRolloutInput } from "@/lib/domain/rollouts";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { matchingClusters } from "@/lib/server/clusters/cluster-sql";
import { parseSelectorParam } from "@/lib/server/clusters/list-clusters";
import { requestedGroupSelector } from "@/lib/server/groups/group-selector";
import { getRollout } from "./get-rollout";
import { tickRollout } from "./tick-rollout";

/** Plans the stages over the matching clusters, stores the rollout and takes its first step at once. */
export async function createRollout(actor: Actor, input: CreateRolloutInput) {
  const group = input.groupId ? await db().clusterGroup.findUnique({ where: { id: input.groupId } }) : null;
  if (input.groupId && !group)
    throw new ApiError("invalid_request", "No such group.", [{ field: "groupId", message: "unknown group" }]);
  // A group whose stored selector is invalid is refused with its problem, not planned as empty.
  const selector = group ? requestedGroupSelector(group, "groupId") : parseSelectorParam(input.selector ?? "");
  const clusters = await matchingClusters(selector);
  if (!clusters.length)
    throw new ApiError("invalid_request", "No cluster matches; nothing to upgrade.", [
      { field: input.selector ? "selector" : "groupId", message: "matches no cluster" },
    ]);
  const busy = await db().rolloutCluster.findFirst({
    where: { clusterId: { in: clusters.map((c) => c.id) }, rollout: { state: { in: [...UNFINISHED_ROLLOUT_STATES] } } },
    select: { rollout: { select: { name: true } } },
  });
  if (busy)
    throw new ApiError(
      "conflict",
      `Some of these clusters are in the unfinished rollout "${busy.rollout.name}"; finish or abort it first.`,
    );
  const plan = planStages(
    clusters.map((c) => c.id),
    input.stages,
  );
  const current = new Map(clusters.map((c) => [c.id, c.agentVersion]));
  const rollout = await db().$transaction(async (tx) => {
    const r = await tx.rollout.create({
      data: {
        name: input.name,
        targetVersion: input.targetVersion,
        groupId: input.groupId ?? null,
        selector: input.selector ?? null,
        stages: JSON.stringify(plan.map((p, i) => ({ ...input.stages[i], name: p.name }))),
        maxUnavailable: input.maxUnavailable,
        waitSeconds: input.waitSeconds,
        failureThreshold: input.failureThreshold,
        clusterTimeoutSeconds: input.clusterTimeoutSeconds,
        state: "Running",
        createdById: actor.id,
      },
    });
    await tx.rolloutCluster.createMany({
      data: plan.flatMap((stage, i) =>
        stage.clusterIds.map((clusterId) => {
          const onTarget = current.get(clusterId) === input.targetVersion;
          return {
            rolloutId: r.id,
            clusterId,
            stage: i,
            fromVersion: current.get(clusterId) ?? null,
            state: onTarget ? "Skipped" : "Pending",
            error: onTarget ? "already on the target version" : null,
          };
        }),
      ),
    });
    await recordAudit(
      tx,
      actor,
      "rollout.create",
      { type: "rollout", id: r.id },
      {
        name: input.name,
        targetVersion: input.targetVersion,
        clusters: clusters.length,
        stages: plan.map((p) => ({ name: p.name, clusters: p.clusterIds.length })),
      },
    );
    return r;
  });
  await tickRollout(rollout.id);
  return getRollout(rollout.id);
}
