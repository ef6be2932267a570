import "server-only";
import {
  isEmptyFilter,
  type BulkDeregistrationResult,
  type ClusterFilterInput,
  type SelectionBreakdown,
} from "@/lib/contracts/clusters";
import { matchesSelector } from "@/lib/domain/selector";
import { ApiError, knownError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { usableGroupSelector } from "@/lib/server/groups/group-selector";
import { selectClusters } from "./select-clusters";

/** A destructive bulk action's selection as the person confirmed it. */
export type GuardedSelection = {
  ids?: string[];
  filter?: ClusterFilterInput;
  dryRun: boolean;
  confirmCount?: number;
};

/**
 * The clusters a destructive bulk action (drain, retire a pool) acts on, behind one guard: "all
 * matching" needs a filter (filter_required) that does not match the whole fleet anyway
 * (filter_matches_fleet), and the real run needs the count the person confirmed to equal the
 * selection's count now (count_changed), so a filter that grew meanwhile asks again.
 * `verb` names the action in the messages ("draining", "retiring a pool on").
 */
export async function guardedSelection(input: GuardedSelection, verb: string): Promise<string[]> {
  if (input.filter && isEmptyFilter(input.filter))
    throw new ApiError(
      "filter_required",
      `${capitalise(verb)} every cluster in the fleet needs a filter; narrow the list (status, labels, group…) or pick clusters.`,
      [{ field: "filter", message: "sets no condition: it would select the whole fleet" }],
    );
  const ids = await selectClusters(input);
  if (input.filter) await refuseWholeFleet(ids.length, verb);
  if (!input.dryRun && input.confirmCount !== ids.length)
    throw new ApiError(
      "count_changed",
      `The selection is ${ids.length} cluster${ids.length === 1 ? "" : "s"} now, not ${input.confirmCount}; confirm the new count.`,
      { count: ids.length, confirmed: input.confirmCount },
    );
  return ids;
}

type BulkResult = BulkDeregistrationResult["results"][number];

/**
 * Runs `act` on each selected cluster in turn: a refusal it returns, or a 4xx it throws, is that
 * cluster's result, never the bulk action's failure (a 5xx still is). Also hands back the
 * selection's breakdown for a dry run.
 */
export async function actOnEach(ids: string[], act: (id: string) => Promise<{ error: string; message: string } | void>) {
  const rows = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, labels: { select: { key: true, value: true } } },
  });
  const names = new Map(rows.map((c) => [c.id, c.name]));
  const results: BulkResult[] = [];
  for (const id of ids) {
    const name = names.get(id) ?? id;
    try {
      const refused = await act(id);
      results.push(refused ? { id, name, ok: false, ...refused } : { id, name, ok: true });
    } catch (err) {
      const known = knownError(err);
      if (!(known instanceof ApiError) || known.status >= 500) throw err;
      results.push({ id, name, ok: false, error: known.code, message: known.message });
    }
  }
  return {
    results,
    started: results.filter((r) => r.ok).length,
    breakdown: () => selectionBreakdown(rows.map((r) => Object.fromEntries(r.labels.map((l) => [l.key, l.value])))),
  };
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A filter that matches every cluster is the whole fleet by another spelling (`!no-such-label`,
 * or `env` when every cluster has one): refused like an empty filter, as a typo in a selector
 * would otherwise act on everything. A fleet of one is left to the confirmed count.
 */
async function refuseWholeFleet(matched: number, verb: string): Promise<void> {
  if (matched < 2) return;
  const fleet = await db().cluster.count();
  if (matched < fleet) return;
  throw new ApiError(
    "filter_matches_fleet",
    `This filter matches every cluster in the fleet (${fleet}); ${verb} them all is not a bulk action. Narrow the filter or pick clusters.`,
    [{ field: "filter", message: `matches all ${fleet} clusters of the fleet` }],
  );
}

/** Counts by the env and region labels and by group, largest first. */
export async function selectionBreakdown(labels: Record<string, string>[]): Promise<SelectionBreakdown> {
  const byLabel = (key: string) => {
    const counts = new Map<string | null, number>();
    for (const l of labels) counts.set(l[key] ?? null, (counts.get(l[key] ?? null) ?? 0) + 1);
    return [...counts].map(([value, count]) => ({ value, count })).sort(largestFirst((c) => c.value ?? ""));
  };
  const groups = (await db().clusterGroup.findMany({ select: { id: true, name: true, selector: true } })).flatMap((g) => {
    const selector = usableGroupSelector(g);
    return selector ? [{ name: g.name, selector }] : [];
  });
  let ungrouped = 0;
  const counts = new Map<string, number>();
  for (const l of labels) {
    const mine = groups.filter((g) => matchesSelector(l, g.selector));
    if (!mine.length) ungrouped++;
    for (const g of mine) counts.set(g.name, (counts.get(g.name) ?? 0) + 1);
  }
  return {
    env: byLabel("env"),
    region: byLabel("region"),
    group: [...counts].map(([name, count]) => ({ name, count })).sort(largestFirst((c) => c.name)),
    ungrouped,
  };
}

const largestFirst =
  <T extends { count: number }>(name: (t: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || name(a).localeCompare(name(b));
