import "server-only";
import { stageEvidence, type CanaryFacts, type StageEvidence } from "@/lib/domain/rollouts";
import { healthStatus } from "@/lib/domain/status";
import type { Db } from "@/lib/server/db/client";

/** The cluster columns a stage's evidence reads. */
export const EVIDENCE_CLUSTER_SELECT = {
  id: true,
  name: true,
  agentVersion: true,
  phase: true,
  lastHeartbeatAt: true,
  apiServerHealth: true,
  status: true,
  statusChangedAt: true,
} as const;

export type EvidenceCluster = {
  id: string;
  name: string;
  agentVersion: string | null;
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
  status: string;
  statusChangedAt: Date;
};

type Member = { clusterId: string; stage: number; state: string; finishedAt: Date | null };

/**
 * The current stage's evidence (lib/domain/rollouts.ts) from the clusters as they are now: live
 * health from their facts; Ready since the later of the upgrade settling and the sweeper's last
 * recorded move to Ready, so a cluster that dropped out and came back between two ticks soaks again.
 */
export function currentStageEvidence(
  r: { targetVersion: string; waitSeconds: number; currentStage: number; clusters: Member[] },
  clusters: Map<string, EvidenceCluster>,
  now: Date,
  notReadyThresholdSeconds: number,
): StageEvidence {
  const facts = r.clusters
    .filter((m) => m.stage === r.currentStage)
    .map((m): CanaryFacts => {
      const c = clusters.get(m.clusterId);
      const health = c ? healthStatus(c, now, notReadyThresholdSeconds) : null;
      const since = [m.finishedAt, c?.status === "Ready" ? c.statusChangedAt : null].filter((d): d is Date => !!d);
      return {
        clusterId: m.clusterId,
        name: c?.name ?? null,
        state: m.state,
        health,
        agentVersion: c?.agentVersion ?? null,
        readySince: health === "Ready" && since.length ? new Date(Math.max(...since.map((d) => d.getTime()))) : null,
      };
    });
  return stageEvidence(r.targetVersion, r.waitSeconds, facts);
}

/** The clusters of these rollouts with the columns evidence reads, in one query. */
export async function evidenceClusters(reader: Pick<Db, "cluster">, ids: string[]): Promise<Map<string, EvidenceCluster>> {
  const rows = ids.length
    ? await reader.cluster.findMany({ where: { id: { in: [...new Set(ids)] } }, select: EVIDENCE_CLUSTER_SELECT })
    : [];
  return new Map(rows.map((c) => [c.id, c]));
}
