import "server-only";
import {
  isEmptyFilter,
  type BulkDeregistrationResult,
  type ClusterFilterInput,
  type SelectionBreakdown,
} from "@/lib/contracts/clusters";
import { hasRole, type Role } from "@/lib/domain/roles";
import { phraseMatches, selectionGuard, type SelectionGuard } from "@/lib/domain/selection-guard";
import { matchesSelector, parseSelector, type Selector } from "@/lib/domain/selector";
import { accessOn, type Access, type AccessReason, type TeamGrant } from "@/lib/domain/teams";
import { ApiError, knownError } from "@/lib/server/api/errors";
import type { Actor } from "@/lib/server/audit/record-audit";
import { NO_SUCH_CLUSTER } from "@/lib/server/auth/authorize";
import { db } from "@/lib/server/db/client";
import { usableGroupSelector } from "@/lib/server/groups/group-selector";
import { getSettings } from "@/lib/server/settings/settings";
import { countFiltered } from "./cluster-list-sql";
import { clusterFacts, selectInScope, type ClusterFacts, type SelectedClusters } from "./select-clusters";

/** A destructive bulk action's selection as the person confirmed it. */
export type GuardedSelection = {
  ids?: string[];
  filter?: ClusterFilterInput;
  dryRun: boolean;
  confirmCount?: number;
  confirmPhrase?: string;
};

/** Who runs a guarded bulk action: the actor, the fleet role, and the teams (lib/server/auth/principal.ts). */
export type BulkCaller = { actor: Actor; role: Role | null; teams?: readonly TeamGrant[] };

/** The selection behind its guard, and who each cluster is acted on as. */
export type Guarded = SelectedClusters & {
  guard: SelectionGuard | null;
  clusters: Map<string, ClusterFacts>;
  /** The caller as the actor on one cluster: allowed under the role and team that reach it (audited). */
  actorOn: (id: string) => Actor;
  /** The caller as the actor of the bulk action's own audit entry, and what it is allowed under. */
  bulkActor: Actor;
  allowedUnder: AccessReason[];
};

/**
 * The clusters a destructive bulk action (drain, retire a pool) acts on, behind one guard: "all
 * matching" needs a filter (filter_required); the real run needs the count the person confirmed to
 * equal the selection's count now (count_changed), so a filter that grew meanwhile asks again; and
 * a selection that covers the whole fleet (a catch-all `!no-such-label` included) or includes
 * production clusters needs an admin (admin_required) who typed the guard's sentence
 * (confirmation_mismatch). `words.verb` names the action in messages ("draining"), `words.action`
 * in the sentence ("drain"). A dry run answers the guard without enforcing it.
 *
 * Through a team (`scope`: the selectors of the caller's teams that let them operate; null: a
 * fleet role) the selection is only the clusters in those scopes (select-clusters.ts); "the whole
 * fleet" is the whole of that scope; and "an admin" is an admin of every selected cluster: a team
 * admin of a team whose scope holds it (or a fleet admin). So a team operator never confirms a
 * guarded selection, and a team admin confirms one only over their own team's clusters. A fleet
 * role below admin counts its teams the same way, as a cluster's page does.
 */
