import "server-only";
import type { Rollout } from "@/lib/contracts/rollouts";
import {
  approvalProblem,
  estimateRemaining,
  stageState,
  type MemberState,
  type RolloutState,
  type StageSpec,
} from "@/lib/domain/rollouts";
import { ApiError } from "@/lib/server/api/errors";
import { db, type Db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { currentStageEvidence, evidenceClusters, type EvidenceCluster } from "./stage-evidence";

/** What reads rollouts: the app's client, or in tests one that counts its queries. */
export type RolloutReader = Pick<Db, "rollout" | "cluster" | "team">;

type RolloutRow = NonNullable<Awaited<ReturnType<typeof findWithMembers>>>;
type ClusterFacts = EvidenceCluster;

function findWithMembers(id: string) {
  return db().rollout.findUnique({ where: { id }, include: { clusters: true } });
}

/** The rollout with its clusters, or not_found. */
export async function findRollout(id: string): Promise<RolloutRow> {
  const r = await findWithMembers(id);
  if (!r) throw new ApiError("not_found", "No rollout with this id.");
  return r;
}

/** Names, versions and health facts of the clusters of these rollouts, in one query. */
export function clusterFacts(rollouts: RolloutRow[], reader: RolloutReader = db()): Promise<Map<string, ClusterFacts>> {
  return evidenceClusters(
    reader,
    rollouts.flatMap((r) => r.clusters.map((c) => c.clusterId)),
  );
}

/** The names of the teams these rollouts belong to (no query when none is a team's). */
export async function teamNames(
  rollouts: { teamId: string | null }[],
  reader: RolloutReader = db(),
): Promise<Map<string, string>> {
  const ids = [...new Set(rollouts.flatMap((r) => (r.teamId ? [r.teamId] : [])))];
  if (!ids.length) return new Map();
  const rows = await reader.team.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(rows.map((t) => [t.id, t.name]));
}

export async function getRollout(id: string) {
  const r = await findRollout(id);
  const { notReadyThresholdSeconds } = await getSettings();
  const [clusters, teams] = await Promise.all([clusterFacts([r]), teamNames([r])]);
  return rolloutView(r, clusters, new Date(), notReadyThresholdSeconds, teams);
}

/** The current stage's evidence while it soaks or awaits approval; null before it finishes. */
function evidenceView(
  r: RolloutRow,
  clusters: Map<string, ClusterFacts>,
  now: Date,
  thresholdSeconds: number,
): Rollout["evidence"] {
  const finished = r.state === "AwaitingApproval" || ((r.state === "Running" || r.state === "Paused") && r.stageCompletedAt);
  if (!finished) return null;
  const e = currentStageEvidence(r, clusters, now, thresholdSeconds);
  return {
    stage: r.currentStage,
    soakSeconds: r.waitSeconds,
    soakedAt: e.soakedAt?.toISOString() ?? null,
    problem: approvalProblem(e),
    canaries: e.canaries.map((c) => ({
      clusterId: c.clusterId,
      name: c.name,
      state: c.state as MemberState,
      health: c.health,
      agentVersion: c.agentVersion,
      readySince: c.readySince?.toISOString() ?? null,
      judged: c.judged,
      problem: c.problem,
    })),
  };
}

export function rolloutView(
  r: RolloutRow,
  clusters: Map<string, ClusterFacts>,
  now: Date,
  notReadyThresholdSeconds: number,
  teams: Map<string, string>,
): Rollout {
  const count = (state: string, members = r.clusters) => members.filter((m) => m.state === state).length;
  const specs = JSON.parse(r.stages) as StageSpec[];
  const stages = specs.map((s, i) => {
    const members = r.clusters.filter((c) => c.stage === i);
    return {
      index: i,
      name: s.name,
      total: members.length,
      pending: count("Pending", members),
      upgrading: count("Upgrading", members),
      succeeded: count("Succeeded", members),
      failed: count("Failed", members),
      skipped: count("Skipped", members),
      state: stageState(i, r.currentStage, members),
    };
  });
  return {
    id: r.id,
    name: r.name,
    targetVersion: r.targetVersion,
    selector: r.selector,
    groupId: r.groupId,
    team: r.teamId ? { id: r.teamId, name: teams.get(r.teamId) ?? null } : null,
    state: r.state as RolloutState,
    pausedReason: r.pausedReason,
    waitingReason: r.state === "Running" ? r.waitingReason : null,
    requireApproval: r.requireApproval,
    includeUnready: r.includeUnready,
    eta: estimateRemaining({ ...r, stageCount: specs.length }, r.clusters),
    currentStage: r.currentStage,
    maxUnavailable: r.maxUnavailable,
    waitSeconds: r.waitSeconds,
    failureThreshold: r.failureThreshold,
    clusterTimeoutSeconds: r.clusterTimeoutSeconds,
    stageCompletedAt: r.stageCompletedAt?.toISOString() ?? null,
    evidence: evidenceView(r, clusters, now, notReadyThresholdSeconds),
    createdAt: r.createdAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    totals: {
      clusters: r.clusters.length,
      succeeded: count("Succeeded"),
      failed: count("Failed"),
      upgrading: count("Upgrading"),
      skipped: count("Skipped"),
    },
    stages,
    clusters: [...r.clusters]
      .sort((a, b) => a.stage - b.stage)
      .map((c) => ({
        clusterId: c.clusterId,
        name: clusters.get(c.clusterId)?.name ?? null,
        stage: c.stage,
        state: c.state as MemberState,
        fromVersion: c.fromVersion,
        agentVersion: clusters.get(c.clusterId)?.agentVersion ?? null,
        startedAt: c.startedAt?.toISOString() ?? null,
        finishedAt: c.finishedAt?.toISOString() ?? null,
        error: c.error,
        handoff: c.handoff,
      })),
  };
}
