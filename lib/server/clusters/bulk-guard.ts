import "server-only";
import {
  isEmptyFilter,
  type BulkDeregistrationResult,
  type ClusterFilterInput,
  type SelectionBreakdown,
} from "@/lib/contracts/clusters";
import type { Role } from "@/lib/domain/roles";
import { phraseMatches, selectionGuard, type SelectionGuard } from "@/lib/domain/selection-guard";
import { matchesSelector, parseSelector } from "@/lib/domain/selector";
import { ApiError, knownError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { usableGroupSelector } from "@/lib/server/groups/group-selector";
import { getSettings } from "@/lib/server/settings/settings";
import { selectClusters } from "./select-clusters";

/** A destructive bulk action's selection as the person confirmed it. */
export type GuardedSelection = {
  ids?: string[];
  filter?: ClusterFilterInput;
  dryRun: boolean;
  confirmCount?: number;
  confirmPhrase?: string;
};

/**
 * The clusters a destructive bulk action (drain, retire a pool) acts on, behind one guard: "all
 * matching" needs a filter (filter_required); the real run needs the count the person confirmed to
 * equal the selection's count now (count_changed), so a filter that grew meanwhile asks again; and
 * a selection that covers the whole fleet (a catch-all `!no-such-label` included) or includes
 * production clusters needs an admin (admin_required) who typed the guard's sentence
 * (confirmation_mismatch). `words.verb` names the action in messages ("draining"), `words.action`
 * in the sentence ("drain"). A dry run answers the guard without enforcing it.
 */
export async function guardedSelection(
  input: GuardedSelection,
  words: { verb: string; action: string },
  role: Role | null,
): Promise<{ ids: string[]; guard: SelectionGuard | null }> {
  if (input.filter && isEmptyFilter(input.filter))
    throw new ApiError(
      "filter_required",
      `${capitalise(words.verb)} every cluster in the fleet needs a filter; narrow the list (status, labels, group…) or pick clusters.`,
      [{ field: "filter", message: "sets no condition: it would select the whole fleet" }],
    );
  const ids = await selectClusters(input);
  const guard = await guardOf(ids, words.action);
  if (input.dryRun) return { ids, guard };
  if (guard && role !== "admin")
    throw new ApiError(
      "admin_required",
      `${capitalise(words.verb)} ${guardText(guard)} needs an admin; you are ${role ?? "not one"}. Narrow the selection or ask an admin.`,
      { reasons: guard.reasons },
    );
  if (input.confirmCount !== ids.length)
    throw new ApiError(
      "count_changed",
      `The selection is ${ids.length} cluster${ids.length === 1 ? "" : "s"} now, not ${input.confirmCount}; confirm the new count.`,
      { count: ids.length, confirmed: input.confirmCount },
    );
  if (guard && !phraseMatches(input.confirmPhrase, guard.phrase))
    throw new ApiError(
      "confirmation_mismatch",
      `${capitalise(words.verb)} ${guardText(guard)}: type “${guard.phrase}” to confirm.`,
      [{ field: "confirmPhrase", message: `must be “${guard.phrase}”` }],
    );
  return { ids, guard };
}

/** What the audit entry of a guarded bulk action records of its guard. */
export function guardForAudit(guard: SelectionGuard | null): Record<string, unknown> {
  return guard ? { guard: { reasons: guard.reasons, production: guard.production, fleet: guard.fleet } } : {};
}

const guardText = (g: SelectionGuard) =>
  g.reasons.includes("wholeFleet")
    ? `the whole fleet (${g.fleet} clusters)`
    : `${g.production} production cluster${g.production === 1 ? "" : "s"}`;

async function guardOf(ids: string[], action: string): Promise<SelectionGuard | null> {
  const { productionSelector } = await getSettings();
  const selector = productionSelector ? parseSelector(productionSelector) : null;
  const [fleet, production] = await Promise.all([
    db().cluster.count(),
    selector && ids.length
      ? db()
          .cluster.findMany({ where: { id: { in: ids } }, select: { labels: { select: { key: true, value: true } } } })
          .then(
            (rows) =>
              rows.filter((c) => matchesSelector(Object.fromEntries(c.labels.map((l) => [l.key, l.value])), selector)).length,
          )
      : 0,
  ]);
  return selectionGuard(action, ids.length, fleet, production);
}

type BulkResult = BulkDeregistrationResult["results"][number];

/**
 * Runs `act` on each selected cluster in turn: a refusal it returns, or a 4xx it throws, is that
 * cluster's result, never the bulk action's failure (a 5xx still is); `{ startsAt }` says the
 * action waits for its turn. Also hands back the selection's breakdown for a dry run.
 */
export async function actOnEach(
  ids: string[],
  act: (id: string) => Promise<{ error: string; message: string } | { startsAt: string } | void>,
) {
  const rows = await db().cluster.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, labels: { select: { key: true, value: true } } },
  });
  const names = new Map(rows.map((c) => [c.id, c.name]));
  const results: BulkResult[] = [];
  for (const id of ids) {
    const name = names.get(id) ?? id;
    try {
      const outcome = await act(id);
      results.push(outcome && "error" in outcome ? { id, name, ok: false, ...outcome } : { id, name, ok: true, ...outcome });
    } catch (err) {
      const known = knownError(err);
      if (!(known instanceof ApiError) || known.status >= 500) throw err;
      results.push({ id, name, ok: false, error: known.code, message: known.message });
    }
  }
  return {
    results,
    started: results.filter((r) => r.ok && !r.startsAt).length,
    breakdown: () => selectionBreakdown(rows.map((r) => Object.fromEntries(r.labels.map((l) => [l.key, l.value])))),
  };
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

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
