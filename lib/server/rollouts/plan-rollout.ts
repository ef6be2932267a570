import "server-only";
import type { RolloutPlan } from "@/lib/contracts/rollouts";
import { planStages, splitPlanTargets, UNFINISHED_ROLLOUT_STATES, type CreateRolloutInput } from "@/lib/domain/rollouts";
import { healthStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { matchingClusters } from "@/lib/server/clusters/cluster-list-sql";
import { parseSelectorParam } from "@/lib/server/clusters/list-clusters";
import { requestedGroupSelector } from "@/lib/server/groups/group-selector";
import { getSettings } from "@/lib/server/settings/settings";

const CLUSTER_FACTS = {
  id: true,
  name: true,
  agentVersion: true,
  phase: true,
  lastHeartbeatAt: true,
  apiServerHealth: true,
} as const;

/** The clusters a rollout input names, in name order; unknown explicit ids are refused. */
async function targetClusters(input: CreateRolloutInput) {
  if (input.clusterIds) {
    const ids = [...new Set(input.clusterIds)];
    const rows = await db().cluster.findMany({ where: { id: { in: ids } }, select: CLUSTER_FACTS, orderBy: { name: "asc" } });
    if (rows.length !== ids.length) {
      const known = new Set(rows.map((r) => r.id));
      const missing = ids.filter((id) => !known.has(id));
      throw new ApiError("invalid_request", `${missing.length} of these clusters no longer exist.`, [
        { field: "clusterIds", message: `unknown cluster id(s): ${missing.slice(0, 5).join(", ")}` },
      ]);
    }
    return rows;
  }
  const group = input.groupId ? await db().clusterGroup.findUnique({ where: { id: input.groupId } }) : null;
  if (input.groupId && !group)
    throw new ApiError("invalid_request", "No such group.", [{ field: "groupId", message: "unknown group" }]);
  // A group whose stored selector is invalid is refused with its problem, not planned as empty.
  const selector = group ? requestedGroupSelector(group, "groupId") : parseSelectorParam(input.selector ?? "");
  const ids = (await matchingClusters(selector)).map((c) => c.id);
  const rows = await db().cluster.findMany({ where: { id: { in: ids } }, select: CLUSTER_FACTS });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * What a rollout input would do now: the clusters each stage takes, and those left out (NotReady
 * or draining, unless included on purpose). Refuses an input that matches nothing or overlaps an
 * unfinished rollout. Reads only: the console shows it before asking to start.
 */
export async function resolvePlan(input: CreateRolloutInput, now = new Date()) {
  const clusters = await targetClusters(input);
  if (!clusters.length)
    throw new ApiError("invalid_request", "No cluster matches; nothing to upgrade.", [
      { field: input.clusterIds ? "clusterIds" : input.selector ? "selector" : "groupId", message: "matches no cluster" },
    ]);
  const busy = await db().rolloutCluster.findFirst({
    where: {
      clusterId: { in: clusters.map((c) => c.id) },
      state: { in: ["Pending", "Upgrading"] },
      rollout: { state: { in: [...UNFINISHED_ROLLOUT_STATES] } },
    },
    select: { rollout: { select: { name: true } } },
  });
  if (busy)
    throw new ApiError(
      "conflict",
      `Some of these clusters are in the unfinished rollout "${busy.rollout.name}"; finish or abort it first.`,
    );
  const { notReadyThresholdSeconds } = await getSettings();
  const withHealth = clusters.map((c) => ({ ...c, health: healthStatus(c, now, notReadyThresholdSeconds) }));
  const { planned, skipped } = splitPlanTargets(withHealth, input.includeUnready);
  const stages = planStages(
    planned.map((c) => c.id),
    input.stages,
  );
  return { clusters: withHealth, stages, skipped };
}

/** POST /api/v1/rollouts/plan: the counts the console confirms before starting. */
export async function planRollout(input: CreateRolloutInput): Promise<RolloutPlan> {
  const [{ clusters, stages, skipped }, { heartbeatIntervalSeconds }] = await Promise.all([resolvePlan(input), getSettings()]);
  const onTarget = new Set(clusters.filter((c) => c.agentVersion === input.targetVersion).map((c) => c.id));
  return {
    clusters: clusters.length,
    planned: stages.reduce((n, s) => n + s.clusterIds.length, 0),
    alreadyOnTarget: stages.reduce((n, s) => n + s.clusterIds.filter((id) => onTarget.has(id)).length, 0),
    stages: stages.map((s) => ({
      name: s.name,
      clusters: s.clusterIds.length,
      upgrades: s.clusterIds.filter((id) => !onTarget.has(id)).length,
    })),
    heartbeatIntervalSeconds,
    skipped: skipped.map((c) => ({ clusterId: c.id, name: c.name, reason: c.reason })),
  };
}