export async function guardedSelection(
  input: GuardedSelection,
  words: { verb: string; action: string },
  caller: BulkCaller,
  scope: readonly Selector[] | null = null,
): Promise<Guarded> {
  const everything = scope ? "every cluster of your teams" : "every cluster in the fleet";
  if (input.filter && isEmptyFilter(input.filter))
    throw new ApiError(
      "filter_required",
      `${capitalise(words.verb)} ${everything} needs a filter; narrow the list (status, labels, group…) or pick clusters.`,
      [{ field: "filter", message: `sets no condition: it would select ${everything}` }],
    );
  const selected = await selectInScope(input, scope);
  const { ids } = selected;
  const clusters = new Map((await clusterFacts(ids)).map((c) => [c.id, c]));
  const base = await guardOf(ids, clusters, words.action, scope);
  const access: Access = { fleetRole: caller.role, teams: caller.teams ?? [] };
  // As authorize.ts does for one cluster: a fleet role that suffices first, else the best team.
  const needed: Role = base ? "admin" : "operator";
  const reasons = new Map(
    ids.map((id) => [
      id,
      caller.role && hasRole(caller.role, needed)
        ? { role: caller.role, team: null }
        : accessOn(access, clusters.get(id)?.labels ?? {}),
    ]),
  );
  const confirmable = ids.every((id) => hasRole(reasons.get(id)?.role ?? null, "admin"));
  const guard = base ? { ...base, ...(scope ? { withinTeams: true } : {}), confirmable } : null;
  const allowedUnder = distinctReasons([...reasons.values()]);
  const actorOn = (id: string): Actor => {
    const reason = reasons.get(id);
    return reason ? { ...caller.actor, allowedAs: { role: reason.role, team: reason.team } } : caller.actor;
  };
  const bulkActor: Actor = allowedUnder.length === 1 ? { ...caller.actor, allowedAs: { ...allowedUnder[0]! } } : caller.actor;
  const result = { ...selected, guard, clusters, actorOn, bulkActor, allowedUnder };
  if (input.dryRun) return result;
  if (guard && !confirmable)
    throw new ApiError(
      "admin_required",
      `${capitalise(words.verb)} ${guardText(guard)} needs an admin${scope ? " of every cluster in it (a team admin of the team that holds it)" : ""}; you are ${adminGap(caller, reasons)}. Narrow the selection or ask an admin.`,
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
  return result;
}

/** What the audit entry of a guarded bulk action records of its guard, and what a team left out. */
export function guardForAudit(
  g: Pick<Guarded, "guard" | "leftOut" | "unknown" | "allowedUnder">,
  scope: readonly Selector[] | null,
) {
  const { guard } = g;
  return {
    ...(guard
      ? {
          guard: {
            reasons: guard.reasons,
            production: guard.production,
            fleet: guard.fleet,
            ...(guard.withinTeams ? { withinTeams: true } : {}),
          },
        }
      : {}),
    ...(scope ? { leftOutOfScope: g.leftOut } : {}),
    ...(g.unknown.length ? { unknown: g.unknown.length } : {}),
    ...(g.allowedUnder.length > 1 ? { allowedUnder: g.allowedUnder } : {}),
  };
}

const guardText = (g: SelectionGuard) =>
  g.reasons.includes("wholeFleet")
    ? g.withinTeams
      ? `every cluster of your teams (${g.fleet})`
      : `the whole fleet (${g.fleet} clusters)`
    : `${g.production} production cluster${g.production === 1 ? "" : "s"}`;

/** What the caller is where they fall short of admin, in the refusal's words. */
function adminGap(caller: BulkCaller, reasons: Map<string, AccessReason | null>): string {
  const short = [...reasons.values()].find((r) => !hasRole(r?.role ?? null, "admin"));
  if (!short) return caller.role ?? "not one";
  return short.team ? `${short.role} in team ${short.team}` : short.role;
}

function distinctReasons(reasons: (AccessReason | null)[]): AccessReason[] {
  const seen = new Map<string, AccessReason>();
  for (const r of reasons) if (r) seen.set(JSON.stringify([r.role, r.team]), r);
  return [...seen.values()];
}

async function guardOf(
  ids: string[],
  clusters: Map<string, ClusterFacts>,
  action: string,
  scope: readonly Selector[] | null,
): Promise<SelectionGuard | null> {
  const settings = await getSettings();
  const selector = settings.productionSelector ? parseSelector(settings.productionSelector) : null;
  // Through a team, its "fleet" is every cluster of its scopes.
  const fleet = scope ? await countFiltered({ scope }, new Date(), settings) : await db().cluster.count();
  const production = selector ? ids.filter((id) => matchesSelector(clusters.get(id)?.labels ?? {}, selector)).length : 0;
  return selectionGuard(action, ids.length, fleet, production);
}

type BulkResult = BulkDeregistrationResult["results"][number];

/**
 * Runs `act` on each selected cluster in turn, as the caller on that cluster: a refusal it
 * returns, or a 4xx it throws, is that cluster's result, never the bulk action's failure (a 5xx
 * still is); `{ startsAt }` says the action waits for its turn. Each picked id that names no
 * cluster the caller may act on is a not_found result, in the words a single action's 404 uses.
 * Also hands back the selection's breakdown for a dry run.
 */
export async function actOnEach(
  selected: Pick<Guarded, "ids" | "unknown" | "clusters" | "actorOn">,
  act: (id: string, actor: Actor) => Promise<{ error: string; message: string } | { startsAt: string } | void>,
) {
  const results: BulkResult[] = [];
  for (const id of selected.ids) {
    const name = selected.clusters.get(id)?.name ?? id;
    try {
      const outcome = await act(id, selected.actorOn(id));
      results.push(outcome && "error" in outcome ? { id, name, ok: false, ...outcome } : { id, name, ok: true, ...outcome });
    } catch (err) {
      const known = knownError(err);
      if (!(known instanceof ApiError) || known.status >= 500) throw err;
      results.push({ id, name, ok: false, error: known.code, message: known.message });
    }
  }
  for (const id of selected.unknown) results.push({ id, name: id, ok: false, error: "not_found", message: NO_SUCH_CLUSTER });
  return {
    results,
    started: results.filter((r) => r.ok && !r.startsAt).length,
    breakdown: () => selectionBreakdown(selected.ids.map((id) => selected.clusters.get(id)?.labels ?? {})),
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
