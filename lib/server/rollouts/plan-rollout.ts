import "server-only";
import type { RolloutPlan } from "@/lib/contracts/rollouts";
import { planStages, splitPlanTargets, UNFINISHED_ROLLOUT_STATES, type CreateRolloutInput } from "@/lib/domain/rollouts";
import { healthStatus } from "@/lib/domain/status";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { clusterIdsInScope, matchingClusters } from "@/lib/server/clusters/cluster-list-sql";
import { parseSelectorParam } from "@/lib/server/clusters/list-clusters";
import { requestedGroupSelector } from "@/lib/server/groups/group-selector";
import { getSettings } from "@/lib/server/settings/settings";
import type { RolloutTeam } from "./rollout-team";

const CLUSTER_FACTS = {
  id: true,
  name: true,
  agentVersion: true,
  phase: true,
  lastHeartbeatAt: true,
  apiServerHealth: true,
} as const;

/**
 * The clusters a rollout input names, in name order, and for a team's rollout how many of its
 * matches are outside the team's scope (left out). Unknown explicit ids are refused; for a team,
 * an explicit id outside its scope reads as unknown, as everywhere else.
 */
async function targetClusters(input: CreateRolloutInput, team: RolloutTeam | null) {
  if (input.clusterIds) {
    const ids = [...new Set(input.clusterIds)];
    const found = await db().cluster.findMany({ where: { id: { in: ids } }, select: CLUSTER_FACTS, orderBy: { name: "asc" } });
    const inScope = team ? await clusterIdsInScope([team.selector]) : null;
    const rows = inScope ? found.filter((r) => inScope.has(r.id)) : found;
    if (rows.length !== ids.length) {
      const known = new Set(rows.map((r) => r.id));
      const missing = ids.filter((id) => !known.has(id));
      throw new ApiError("invalid_request", `${missing.length} of these clusters no longer exist.`, [
        { field: "clusterIds", message: `unknown cluster id(s): ${missing.slice(0, 5).join(", ")}` },
      ]);
    }
    return { rows, leftOut: 0 };
  }
  const group = input.groupId ? await db().clusterGroup.findUnique({ where: { id: input.groupId } }) : null;
  if (input.groupId && !group)
    throw new ApiError("invalid_request", "No such group.", [{ field: "groupId", message: "unknown group" }]);
  // A group whose stored selector is invalid is refused with its problem, not planned as empty.
  const selector = group ? requestedGroupSelector(group, "groupId") : parseSelectorParam(input.selector ?? "");
  const matched = await matchingClusters(selector, team ? [team.selector] : undefined);
  const leftOut = team ? (await matchingClusters(selector)).length - matched.length : 0;
  const ids = matched.map((c) => c.id);
  const rows = await db().cluster.findMany({ where: { id: { in: ids } }, select: CLUSTER_FACTS });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { rows: ids.flatMap((id) => byId.get(id) ?? []), leftOut };
}

/**
 * What a rollout input would do now: the clusters each stage takes, and those left out (NotReady
 * or draining, unless included on purpose). Refuses an input that matches nothing or overlaps an
 * unfinished rollout. A team's plan takes only clusters in its scope and counts the others as
 * left out. Reads only: the console shows it before asking to start.
 */
export async function resolvePlan(input: CreateRolloutInput, team: RolloutTeam | null = null, now = new Date()) {
  const { rows: clusters, leftOut } = await targetClusters(input, team);
  if (!clusters.length)
    throw new ApiError(
      "invalid_request",
      team && leftOut
        ? `No cluster in team ${team.team}'s scope matches (${leftOut} outside it do); nothing to upgrade.`
        : "No cluster matches; nothing to upgrade.",
      [{ field: input.clusterIds ? "clusterIds" : input.selector ? "selector" : "groupId", message: "matches no cluster" }],
    );
  const busy = await db().rolloutCluster.findFirst({
    where: {
      clusterId: { in: clusters.map((c) => c.id) },
      state: { in: ["Pending", "Upgrading"] },
      rollout: { state: { in: [...UNFINISHED_ROLLOUT_STATES] } },
    },
    select: { rollout: { select: { name: true, teamId: true } } },
  });
  if (busy)
    throw new ApiError(
      "conflict",
      // A team learns the name of its own rollouts only.
      team && busy.rollout.teamId !== team.teamId
        ? "Some of these clusters are in an unfinished rollout of the fleet or of another team; it must finish or be aborted first."
        : `Some of these clusters are in the unfinished rollout "${busy.rollout.name}"; finish or abort it first.`,
    );
  const { notReadyThresholdSeconds } = await getSettings();
  const withHealth = clusters.map((c) => ({ ...c, health: healthStatus(c, now, notReadyThresholdSeconds) }));
  const { planned, skipped } = splitPlanTargets(withHealth, input.includeUnready);
  const stages = planStages(
    planned.map((c) => c.id),
    input.stages,
  );
  return { clusters: withHealth, stages, skipped, leftOut };
}

/** POST /api/v1/rollouts/plan: the counts the console confirms before starting. */
export async function planRollout(input: CreateRolloutInput, team: RolloutTeam | null = null): Promise<RolloutPlan> {
  const [{ clusters, stages, skipped, leftOut }, { heartbeatIntervalSeconds }] = await Promise.all([
    resolvePlan(input, team),
    getSettings(),
  ]);
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
    ...(team ? { scope: { teamId: team.teamId, team: team.team, leftOut } } : {}),
  };
}
