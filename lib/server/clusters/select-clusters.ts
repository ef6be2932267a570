import "server-only";
import { BULK_MAX_CLUSTERS, type ClusterFilterInput } from "@/lib/contracts/clusters";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { getSettings } from "@/lib/server/settings/settings";
import { filteredIds } from "./cluster-list-sql";
import { resolveClusterFilter } from "./list-clusters";

export type ClusterSelection = { ids?: string[]; filter?: ClusterFilterInput };

/** What the audit log records of a selection: the filter as it was sent, or the ids. */
export function selectionForAudit(s: ClusterSelection): Record<string, unknown> {
  return s.filter ? { filter: s.filter } : { ids: s.ids ?? [] };
}

/**
 * The ids a bulk action acts on, by name: the picked ids that still exist, or every cluster the
 * filter matches now (evaluated again at this moment, not when the page was shown). More than
 * BULK_MAX_CLUSTERS is refused: the action would hold the database too long.
 */
export async function selectClusters(s: ClusterSelection): Promise<string[]> {
  if (s.filter) {
    const settings = await getSettings();
    const ids = await filteredIds(
      await resolveClusterFilter(s.filter),
      { sort: "name", order: "asc" },
      BULK_MAX_CLUSTERS + 1,
      new Date(),
      settings,
    );
    if (ids.length > BULK_MAX_CLUSTERS)
      throw new ApiError("invalid_request", `The filter matches more than ${BULK_MAX_CLUSTERS} clusters; narrow it.`, [
        { field: "filter", message: `matches more than ${BULK_MAX_CLUSTERS} clusters` },
      ]);
    return ids;
  }
  const wanted = [...new Set(s.ids ?? [])];
  const found = await db().cluster.findMany({ where: { id: { in: wanted } }, select: { id: true }, orderBy: { name: "asc" } });
  return found.map((c) => c.id);
}
