import "server-only";
import type { z } from "zod";
import type { BulkLabelsResult, bulkLabelsSchema } from "@/lib/contracts/clusters";
import { labelChangeProblem, planLabelChange, type ClusterLabels } from "@/lib/domain/bulk-labels";
import { ApiError } from "@/lib/server/api/errors";
import { recordAudit, type Actor } from "@/lib/server/audit/record-audit";
import { db } from "@/lib/server/db/client";
import { inTransaction } from "@/lib/server/db/transaction";
import { changeClusterLabels } from "./cluster-labels";
import { publish } from "@/lib/server/events/bus";
import { getSettings } from "@/lib/server/settings/settings";
import { clusterFacts, selectInScope, selectionForAudit } from "./select-clusters";
import type { Selector } from "@/lib/domain/selector";
import { refuseScopeKeyChanges } from "@/lib/server/teams/scope-keys";

/** Changed clusters listed in the answer (the summary counts them all). */
const ROWS_SHOWN = 200;

async function clusterLabels(ids: string[]): Promise<ClusterLabels[]> {
  return (await clusterFacts(ids)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * POST /api/v1/clusters/bulk/labels: sets and removes labels on the selected clusters as ONE
 * change with ONE audit entry (the selection as sent, the count, the clusters changed). A filter
 * is evaluated now. Refused whole (422 missing_required_labels) when it would leave any cluster
 * without a required label it has: the single-cluster edit's rule. `dryRun` answers the same
 * preview and writes nothing.
 */
export async function bulkLabelClusters(
  actor: Actor,
  input: z.output<typeof bulkLabelsSchema>,
  /** the caller's teams' selectors (lib/server/auth/authorize.ts); null: the whole fleet */
  scope: readonly Selector[] | null = null,
): Promise<BulkLabelsResult> {
  const change = { set: input.set, remove: input.remove };
  const { requiredLabels } = await getSettings();
  const problem = labelChangeProblem(change, requiredLabels);
  if (problem?.kind === "invalid") throw new ApiError("invalid_request", `The label change is invalid: ${problem.message}.`);
  if (problem?.kind === "required")
    throw new ApiError("missing_required_labels", `Required labels cannot be removed: ${problem.keys.join(", ")}.`, {
      missing: problem.keys,
    });

  // Through a team: only the clusters in its scopes; a filter's other matches are counted as left
  // out, and picked ids outside them are dropped as unknown ones are.
  const selection = await selectInScope(input, scope);
  const inScope = await clusterLabels(selection.ids);
  const leftOut = selection.leftOut;
  const plan = planLabelChange(inScope, change, requiredLabels);
  if (actor.allowedAs?.team)
    await refuseScopeKeyChanges(
      db(),
      plan.rows.map((r) => ({ name: r.name, before: r.before, after: r.after })),
    );
  if (plan.blocked.length)
    throw new ApiError(
      "missing_required_labels",
      `${plan.blocked.length} cluster${plan.blocked.length === 1 ? "" : "s"} would lose a required label (${plan.blocked[0]!.name}: ${plan.blocked[0]!.missing.join(", ")}).`,
      { blocked: plan.blocked.slice(0, ROWS_SHOWN) },
    );
  const result: BulkLabelsResult = {
    dryRun: input.dryRun,
    summary: plan.summary,
    rows: plan.rows.slice(0, ROWS_SHOWN),
    ...(scope ? { leftOut } : {}),
  };
  if (input.dryRun) return result;

  const now = new Date().toISOString();
  await inTransaction(async (tx, afterCommit) => {
    const ids = plan.rows.map((r) => r.id);
    await changeClusterLabels(tx, afterCommit, ids, change);
    await recordAudit(tx, actor, "cluster.labels.bulk", null, {
      ...selectionForAudit(input),
      count: plan.summary.matched,
      changed: plan.summary.changed,
      set: change.set,
      remove: change.remove,
      clusters: plan.rows.map((r) => ({ id: r.id, name: r.name })),
      ...(scope ? { leftOutOfScope: leftOut } : {}),
    });
    afterCommit(() => {
      for (const r of plan.rows) publish({ type: "cluster.updated", clusterId: r.id, name: r.name, at: now });
    });
  });
  return result;
}
