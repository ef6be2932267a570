import "server-only";
import { NOT_PLANNED_STAGE, type CreateRolloutInput } from "@/lib/domain/rollouts";
import { db } from "@/lib/server/db/client";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { getRollout } from "./get-rollout";
import { resolvePlan } from "./plan-rollout";
import type { RolloutTeam } from "./rollout-team";
import { tickRollout } from "./tick-rollout";

/**
 * Plans the stages over the matching clusters, stores the rollout (with the clusters left out of
 * the plan as skipped, each with its reason) and takes its first step at once. A team's rollout
 * (rollout-team.ts) is planned within the team's scope and belongs to the team.
 */
export async function createRollout(actor: Actor, input: CreateRolloutInput, team: RolloutTeam | null = null) {
  const { clusters, stages: plan, skipped, leftOut } = await resolvePlan(input, team);
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
        requireApproval: input.requireApproval,
        includeUnready: input.includeUnready,
        state: "Running",
        createdById: actor.id,
        teamId: team?.teamId ?? null,
      },
    });
    const now = new Date();
    await tx.rolloutCluster.createMany({
      data: [
        ...plan.flatMap((stage, i) =>
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
        ...skipped.map((c) => ({
          rolloutId: r.id,
          clusterId: c.id,
          stage: NOT_PLANNED_STAGE,
          fromVersion: c.agentVersion,
          state: "Skipped",
          error: `${c.reason} when planned`,
          finishedAt: now,
        })),
      ],
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
        ...(input.clusterIds ? { clusterIds: input.clusterIds.length } : {}),
        stages: plan.map((p) => ({ name: p.name, clusters: p.clusterIds.length })),
        skipped: skipped.length,
        includeUnready: input.includeUnready,
        requireApproval: input.requireApproval,
        ...(team ? { team: team.team, leftOutOfScope: leftOut } : {}),
      },
    );
    return r;
  });
  await tickRollout(rollout.id);
  return getRollout(rollout.id);
}
