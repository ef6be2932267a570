import "server-only";
import { BULK_MAX_CLUSTERS, type ClusterFilterInput } from "@/lib/contracts/clusters";
import { matchesSelector, type Selector } from "@/lib/domain/selector";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { inChunks } from "@/lib/server/db/chunks";
import { getSettings } from "@/lib/server/settings/settings";
import { countFiltered, filteredIds } from "./cluster-list-sql";
import { resolveClusterFilter } from "./list-clusters";

export type ClusterSelection = { ids?: string[]; filter?: ClusterFilterInput };

/** What a bulk action acts on: the clusters, by name; the ids picked that name none of them; the filter's matches left out. */
export type SelectedClusters = {
  ids: string[];
  /**
   * Picked ids that name no cluster the caller may act on: unknown ones, and (through a team)
   * those outside its scopes, which are answered exactly alike so that a scope never tells
   * whether a cluster exists.
   */
  unknown: string[];
  /** Through a team: how many clusters the filter also matches outside its scopes (counted, never named); 0 otherwise. */
  leftOut: number;
};

/** A cluster's name and labels, as bulk actions judge it. */
export type ClusterFacts = { id: string; name: string; labels: Record<string, string> };

/** The names and labels of these clusters (any number of ids, read in chunks), in no order. */
export async function clusterFacts(ids: readonly string[]): Promise<ClusterFacts[]> {
  const rows = (
    await Promise.all(
      inChunks(ids).map((chunk) =>
        db().cluster.findMany({
          where: { id: { in: chunk } },
          select: { id: true, name: true, labels: { select: { key: true, value: true } } },
        }),
      ),
    )
  ).flat();
  return rows.map((c) => ({ id: c.id, name: c.name, labels: Object.fromEntries(c.labels.map((l) => [l.key, l.value])) }));
}

/** What the audit log records of a selection: the filter as it was sent, or the ids. */
export function selectionForAudit(s: ClusterSelection): Record<string, unknown> {
  return s.filter ? { filter: s.filter } : { ids: s.ids ?? [] };
}

/**
 * The clusters a bulk action acts on, by name: the picked ids that still exist, or every cluster
 * the filter matches now (evaluated again at this moment, not when the page was shown). Through a
 * team (`scope`: its selectors; null: the whole fleet) only the clusters in its scopes: the
 * filter's other matches are counted as left out, and picked ids outside them read as unknown.
 * More than BULK_MAX_CLUSTERS is refused: the action would hold the database too long.
 */
export async function selectInScope(s: ClusterSelection, scope: readonly Selector[] | null): Promise<SelectedClusters> {
  if (s.filter) {
    const settings = await getSettings();
    const now = new Date();
    const filter = await resolveClusterFilter(s.filter);
    const ids = await filteredIds(
      scope ? { ...filter, scope } : filter,
      { sort: "name", order: "asc" },
      BULK_MAX_CLUSTERS + 1,
      now,
      settings,
    );
    if (ids.length > BULK_MAX_CLUSTERS)
      throw new ApiError("invalid_request", `The filter matches more than ${BULK_MAX_CLUSTERS} clusters; narrow it.`, [
        { field: "filter", message: `matches more than ${BULK_MAX_CLUSTERS} clusters` },
      ]);
    // Counted a moment later than the ids: a cluster removed in between must not make it negative.
    const leftOut = scope ? Math.max(0, (await countFiltered(filter, now, settings)) - ids.length) : 0;
    return { ids, unknown: [], leftOut };
  }
  const wanted = [...new Set(s.ids ?? [])];
  // At most 1,000 ids (the selection's schema): one statement, ordered by the database as a filter's are.
  const found = (
    await db().cluster.findMany({
      where: { id: { in: wanted } },
      select: { id: true, labels: { select: { key: true, value: true } } },
      orderBy: { name: "asc" },
    })
  ).filter((c) => !scope || scope.some((sel) => matchesSelector(Object.fromEntries(c.labels.map((l) => [l.key, l.value])), sel)));
  const ids = found.map((c) => c.id);
  const acted = new Set(ids);
  return { ids, unknown: wanted.filter((id) => !acted.has(id)), leftOut: 0 };
}

/** The ids a whole-fleet selection names (selectInScope for a fleet role), by name. */
export async function selectClusters(s: ClusterSelection): Promise<string[]> {
  return (await selectInScope(s, null)).ids;
}
