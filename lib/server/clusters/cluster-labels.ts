import "server-only";
import type { Labels } from "@/lib/domain/labels";
import { inChunks } from "@/lib/server/db/chunks";
import type { Tx } from "@/lib/server/db/client";
import { insertInto, type Sql } from "@/lib/server/db/sql";
import type { AfterCommit } from "@/lib/server/db/transaction";
import { recomputeDesiredRevisions } from "@/lib/server/policies/policies";

// The one door for a cluster's labels. A label decides which groups, and so which policies, reach
// a cluster: every change here queues the recomputation of the changed clusters' desired policy
// revisions, run once the transaction has committed (before that it would read the old labels).

function recomputeAfterCommit(afterCommit: AfterCommit, clusterIds: string[]) {
  if (clusterIds.length) afterCommit(async () => void (await recomputeDesiredRevisions(clusterIds)));
}

/** Replaces each cluster's labels with the given set (an operator's edit, a claim, a re-registration). */
export async function replaceClusterLabels(
  tx: Tx,
  afterCommit: AfterCommit,
  changes: readonly { clusterId: string; labels: Labels }[],
): Promise<void> {
  for (const chunk of inChunks(changes)) {
    await tx.clusterLabel.deleteMany({ where: { clusterId: { in: chunk.map((c) => c.clusterId) } } });
    const rows = chunk.flatMap((c) => Object.entries(c.labels).map(([key, value]) => ({ clusterId: c.clusterId, key, value })));
    if (rows.length) await tx.clusterLabel.createMany({ data: rows });
  }
  const ids = changes.map((c) => c.clusterId);
  recomputeAfterCommit(afterCommit, ids);
}

/** Sets and removes labels on many clusters at once, leaving their other labels as they are. */
export async function changeClusterLabels(
  tx: Tx,
  afterCommit: AfterCommit,
  clusterIds: readonly string[],
  change: { set: Labels; remove: readonly string[] },
): Promise<void> {
  const touched = [...Object.keys(change.set), ...change.remove];
  for (const chunk of inChunks(clusterIds)) {
    await tx.clusterLabel.deleteMany({ where: { clusterId: { in: chunk }, key: { in: touched } } });
    const rows = chunk.flatMap((clusterId) => Object.entries(change.set).map(([key, value]) => ({ clusterId, key, value })));
    if (rows.length) await tx.clusterLabel.createMany({ data: rows });
  }
  recomputeAfterCommit(afterCommit, [...clusterIds]);
}

/**
 * A new cluster's labels as a raw insert, for the new-cluster path's single statement
 * (lib/server/registration/write-new-cluster.ts). Queues the recomputation even without labels:
 * a selector such as `!legacy` matches a cluster that has none.
 */
export function newClusterLabelInserts(afterCommit: AfterCommit, clusterId: string, labels: Labels): Sql[] {
  recomputeAfterCommit(afterCommit, [clusterId]);
  const rows = Object.entries(labels).map(([key, value]) => ({ clusterId, key, value }));
  return rows.length ? [insertInto("ClusterLabel", rows)] : [];
}
