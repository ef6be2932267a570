import "server-only";
import type { LabelSummary } from "@/lib/contracts/labels";
import { labelKeyCounts } from "@/lib/domain/label-summary";
import { db } from "@/lib/server/db/client";

/**
 * Every label key and value with its cluster count, from one GROUP BY over the covering
 * ClusterLabel(key, value, clusterId) index (no cluster row is read): tens of milliseconds at
 * 10,000 clusters on either engine.
 */
export async function summariseLabels(): Promise<LabelSummary> {
  const [groups, clusters] = await Promise.all([
    db().clusterLabel.groupBy({ by: ["key", "value"], _count: { _all: true } }),
    db().cluster.count(),
  ]);
  return { clusters, keys: labelKeyCounts(groups.map((g) => ({ key: g.key, value: g.value, count: g._count._all }))) };
}
