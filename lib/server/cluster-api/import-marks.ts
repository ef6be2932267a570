import "server-only";
import type { Tx } from "@/lib/server/db/client";

// The do-not-import mark (lib/domain/cluster-api.ts DO_NOT_IMPORT_ANNOTATION). It is written in the
// transaction that removes the fleet's record, so the import, which pre-creates a record only on a
// row still unmarked and unlinked (a conditional update), can never bring the cluster back between
// the removal and the mark. The annotation on the CAPI Cluster follows (markSynced: false until the
// importer has written it) and outlives the row: a source added again still sees it.

/**
 * Unlinks the CAPI Cluster row of a fleet cluster being removed. `mark`: who removed it and when
 * (a removal by a person); null when Cluster API's own deletion removed it.
 */
export async function unlinkImportedCluster(tx: Tx, clusterId: string, mark: { by: string; at: Date } | null): Promise<void> {
  await tx.capiCluster.updateMany({
    where: { clusterId },
    data: mark
      ? { clusterId: null, excludedAt: mark.at, excludedBy: mark.by, markSynced: false, nextAttemptAt: mark.at }
      : { clusterId: null, nextAttemptAt: new Date() },
  });
}
