import "server-only";
import type { ProfileFacts } from "@/lib/domain/cluster-profiles";
import { db } from "@/lib/server/db/client";
import { totalNodes } from "@/lib/server/clusters/list-clusters";

/** Clusters by name after `after` (exclusive), at most `take`, with what a ClusterProfile is made of. */
export async function loadProfileFacts(page: { after?: string; take: number }): Promise<ProfileFacts[]> {
  const rows = await db().cluster.findMany({
    where: page.after ? { name: { gt: page.after } } : {},
    orderBy: { name: "asc" },
    take: page.take,
    select: {
      id: true,
      name: true,
      phase: true,
      lastHeartbeatAt: true,
      apiServerHealth: true,
      createdAt: true,
      registeredAt: true,
      phaseChangedAt: true,
      statusChangedAt: true,
      kubernetesVersion: true,
      agentVersion: true,
      apiServerUrl: true,
      labels: { select: { key: true, value: true } },
      nodePools: { select: { nodeCount: true } },
    },
  });
  return rows.map(({ labels, nodePools, ...c }) => ({
    ...c,
    labels: Object.fromEntries(labels.map((l) => [l.key, l.value])),
    nodeCount: totalNodes(nodePools),
  }));
}
