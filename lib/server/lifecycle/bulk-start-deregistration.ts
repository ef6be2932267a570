import "server-only";
import type { z } from "zod";
import {
  isEmptyFilter,
  type BulkDeregistrationResult,
  type bulkDeregistrationSchema,
  type SelectionBreakdown,
} from "@/lib/contracts/clusters";
import { matchesSelector } from "@/lib/domain/selector";
import { ApiError, knownError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { selectClusters, selectionForAudit } from "@/lib/server/clusters/select-clusters";
import { db } from "@/lib/server/db/client";
import { usableGroupSelector } from "@/lib/server/groups/group-selector";
import { actOnDeregistration, getDeregistration } from "./deregistration";

type Result = BulkDeregistrationResult["results"][number];

/**
 * POST /api/v1/clusters/bulk/deregistration: the wizard's first step ("start": drain) for each
 * selected cluster, one at a time through the same service as the wizard (each start audited
 * there), plus one audit entry for the bulk action with the selection and the outcome. A cluster
 * that cannot start (already draining, removed meanwhile) is reported, not fatal. `dryRun` says
 * which would start and breaks the selection down; the real run needs the count the person
 * confirmed to equal the selection's count now, so a filter that grew meanwhile asks again.
 */
export async function bulkStartDeregistration(
  actor: Actor,
  input: z.output<typeof bulkDeregistrationSchema>,
): Promise<BulkDeregistrationResult> {
  if (input.filter && isEmptyFilter(input.filter))
    throw new ApiError(
      "filter_required",
      "Draining every cluster in the fleet needs a filter; narrow the list (status, labels, group…) or pick clusters.",
      [{ field: "filter", message: "sets no condition: it would select the whole fleet" }],
    );
  const ids = await selectClusters(input);
  if (input.filter) await refuseWholeFleet(ids.length);
  if (!input.dryRun && input.confirmCount !== ids.length)
    throw new ApiError(
      "count_changed",
      `The selection is ${ids.length} cluster${ids.length === 1 ? "" : "s"} now, not ${input.confirmCount}; confirm the new count.`,
      { count: ids.length, confirmed: input.confirmCount },
    );
  const rows = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, labels: { select: { key: true, value: true } } },
  });
  const names = new Map(rows.map((c) => [c.id, c.name]));
  const results: Result[] = [];
  for (const id of ids) {
    const name = names.get(id) ?? id;
    try {
      if (input.dryRun) {
        const state = await getDeregistration(id);
        results.push(
          state.availableActions.includes("start")
            ? { id, name, ok: true }
            : { id, name, ok: false, error: "invalid_transition", message: `Its wizard is at "${state.step}".` },
        );
      } else {
        await actOnDeregistration(actor, id, { action: "start", ...(input.reason ? { reason: input.reason } : {}) });
        results.push({ id, name, ok: true });
      }
    } catch (err) {
      const known = knownError(err);
      if (!(known instanceof ApiError) || known.status >= 500) throw err;
      results.push({ id, name, ok: false, error: known.code, message: known.message });
    }
  }
  const started = results.filter((r) => r.ok).length;
  if (input.dryRun)
    return {
      dryRun: true,
      matched: ids.length,
      breakdown: await breakdown(rows.map((r) => Object.fromEntries(r.labels.map((l) => [l.key, l.value])))),
      started,
      results,
    };
  await recordAudit(db(), actor, "cluster.deregistration.bulk_start", null, {
    ...selectionForAudit(input),
    count: ids.length,
    started,
    ...(input.reason ? { reason: input.reason } : {}),
    failed: results.filter((r) => !r.ok).map((r) => ({ id: r.id, name: r.name, error: r.error })),
  });
  return { dryRun: false, matched: ids.length, started, results };
}

/**
 * A filter that matches every cluster is the whole fleet by another spelling (`!no-such-label`,
 * or `env` when every cluster has one): refused like an empty filter, as a typo in a selector
 * would otherwise drain everything. A fleet of one is left to the confirmed count.
 */
async function refuseWholeFleet(matched: number): Promise<void> {
  if (matched < 2) return;
  const fleet = await db().cluster.count();
  if (matched < fleet) return;
  throw new ApiError(
    "filter_matches_fleet",
    `This filter matches every cluster in the fleet (${fleet}); draining them all is not a bulk action. Narrow the filter or pick clusters.`,
    [{ field: "filter", message: `matches all ${fleet} clusters of the fleet` }],
  );
}

/** Counts by the env and region labels and by group, largest first. */
async function breakdown(labels: Record<string, string>[]): Promise<SelectionBreakdown> {
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
